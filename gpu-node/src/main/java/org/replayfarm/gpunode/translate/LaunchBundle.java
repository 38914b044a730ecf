package org.replayfarm.gpunode.translate;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import org.replayfarm.model.build.GuestLayout;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.proto.Capture;
import org.replayfarm.proto.Dispatch;
import org.replayfarm.proto.FloatMode;
import org.replayfarm.proto.MemoryRange;
import org.replayfarm.proto.SystemSgpr;
import org.replayfarm.proto.UserSgpr;
import org.replayfarm.proto.WorkItemVgpr;

/**
 * The launch bundle: everything a translated dispatch needs besides its code (shape, register layout,
 * MODE, budget, the ranges with their initial bytes, the images section), in the binary layout
 * rt_cpu_main.cpp documents and reads; and the result it writes back (final ranges, images section, per
 * group the fault record and instruction counts). The GPU path launches from the same bundle.
 */
public final class LaunchBundle {
    private static final byte[] MAGIC = "RFLB0001".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] RESULT = "RFLR0001".getBytes(StandardCharsets.US_ASCII);
    /** Instructions one wave may execute (the host model's default budget). */
    public static final long DEFAULT_BUDGET = 200_000_000L;

    private LaunchBundle() {
    }

    /** MODE at wave start from the descriptor's float mode: the capture's enum values are the hardware codes + 1. */
    public static int initialMode(FloatMode f) {
        int round = code(f.getRoundF32Value()) | code(f.getRoundF16F64Value()) << 2;
        int denorm = code(f.getDenormF32Value()) | code(f.getDenormF16F64Value()) << 2;
        return round | denorm << 4 | (f.getDx10Clamp() ? 1 << 8 : 0) | (f.getIeee() ? 1 << 9 : 0)
                | (f.getFp16OverflowClamp() ? 1 << 23 : 0);
    }

    private static int code(int enumValue) {
        return Math.max(0, enumValue - 1);
    }

    /**
     * Writes the bundle for a capture's whole dispatch.
     *
     * @param images the images section (empty when the capture has no images)
     */
    public static byte[] write(CaptureFile capture, long budget, byte[] images) {
        Capture c = capture.metadata();
        Dispatch d = c.getDispatch();
        int waveSize = c.getProgram().getWaveSize();
        int groupLanes = d.getGroupSizeX() * d.getGroupSizeY() * d.getGroupSizeZ();
        Out o = new Out();
        o.bytes(MAGIC);
        o.u32(d.getGroupCountX()).u32(d.getGroupCountY()).u32(d.getGroupCountZ());
        o.u32(d.getGroupSizeX()).u32(d.getGroupSizeY()).u32(d.getGroupSizeZ());
        o.u32((groupLanes + waveSize - 1) / waveSize);
        o.u32(initialMode(c.getProgram().getFloatMode()));
        o.u32(c.getProgram().getScratchBytesPerLane());
        o.u32(c.getProgram().getLdsBytes());
        o.u64(budget).u64(GuestLayout.SCRATCH_BASE);
        List<UserSgpr> user = c.getRegisters().getUserSgprsList();
        o.u32(user.size());
        for (UserSgpr u : user) {
            o.u32(u.getIndex()).u32(u.getValue());
        }
        List<SystemSgpr> sys = c.getRegisters().getSystemSgprsList();
        o.u32(sys.size());
        for (SystemSgpr s : sys) {
            o.u32(s.getIndex()).u32(s.getKindValue());
        }
        List<WorkItemVgpr> wi = c.getRegisters().getWorkItemVgprsList();
        o.u32(wi.size());
        for (WorkItemVgpr v : wi) {
            o.u32(v.getIndex()).u32(v.getDimensionValue());
        }
        o.u32(c.getRangesCount());
        for (MemoryRange r : c.getRangesList()) {
            o.u32(r.getIndex()).u32(3).u64(r.getGuestAddress()).u64(r.getSize());
            ByteBuffer b = capture.blob(r.getInitial());
            byte[] a = new byte[b.remaining()];
            b.duplicate().get(a);
            o.bytes(a).pad8();
        }
        o.u64(images.length).bytes(images).pad8();
        return o.toByteArray();
    }

    /** One group's outcome on the device. */
    public record GroupOutcome(boolean faulted, int code, int wave, int lane, long pc, long address,
                               long waveInstructions, long laneInstructions) {
    }

    /** What the runner wrote: final ranges by index, the images section, per group (linear id) its outcome. */
    public record Result(SortedMap<Integer, ByteBuffer> ranges, ByteBuffer images, List<GroupOutcome> groups) {
    }

    /** Reads a result; a malformed one is an IllegalArgumentException naming what is wrong. */
    public static Result read(byte[] bytes) {
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        try {
            byte[] magic = new byte[8];
            b.get(magic);
            if (!java.util.Arrays.equals(magic, RESULT)) {
                throw new IllegalArgumentException("not a runner result (magic)");
            }
            int n = b.getInt();
            SortedMap<Integer, ByteBuffer> ranges = new TreeMap<>();
            for (int i = 0; i < n; i++) {
                int index = b.getInt();
                b.getInt();
                long size = b.getLong();
                ByteBuffer data = b.slice().limit(Math.toIntExact(size)).order(ByteOrder.LITTLE_ENDIAN);
                b.position(b.position() + (int) ((size + 7) & ~7L));
                ranges.put(index, data);
            }
            long imageBytes = b.getLong();
            ByteBuffer images = b.slice().limit(Math.toIntExact(imageBytes));
            b.position(b.position() + (int) ((imageBytes + 7) & ~7L));
            int groups = b.getInt();
            List<GroupOutcome> out = new ArrayList<>(groups);
            for (int i = 0; i < groups; i++) {
                out.add(new GroupOutcome(b.getInt() != 0, b.getInt(), b.getInt(), b.getInt(), b.getLong(), b.getLong(),
                        b.getLong(), b.getLong()));
            }
            return new Result(ranges, images, out);
        } catch (java.nio.BufferUnderflowException | IndexOutOfBoundsException | ArithmeticException e) {
            throw new IllegalArgumentException("the runner's result is truncated or malformed: " + e, e);
        }
    }

    private static final class Out {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();
        private final ByteBuffer scratch = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);

        Out u32(long v) {
            scratch.clear();
            scratch.putInt((int) v);
            out.write(scratch.array(), 0, 4);
            return this;
        }

        Out u64(long v) {
            scratch.clear();
            scratch.putLong(v);
            out.write(scratch.array(), 0, 8);
            return this;
        }

        Out bytes(byte[] b) {
            out.write(b, 0, b.length);
            return this;
        }

        Out pad8() {
            while (out.size() % 8 != 0) {
                out.write(0);
            }
            return this;
        }

        byte[] toByteArray() {
            return out.toByteArray();
        }
    }
}
