package org.replayfarm.evalnode.hostmodel;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.proto.MemoryRange;

/** The capture's memory ranges as every group first sees them: read-only, shared by all groups. */
public final class InitialMemory {
    /** One range: its number n, guest address, size and initial bytes (a read-only mapped view). */
    public record Range(int index, long address, long size, ByteBuffer initial, String name) {
        public boolean contains(long a, long bytes) {
            return Long.compareUnsigned(a, address) >= 0 && Long.compareUnsigned(a - address, size) < 0
                    && Long.compareUnsigned(a - address + bytes, size) <= 0;
        }
    }

    private final List<Range> byIndex;
    private final Range[] byAddress;
    private final long[] starts;

    public InitialMemory(List<Range> ranges) {
        this.byIndex = List.copyOf(ranges);
        List<Range> sorted = new ArrayList<>(ranges);
        sorted.sort(Comparator.comparing(Range::address, Long::compareUnsigned));
        this.byAddress = sorted.toArray(Range[]::new);
        this.starts = sorted.stream().mapToLong(Range::address).toArray();
    }

    public static InitialMemory of(CaptureFile capture) {
        List<Range> ranges = new ArrayList<>();
        for (MemoryRange r : capture.metadata().getRangesList()) {
            ranges.add(new Range(r.getIndex(), r.getGuestAddress(), r.getSize(),
                    capture.blob(r.getInitial()).order(ByteOrder.LITTLE_ENDIAN), r.getName()));
        }
        return new InitialMemory(ranges);
    }

    public List<Range> ranges() {
        return byIndex;
    }

    /** The range holding all of [address, address + bytes), or null when no range does. */
    public Range find(long address, long bytes) {
        int lo = 0;
        int hi = starts.length - 1;
        int best = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (Long.compareUnsigned(starts[mid], address) <= 0) {
                best = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        if (best < 0) {
            return null;
        }
        Range r = byAddress[best];
        return r.contains(address, bytes) ? r : null;
    }
}
