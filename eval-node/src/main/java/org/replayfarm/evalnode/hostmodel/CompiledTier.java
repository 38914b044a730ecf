package org.replayfarm.evalnode.hostmodel;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.replayfarm.evalnode.hostmodel.semantics.SemanticsTable;
import org.replayfarm.evalnode.hostmodel.valu.Valu;
import org.replayfarm.evalnode.hostmodel.valu.ValuFloat;
import org.replayfarm.evalnode.hostmodel.valu.ValuFloatConvert;
import org.replayfarm.evalnode.hostmodel.valu.ValuIntegerUnit;
import org.replayfarm.evalnode.hostmodel.scalar.WaveControl;
import org.replayfarm.evalnode.hostmodel.wave.Wave;
import org.replayfarm.model.fp.Format;
import org.replayfarm.model.fp.FpMode;
import org.replayfarm.model.isa.DecodedProgram;
import org.replayfarm.model.isa.Fields;
import org.replayfarm.model.isa.Instruction;
import org.replayfarm.model.isa.ValuFacts;
import org.replayfarm.model.isa.ValuVariant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The compiled tier: hot straight-line runs become one generated JVM method each ({@link CompiledEmitter}, ASM). A
 * run holds vector ALU instructions the fast tier specialises (lowered to {@link LaneOp}s), the scalar instructions
 * between them that cannot fault and leave EXEC, MODE and the PC alone, memory instructions, and at most one direct
 * branch, last. Memory instructions split it into segments; each segment runs its scalar instructions once, in program
 * order, reads its uniform sources (SGPRs, constants, literals) and lane masks once, then loops over the active lanes
 * once with the VGPRs it touches in locals, each operation either inlined ({@link CompiledLanes}, the fast tier's own
 * loops per lane) or a call of the same lane kernel ({@link LaneKernel}) the other tiers call. A memory instruction is
 * its fast-tier step, called between segments with the wave's PC set to its own. Everything else (compares, carries,
 * 64-bit and 16-bit rows, DPP and SDWA, SOP1 and SOPK, EXEC and MODE writes, barriers, the end) runs the fast tier's
 * steps in the same run, as does any run that would cross the wave's next budget or cancellation check, and every run
 * while stores are traced.
 *
 * <p>Why the lane operations of a segment may execute lane by lane: none of them reads another lane, writes a scalar
 * register, EXEC, SCC or MODE, touches memory, or can fault, so each lane's result depends only on that lane's values
 * and the uniform state, which they do not change; the scalar instructions read no VGPR. A run's instruction and lane
 * counts are its length and its length times the active lanes (EXEC does not change inside it), its fidelity counts
 * are known when it is built, and a fault (only a memory instruction raises one) takes back the counts of the
 * instructions after it.
 *
 * <p>A run starts at any PC a wave reaches (so a branch into the middle of one finds its own suffix); it is
 * compiled once reached {@code threshold} times, then cached under the program's hash, the wave size, the VGPR
 * count and its PC, shared by every group, thread and model of that program. The cache holds at most {@link
 * #MAX_BLOCKS} runs and {@link #MAX_BYTES} bytes of bytecode; once full it says so (once, in the log and in {@link
 * #cacheStats}) and further hot runs stay on the fast tier.
 */
final class CompiledTier {
    private static final Logger LOG = LoggerFactory.getLogger(CompiledTier.class);

    /** Visits of a PC after which its run is compiled ({@code replay.compiled.threshold}, default 4). */
    static final int DEFAULT_THRESHOLD = Integer.getInteger("replay.compiled.threshold", 4);
    /** Whether runs hold memory instructions ({@code replay.compiled.memory}) and SOP2/SOPC ones ({@code replay.compiled.scalar}). */
    static final boolean MEMORY = !"false".equals(System.getProperty("replay.compiled.memory"));
    static final boolean SCALAR = !"false".equals(System.getProperty("replay.compiled.scalar"));
    /** The shortest run worth a method of its own. */
    static final int MIN_RUN = 2;
    /** The longest run in one method (a method beyond the JIT's size limit would be interpreted). */
    static final int MAX_RUN = 40;
    /** Code cache bounds ({@code replay.compiled.max-blocks}, {@code replay.compiled.max-bytes}). */
    static final int MAX_BLOCKS = Integer.getInteger("replay.compiled.max-blocks", 16384);
    static final long MAX_BYTES = Long.getLong("replay.compiled.max-bytes", 64L << 20);

    private CompiledTier() {
    }

    // ---------------------------------------------------------------- what a run computes

    /**
     * A source of one lane: a VGPR ({@code reg >= 0}) or a uniform operand code read once per run through
     * {@link Wave#source32}; float ABS/NEG as {@code & and ^ xor} on the bits.
     */
    record Operand(int reg, int code, Instruction insn, int and, int xor) {
        static Operand vgpr(int reg) {
            return new Operand(reg, -1, null, -1, 0);
        }
    }

    /** One instruction of a run, lowered. */
    sealed interface LaneOp {
        int dst();

        List<Operand> sources();
    }

    /** A 32-bit integer operation: {@code inline} names its {@link CompiledLanes} method, else {@code op} is called. */
    record IntOp(int arity, LaneLoop inline, Object op, List<Operand> sources, int dst) implements LaneOp {
    }

    /**
     * An f32 operation through its lane kernel ({@code Float1/2/3}) then OMOD and CLAMP; {@code inline}: the fast
     * tier's f32 loop it may take instead (the two-/three-source ones only without OMOD and CLAMP).
     */
    record FloatOp(LaneKernel kernel, LaneLoop inline, List<Operand> sources, int dst, int omod, boolean clamp)
            implements LaneOp {
    }

    /** v_cndmask_b32 with its mask register's code. */
    record SelectOp(List<Operand> sources, int maskCode, int dst) implements LaneOp {
    }

    /** An integer converted to f32 ({@code byteShift >= 0}: v_cvt_f32_ubyteN), then OMOD and CLAMP. */
    record CvtOp(ValuFloatConvert.IntSource op, int byteShift, List<Operand> sources, int dst, int omod, boolean clamp)
            implements LaneOp {
    }

    /** v_ldexp_f32 (S0 with ABS/NEG, S1 the exponent), then OMOD and CLAMP. */
    record LdexpOp(List<Operand> sources, int dst, int omod, boolean clamp) implements LaneOp {
    }

    /** v_frexp_exp_i32_f32. */
    record FrexpExpOp(List<Operand> sources, int dst) implements LaneOp {
    }

    /**
     * A scalar instruction inside a run: its fast-tier step, executed once for the wave in program order in the
     * prologue of its segment (before the segment's lane loop: it reads no VGPR, and no vector instruction of the run
     * writes what it reads); a branch ends a run and runs after the last lane loop ({@code branch}). A memory
     * instruction ({@code wave}: scalar or vector memory, LDS, images) is its fast-tier step at its place between two
     * segments, the wave's PC set to its own first ({@code pc}), so that a fault it raises names it.
     */
    record ScalarOp(FastTier.Exec exec, boolean branch, boolean wave, long pc) {
        ScalarOp(FastTier.Exec exec, boolean branch) {
            this(exec, branch, false, -1);
        }
    }

    /** The code a run executes: {@code run(w, exec, mode, rne)}, its scalar instructions too (EXEC may be zero). */
    public interface Body {
        void run(Wave w, long exec, FpMode m, boolean rne);
    }

    /**
     * A compiled run: its body, its length, fidelity counts, the branch that ends it (null: none) and where the wave
     * goes after it when that does not jump.
     */
    static final class Block {
        final Body body;
        final int count;
        final int approximate;
        final long end;
        final Instruction first;
        final FastTier.Exec branch;
        /** Each instruction's step, in order (a fault names its instruction). */
        final FastTier.Step[] steps;
        /** Runs of this block (racy counts: for tests and figures only). */
        long runs;

        Block(Body body, int count, int approximate, long end, Instruction first, FastTier.Exec branch,
              FastTier.Step[] steps) {
            this.body = body;
            this.count = count;
            this.approximate = approximate;
            this.end = end;
            this.first = first;
            this.branch = branch;
            this.steps = steps;
        }

        /** The index of the instruction at {@code pc} within the run, or -1. */
        int indexOf(long pc) {
            for (int i = 0; i < steps.length; i++) {
                if (steps[i].insn.pc() == pc) {
                    return i;
                }
            }
            return -1;
        }
    }

    private static boolean scalarSource(int code) {
        return uniformCode(code) || code >= 251 && code <= 253;
    }

    /**
     * The instruction as a scalar or memory part of a run, or null. Scalar: SOP2 and SOPC (the scalar ALU's binary
     * operations and compares, which cannot fault, read no PC and leave MODE alone) writing no EXEC; the instructions
     * that do nothing functionally ({@code WaveControl.NOTHING}); a PC-relative branch ({@code OpcodeFlag.BRANCH}),
     * which ends a run. SOP1 and SOPK stay out: among them are the EXEC, PC, M0-relative, hardware-register and
     * call forms, which the opcode's typed facts do not tell apart. Memory: GLOBAL, FLAT, SCRATCH, MUBUF, MTBUF, DS,
     * MIMG, and SMEM loads into s0-s105.
     */
    static ScalarOp scalar(FastTier.Step step) {
        Instruction insn = step.insn;
        Fields f = insn.fields();
        switch (insn.encoding()) {
            case GLOBAL, FLAT, SCRATCH, MUBUF, MTBUF, DS, MIMG -> {
                if (!MEMORY) {
                    return null;
                }
                return new ScalarOp(step.exec, false, true, insn.pc());
            }
            case SMEM -> {
                return MEMORY && f instanceof Fields.Smem sm && sm.sdata() < 106 ? new ScalarOp(step.exec, false, true, insn.pc())
                        : null;
            }
            default -> {
            }
        }
        if (step.handler == WaveControl.NOTHING) {
            return new ScalarOp(step.exec, false);
        }
        if (f instanceof Fields.Sopp) {
            return insn.opcode().has(org.replayfarm.model.isa.OpcodeFlag.BRANCH) ? new ScalarOp(step.exec, true) : null;
        }
        boolean ok = SCALAR && f instanceof Fields.Sop2 s2 ? s2.sdst() < 126 && scalarSource(s2.ssrc0()) && scalarSource(s2.ssrc1())
                : SCALAR && f instanceof Fields.Sopc sc && scalarSource(sc.ssrc0()) && scalarSource(sc.ssrc1());
        return ok ? new ScalarOp(step.exec, false) : null;
    }

    /** The uniform codes a run may read once: SGPRs, integer and float inline constants, the literal. */
    private static boolean uniformCode(int code) {
        return code < 128 || code <= 208 || code >= 240 && code <= 248 || code == 255;
    }

    private static Operand operand(Instruction insn, int n, int vgprs, boolean modifiers) {
        int code = Valu.sourceCode(insn, n);
        if (code < 0) {
            return null;
        }
        int and = modifiers && Valu.abs(insn, n) ? 0x7FFF_FFFF : -1;
        int xor = modifiers && Valu.neg(insn, n) ? 0x8000_0000 : 0;
        if (code >= 256) {
            int reg = code - 256;
            return reg < vgprs ? new Operand(reg, -1, null, and, xor) : null;
        }
        return uniformCode(code) ? new Operand(-1, code, insn, and, xor) : null;
    }

    private static List<Operand> operands(Instruction insn, int n, int vgprs, boolean modifiers) {
        List<Operand> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            Operand o = operand(insn, i, vgprs, modifiers);
            if (o == null) {
                return null;
            }
            out.add(o);
        }
        return out;
    }

    /**
     * The instruction as one lane's operation, or null when a run cannot hold it (then it ends the run). Only rows
     * the fast tier specialises are taken, with the same conditions on their operands.
     */
    static LaneOp lower(Instruction insn, SemanticsTable table, int vgprs) {
        Fields f = insn.fields();
        if (!(f instanceof Fields.Vop1 || f instanceof Fields.Vop2 || f instanceof Fields.Vop3)
                || !(Valu.variant(insn) instanceof ValuVariant.None)) {
            return null;
        }
        ValuFacts facts = insn.opcode().valu();
        if (facts == null || facts.compare() != null || facts.shift64() != null) {
            return null;
        }
        LaneKernel k = table.laneKernel(insn.opcode());
        if (k == null) {
            return null;
        }
        LaneLoop loop = table.laneLoop(insn.opcode());
        int dst = Valu.vdst(insn);
        if (dst < 0 || dst >= vgprs) {
            return null;
        }
        int omod = Valu.omod(insn);
        boolean clamp = Valu.clamp(insn);
        if (k instanceof LaneKernel.Select) {
            int mask = f instanceof Fields.Vop3 v ? v.src2() : Wave.VCC_LO;
            List<Operand> s = operands(insn, 2, vgprs, true);
            return s == null || mask >= 128 ? null : new SelectOp(s, mask, dst);
        }
        if (k instanceof LaneKernel.Int1 u) {
            List<Operand> s = operands(insn, 1, vgprs, false);
            return s == null ? null : new IntOp(1, loop, u.op(), s, dst);
        }
        if (k instanceof LaneKernel.Int2 b) {
            List<Operand> s = operands(insn, 2, vgprs, false);
            return s == null || b.clampSensitive() && clamp ? null : new IntOp(2, loop, b.op(), s, dst);
        }
        if (k instanceof LaneKernel.Int3 t) {
            List<Operand> s = operands(insn, 3, vgprs, false);
            return s == null ? null : new IntOp(3, loop, t.op(), s, dst);
        }
        if (k instanceof LaneKernel.IntToFloat c) {
            List<Operand> s = operands(insn, 1, vgprs, false);
            int byteShift = facts.byteIndex() >= 0 ? 8 * facts.byteIndex() : -1;
            return s == null || c.f() != Format.F32 ? null : new CvtOp(c.op(), byteShift, s, dst, omod, clamp);
        }
        if (k instanceof LaneKernel.Ldexp l) {
            Operand a = operand(insn, 0, vgprs, true);
            Operand e = operand(insn, 1, vgprs, false);
            return a == null || e == null || l.f() != Format.F32 ? null : new LdexpOp(List.of(a, e), dst, omod, clamp);
        }
        if (k instanceof LaneKernel.FrexpExp x) {
            List<Operand> s = operands(insn, 1, vgprs, true);
            return s == null || x.f() != Format.F32 ? null : new FrexpExpOp(s, dst);
        }
        if (k instanceof LaneKernel.Accumulate acc) {
            List<Operand> s = operands(insn, 2, vgprs, true);
            if (s == null || acc.f() != Format.F32) {
                return null;
            }
            s = new ArrayList<>(s);
            s.add(Operand.vgpr(dst)); // D = op(S0, S1, D): the accumulator is the destination's own bits
            return new FloatOp(new LaneKernel.Float3(acc.f(), acc.op()), acc.fused() ? LaneLoop.F_FMA : null, s, dst,
                    omod, clamp);
        }
        int n = k instanceof LaneKernel.Float1 u && u.f() == Format.F32 ? 1
                : k instanceof LaneKernel.Float2 b && b.f() == Format.F32 ? 2
                : k instanceof LaneKernel.Float3 t && t.f() == Format.F32 ? 3 : 0;
        if (n == 0) {
            return null; // f16 and f64: halves, OPSEL and pairs stay with the fast tier
        }
        List<Operand> s = operands(insn, n, vgprs, true);
        return s == null ? null : new FloatOp(k, loop, s, dst, omod, clamp);
    }

    // ---------------------------------------------------------------- the code cache

    private record Key(String program, int waveSize, int vgprs, long pc) {
    }

    private static final ConcurrentHashMap<Key, Body> CACHE = new ConcurrentHashMap<>();
    private static final AtomicLong BYTES = new AtomicLong();
    private static final AtomicBoolean FULL = new AtomicBoolean();
    private static final AtomicLong REFUSED = new AtomicLong();
    private static final AtomicLong COMPILE_NANOS = new AtomicLong();

    /** The code cache as it stands: runs compiled, their bytecode, whether it is full and runs refused since. */
    public record CacheStats(int blocks, long bytes, boolean full, long refused, long compileNanos) {
        @Override
        public String toString() {
            return String.format(java.util.Locale.ROOT, "%d compiled runs, %d bytes of bytecode, %.1f ms generating "
                    + "and loading them%s", blocks, bytes, compileNanos / 1e6, full ? ", FULL (" + refused
                    + " hot runs left on the fast tier)" : "");
        }
    }

    static CacheStats cacheStats() {
        return new CacheStats(CACHE.size(), BYTES.get(), FULL.get(), REFUSED.get(), COMPILE_NANOS.get());
    }

    /** Empties the code cache (tests that measure compilation). */
    static void clearCache() {
        CACHE.clear();
        BYTES.set(0);
        FULL.set(false);
        REFUSED.set(0);
        COMPILE_NANOS.set(0);
    }

    private static Body compileCached(Key key, List<Object> ops, int waveSize) {
        Body cached = CACHE.get(key);
        if (cached != null) {
            return cached;
        }
        if (CACHE.size() >= MAX_BLOCKS || BYTES.get() >= MAX_BYTES) {
            REFUSED.incrementAndGet();
            if (FULL.compareAndSet(false, true)) {
                LOG.warn("compiled tier: code cache full ({} runs, {} bytes of bytecode; bounds "
                        + "replay.compiled.max-blocks={}, replay.compiled.max-bytes={}): further hot runs stay on the "
                        + "fast tier", CACHE.size(), BYTES.get(), MAX_BLOCKS, MAX_BYTES);
            }
            return null;
        }
        return CACHE.computeIfAbsent(key, k -> {
            long t0 = System.nanoTime();
            CompiledEmitter.Generated g = CompiledEmitter.emit(ops, waveSize);
            COMPILE_NANOS.addAndGet(System.nanoTime() - t0);
            BYTES.addAndGet(g.bytes());
            return g.body();
        });
    }

    // ---------------------------------------------------------------- a program

    /** One kernel's program on the compiled tier: the fast tier's steps, and runs compiled as they turn hot. */
    static final class Program {
        final FastTier.Program fast;
        private final String hash;
        private final int waveSize;
        private final int vgprs;
        private final int threshold;
        /** Per slot: the instruction starting there as a {@link LaneOp} or {@link ScalarOp}, or null: not in a run. */
        private final Object[] lowered;
        /** Per slot: the length of the run from there (0: none). */
        private final int[] runLength;
        private final int[] heat;
        private final Block[] blocks;
        private final boolean[] refused;
        private final java.util.Set<Block> compiledBlocks = ConcurrentHashMap.newKeySet();

        Program(Kernel kernel, SemanticsTable table, FastTier.Program fast, int threshold) {
            this.fast = fast;
            this.waveSize = kernel.waveSize();
            this.vgprs = kernel.vgprCount();
            this.threshold = Math.max(1, threshold);
            this.hash = hash(kernel.program());
            int slots = fast.steps.length;
            this.lowered = new Object[slots];
            for (int i = 0; i < slots; i++) {
                FastTier.Step s = fast.steps[i];
                if (s != null && s.specialised) {
                    lowered[i] = lower(s.insn, table, vgprs);
                } else if (s != null) {
                    lowered[i] = scalar(s);
                }
            }
            this.runLength = new int[slots];
            for (int i = 0; i < slots; i++) {
                int n = 0;
                int vector = 0;
                int at = i;
                while (n < MAX_RUN && at < slots && lowered[at] != null) {
                    n++;
                    vector += lowered[at] instanceof LaneOp ? 1 : 0;
                    if (lowered[at] instanceof ScalarOp so && so.branch()) {
                        break;
                    }
                    at += fast.steps[at].length / 4;
                }
                runLength[i] = n >= MIN_RUN && vector > 0 ? n : 0;
            }
            this.heat = new int[slots];
            this.blocks = new Block[slots];
            this.refused = new boolean[slots];
        }

        /** Instructions that may run inside a compiled run (for tests: the tier is really used). */
        int compilable() {
            int n = 0;
            for (Object op : lowered) {
                n += op instanceof LaneOp ? 1 : 0;
            }
            return n;
        }

        /** Instructions run inside compiled runs so far (counted without synchronisation: a figure, not a count). */
        long blockInstructions() {
            long n = 0;
            for (Block b : compiledBlocks) {
                n += b.runs * b.count;
            }
            return n;
        }

        /**
         * The compiled run starting at {@code pc}, or null (no run there, not hot yet, or the cache is full):
         * counts the visit and compiles the run on the visit that makes it hot. Racing threads may count a visit
         * twice or compile the same run twice; the cache keeps one.
         */
        Block block(long pc) {
            long index = (pc - fast.base) >> 2;
            if (pc < fast.base || (pc & 3) != (fast.base & 3) || index >= runLength.length) {
                return null;
            }
            int i = (int) index;
            Block b = blocks[i];
            if (b != null || runLength[i] == 0 || refused[i]) {
                return b;
            }
            if (++heat[i] < threshold) {
                return null;
            }
            List<Object> ops = new ArrayList<>();
            int approximate = 0;
            int at = i;
            FastTier.Exec branch = null;
            FastTier.Step[] steps = new FastTier.Step[runLength[i]];
            for (int n = 0; n < runLength[i]; n++) {
                steps[n] = fast.steps[at];
                if (lowered[at] instanceof ScalarOp so && so.branch()) {
                    branch = so.exec();
                } else {
                    ops.add(lowered[at]);
                }
                approximate += fast.steps[at].approximate ? 1 : 0;
                at += fast.steps[at].length / 4;
            }
            Body body = compileCached(new Key(hash, waveSize, vgprs, pc), ops, waveSize);
            if (body == null) {
                refused[i] = true;
                return null;
            }
            b = new Block(body, runLength[i], approximate, fast.base + 4L * at, fast.steps[i].insn, branch, steps);
            blocks[i] = b;
            compiledBlocks.add(b);
            return b;
        }
    }

    /** The program's identity for the cache: SHA-256 of its base and every instruction's PC and words. */
    static String hash(DecodedProgram program) {
        try {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            d.update(Long.toString(program.base()).getBytes(StandardCharsets.US_ASCII));
            java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(12);
            for (Instruction insn : program.instructions()) {
                b.clear();
                b.putLong(insn.pc());
                b.putInt(insn.words().size());
                d.update(b.array());
                for (int w : insn.words()) {
                    d.update(new byte[] {(byte) w, (byte) (w >>> 8), (byte) (w >>> 16), (byte) (w >>> 24)});
                }
            }
            return HexFormat.of().formatHex(d.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 missing from the JDK", e);
        }
    }

    static boolean roundsToNearestEven(FpMode m) {
        return m.round(Format.F32) == org.replayfarm.model.fp.Rounding.NEAREST_EVEN;
    }

    /** For javadoc links and the emitter: the interfaces the generated code calls. */
    static final Class<?>[] KERNEL_INTERFACES = {java.util.function.IntUnaryOperator.class, ValuIntegerUnit.Op2.class,
            ValuIntegerUnit.Op3.class, ValuFloat.Op1.class, ValuFloat.Op2.class, ValuFloat.Op3.class,
            ValuFloatConvert.IntSource.class};
}
