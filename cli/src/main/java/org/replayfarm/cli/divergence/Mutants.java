package org.replayfarm.cli.divergence;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Planted translation bugs: single-instruction mutations of a translation's kernel.cu (the folder {@code replay
 * translate --out} writes), the kinds of mistakes a translator makes. An instruction is found by its {@code RT_AT(pc)}
 * marker: an inline block is mutated in place; a call of a shared body ({@code rt_iN}) gets its own mutated copy of
 * that body, so the other instructions sharing it are untouched. A mutated kernel defines RT_SHAPE_RUNS 0 (the calls
 * one by one), so every build of it, traced or not, executes the mutated code.
 */
public final class Mutants {
    /** The mutation operators: what each plants. */
    public enum Operator {
        /** bits 4 and 22 of the first destination flipped (an integer's low bits, a float's top mantissa bit) */
        BITFLIP,
        /** the first two operands of the operation swapped */
        SWAP,
        /** every lane written, EXEC ignored */
        EXEC,
        /** a scalar condition (SCC, a branch's test) inverted */
        CONDITION,
        /** round toward +infinity instead of the MODE's rounding */
        ROUNDING,
        /** the f32 denormal mode flipped */
        DENORMAL,
        /** a cross-lane read one lane off */
        LANE
    }

    /** An instruction of the translation: its PC, its comment, and where its code lies. */
    public record Site(long pc, String instruction, boolean shared, int start, int end, String shape) {
    }

    private static final Pattern INLINE = Pattern.compile("\\n    \\{ /\\* (.*?) \\*/\\n        RT_AT\\(0x([0-9a-f]+)ull\\); RT_TICK\\(\\);\\n");
    private static final Pattern CALL = Pattern.compile("\\n    RT_AT\\(0x([0-9a-f]+)ull\\); (rt_i\\d+)\\(C[^\\n]*?/\\* (.*?) \\*/\\n");
    private static final Pattern ASSIGN = Pattern.compile("((?:V\\([\\w ]+, [\\w ]+\\))|(?:S\\(\\w+\\))) = ([^;=][^;]*);");

    private Mutants() {
    }

    /** Every instruction site of a kernel.cu, in program order. */
    public static List<Site> sites(String kernel) {
        List<Site> out = new ArrayList<>();
        Matcher m = INLINE.matcher(kernel);
        while (m.find()) {
            int end = kernel.indexOf("\n    }\n", m.end() - 1);
            out.add(new Site(Long.parseUnsignedLong(m.group(2), 16), m.group(1), false, m.end(), end, null));
        }
        m = CALL.matcher(kernel);
        while (m.find()) {
            out.add(new Site(Long.parseUnsignedLong(m.group(1), 16), m.group(3), true, m.start() + 1, m.end(), m.group(2)));
        }
        out.sort(java.util.Comparator.comparingLong(Site::pc));
        return out;
    }

    /** The kernel with {@code op} planted at {@code site}, or empty when the operator does not apply there. */
    public static Optional<String> apply(String kernel, Site site, Operator op) {
        String runsOff = "#define RT_SHAPE_RUNS 0 /* a planted mutation (Mutants) */\n";
        if (!site.shared()) {
            String body = kernel.substring(site.start(), site.end());
            return mutate(body, op).map(b -> runsOff + kernel.substring(0, site.start()) + b + kernel.substring(site.end()));
        }
        String head = "RT_SHAPE(" + site.shape() + ")(";
        int def = kernel.indexOf(head);
        if (def < 0) {
            return Optional.empty();
        }
        int open = kernel.indexOf("{\n", def);
        int close = kernel.indexOf("\n}\n", open);
        String body = kernel.substring(open + 2, close);
        String name = site.shape() + "_planted";
        return mutate(body, op).map(b -> {
            String copy = "RT_SHAPE(" + name + ")" + kernel.substring(def + head.length() - 1, open + 2) + b + "\n}\n";
            String call = kernel.substring(site.start(), site.end()).replace(site.shape() + "(C", name + "(C");
            return runsOff + kernel.substring(0, close + 3) + copy + kernel.substring(close + 3, site.start()) + call
                    + kernel.substring(site.end());
        });
    }

    /**
     * The kernel with the last bit of {@code site}'s first destination flipped: one unit in the last place of a float,
     * the noise an approximate instruction may legitimately show (not a bug: the search must see past it).
     */
    static Optional<String> noise(String kernel, Site site) {
        if (site.shared()) {
            return Optional.empty();
        }
        String body = kernel.substring(site.start(), site.end());
        return Optional.ofNullable(flip(body, "0x1u")).map(b -> "#define RT_SHAPE_RUNS 0 /* a planted mutation (Mutants) */\n"
                + kernel.substring(0, site.start()) + b + kernel.substring(site.end()));
    }

    private static String flip(String body, String mask) {
        Matcher m = ASSIGN.matcher(body);
        return m.find() ? body.substring(0, m.start(2)) + "(" + m.group(2) + ") ^ " + mask + body.substring(m.end(2)) : null;
    }

    /** A block's code with the operator applied, or empty when it does not apply. */
    static Optional<String> mutate(String body, Operator op) {
        String out = switch (op) {
            case BITFLIP -> flip(body, "0x400010u");
            case SWAP -> swap(body);
            case EXEC -> body.contains("RT_FOR_ACTIVE(l)") ? body.replaceFirst("RT_FOR_ACTIVE\\(l\\)", "RT_FOR_LANES(l)")
                    : null;
            case CONDITION -> {
                if (body.contains("RT_SCC = (")) {
                    yield body.replaceFirst("RT_SCC = \\(", "RT_SCC = !(");
                }
                Matcher m = Pattern.compile("t_scc = ([^;]+);").matcher(body);
                while (m.find()) {
                    if (!m.group(1).equals("RT_SCC")) {
                        yield body.substring(0, m.start(1)) + "!(" + m.group(1) + ")" + body.substring(m.end(1));
                    }
                }
                Matcher b = Pattern.compile("if \\((.+?)\\) \\{ goto").matcher(body);
                yield b.find() ? body.substring(0, b.start(1)) + "!(" + b.group(1) + ")" + body.substring(b.end(1)) : null;
            }
            case ROUNDING -> body.contains("rt_mode_make(RT_MODE)")
                    ? body.replaceFirst("rt_mode_make\\(RT_MODE\\)", "rt_mode_make((RT_MODE & ~0x3u) | 0x1u)") : null;
            case DENORMAL -> body.contains("rt_mode_make(RT_MODE)")
                    ? body.replaceFirst("rt_mode_make\\(RT_MODE\\)", "rt_mode_make(RT_MODE ^ 0x30u)") : null;
            case LANE -> {
                Matcher m = Pattern.compile("(int t_src = |uint32_t t_s = )([^;]+);").matcher(body);
                if (m.find()) {
                    yield body.substring(0, m.start(2)) + "((" + m.group(2) + ") + 1) % RT_WAVE" + body.substring(m.end(2));
                }
                Matcher r = Pattern.compile("rt_xl_readlane\\(W, ([^,]+), ([^;]+)\\);").matcher(body);
                yield r.find() ? body.substring(0, r.start(2)) + "((" + r.group(2) + ") + 1) % RT_WAVE"
                        + body.substring(r.end(2)) : null;
            }
        };
        return Optional.ofNullable(out).filter(o -> !o.equals(body));
    }

    /** The first two arguments of the first operation call swapped, or SALU's two sources; null when they are equal. */
    private static String swap(String body) {
        Matcher a = Pattern.compile("uint32_t t_a = ([^;]+); uint32_t t_b = ([^;]+);").matcher(body);
        if (a.find()) {
            return a.group(1).equals(a.group(2)) ? null : body.substring(0, a.start()) + "uint32_t t_a = " + a.group(2)
                    + "; uint32_t t_b = " + a.group(1) + ";" + body.substring(a.end());
        }
        Matcher m = Pattern.compile("rt_valu_\\w+\\(").matcher(body);
        if (!m.find()) {
            return null;
        }
        int at = m.end();
        List<int[]> args = new ArrayList<>();
        int depth = 0;
        int from = at;
        for (int i = at; i < body.length(); i++) {
            char c = body.charAt(i);
            if (c == '(') {
                depth++;
            } else if (c == ')' && depth > 0) {
                depth--;
            } else if ((c == ',' && depth == 0) || (c == ')' && depth == 0)) {
                args.add(new int[] {from, i});
                from = i + 1;
                if (c == ')') {
                    break;
                }
            }
        }
        if (args.size() < 2) {
            return null;
        }
        String x = body.substring(args.get(0)[0], args.get(0)[1]).strip();
        String y = body.substring(args.get(1)[0], args.get(1)[1]).strip();
        if (x.equals(y) || x.startsWith("&") || y.startsWith("&")) { // a mode or carry pointer is no operand
            return null;
        }
        return body.substring(0, args.get(0)[0]) + y + ", " + x + body.substring(args.get(1)[1]);
    }
}
