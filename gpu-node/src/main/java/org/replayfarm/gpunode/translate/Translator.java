package org.replayfarm.gpunode.translate;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.replayfarm.model.isa.DecodeException;
import org.replayfarm.model.isa.Fields;
import org.replayfarm.model.isa.Instruction;
import org.replayfarm.model.isa.Listing;
import org.replayfarm.model.isa.Syntax;

/**
 * The program → CUDA C driver: lists the program (guest.s, llvm-objdump syntax), finds its basic blocks,
 * routes every instruction to its unit's emitter and writes one deterministic kernel.cu against the
 * runtime headers. A label per block, branches as gotos, {@code s_setpc}/{@code s_swappc} through a
 * switch over the program's addresses; a {@code #line} directive before every instruction names its line
 * in guest.s. Any refusal refuses the whole translation (the result lists every one).
 */
public final class Translator {
    /** Where the runtime headers live on the class path. */
    public static final String RUNTIME = "/org/replayfarm/gpunode/translate/rt/";
    private static final Pattern LISTED_PC = Pattern.compile("// ([0-9A-F]{12}):");
    private static final Pattern INCLUDE = Pattern.compile("^#include \"([A-Za-z0-9_.]+)\"", Pattern.MULTILINE);

    private final Map<Unit, UnitEmitter> emitters = new EnumMap<>(Unit.class);

    public Translator() {
        emitters.put(Unit.SCALAR, new ScalarEmitter());
        emitters.put(Unit.BRANCH, new BranchEmitter());
        emitters.put(Unit.SMEM, new SmemEmitter());
        emitters.put(Unit.VECTOR, new VectorEmitter());
        emitters.put(Unit.MEMORY, new MemoryEmitter());
        emitters.put(Unit.IMAGE, new ImageEmitter());
    }

    /** Program-wide facts a unit may need while it emits (barrier numbering, the address switch). */
    static final class State {
        final NavigableMap<Long, String> blocks;
        int barriers;
        boolean dispatch;

        State(NavigableMap<Long, String> blocks) {
            this.blocks = blocks;
        }
    }

    public Translation translate(ProgramInfo p) {
        Syntax syntax = p.waveSize() == 64 ? Syntax.WAVE64 : Syntax.WAVE32;
        String symbol = p.name().isEmpty() ? "kernel" : p.name();
        List<String> listing = Listing.lines(p.code().duplicate(), p.program().base(), Map.of(p.entry(), symbol),
                ".text", syntax);
        Map<Long, Integer> lineOf = new TreeMap<>();
        for (int i = 0; i < listing.size(); i++) {
            Matcher m = LISTED_PC.matcher(listing.get(i));
            if (m.find()) {
                lineOf.put(Long.parseLong(m.group(1), 16), i + 1);
            }
        }

        // every position in address order: an instruction, or a dword that does not decode
        TreeMap<Long, Instruction> insns = new TreeMap<>();
        for (Instruction i : p.program().instructions()) {
            insns.put(i.pc(), i);
        }
        TreeMap<Long, DecodeException> errors = new TreeMap<>();
        for (DecodeException e : p.program().errors()) {
            errors.put(e.pc(), e);
        }

        ControlFlow flow = ControlFlow.of(insns, p.entry(), p.waveSize());
        NavigableMap<Long, String> blocks = new TreeMap<>();
        for (long pc : flow.leaders) {
            blocks.put(pc, label(pc));
        }
        State state = new State(blocks);

        StringBuilder body = new StringBuilder();
        // the blocks some instruction jumps to by name (a goto): their labels stay wherever they are
        Set<Long> jumpedTo = new java.util.HashSet<>();
        List<Object> pieces = new ArrayList<>();
        Shapes.Table shapes = new Shapes.Table();
        Set<String> includes = new TreeSet<>();
        includes.add("rt_salu.h");
        List<Refusal> refusals = new ArrayList<>();
        Map<String, int[]> coverage = new LinkedHashMap<>();
        for (Unit u : Unit.values()) {
            coverage.put(u.name().toLowerCase(java.util.Locale.ROOT), new int[2]);
        }
        // the instructions the entry can reach (all of them when a call's target is not a constant)
        TreeSet<Long> positions = new TreeSet<>(flow.reachable);
        if (flow.everything) {
            positions.addAll(errors.keySet());
        }
        long end = p.program().base();
        for (long pc : positions) {
            if (blocks.containsKey(pc)) {
                body.append(blocks.get(pc)).append(":;\n");
            }
            Integer line = lineOf.get(pc);
            if (line != null) {
                body.append("#line ").append(line).append(" \"guest.s\"\n");
            }
            Instruction insn = insns.get(pc);
            if (insn == null) {
                body.append("    { /* bytes that do not decode: ").append(comment(errors.get(pc).getMessage()))
                        .append(" */ RT_FAULT_NOW(RT_FAULT_UNSUPPORTED, ").append(InsnContext.hex64(pc))
                        .append(", -1, 0); }\n");
                end = Math.max(end, pc + 4);
                continue;
            }
            end = Math.max(end, insn.pc() + insn.length());
            Unit unit = Routing.route(insn);
            String unitName = unit.name().toLowerCase(java.util.Locale.ROOT);
            InsnContext cx = new InsnContext(insn, p.waveSize(), p.vgprCount(), p.ldsBytes(), unitName, t -> {
                jumpedTo.add(t);
                return blocks.get(t);
            }, includes);
            cx.state = state;
            try {
                UnitEmitter emitter = emitters.get(unit);
                if (emitter == null) {
                    throw cx.refuse("no unit translates " + insn.encoding() + " instructions");
                }
                emitter.emit(cx);
                coverage.get(unitName)[0]++;
                Shapes.Use use = cx.vgprFault() == null ? Shapes.of(cx.lines()) : null;
                if (use != null) {
                    // placed once every instruction is emitted: shared bodies become calls (see Shapes)
                    shapes.count(use);
                    pieces.add(body.toString());
                    body.setLength(0);
                    pieces.add(new Pending(pc, comment(cx.text()), use, List.copyOf(cx.lines())));
                } else {
                body.append("    { /* ").append(comment(cx.text())).append(" */\n");
                body.append("        RT_AT(").append(InsnContext.hex64(pc)).append("); RT_TICK();\n");
                if (cx.vgprFault() != null) {
                    body.append("        /* ").append(comment(cx.vgprFault())).append(" */\n");
                    body.append("        RT_FAULT_NOW(RT_FAULT_VGPR, ").append(cx.pcC()).append(", -1, 0);\n");
                } else {
                    for (String l : cx.lines()) {
                        body.append("        ").append(l).append('\n');
                    }
                }
                body.append("    }\n");
                }
                // a reachable instruction that can fall through to a PC where no instruction was emitted: the
                // next PC holds none (else it would be reachable), and the host model faults there
                Long following = positions.higher(pc);
                if (!terminates(insn) && (following == null || following != cx.nextPc())) {
                    body.append("    RT_FAULT_NOW(RT_FAULT_BRANCH, ").append(InsnContext.hex64(cx.nextPc()))
                            .append(", -1, ").append(InsnContext.hex64(cx.nextPc())).append(");\n");
                }
            } catch (Refusal r) {
                coverage.get(unitName)[1]++;
                refusals.add(r);
            }
        }
        // falling off the end of the code: the host model faults there (no instruction at that PC)
        body.append("    RT_FAULT_NOW(RT_FAULT_BRANCH, ").append(InsnContext.hex64(end)).append(", -1, ")
                .append(InsnContext.hex64(end)).append(");\n");
        // branch targets that start no instruction (outside the code, or inside an instruction): a fault there
        for (Map.Entry<Long, String> b : blocks.entrySet()) {
            if (!positions.contains(b.getKey())) {
                body.append(b.getValue()).append(":;\n    RT_FAULT_NOW(RT_FAULT_BRANCH, ")
                        .append(InsnContext.hex64(b.getKey())).append(", -1, ").append(InsnContext.hex64(b.getKey()))
                        .append(");\n");
            }
        }

        pieces.add(body.toString());
        StringBuilder code = new StringBuilder();
        // blocks only the address switch enters, inside a run: the switch's case for each (RT_SHAPE_RUNS)
        Map<Long, String> runEntries = new LinkedHashMap<>();
        for (int k = 0; k < pieces.size(); k++) {
            Object piece = pieces.get(k);
            if (piece instanceof Pending i) {
                if (shapes.shared(i.use())) {
                    // a run: shared instructions one after the other, nothing but #line between them (see RT_RUN),
                    // or the label of a block only the address switch enters (it enters the run there: rt_at)
                    int last = k;
                    List<Long> entries = new ArrayList<>();
                    List<Integer> entryMembers = new ArrayList<>();
                    while (last + 2 < pieces.size() && pieces.get(last + 1) instanceof String between
                            && pieces.get(last + 2) instanceof Pending next && shapes.shared(next.use())) {
                        Matcher m = BETWEEN.matcher(between);
                        if (!m.matches()) {
                            break;
                        }
                        if (m.group(1) != null) {
                            long at = Long.parseUnsignedLong(m.group(1), 16);
                            if (jumpedTo.contains(at) || at == p.entry()) {
                                break;
                            }
                            if (state.dispatch && flow.targets.contains(at)) {
                                entries.add(at);
                                entryMembers.add((last + 2 - k) / 2);
                            } // else only falling through enters the block: in the run, its label is not needed

                        }
                        last += 2;
                    }
                    if (last > k) {
                        List<Shapes.Use> run = new ArrayList<>();
                        for (int r = k; r <= last; r += 2) {
                            run.add(((Pending) pieces.get(r)).use());
                        }
                        int[] at = shapes.runFrom(run);
                        if (entries.isEmpty()) {
                            code.append("#if RT_SHAPE_RUNS\n    RT_RUN(").append(at[0]).append("); /* ")
                                    .append(run.size()).append(" instructions */\n#else\n");
                        } else {
                            String name = "rt_run_" + runEntries.size();
                            for (int e = 0; e < entries.size(); e++) {
                                runEntries.put(entries.get(e), "rt_at = " + at[entryMembers.get(e)] + "; goto " + name + ";");
                            }
                            code.append("#if RT_SHAPE_RUNS\n    rt_at = ").append(at[0]).append(";\n").append(name)
                                    .append(":\n    RT_RUN(rt_at); /* ").append(run.size()).append(" instructions, entered at ")
                                    .append(entries.size() + 1).append(" */\n#else\n");
                        }
                        for (int r = k; r <= last; r++) {
                            if (pieces.get(r) instanceof Pending member) {
                                appendCall(code, shapes, member);
                            } else {
                                code.append((String) pieces.get(r));
                            }
                        }
                        code.append("#endif\n");
                        k = last;
                        continue;
                    }
                    appendCall(code, shapes, i);
                } else {
                    code.append("    { /* ").append(i.text()).append(" */\n        RT_AT(").append(InsnContext.hex64(i.pc()))
                            .append("); RT_TICK();\n");
                    for (String l : i.lines()) {
                        code.append("        ").append(l).append('\n');
                    }
                    code.append("    }\n");
                }
            } else {
                code.append((String) piece);
            }
        }

        StringBuilder src = new StringBuilder();
        src.append("// kernel.cu: ").append(symbol).append(" translated from RDNA 2 (gfx1030) by replay-farm; ")
                .append("each #line names the instruction's line in guest.s\n");
        src.append("#define RT_WAVE ").append(p.waveSize()).append('\n');
        src.append("#define RT_NVGPR ").append(Math.max(1, p.vgprCount())).append('\n');
        src.append("#define RT_NRESUME ").append(state.barriers).append('\n');
        src.append("#include \"replay_rt.h\"\n");
        for (String h : includes) {
            src.append("#include \"").append(h).append("\"\n");
        }
        if (shapes.count() > 0) {
            src.append("\n/* instruction bodies shared by several instructions (replay_rt.h, RT_SHAPE) */\n");
            src.append(shapes.definitions());
            src.append(shapes.runDefinitions());
        }
        src.append("\nRT_WAVE_FUNCTION(rt_program_wave) {\n");
        src.append("    RT_PROLOGUE();\n");
        if (!runEntries.isEmpty()) {
            src.append("#if RT_SHAPE_RUNS\n    uint32_t rt_at = 0; /* where a run entered by the address switch starts */\n#endif\n");
        }
        if (state.barriers > 0) {
            src.append("#if !RT_GPU\n    switch (W->resume) {\n");
            for (int k = 1; k <= state.barriers; k++) {
                src.append("    case ").append(k).append(": goto rt_resume_").append(k).append(";\n");
            }
            src.append("    default: break;\n    }\n#endif\n");
        }
        if (positions.isEmpty() || positions.first() != p.entry()) {
            src.append("    goto ").append(blocks.get(p.entry())).append(";\n");
        }
        src.append(code);
        if (state.dispatch) {
            src.append("rt_dispatch:\n");
            src.append("    RT_BACKEDGE(W->from);\n");
            src.append("    switch (W->target) {\n");
            // only the addresses an indirect jump can reach (ControlFlow): the entry, return addresses, constant code
            // addresses; every other target faults naming it
            for (long t : flow.targets) {
                String run = runEntries.get(t);
                if (run != null) {
                    src.append("#if RT_SHAPE_RUNS\n    case ").append(InsnContext.hex64(t)).append(": ").append(run)
                            .append("\n#else\n");
                }
                src.append("    case ").append(InsnContext.hex64(t)).append(": goto ").append(blocks.get(t))
                        .append(";\n");
                if (run != null) {
                    src.append("#endif\n");
                }
            }
            src.append("    default: RT_FAULT_NOW(RT_FAULT_BRANCH, W->target, -1, W->target);\n    }\n");
        }
        src.append("    RT_EPILOGUE();\n}\n");

        Map<String, String> headers = headers(includes);
        Map<String, Translation.Count> counts = new LinkedHashMap<>();
        coverage.forEach((k, v) -> {
            if (v[0] + v[1] > 0) {
                counts.put(k, new Translation.Count(v[0], v[1]));
            }
        });
        int approximate = 0;
        for (long pc : positions) {
            Instruction i = insns.get(pc);
            if (i != null && approximate(i.mnemonic())) {
                approximate++;
            }
        }
        return new Translation(src.toString(), listing, headers, refusals, counts, approximate,
                insns.size() - (int) insns.keySet().stream().filter(positions::contains).count(), flow.summary(insns.size()));
    }

    /** Text between two instructions that is nothing but a block's label (group 1: its PC) and #line directives. */
    private static final Pattern BETWEEN = Pattern.compile("(?:L_([0-9a-f]+):;\n)?(?:#line \\d+ \"guest\\.s\"\n)*");

    /** A shared instruction's call: {@code rt_iN(C, args); RT_CHECK();} and its comment. */
    private static void appendCall(StringBuilder code, Shapes.Table shapes, Pending i) {
        code.append("    RT_AT(").append(InsnContext.hex64(i.pc())).append("); ").append(shapes.call(i.use()));
        if (i.use().check()) {
            code.append(" RT_CHECK();");
        }
        code.append(" /* ").append(i.text()).append(" */\n");
    }

    /** An instruction whose block is placed after the whole program is emitted (shared or inline). */
    private record Pending(long pc, String text, Shapes.Use use, List<String> lines) {
    }

    /**
     * Instructions whose result the ISA defines only approximately (the hardware's transcendental and
     * reciprocal approximations) or that read a clock: the translation's fidelity class "approximate".
     */
    static boolean approximate(String m) {
        return m.startsWith("v_rcp") || m.startsWith("v_rsq") || m.startsWith("v_sqrt") || m.startsWith("v_log")
                || m.startsWith("v_exp") || m.startsWith("v_sin") || m.startsWith("v_cos") || m.equals("s_memtime")
                || m.equals("s_memrealtime");
    }

    /** Whether control never falls through an instruction to the next one. */
    static boolean terminates(Instruction i) {
        String m = i.mnemonic();
        return m.equals("s_branch") || m.equals("s_setpc_b64") || m.startsWith("s_endpgm") || m.equals("s_code_end")
                || m.equals("s_trap");
    }

    static long branchTarget(Instruction i) {
        return i.pc() + 4 + 4L * (short) ((Fields.Sopp) i.fields()).simm16();
    }

    static String label(long pc) {
        return "L_" + Long.toHexString(pc);
    }

    private static String comment(String s) {
        return s.replace("*/", "* /").replace('\n', ' ');
    }

    /** The runtime headers a kernel needs: replay_rt.h, the requested ones, and everything they include. */
    static Map<String, String> headers(Set<String> requested) {
        Map<String, String> out = new TreeMap<>();
        List<String> todo = new ArrayList<>();
        todo.add("replay_rt.h");
        todo.addAll(requested);
        while (!todo.isEmpty()) {
            String name = todo.remove(todo.size() - 1);
            if (out.containsKey(name)) {
                continue;
            }
            String text = resource(name);
            out.put(name, text);
            Matcher m = INCLUDE.matcher(text);
            while (m.find()) {
                todo.add(m.group(1));
            }
        }
        return out;
    }

    /** The runtime files read so far: they are part of the class path and never change while it runs. */
    private static final Map<String, String> RESOURCES = new java.util.concurrent.ConcurrentHashMap<>();

    /** A runtime file's text (a header, or rt_cpu_main.cpp). */
    public static String resource(String name) {
        return RESOURCES.computeIfAbsent(name, Translator::read);
    }

    private static String read(String name) {
        try (InputStream in = Translator.class.getResourceAsStream(RUNTIME + name)) {
            if (in == null) {
                throw new IllegalStateException("runtime file " + name + " is missing from the class path ("
                        + RUNTIME + ")");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
