package org.replayfarm.evalnode.eval;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.replayfarm.evalnode.hostmodel.AtomicContribution;
import org.replayfarm.evalnode.hostmodel.FaultRecord;
import org.replayfarm.evalnode.hostmodel.GroupResult;
import org.replayfarm.evalnode.hostmodel.HostModel;
import org.replayfarm.evalnode.hostmodel.InitialMemory;
import org.replayfarm.evalnode.hostmodel.Kernel;
import org.replayfarm.evalnode.hostmodel.StoreRun;
import org.replayfarm.evalnode.hostmodel.memory.MemoryOps;

/**
 * Groups that meet on a location where atomics' order matters (a compare-and-swap loop's float sum, an exchange)
 * run again one after another, in group order, each on the memory the ones before it left: the capture's
 * initial memory with every earlier such group's stores and atomics applied. Evaluated apart, every group's
 * compare-and-swap succeeds against the initial value and the merge keeps a value no execution produces; run
 * so, the merged value is the one this order of the groups gives on a device. The groups' results then take
 * the place of their first results in the merge ({@link MemoryMerge#replace}).
 *
 * <p>Only memory is carried; image atomics whose order matters stay reported as before. A group that met
 * another only through plain stores still reads the initial memory (that is a race, reported as a conflict).
 */
public final class InOrder {
    /**
     * What the in-order pass did: the groups in the order run (names), the wave instructions they executed, and
     * the first fault one of them raised (the rest still ran; the faulting group's partial result is merged).
     */
    public record Pass(List<String> groups, long waveInstructions, Optional<FaultRecord> fault) {
        public static final Pass NONE = new Pass(List.of(), 0, Optional.empty());

        public boolean ran() {
            return !groups.isEmpty();
        }
    }

    private InOrder() {
    }

    /** Runs {@code merge}'s order-dependent groups in order and replaces their results in it (before its atomics). */
    static Pass run(Kernel kernel, long budget, HostModel.Tier tier, MemoryMerge merge) {
        List<Integer> keys = merge.orderDependentGroups();
        if (keys.isEmpty()) {
            return Pass.NONE;
        }
        Sequence sequence = new Sequence(kernel, budget, tier);
        List<String> names = new ArrayList<>();
        long wave = 0;
        Optional<FaultRecord> fault = Optional.empty();
        for (int key : keys) {
            int[] id = merge.groupId(key);
            GroupResult r = sequence.next(id[0], id[1], id[2], null);
            merge.replace(r);
            names.add(merge.groupName(key));
            wave += r.waveInstructions();
            if (fault.isEmpty()) {
                fault = r.fault();
            }
        }
        return new Pass(List.copyOf(names), wave, fault);
    }

    /**
     * Groups run one after another, each on the memory the ones before it left, as the in-order pass runs them (the
     * store trace runs the pass again to show what a group of it stored there).
     */
    public static final class Sequence {
        private final HostModel model;
        private final List<InitialMemory.Range> initial;
        private final byte[][] carried;

        public Sequence(Kernel kernel, long budget, HostModel.Tier tier) {
            this.model = new HostModel(kernel, budget, tier);
            this.initial = kernel.memory().ranges();
            this.carried = new byte[initial.size()][];
            for (int i = 0; i < initial.size(); i++) {
                carried[i] = new byte[(int) initial.get(i).size()];
                initial.get(i).initial().duplicate().get(carried[i]);
            }
        }

        /** Runs the next group ({@code tracer}: null, or what sees its stores) and carries what it left. */
        public GroupResult next(int x, int y, int z, org.replayfarm.evalnode.hostmodel.StoreTracer tracer) {
            InitialMemory now = memory(initial, carried);
            GroupResult r = tracer == null ? model.runGroup(x, y, z, now) : model.runTraced(x, y, z, tracer, now).result();
            carry(r, carried);
            return r;
        }
    }

    /** The capture's ranges holding {@code carried}'s bytes. */
    private static InitialMemory memory(List<InitialMemory.Range> initial, byte[][] carried) {
        List<InitialMemory.Range> ranges = new ArrayList<>(initial.size());
        for (int i = 0; i < initial.size(); i++) {
            InitialMemory.Range r = initial.get(i);
            ranges.add(new InitialMemory.Range(r.index(), r.address(), r.size(),
                    ByteBuffer.wrap(carried[i]).asReadOnlyBuffer().order(ByteOrder.LITTLE_ENDIAN), r.name()));
        }
        return new InitialMemory(ranges);
    }

    /** Applies a group's stores, then its atomics in program order, to the carried memory (as the merge does). */
    private static void carry(GroupResult r, byte[][] carried) {
        for (StoreRun run : r.stores()) {
            System.arraycopy(run.data(), 0, carried[run.range()], (int) run.offset(), run.data().length);
        }
        for (AtomicContribution a : r.atomics()) {
            byte[] b = carried[a.range()];
            int at = (int) a.offset();
            long old = 0;
            for (int i = 0; i < a.bytes(); i++) {
                old |= (long) (b[at + i] & 0xFF) << (8 * i);
            }
            long now = MemoryOps.atomic(a.op(), old, a.operand(), a.comparand(), a.bytes());
            for (int i = 0; i < a.bytes(); i++) {
                b[at + i] = (byte) (now >>> (8 * i));
            }
        }
    }
}
