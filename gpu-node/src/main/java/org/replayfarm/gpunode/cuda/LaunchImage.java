package org.replayfarm.gpunode.cuda;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * A launch bundle (LaunchBundle's format, rt_cpu_main.cpp documents it) read back for the GPU path, and the
 * kernel's by-value parameter {@code rt_launch_t} laid out as the C compilers lay it out (x86-64 and CUDA
 * share the layout; {@code LaunchImageTest} checks every offset against g++'s {@code offsetof}). The GPU
 * launches from the same bundle the CPU runner reads.
 */
public final class LaunchImage {
    /** rt_launch_t field offsets and size (see replay_rt.h). */
    public static final int GROUP_COUNT = 0;
    public static final int GROUP_SIZE = 12;
    public static final int WAVES_PER_GROUP = 24;
    public static final int MODE = 28;
    public static final int BUDGET = 32;
    public static final int FLAT_SCRATCH = 40;
    public static final int SCRATCH_PER_LANE = 48;
    public static final int LDS_BYTES = 52;
    public static final int NUSER = 56;
    public static final int NSYS = 60;
    public static final int NWI = 64;
    public static final int USER_INDEX = 68;
    public static final int USER_VALUE = 196;
    public static final int SYS_INDEX = 324;
    public static final int SYS_KIND = 356;
    public static final int WI_INDEX = 388;
    public static final int WI_DIM = 400;
    public static final int NRANGES = 412;
    public static final int RANGES = 416;
    public static final int SCRATCH = 424;
    public static final int IMAGES = 432;
    public static final int IMAGES_BYTES = 440;
    public static final int FAULTS = 448;
    public static final int COUNTS = 456;
    public static final int ABORT = 464;
    public static final int SIZE = 472;
    /** rt_range_t: lo, size, base, flags, index. */
    public static final int RANGE_SIZE = 32;
    /** rt_fault_t: set, code, wave, lane, pc, addr. */
    public static final int FAULT_SIZE = 32;
    private static final int MAX_USER = 32;
    private static final int MAX_SYS = 8;

    /** One range of the bundle: its bytes are {@code bundle[offset, offset + size)}. */
    public record Range(int index, int flags, long guestAddress, long size, int offset) {
    }

    private final byte[] bundle;
    private final int[] groupCount = new int[3];
    private final int[] groupSize = new int[3];
    private final int wavesPerGroup;
    private final int mode;
    private final int scratchPerLane;
    private final int ldsBytes;
    private final long budget;
    private final long flatScratch;
    private final int[][] user;
    private final int[][] sys;
    private final int[][] workItems;
    private final List<Range> ranges = new ArrayList<>();
    private final int imagesOffset;
    private final long imagesBytes;

    private LaunchImage(byte[] bundle) {
        this.bundle = bundle;
        ByteBuffer b = ByteBuffer.wrap(bundle).order(ByteOrder.LITTLE_ENDIAN);
        byte[] magic = new byte[8];
        b.get(magic);
        if (!new String(magic, java.nio.charset.StandardCharsets.US_ASCII).equals("RFLB0001")) {
            throw new IllegalArgumentException("launch bundle: bad magic");
        }
        for (int i = 0; i < 3; i++) {
            groupCount[i] = b.getInt();
        }
        for (int i = 0; i < 3; i++) {
            groupSize[i] = b.getInt();
        }
        wavesPerGroup = b.getInt();
        mode = b.getInt();
        scratchPerLane = b.getInt();
        ldsBytes = b.getInt();
        budget = b.getLong();
        flatScratch = b.getLong();
        user = pairs(b, MAX_USER, "user SGPRs");
        sys = pairs(b, MAX_SYS, "system SGPRs");
        workItems = pairs(b, 3, "work-item VGPRs");
        int n = b.getInt();
        if (n < 0 || n > 1 << 20) {
            throw new IllegalArgumentException("launch bundle: " + n + " ranges");
        }
        for (int i = 0; i < n; i++) {
            int index = b.getInt();
            int flags = b.getInt();
            long lo = b.getLong();
            long size = b.getLong();
            if (size < 0 || size > b.remaining()) {
                throw new IllegalArgumentException("launch bundle: range " + index + " size " + size + " past the bundle");
            }
            ranges.add(new Range(index, flags, lo, size, b.position()));
            b.position(b.position() + (int) ((size + 7) & ~7L));
        }
        imagesBytes = b.getLong();
        if (imagesBytes < 0 || imagesBytes > b.remaining()) {
            throw new IllegalArgumentException("launch bundle: images section of " + imagesBytes + " bytes past the bundle");
        }
        imagesOffset = b.position();
    }

    /** Reads a bundle; a malformed one is an IllegalArgumentException naming what. */
    public static LaunchImage of(byte[] bundle) {
        try {
            return new LaunchImage(bundle);
        } catch (java.nio.BufferUnderflowException | IndexOutOfBoundsException e) {
            throw new IllegalArgumentException("launch bundle: truncated (" + e + ")", e);
        }
    }

    private static int[][] pairs(ByteBuffer b, int max, String what) {
        int n = b.getInt();
        if (n < 0 || n > max) {
            throw new IllegalArgumentException("launch bundle: " + n + " " + what + " (at most " + max + ")");
        }
        int[][] p = new int[n][2];
        for (int i = 0; i < n; i++) {
            p[i][0] = b.getInt();
            p[i][1] = b.getInt();
        }
        return p;
    }

    public byte[] bundle() {
        return bundle;
    }

    public List<Range> ranges() {
        return List.copyOf(ranges);
    }

    public int groupCount(int d) {
        return groupCount[d];
    }

    public long groups() {
        return (long) groupCount[0] * groupCount[1] * groupCount[2];
    }

    public int wavesPerGroup() {
        return wavesPerGroup;
    }

    public int ldsBytes() {
        return ldsBytes;
    }

    public int scratchPerLane() {
        return scratchPerLane;
    }

    public int imagesOffset() {
        return imagesOffset;
    }

    public long imagesBytes() {
        return imagesBytes;
    }

    /** Scratch backing the kernel needs: every group's slot of waves x wave size x bytes per lane. */
    public long scratchBytes(int waveSize) {
        return groups() * wavesPerGroup * waveSize * (long) scratchPerLane;
    }

    /** Device addresses the parameter points at. */
    public record Pointers(long ranges, long scratch, long images, long faults, long counts, long abort) {
    }

    /** The kernel's parameter: rt_launch_t's bytes with these device pointers. */
    public byte[] params(Pointers p) {
        ByteBuffer o = ByteBuffer.allocate(SIZE).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < 3; i++) {
            o.putInt(GROUP_COUNT + 4 * i, groupCount[i]);
            o.putInt(GROUP_SIZE + 4 * i, groupSize[i]);
        }
        o.putInt(WAVES_PER_GROUP, wavesPerGroup).putInt(MODE, mode).putLong(BUDGET, budget)
                .putLong(FLAT_SCRATCH, flatScratch).putInt(SCRATCH_PER_LANE, scratchPerLane).putInt(LDS_BYTES, ldsBytes)
                .putInt(NUSER, user.length).putInt(NSYS, sys.length).putInt(NWI, workItems.length);
        for (int i = 0; i < user.length; i++) {
            o.putInt(USER_INDEX + 4 * i, user[i][0]).putInt(USER_VALUE + 4 * i, user[i][1]);
        }
        for (int i = 0; i < sys.length; i++) {
            o.putInt(SYS_INDEX + 4 * i, sys[i][0]).putInt(SYS_KIND + 4 * i, sys[i][1]);
        }
        for (int i = 0; i < workItems.length; i++) {
            o.putInt(WI_INDEX + 4 * i, workItems[i][0]).putInt(WI_DIM + 4 * i, workItems[i][1]);
        }
        o.putInt(NRANGES, ranges.size()).putLong(RANGES, p.ranges()).putLong(SCRATCH, p.scratch())
                .putLong(IMAGES, p.images()).putLong(IMAGES_BYTES, imagesBytes).putLong(FAULTS, p.faults())
                .putLong(COUNTS, p.counts()).putLong(ABORT, p.abort());
        return o.array();
    }

    /** The range table (rt_range_t per range) with each range's device base. */
    public byte[] rangeTable(long[] deviceBases) {
        ByteBuffer o = ByteBuffer.allocate(Math.max(RANGE_SIZE, RANGE_SIZE * ranges.size())).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < ranges.size(); i++) {
            Range r = ranges.get(i);
            int at = RANGE_SIZE * i;
            o.putLong(at, r.guestAddress()).putLong(at + 8, r.size()).putLong(at + 16, deviceBases[i])
                    .putInt(at + 24, r.flags()).putInt(at + 28, r.index());
        }
        return o.array();
    }
}
