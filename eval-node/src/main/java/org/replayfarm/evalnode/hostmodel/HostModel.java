package org.replayfarm.evalnode.hostmodel;

import java.util.Optional;
import org.replayfarm.evalnode.hostmodel.memory.GroupMemory;
import org.replayfarm.evalnode.hostmodel.semantics.Fidelity;
import org.replayfarm.evalnode.hostmodel.semantics.Semantics;
import org.replayfarm.evalnode.hostmodel.semantics.SemanticsTable;
import org.replayfarm.evalnode.hostmodel.wave.GuestFault;
import org.replayfarm.evalnode.hostmodel.wave.Wave;
import org.replayfarm.evalnode.hostmodel.wave.Workgroup;
import org.replayfarm.model.build.GuestLayout;
import org.replayfarm.model.isa.DecodeException;
import org.replayfarm.model.isa.Disassembler;
import org.replayfarm.model.isa.Instruction;
import org.replayfarm.model.isa.Syntax;
import org.replayfarm.proto.Dispatch;
import org.replayfarm.proto.RegisterLayout;
import org.replayfarm.proto.SystemSgpr;
import org.replayfarm.proto.UserSgpr;
import org.replayfarm.proto.WorkItemVgpr;

/**
 * The host model: runs workgroups of a capture's dispatch, instruction by instruction, as RDNA 2 does.
 * One instance serves any number of groups on any number of threads: everything a group changes is
 * created for that group.
 */
public final class HostModel {
    /** Instructions one wave may execute before it is stopped as a runaway (settable per run). */
    public static final long DEFAULT_BUDGET = 200_000_000L;

    /**
     * How instructions are executed. {@link #REFERENCE}: the interpreter, each handler reading its operands
     * from the decoded instruction lane by lane (the slow, obvious path every result is defined by).
     * {@link #FAST}: the program compiled once into pre-resolved steps ({@link FastTier}); the same results,
     * faults and counts, bit for bit ({@code TierDifferentialTest}). {@link #COMPILED}: the fast tier's steps with
     * hot straight-line runs of vector ALU instructions compiled to JVM methods ({@link CompiledTier}); the same
     * results again.
     */
    public enum Tier {
        COMPILED, FAST, REFERENCE;

        /** The system property that picks the tier where no caller names one ({@code compiled} unless set). */
        public static final String PROPERTY = "replay.tier";

        /** The tier named by {@code fast} / {@code reference} (any case); anything else is refused, naming it. */
        public static Tier parse(String name) {
            for (Tier t : values()) {
                if (t.name().equalsIgnoreCase(name.trim())) {
                    return t;
                }
            }
            throw new IllegalArgumentException("unknown host-model tier '" + name + "' (compiled, fast or reference)");
        }

        /** {@link #PROPERTY}'s tier, else {@link #COMPILED} (exact on the whole kernel corpus and the differential tests). */
        public static Tier byDefault() {
            String p = System.getProperty(PROPERTY);
            return p == null || p.isBlank() ? COMPILED : parse(p);
        }
    }

    private final Kernel kernel;
    private final SemanticsTable semantics;
    private final long budget;
    private final Syntax syntax;
    private final Tier tier;
    private final FastTier.Program fast;
    private final CompiledTier.Program compiled;

    public HostModel(Kernel kernel, long instructionBudgetPerWave) {
        this(kernel, instructionBudgetPerWave, Tier.byDefault());
    }

    public HostModel(Kernel kernel, long instructionBudgetPerWave, Tier tier) {
        this(kernel, instructionBudgetPerWave, tier, CompiledTier.DEFAULT_THRESHOLD);
    }

    /**
     * As above; on the compiled tier a run is compiled on its {@code compileThreshold}-th visit (1: the first,
     * so that the differential tests run compiled code in programs that execute each line once).
     */
    public HostModel(Kernel kernel, long instructionBudgetPerWave, Tier tier, int compileThreshold) {
        this.kernel = kernel;
        this.semantics = SemanticsTable.gfx1030();
        this.budget = instructionBudgetPerWave;
        this.syntax = kernel.waveSize() == 64 ? Syntax.WAVE64 : Syntax.WAVE32;
        this.tier = tier;
        this.fast = tier != Tier.REFERENCE ? FastTier.compile(kernel, semantics) : null;
        this.compiled = tier == Tier.COMPILED ? new CompiledTier.Program(kernel, semantics, fast, compileThreshold) : null;
    }

    /** How many of the program's instructions the compiled tier may run inside a compiled run (0 for the others). */
    public int compilableInstructions() {
        return compiled == null ? 0 : compiled.compilable();
    }

    /** How many instructions waves of this model ran inside compiled runs so far (0 for the other tiers). */
    public long compiledInstructionsRun() {
        return compiled == null ? 0 : compiled.blockInstructions();
    }

    /** The compiled tier's code cache, shared by every model of this process: its size and whether it is full. */
    public static String compiledCodeCache() {
        return CompiledTier.cacheStats().toString();
    }

    /**
     * Empties the compiled tier's code cache (a benchmark's cold pass then pays for every run it compiles; runs already
     * handed to a running model stay usable).
     */
    public static void clearCompiledCodeCache() {
        CompiledTier.clearCache();
    }

    public Tier tier() {
        return tier;
    }

    /** How many of the program's instructions the fast tier runs through a specialised step (0 for the reference tier). */
    public int specialisedInstructions() {
        return fast == null ? 0 : fast.specialised();
    }

    /** Whether the fast tier runs the instruction at {@code pc} through a specialised step (false for the reference tier). */
    public boolean specialisedAt(long pc) {
        if (fast == null) {
            return false;
        }
        FastTier.Step step = fast.at(pc);
        return step != null && step.specialised;
    }

    public Kernel kernel() {
        return kernel;
    }

    /** Runs one group to its end (or its first fault) and returns what it did. */
    public GroupResult runGroup(int x, int y, int z) {
        return runKeepingState(x, y, z).result();
    }

    /**
     * As {@link #runGroup(int, int, int)}, asking {@code cancelled} every {@link #CANCEL_CHECK_EVERY} instructions
     * of a wave (and before each wave runs): once it says true the group stops with {@link GroupCancelled}
     * (a cancelled job's slice: a runaway loop under a large budget would otherwise hold its thread to the end).
     */
    public GroupResult runGroup(int x, int y, int z, java.util.function.BooleanSupplier cancelled) {
        return run(x, y, z, null, null, java.util.Objects.requireNonNull(cancelled)).result();
    }

    /**
     * As {@link #runGroup(int, int, int)}, the group reading {@code memory} (the capture's ranges with other
     * contents: what earlier groups left) instead of the capture's initial memory.
     */
    public GroupResult runGroup(int x, int y, int z, InitialMemory memory) {
        return run(x, y, z, null, null, NEVER, java.util.Objects.requireNonNull(memory), kernel.images()).result();
    }

    /** As above, the group's images reading {@code images} too (the capture's images with other texels). */
    public GroupResult runGroup(int x, int y, int z, InitialMemory memory, InitialImages images) {
        return run(x, y, z, null, null, NEVER, java.util.Objects.requireNonNull(memory),
                java.util.Objects.requireNonNull(images)).result();
    }

    /** As {@link #runTraced(int, int, int, StoreTracer)}, the group reading {@code memory} (see above). */
    public Run runTraced(int x, int y, int z, StoreTracer tracer, InitialMemory memory, InitialImages images) {
        return run(x, y, z, java.util.Objects.requireNonNull(tracer), null, NEVER, java.util.Objects.requireNonNull(memory),
                java.util.Objects.requireNonNull(images));
    }

    /** How many instructions a wave executes between two looks at a group's cancellation. */
    public static final long CANCEL_CHECK_EVERY = 1 << 16;

    /** A cancelled group's evaluation (not a guest fault: it has no result). */
    public static final class GroupCancelled extends java.util.concurrent.CancellationException {
        GroupCancelled(int x, int y, int z) {
            super("group (" + x + ", " + y + ", " + z + ") was cancelled");
        }
    }

    /** A group's result together with its final state (waves, LDS, memory), for tests and inspection. */
    public record Run(GroupResult result, Workgroup group) {
    }

    /** Runs one group and keeps its final state. */
    public Run runKeepingState(int x, int y, int z) {
        return run(x, y, z, null, null, NEVER);
    }

    private static final java.util.function.BooleanSupplier NEVER = () -> false;

    /**
     * Runs one group and keeps its final state; {@code setup} sees each wave after the dispatcher's start state,
     * before its first instruction (the instruction tests preset registers there).
     */
    public Run runKeepingState(int x, int y, int z, java.util.function.Consumer<Wave> setup) {
        return run(x, y, z, null, java.util.Objects.requireNonNull(setup), NEVER);
    }

    /**
     * Runs one group with store tracing: {@code tracer} sees every write to guest memory and images with the
     * wave, lane, PC and instruction that made it. The result is the same as {@link #runGroup}'s.
     */
    public Run runTraced(int x, int y, int z, StoreTracer tracer) {
        return run(x, y, z, java.util.Objects.requireNonNull(tracer), null, NEVER);
    }

    /** Sees each instruction a wave executes, before and after ({@link #runStepped}). */
    public interface StepListener {
        /** Before {@code insn} at {@code pc} executes on {@code wave}. */
        void before(Wave wave, long pc, Instruction insn);

        /** After it executed (not called when it faulted: the run then ends with that fault). */
        void after(Wave wave, long pc, Instruction insn);
    }

    /**
     * Runs one group on the interpreter (whatever this model's tier) with {@code steps} told of every instruction
     * before and after it executes, and store tracing when {@code tracer} is not null: the lockstep trace of
     * {@code replay explain --first-divergence}.
     */
    public Run runStepped(int x, int y, int z, StepListener steps, StoreTracer tracer) {
        return runStepped(x, y, z, steps, tracer, kernel.memory(), kernel.images());
    }

    /** As above, on {@code memory} and {@code images} (what earlier groups of the in-order pass left). */
    public Run runStepped(int x, int y, int z, StepListener steps, StoreTracer tracer, InitialMemory memory,
                          InitialImages images) {
        HostModel interpreter = fast == null ? this : new HostModel(kernel, budget, Tier.REFERENCE);
        interpreter.stepListener = java.util.Objects.requireNonNull(steps);
        try {
            return interpreter.run(x, y, z, tracer, null, NEVER, memory, images);
        } finally {
            interpreter.stepListener = null;
        }
    }

    /** Whether the ISA defines {@code insn}'s result only approximately (transcendentals, clocks). */
    public boolean approximate(Instruction insn) {
        return semantics.fidelity(insn.opcode()) == Fidelity.APPROXIMATE;
    }

    /**
     * Executes one instruction on a wave outside the schedule (a copy of a wave with another state: the lockstep
     * search asks what the ISA gives on the device's registers); a guest fault is thrown as it is.
     */
    public void executeDetached(Wave wave, Instruction insn) {
        Semantics handler = semantics.handler(insn.opcode());
        if (handler == null) {
            throw new GuestFault("unsupported instruction: the host model does not execute " + insn.mnemonic(), -1);
        }
        handler.execute(wave, insn);
        if (!wave.takeJumped()) {
            wave.setPc(wave.pc() + insn.length());
        }
    }

    private StepListener stepListener;

    private Run run(int x, int y, int z, StoreTracer tracer, java.util.function.Consumer<Wave> setup,
                    java.util.function.BooleanSupplier cancelled) {
        return run(x, y, z, tracer, setup, cancelled, kernel.memory(), kernel.images());
    }

    private Run run(int x, int y, int z, StoreTracer tracer, java.util.function.Consumer<Wave> setup,
                    java.util.function.BooleanSupplier cancelled, InitialMemory memory, InitialImages images) {
        Workgroup group = new Workgroup(kernel, memory, images, x, y, z);
        if (tracer != null) {
            group.memory().traceWith(tracer);
        }
        for (int w = 0; w < kernel.wavesPerGroup(); w++) {
            group.add(initialWave(group, w));
        }
        if (setup != null) {
            group.waves().forEach(setup);
        }
        long[] counts = new long[3];
        Optional<FaultRecord> fault = Optional.empty();
        try {
            schedule(group, counts, cancelled);
        } catch (Stopped stopped) {
            fault = Optional.of(stopped.record);
        }
        long waveInstructions = 0;
        long laneInstructions = 0;
        for (Wave w : group.waves()) {
            waveInstructions += w.instructions();
            laneInstructions += w.laneInstructions();
        }
        return new Run(new GroupResult(x, y, z, group.memory().stores(), group.memory().texelStores(),
                group.memory().atomics(), group.memory().texelAtomics(), fault,
                waveInstructions, laneInstructions, counts[0], counts[1], counts[2]), group);
    }

    /** Runs each wave until it ends or waits at a barrier; releases a barrier once every live wave waits. */
    private void schedule(Workgroup group, long[] counts, java.util.function.BooleanSupplier cancelled) {
        while (true) {
            boolean live = false;
            for (Wave w : group.waves()) {
                if (!w.ended() && !w.atBarrier()) {
                    if (cancelled.getAsBoolean()) {
                        throw new GroupCancelled(group.id(0), group.id(1), group.id(2));
                    }
                    run(w, counts, cancelled);
                }
                live |= !w.ended();
            }
            if (!live) {
                return;
            }
            // every wave that has not ended is waiting: the barrier opens (ended waves no longer count)
            for (Wave w : group.waves()) {
                w.setAtBarrier(false);
            }
        }
    }

    /**
     * The instruction count at which a wave's loop next stops to look: the budget, or sooner the next
     * cancellation check (one comparison per instruction serves both).
     */
    private long nextLook(Wave wave, java.util.function.BooleanSupplier cancelled) {
        if (cancelled != NEVER && cancelled.getAsBoolean()) {
            Workgroup g = wave.group();
            throw new GroupCancelled(g.id(0), g.id(1), g.id(2));
        }
        return cancelled == NEVER ? budget : Math.min(budget, wave.instructions() + CANCEL_CHECK_EVERY);
    }

    private void run(Wave wave, long[] counts, java.util.function.BooleanSupplier cancelled) {
        if (compiled != null) {
            runCompiled(wave, counts, cancelled);
            return;
        }
        if (fast != null) {
            runFast(wave, counts, cancelled);
            return;
        }
        long look = nextLook(wave, cancelled);
        while (!wave.ended() && !wave.atBarrier()) {
            long pc = wave.pc();
            Instruction insn;
            try {
                insn = kernel.program().at(pc);
            } catch (DecodeException e) {
                throw stop(wave, -1, pc, "<no instruction>", e.getMessage());
            }
            Semantics handler = semantics.handler(insn.opcode());
            if (handler == null) {
                counts[2]++;
                throw stop(wave, -1, pc, text(insn), "unsupported instruction: the host model does not execute "
                        + insn.mnemonic());
            }
            if (wave.instructions() >= look) {
                if (wave.instructions() >= budget) {
                    throw stop(wave, -1, pc, text(insn), "instruction budget of " + budget
                            + " exhausted (a runaway loop?)");
                }
                look = nextLook(wave, cancelled);
            }
            counts[semantics.fidelity(insn.opcode()) == Fidelity.APPROXIMATE ? 1 : 0]++;
            GroupMemory memory = wave.group().memory();
            if (memory.tracing()) {
                memory.traceAt(wave.index(), pc, insn);
            }
            wave.count(Long.bitCount(wave.exec()));
            StepListener steps = stepListener;
            if (steps != null) {
                steps.before(wave, pc, insn);
            }
            try {
                handler.execute(wave, insn);
            } catch (GuestFault f) {
                throw stop(wave, f.lane(), pc, text(insn), f.getMessage());
            } catch (RuntimeException bug) {
                throw stop(wave, -1, pc, text(insn), "host model error: " + bug);
            }
            if (!wave.takeJumped()) {
                wave.setPc(pc + insn.length());
            }
            if (steps != null) {
                steps.after(wave, pc, insn);
            }
        }
    }

    /**
     * The fast tier's loop: the same checks in the same order as the interpreter's (decode error,
     * unsupported, budget, counts, tracing), over pre-compiled steps.
     */
    private void runFast(Wave wave, long[] counts, java.util.function.BooleanSupplier cancelled) {
        FastTier.Program program = fast;
        long look = nextLook(wave, cancelled);
        GroupMemory memory = wave.group().memory();
        boolean tracing = memory.tracing();
        while (!wave.ended() && !wave.atBarrier()) {
            long pc = wave.pc();
            look = step(program.at(pc), wave, pc, counts, look, tracing ? memory : null, cancelled);
        }
    }

    /**
     * The compiled tier's loop: at a PC where a compiled run starts, the whole run at once when it ends before the
     * wave's next look at its budget or cancellation and stores are not traced (its counts added as the fast tier's
     * loop would add them one by one); every other instruction as the fast tier's loop runs it.
     */
    private void runCompiled(Wave wave, long[] counts, java.util.function.BooleanSupplier cancelled) {
        CompiledTier.Program program = compiled;
        long look = nextLook(wave, cancelled);
        GroupMemory memory = wave.group().memory();
        boolean tracing = memory.tracing();
        while (!wave.ended() && !wave.atBarrier()) {
            long pc = wave.pc();
            CompiledTier.Block block = tracing ? null : program.block(pc);
            if (block != null && wave.instructions() + block.count <= look) {
                counts[0] += block.count - block.approximate;
                counts[1] += block.approximate;
                long exec = wave.exec();
                wave.count(block.count, Long.bitCount(exec));
                org.replayfarm.model.fp.FpMode m = new org.replayfarm.model.fp.FpMode(wave.mode());
                try {
                    block.body.run(wave, exec, m, CompiledTier.roundsToNearestEven(m));
                    if (block.branch != null) {
                        block.branch.run(wave);
                    }
                } catch (RuntimeException e) {
                    throw stopInside(wave, counts, block, pc, exec, e);
                }
                block.runs++;
                if (!wave.takeJumped()) {
                    wave.setPc(block.end);
                }
                continue;
            }
            look = step(program.fast.at(pc), wave, pc, counts, look, tracing ? memory : null, cancelled);
        }
    }

    /**
     * One instruction on the fast tier, the body both tiers' loops share: the step compiled for {@code pc} (null
     * when the model has no handler for the instruction there), then the budget, the counts, the trace (into
     * {@code traced} when stores are traced, else null) and the step itself. Returns the wave's next look.
     */
    private long step(FastTier.Step step, Wave wave, long pc, long[] counts, long look, GroupMemory traced,
                      java.util.function.BooleanSupplier cancelled) {
        if (step == null) {
            Instruction insn;
            try {
                insn = kernel.program().at(pc);
            } catch (DecodeException e) {
                throw stop(wave, -1, pc, "<no instruction>", e.getMessage());
            }
            // decoded but not compiled: the model has no handler for it
            counts[2]++;
            throw stop(wave, -1, pc, text(insn), "unsupported instruction: the host model does not execute "
                    + insn.mnemonic());
        }
        if (wave.instructions() >= look) {
            if (wave.instructions() >= budget) {
                throw stop(wave, -1, pc, text(step.insn), "instruction budget of " + budget
                        + " exhausted (a runaway loop?)");
            }
            look = nextLook(wave, cancelled);
        }
        counts[step.approximate ? 1 : 0]++;
        if (traced != null) {
            traced.traceAt(wave.index(), pc, step.insn);
        }
        wave.count(Long.bitCount(wave.exec()));
        try {
            step.exec.run(wave);
        } catch (GuestFault f) {
            throw stop(wave, f.lane(), pc, text(step.insn), f.getMessage());
        } catch (RuntimeException bug) {
            throw stop(wave, -1, pc, text(step.insn), "host model error: " + bug);
        }
        if (!wave.takeJumped()) {
            wave.setPc(pc + step.length);
        }
        return look;
    }

    /**
     * A fault (or a host-model error) inside a compiled run: the memory instruction that raised it set the wave's PC
     * to its own; the counts of the instructions after it, added when the run began, are taken back, so the record
     * and the counts are those the fast tier's loop leaves.
     */
    private Stopped stopInside(Wave wave, long[] counts, CompiledTier.Block block, long start, long exec,
                               RuntimeException e) {
        int at = block.indexOf(wave.pc());
        if (at < 0) {
            at = 0; // raised before any memory instruction: none can fault there, so this is a host-model error
        }
        int after = block.count - at - 1;
        int approximateAfter = 0;
        for (int i = at + 1; i < block.count; i++) {
            approximateAfter += block.steps[i].approximate ? 1 : 0;
        }
        wave.count(-after, Long.bitCount(exec));
        counts[0] -= after - approximateAfter;
        counts[1] -= approximateAfter;
        Instruction insn = block.steps[at].insn;
        if (e instanceof GuestFault f) {
            return stop(wave, f.lane(), insn.pc(), text(insn), f.getMessage());
        }
        return stop(wave, -1, insn.pc(), text(insn), "host model error: " + e);
    }

    private String text(Instruction insn) {
        try {
            return Disassembler.text(insn, syntax);
        } catch (IllegalArgumentException e) {
            return insn.mnemonic();
        }
    }

    private static Stopped stop(Wave w, int lane, long pc, String instruction, String message) {
        Workgroup g = w.group();
        return new Stopped(new FaultRecord(g.id(0), g.id(1), g.id(2), w.index(), lane, pc, instruction, message));
    }

    /** Unwinds a group's evaluation at its first fault. */
    private static final class Stopped extends RuntimeException {
        final transient FaultRecord record;

        Stopped(FaultRecord record) {
            super(record.toString(), null, false, false);
            this.record = record;
        }
    }

    /** A wave as the dispatcher starts it: user and system SGPRs, work-item ids, EXEC, MODE. */
    private Wave initialWave(Workgroup group, int index) {
        int waveSize = kernel.waveSize();
        Wave w = new Wave(group, index, waveSize, kernel.vgprCount(), kernel.entry(), kernel.initialMode());
        RegisterLayout layout = kernel.capture().getRegisters();
        for (UserSgpr u : layout.getUserSgprsList()) {
            w.setSgpr(u.getIndex(), u.getValue());
        }
        int waveScratch = kernel.scratchBytesPerLane() * waveSize;
        for (SystemSgpr s : layout.getSystemSgprsList()) {
            int value = switch (s.getKind()) {
                case WORKGROUP_ID_X -> group.id(0);
                case WORKGROUP_ID_Y -> group.id(1);
                case WORKGROUP_ID_Z -> group.id(2);
                case WORKGROUP_INFO -> (index == 0 ? 1 << 31 : 0) | (index & 0x3F) << 6 | kernel.wavesPerGroup();
                case PRIVATE_SEGMENT_WAVE_OFFSET -> index * waveScratch;
                default -> 0;
            };
            w.setSgpr(s.getIndex(), value);
        }
        Dispatch d = kernel.dispatch();
        int sizeX = d.getGroupSizeX();
        int sizeY = d.getGroupSizeY();
        long exec = 0;
        for (int lane = 0; lane < waveSize; lane++) {
            int linear = index * waveSize + lane;
            if (linear >= kernel.groupSize()) {
                continue;
            }
            exec |= 1L << lane;
            int[] ids = {linear % sizeX, linear / sizeX % sizeY, linear / (sizeX * sizeY)};
            for (WorkItemVgpr v : layout.getWorkItemVgprsList()) {
                w.setVgpr(v.getIndex(), lane, ids[v.getDimensionValue() - 1]);
            }
        }
        w.setExec(exec);
        w.setFlatScratch(GuestLayout.SCRATCH_BASE);
        return w;
    }
}
