package org.replayfarm.gpunode.translate;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Shared instruction bodies: instructions whose emitted C differs only in its integer literals (register
 * numbers, offsets, immediates, PCs) become calls of one {@code RT_SHAPE} function per distinct body, the
 * literals passed as arguments of their own C type. An -O0 kernel's ten thousand instructions (spills, lane
 * moves, 64-bit moves) are a hundred or so distinct bodies: g++ and nvcc compile each body once instead of
 * once per instruction. The call does what the block did: the shape ticks first (RT_TICK) and runs the
 * body; the block's closing RT_CHECK stays in the caller (it jumps to the wave function's label).
 *
 * <p>Only straight-line bodies are shared: a body that jumps, ends, waits at a barrier, returns or holds a
 * preprocessor line stays inline. Literals are replaced only where the value, not the spelling, matters:
 * plain decimal ints (not a bare {@code 0}, which may be a null pointer), {@code u} literals up to 2^32 and
 * {@code ull} literals; never inside brackets (array sizes), strings or comments, and never as part of a
 * float or an identifier. The type of each parameter is the literal's own C type, so every expression means
 * what it meant inline.
 */
final class Shapes {
    /** A body that must stay inline: control leaves the block, or the text is not plain C statements. */
    private static final Pattern INLINE_ONLY = Pattern.compile(
            "goto|return|RT_FAULT_NOW|RT_END|RT_BARRIER|RT_BACKEDGE|RT_CHECK|rt_resume|rt_stop|rt_end|case |#|\"|'");
    private static final Pattern LITERAL = Pattern.compile("(?<![\\w.])(0[xX][0-9a-fA-F]+|[0-9]+)(ull|u)?(?![\\w.])");
    private static final Pattern NAMES_G = Pattern.compile("\\bG\\b");
    private static final Pattern NAMES_L = Pattern.compile("\\bL\\b");
    /** A scalar load's fault exit: rt_smem_load and rt_smem_buffer_load return 1 only after rt_fault (W->stop set). */
    private static final Pattern SMEM_STOP = Pattern.compile("(if \\(rt_smem_(?:buffer_)?load\\(.*\\)\\) )goto rt_stop;");
    private static final Pattern COMMENT = Pattern.compile("/\\*.*?\\*/");

    /** One instruction's body as a shape: the shared text (its key), the parameter types and this call's arguments. */
    record Use(String key, String body, List<String> types, List<String> args, boolean check) {
    }

    /**
     * The shape of an instruction's lines, or null when they must stay inline.
     *
     * @param lines the instruction's emitted lines (without RT_TICK), possibly ending in RT_CHECK();
     */
    static Use of(List<String> lines) {
        List<String> body = new ArrayList<>(lines);
        boolean check = !body.isEmpty() && body.get(body.size() - 1).trim().equals("RT_CHECK();");
        if (check) {
            body.remove(body.size() - 1);
        }
        StringBuilder text = new StringBuilder();
        boolean early = false;
        for (String l : body) {
            String c = COMMENT.matcher(l).replaceAll("");
            if (c.contains("/*") || c.contains("//")) {
                return null;
            }
            c = c.strip();
            if (c.equals("RT_CHECK();")) {
                // a check inside the body (before a mask or SGPR write): the shape returns when the wave stopped,
                // and the caller's RT_CHECK then leaves as the inline check would have
                c = "RT_SHAPE_CHECK();";
                early = true;
            } else {
                Matcher stop = SMEM_STOP.matcher(c);
                if (stop.matches()) {
                    // a scalar load that faulted (rt_fault set W->stop): return, the caller's RT_CHECK stops the wave
                    c = stop.group(1) + "RT_SHAPE_RETURN();";
                    early = true;
                }
            }
            text.append("    ").append(c).append('\n');
        }
        if (INLINE_ONLY.matcher(text).find()) {
            return null;
        }
        check |= early;
        List<String> types = new ArrayList<>();
        List<String> args = new ArrayList<>();
        StringBuilder out = new StringBuilder();
        Matcher m = LITERAL.matcher(text);
        int at = 0;
        int depth = 0;
        while (m.find()) {
            for (int i = at; i < m.start(); i++) {
                char ch = text.charAt(i);
                depth += ch == '[' ? 1 : ch == ']' ? -1 : 0;
            }
            out.append(text, at, m.start());
            at = m.end();
            String type = depth == 0 ? type(m.group(1), m.group(2)) : null;
            if (type == null) {
                out.append(m.group());
                continue;
            }
            out.append('p').append(types.size());
            types.add(type);
            args.add(m.group());
        }
        out.append(text, at, text.length());
        String shared = out.toString();
        return new Use(String.join(",", types) + "\n" + shared, shared, types, args, check);
    }

    /** The C type of a literal that may become a parameter, or null to keep it in the text. */
    private static String type(String digits, String suffix) {
        boolean hex = digits.startsWith("0x") || digits.startsWith("0X");
        java.math.BigInteger v = hex ? new java.math.BigInteger(digits.substring(2), 16)
                : new java.math.BigInteger(digits);
        if (suffix == null) {
            // a bare 0 may be a null pointer constant; hex and large decimals change type with their value
            if (hex || v.signum() == 0 || v.bitLength() > 31 || (digits.length() > 1 && digits.startsWith("0"))) {
                return null;
            }
            return "int";
        }
        if (!hex && digits.length() > 1 && digits.startsWith("0")) {
            return null; // octal
        }
        if (suffix.equals("u")) {
            return v.bitLength() <= 32 ? "unsigned int" : null;
        }
        return v.bitLength() <= 64 ? "unsigned long long" : null;
    }

    /** The shapes of one translation, numbered in order of first use (deterministic output). */
    static final class Table {
        private final Map<String, Integer> uses = new LinkedHashMap<>();
        private final Map<String, Integer> numbers = new LinkedHashMap<>();
        private final Map<String, Use> first = new LinkedHashMap<>();

        void count(Use u) {
            uses.merge(u.key(), 1, Integer::sum);
            first.putIfAbsent(u.key(), u);
        }

        /** Whether a shape is shared (used twice or more): a body used once stays inline. */
        boolean shared(Use u) {
            return uses.getOrDefault(u.key(), 0) >= 2;
        }

        /** The call of a shared shape: {@code rt_iN(C, args);}. */
        String call(Use u) {
            int n = numbers.computeIfAbsent(u.key(), k -> numbers.size());
            StringBuilder b = new StringBuilder("rt_i").append(n).append("(C");
            for (String a : u.args()) {
                b.append(", ").append(a);
            }
            return b.append(");").toString();
        }

        /** The definitions of every shape {@link #call} named, in number order. */
        String definitions() {
            StringBuilder b = new StringBuilder();
            for (Map.Entry<String, Integer> e : numbers.entrySet()) {
                Use u = first.get(e.getKey());
                b.append("RT_SHAPE(rt_i").append(e.getValue()).append(")(rt_ctx_t *C");
                for (int i = 0; i < u.types().size(); i++) {
                    b.append(", ").append(u.types().get(i)).append(" p").append(i);
                }
                // W always (RT_TICK), G and L only where the body names them (nvcc warns of unused ones)
                b.append(") {\n    rt_wave_t *W = C->w;");
                if (NAMES_G.matcher(u.body()).find()) {
                    b.append(" rt_group_t *G = C->g;");
                }
                if (NAMES_L.matcher(u.body()).find()) {
                    b.append(" const rt_launch_t *L = C->l;");
                }
                b.append("\n    RT_TICK();\n").append(u.body()).append("}\n");
            }
            return b.toString();
        }

        int count() {
            return numbers.size();
        }

        /** The words of every run (see {@link #run}), in order. */
        private final List<Long> runWords = new ArrayList<>();
        /** The shapes some run names, by number. */
        private final java.util.TreeSet<Integer> inRuns = new java.util.TreeSet<>();

        /**
         * Appends a run of consecutive shared instructions to the run table and returns its first word's index, the
         * argument of {@code RT_RUN}. Each instruction is one op word (its shape number, {@link #RUN_CHECK} when the
         * caller checks after it, {@link #RUN_LAST} on the run's last) and its arguments: an {@code int} or
         * {@code unsigned int} one word, an {@code unsigned long long} two (low, high).
         */
        int run(List<Use> run) {
            return runFrom(run)[0];
        }

        /** As {@link #run}, returning every instruction's op word index (where {@code rt_run} may enter the run). */
        int[] runFrom(List<Use> run) {
            int[] at = new int[run.size()];
            for (int i = 0; i < run.size(); i++) {
                Use u = run.get(i);
                at[i] = runWords.size();
                int n = numbers.computeIfAbsent(u.key(), k -> numbers.size());
                inRuns.add(n);
                long op = n | (u.check() ? RUN_CHECK : 0) | (i == run.size() - 1 ? RUN_LAST : 0);
                runWords.add(op);
                for (int a = 0; a < u.args().size(); a++) {
                    long v = value(u.args().get(a));
                    if (u.types().get(a).equals("unsigned long long")) {
                        runWords.add(v & 0xffffffffL);
                        runWords.add(v >>> 32);
                    } else {
                        runWords.add(v & 0xffffffffL);
                    }
                }
            }
            return at;
        }

        /**
         * The run table and {@code rt_run}, which executes one run: for each instruction, the call of its shape with
         * its arguments from the table, then the caller's check where the instruction has one (1: the wave stopped,
         * the caller leaves as RT_CHECK would). Empty when no run was made. Compiled where {@code RT_SHAPE_RUNS}
         * (replay_rt.h: unless {@code RT_INLINE_SHAPES}); the definitions of the shapes must come before.
         */
        String runDefinitions() {
            if (runWords.isEmpty()) {
                return "";
            }
            StringBuilder b = new StringBuilder("\n#if RT_SHAPE_RUNS\n/* runs of shared bodies (replay_rt.h, RT_RUN): "
                    + "per instruction its shape's number (| RT_RUN_CHECK, | RT_RUN_LAST), then its arguments */\n");
            b.append("RT_RUN_TABLE uint32_t rt_runs[").append(runWords.size()).append("] = {");
            for (int i = 0; i < runWords.size(); i++) {
                b.append(i % 16 == 0 ? "\n    " : " ").append(runWords.get(i)).append(',');
            }
            b.append("\n};\nRT_RUN_FN int rt_run(rt_ctx_t *C, uint32_t at) {\n    rt_wave_t *W = C->w;\n"
                    + "    const uint32_t *p = rt_runs + at;\n    for (;;) {\n        uint32_t op = *p++;\n"
                    + "        switch (op & RT_RUN_SHAPE) {\n");
            Map<Integer, Use> byNumber = new LinkedHashMap<>();
            numbers.forEach((k, n) -> byNumber.put(n, first.get(k)));
            for (int n : inRuns) {
                Use u = byNumber.get(n);
                b.append("        case ").append(n).append(": rt_i").append(n).append("(C");
                int w = 0;
                for (String type : u.types()) {
                    switch (type) {
                        case "int" -> b.append(", (int)p[").append(w++).append(']');
                        case "unsigned int" -> b.append(", p[").append(w++).append(']');
                        default -> {
                            b.append(", rt_pair(p[").append(w).append("], p[").append(w + 1).append("])");
                            w += 2;
                        }
                    }
                }
                b.append("); p += ").append(w).append("; break;\n");
            }
            b.append("        default: rt_fault(C, RT_FAULT_OTHER, 0, -1, op); return 1; /* never: the table is ours */\n"
                    + "        }\n        if ((op & RT_RUN_CHECK) && RT_WAVE_ANY(W->stop)) return 1;\n"
                    + "        if (op & RT_RUN_LAST) return 0;\n    }\n}\n#endif\n");
            return b.toString();
        }
    }

    /** A run's op word: the instruction's caller checks after it (RT_RUN_CHECK in replay_rt.h). */
    static final long RUN_CHECK = 1L << 31;
    /** A run's op word: the run's last instruction (RT_RUN_LAST). */
    static final long RUN_LAST = 1L << 30;

    /** A literal's value (a parameter's argument: decimal or hex, with its suffix). */
    static long value(String literal) {
        String d = literal.replaceAll("(ull|u)$", "");
        return d.startsWith("0x") || d.startsWith("0X") ? Long.parseUnsignedLong(d.substring(2), 16)
                : Long.parseUnsignedLong(d);
    }
}
