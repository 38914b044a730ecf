package org.replayfarm.evalnode.eval;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.replayfarm.evalnode.hostmodel.AtomicContribution;
import org.replayfarm.evalnode.hostmodel.FaultRecord;
import org.replayfarm.evalnode.hostmodel.GroupResult;
import org.replayfarm.evalnode.hostmodel.HostModel;
import org.replayfarm.evalnode.hostmodel.InitialImages;
import org.replayfarm.evalnode.hostmodel.InitialMemory;
import org.replayfarm.evalnode.hostmodel.Kernel;
import org.replayfarm.evalnode.hostmodel.StoreRun;
import org.replayfarm.evalnode.hostmodel.StoreTracer;
import org.replayfarm.evalnode.hostmodel.TexelAtomic;
import org.replayfarm.evalnode.hostmodel.TexelStore;
import org.replayfarm.evalnode.hostmodel.memory.MemoryOps;

/**
 * Groups that meet on a location where atomics' order matters (a compare-and-swap loop's float sum, an exchange,
 * in memory or on a texel) run again one after another, in group order, each on the memory and images the ones
 * before it left: the capture's initial contents with every earlier such group's stores and atomics applied.
 * Evaluated apart, every group's compare-and-swap succeeds against the initial value and the merge keeps a value no
 * execution produces; run so, the merged value is the one this order of the groups gives on a device. The groups'
 * results then take the place of their first results in the merges ({@link MemoryMerge#replace},
 * {@link ImageMerge#replace}).
 *
 * <p>A group that met another only through plain stores still reads the initial contents (that is a race, reported
 * as a conflict).
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

    /**
     * Runs the order-dependent groups of {@code merge} and {@code images} in order and replaces their results in
     * both (before their atomics are applied).
     */
    static Pass run(Kernel kernel, long budget, HostModel.Tier tier, MemoryMerge merge, ImageMerge images) {
        return run(kernel, budget, tier, merge, images, null);
    }

    /** As above, {@code steps} (null: none) told of every instruction the groups execute (a planted bug's hook). */
    static Pass run(Kernel kernel, long budget, HostModel.Tier tier, MemoryMerge merge, ImageMerge images,
                    HostModel.StepListener steps) {
        Map<Integer, Long> orders = new HashMap<>(merge.orderDependentOrders());
        orders.putAll(images.orderDependentGroups()); // a group in both has one place in add order
        if (orders.isEmpty()) {
            return Pass.NONE;
        }
        List<Integer> keys = new ArrayList<>(orders.keySet());
        keys.sort(java.util.Comparator.comparingLong(orders::get));
        Sequence sequence = new Sequence(kernel, budget, tier);
        sequence.steps = steps;
        List<String> names = new ArrayList<>();
        long wave = 0;
        Optional<FaultRecord> fault = Optional.empty();
        for (int key : keys) {
            int[] id = merge.groupId(key);
            GroupResult r = sequence.next(id[0], id[1], id[2], null);
            merge.replace(r, orders.get(key));
            images.replace(r, orders.get(key));
            names.add(merge.groupName(key));
            wave += r.waveInstructions();
            if (fault.isEmpty()) {
                fault = r.fault();
            }
        }
        return new Pass(List.copyOf(names), wave, fault);
    }

    /**
     * Groups run one after another, each on the memory and images the ones before it left, as the in-order pass
     * runs them (the store trace runs the pass again to show what a group of it stored there).
     */
    public static final class Sequence {
        private final HostModel model;
        private final List<InitialMemory.Range> ranges;
        private final byte[][] memory;
        private final List<InitialImages.Entry> images;
        private final byte[][] texels;
        private HostModel.StepListener steps;

        public Sequence(Kernel kernel, long budget, HostModel.Tier tier) {
            this.model = new HostModel(kernel, budget, tier);
            this.ranges = kernel.memory().ranges();
            this.memory = new byte[ranges.size()][];
            for (int i = 0; i < ranges.size(); i++) {
                memory[i] = new byte[(int) ranges.get(i).size()];
                ranges.get(i).initial().duplicate().get(memory[i]);
            }
            this.images = kernel.images().images();
            this.texels = new byte[images.size()][];
            for (int i = 0; i < images.size(); i++) {
                ByteBuffer t = images.get(i).texels().duplicate();
                t.position(0);
                texels[i] = new byte[t.remaining()];
                t.get(texels[i]);
            }
        }

        /** Runs the next group ({@code tracer}: null, or what sees its stores) and carries what it left. */
        public GroupResult next(int x, int y, int z, StoreTracer tracer) {
            InitialMemory nowMemory = memoryNow();
            InitialImages nowImages = imagesNow();
            GroupResult r = steps != null ? model.runStepped(x, y, z, steps, tracer, nowMemory, nowImages).result()
                    : tracer == null ? model.runGroup(x, y, z, nowMemory, nowImages)
                    : model.runTraced(x, y, z, tracer, nowMemory, nowImages).result();
            carry(r);
            return r;
        }

        /** The capture's ranges holding the carried bytes: what the next group runs on. */
        public InitialMemory memoryNow() {
            List<InitialMemory.Range> now = new ArrayList<>(ranges.size());
            for (int i = 0; i < ranges.size(); i++) {
                InitialMemory.Range r = ranges.get(i);
                now.add(new InitialMemory.Range(r.index(), r.address(), r.size(),
                        ByteBuffer.wrap(memory[i]).asReadOnlyBuffer().order(ByteOrder.LITTLE_ENDIAN), r.name()));
            }
            return new InitialMemory(now);
        }

        /** The capture's images holding the carried texels. */
        public InitialImages imagesNow() {
            List<InitialImages.Entry> now = new ArrayList<>(images.size());
            for (int i = 0; i < images.size(); i++) {
                InitialImages.Entry e = images.get(i);
                now.add(new InitialImages.Entry(e.index(), e.image(),
                        ByteBuffer.wrap(texels[i]).asReadOnlyBuffer().order(ByteOrder.LITTLE_ENDIAN)));
            }
            return new InitialImages(now);
        }

        /** Applies a group's stores, then its atomics in program order, as the merges do. */
        private void carry(GroupResult r) {
            for (StoreRun run : r.stores()) {
                System.arraycopy(run.data(), 0, memory[run.range()], (int) run.offset(), run.data().length);
            }
            for (AtomicContribution a : r.atomics()) {
                apply(memory[a.range()], (int) a.offset(), a.bytes(), a.op(), a.operand(), a.comparand());
            }
            for (TexelStore t : r.texels()) {
                int bpt = t.value().length;
                System.arraycopy(t.value(), 0, texels[t.image()], Math.toIntExact(t.texel() * bpt), bpt);
            }
            for (TexelAtomic a : r.texelAtomics()) {
                apply(texels[a.image()], Math.toIntExact(a.texel() * a.bytes()), a.bytes(), a.op(), a.operand(),
                        a.comparand());
            }
        }

        private static void apply(byte[] b, int at, int bytes, String op, long operand, long comparand) {
            long now = MemoryOps.atomic(op, MemoryOps.littleEndian(b, at, bytes), operand, comparand, bytes);
            MemoryOps.putLittleEndian(b, at, now, bytes);
        }
    }
}
