package org.replayfarm.coordinator.report;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import org.replayfarm.evalnode.eval.Evaluation;
import org.replayfarm.evalnode.hostmodel.AtomicContribution;
import org.replayfarm.evalnode.hostmodel.FaultRecord;
import org.replayfarm.evalnode.hostmodel.GroupResult;
import org.replayfarm.evalnode.hostmodel.Kernel;
import org.replayfarm.evalnode.hostmodel.StoreRun;
import org.replayfarm.evalnode.hostmodel.TexelStore;
import org.replayfarm.gpunode.device.DeviceRun;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.model.capture.CaptureWriter;
import org.replayfarm.proto.Capture;
import org.replayfarm.proto.ChannelSelect;
import org.replayfarm.proto.DataFormat;
import org.replayfarm.proto.DenormMode;
import org.replayfarm.proto.Dispatch;
import org.replayfarm.proto.FloatMode;
import org.replayfarm.proto.Image;
import org.replayfarm.proto.ImageType;
import org.replayfarm.proto.MemoryRange;
import org.replayfarm.proto.NumericFormat;
import org.replayfarm.proto.Program;
import org.replayfarm.proto.RoundMode;

/**
 * A capture (written by CaptureWriter, opened as a real file) with an 8x4 RGBA8 UNORM image, an 8x4
 * R32 FLOAT image and two 256-byte ranges, dispatched as 4 x 2 groups; host results are built group by
 * group as the host model reports them, so the diffs see exactly the stores a test chose.
 */
final class SyntheticCapture {
    static final int W = 8;
    static final int H = 4;

    final Kernel kernel;
    final Evaluation.Totals totals;

    SyntheticCapture(Path dir) throws Exception {
        CaptureWriter writer = new CaptureWriter();
        byte[] code = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(0xBF810000).array(); // s_endpgm
        Capture capture = Capture.newBuilder()
                .setProgram(Program.newBuilder().setCode(writer.add(code)).setCodeAddress(0x2000_0000L).setWaveSize(32)
                        .setVgprCount(8).setSgprCount(106).setKernelName("synthetic")
                        .setFloatMode(FloatMode.newBuilder().setIeee(true).setDenormF32(DenormMode.DENORM_NONE)
                                .setDenormF16F64(DenormMode.DENORM_NONE).setRoundF32(RoundMode.ROUND_NEAREST_EVEN)
                                .setRoundF16F64(RoundMode.ROUND_NEAREST_EVEN)))
                .setDispatch(Dispatch.newBuilder().setGroupCountX(4).setGroupCountY(2).setGroupCountZ(1)
                        .setGroupSizeX(32).setGroupSizeY(1).setGroupSizeZ(1))
                .addRanges(MemoryRange.newBuilder().setIndex(0).setGuestAddress(0x1_0000_0000L).setSize(256)
                        .setInitial(writer.add(initialRange(0))).setName("out"))
                .addRanges(MemoryRange.newBuilder().setIndex(1).setGuestAddress(0x1_0001_0000L).setSize(256)
                        .setInitial(writer.add(initialRange(1))).setName("bins"))
                .addImages(image(0, DataFormat.FMT_8_8_8_8, NumericFormat.NUM_UNORM, writer.add(initialImage(4)), "colour"))
                .addImages(image(1, DataFormat.FMT_32, NumericFormat.NUM_FLOAT, writer.add(initialImage(4)), "depth"))
                .build();
        Path file = java.nio.file.Files.createDirectories(dir).resolve("synthetic.capture");
        writer.write(capture, file);
        kernel = new Kernel(CaptureFile.open(file));
        totals = new Evaluation.Totals(kernel);
    }

    private static Image image(int index, DataFormat format, NumericFormat numeric, org.replayfarm.proto.BlobRef texels,
                               String name) {
        return Image.newBuilder().setIndex(index).setGuestAddress(0x3_0000_0000L + index * 0x10000L)
                .setType(ImageType.IMAGE_2D).setDataFormat(format).setNumericFormat(numeric).setWidth(W).setHeight(H)
                .setDepth(1).setLayers(1).setMipLevels(1).addChannelOrder(ChannelSelect.SEL_X)
                .addChannelOrder(ChannelSelect.SEL_Y).addChannelOrder(ChannelSelect.SEL_Z)
                .addChannelOrder(ChannelSelect.SEL_W).setTexels(texels).setName(name).build();
    }

    static byte[] initialRange(int seed) {
        byte[] b = new byte[256];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) (seed * 17 + i);
        }
        return b;
    }

    /** Every texel 0x10 in every byte (a dark grey, or a tiny float). */
    static byte[] initialImage(int bpt) {
        byte[] b = new byte[W * H * bpt];
        java.util.Arrays.fill(b, (byte) 0x10);
        return b;
    }

    /** One group's result: what it stored and how many approximate instructions it executed. */
    static GroupResult group(int x, int y, List<StoreRun> stores, List<TexelStore> texels, List<AtomicContribution> atomics,
                             long approximate, FaultRecord fault) {
        return new GroupResult(x, y, 0, stores, texels, atomics, Optional.ofNullable(fault), 10, 320, 10 - approximate,
                approximate, 0);
    }

    static TexelStore texel(int image, int x, int y, byte[] value) {
        return new TexelStore(image, (long) y * W + x, value);
    }

    static byte[] rgba(int r, int g, int b, int a) {
        return new byte[] {(byte) r, (byte) g, (byte) b, (byte) a};
    }

    static byte[] f32(float f) {
        return ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putFloat(f).array();
    }

    /** A device run whose outputs are these arrays (null: not recorded). */
    static DeviceRun device(byte[] range0, byte[] range1, byte[] image0, byte[] image1) {
        SortedMap<Integer, ByteBuffer> ranges = new TreeMap<>();
        SortedMap<Integer, ByteBuffer> images = new TreeMap<>();
        if (range0 != null) {
            ranges.put(0, ByteBuffer.wrap(range0));
        }
        if (range1 != null) {
            ranges.put(1, ByteBuffer.wrap(range1));
        }
        if (image0 != null) {
            images.put(0, ByteBuffer.wrap(image0));
        }
        if (image1 != null) {
            images.put(1, ByteBuffer.wrap(image1));
        }
        return new DeviceRun("recorded", "synthetic device", ranges, images, List.of());
    }
}
