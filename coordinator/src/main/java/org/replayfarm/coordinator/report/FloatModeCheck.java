package org.replayfarm.coordinator.report;

import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import org.replayfarm.evalnode.eval.MemoryMerge;
import org.replayfarm.evalnode.hostmodel.GroupResult;
import org.replayfarm.evalnode.hostmodel.HostModel;
import org.replayfarm.evalnode.hostmodel.Kernel;
import org.replayfarm.evalnode.hostmodel.StoreRun;

/**
 * What the program stores under the other denormal mode. A capture's MODE may flush denormals (ACO sets FLOAT_MODE
 * so for a Vulkan shader that asked for nothing); a reference implementation of the same source (lavapipe, a native
 * build) is free to keep them, as Vulkan and OpenCL allow. The groups that last stored a differing float element run
 * again with every denormal kept, apart as every group runs; an element whose bytes they store are the device's
 * differs only by the float mode, and the comparison says so ({@code tolerated_float_mode}) instead of calling it a
 * difference. It is asked only of recorded runs and output folders (another implementation's results): a translation
 * or an emulator must follow the capture's mode, and a difference there stays one.
 */
final class FloatModeCheck {
    /** Groups run again at most, over the whole comparison. */
    static final int MAX_GROUPS = 256;
    /** Differing elements looked at, per range. */
    static final int MAX_ELEMENTS = 100_000;

    /** The bytes the last storers of differing float elements store with denormals kept, per range and offset. */
    static final class Alternate {
        private final Map<Integer, Map<Integer, Byte>> bytes = new HashMap<>();
        private int groups;

        boolean isEmpty() {
            return bytes.isEmpty();
        }

        /** How many groups ran again. */
        int groups() {
            return groups;
        }

        /** Whether every byte of [at, end) of range {@code n} has an alternate and they all equal the device's. */
        boolean matches(int n, int at, int end, byte[] device) {
            Map<Integer, Byte> r = bytes.get(n);
            if (r == null) {
                return false;
            }
            for (int i = at; i < end; i++) {
                Byte b = r.get(i);
                if (b == null || b != device[i]) {
                    return false;
                }
            }
            return true;
        }
    }

    private FloatModeCheck() {
    }

    /** Whether a run of this kind is another implementation's result (free in its denormal mode). */
    static boolean asks(String deviceKind, Kernel kernel) {
        return (deviceKind.equals("recorded") || deviceKind.equals("dir")) && kernel.flushesDenormals();
    }

    /** The alternate bytes of the differing float elements of {@code diff} (empty when there are none). */
    static Alternate of(DiffResult diff, MemoryMerge memory, Kernel kernel, long budget) {
        Alternate alt = new Alternate();
        Set<Integer> keys = new LinkedHashSet<>();
        for (DiffResult.RangeDiff r : diff.ranges()) {
            if (!r.recorded() || r.differingElements() == 0) {
                continue;
            }
            int eb = r.view().elementBytes();
            int[] storer = memory.storers(r.index());
            int seen = 0;
            var set = r.differingElementSet();
            for (int e = set.nextSetBit(0); e >= 0 && seen < MAX_ELEMENTS; e = set.nextSetBit(e + 1), seen++) {
                for (int i = e * eb; i < (e + 1) * eb && i < storer.length; i++) {
                    if (storer[i] != 0 && memory.atomicContributors(r.index(), i).isEmpty()
                            && (keys.contains(storer[i]) || keys.size() < MAX_GROUPS)) {
                        keys.add(storer[i]);
                    }
                }
            }
        }
        if (keys.isEmpty()) {
            return alt;
        }
        HostModel model = new HostModel(kernel.withMode(kernel.initialMode() | Kernel.DENORMALS_KEPT), budget,
                HostModel.Tier.byDefault());
        for (int key : keys) {
            int[] id = memory.groupId(key);
            GroupResult g = model.runGroup(id[0], id[1], id[2]);
            alt.groups++;
            for (StoreRun run : g.stores()) {
                int[] storer = memory.storers(run.range());
                Map<Integer, Byte> r = alt.bytes.computeIfAbsent(run.range(), k -> new HashMap<>());
                for (int i = 0; i < run.data().length; i++) {
                    int at = (int) run.offset() + i;
                    if (storer[at] == key) { // the byte this group is the merge's last writer of
                        r.put(at, run.data()[i]);
                    }
                }
            }
        }
        return alt;
    }
}
