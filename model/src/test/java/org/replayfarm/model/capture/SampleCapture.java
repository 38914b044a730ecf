package org.replayfarm.model.capture;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.replayfarm.proto.Capture;
import org.replayfarm.proto.ChannelSelect;
import org.replayfarm.proto.DataFormat;
import org.replayfarm.proto.DenormMode;
import org.replayfarm.proto.Dispatch;
import org.replayfarm.proto.FloatMode;
import org.replayfarm.proto.Image;
import org.replayfarm.proto.ImageContents;
import org.replayfarm.proto.ImageType;
import org.replayfarm.proto.MemoryRange;
import org.replayfarm.proto.NumericFormat;
import org.replayfarm.proto.Program;
import org.replayfarm.proto.RangeContents;
import org.replayfarm.proto.RecordedRun;
import org.replayfarm.proto.RegisterLayout;
import org.replayfarm.proto.RoundMode;
import org.replayfarm.proto.SystemSgpr;
import org.replayfarm.proto.SystemSgprKind;
import org.replayfarm.proto.UserSgpr;
import org.replayfarm.proto.WorkItemDimension;
import org.replayfarm.proto.WorkItemVgpr;

/** A small capture with every kind of content: code, two ranges, a mipmapped image and a recorded run. */
final class SampleCapture {
    final CaptureWriter writer = new CaptureWriter();
    final Capture.Builder metadata;

    SampleCapture() {
        byte[] code = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN)
                .putInt(0xBF800000).putInt(0xBF810000).array(); // s_nop 0; s_endpgm
        byte[] a = filled(256, 1);
        byte[] b = filled(100, 7);
        // 4x4 RGBA8 with 3 mips: 16 + 4 + 1 texels
        byte[] texels = filled((16 + 4 + 1) * 4, 3);
        metadata = Capture.newBuilder()
                .setProgram(Program.newBuilder().setCode(writer.add(code)).setCodeAddress(0x2000_0000L)
                        .setEntryOffset(4).setWaveSize(32).setVgprCount(8).setSgprCount(106)
                        .setFloatMode(FloatMode.newBuilder().setIeee(true).setDx10Clamp(true)
                                .setDenormF32(DenormMode.DENORM_NONE).setDenormF16F64(DenormMode.DENORM_NONE)
                                .setRoundF32(RoundMode.ROUND_NEAREST_EVEN)
                                .setRoundF16F64(RoundMode.ROUND_NEAREST_EVEN)))
                .setRegisters(RegisterLayout.newBuilder()
                        .addUserSgprs(UserSgpr.newBuilder().setIndex(0).setValue(0x1000))
                        .addSystemSgprs(SystemSgpr.newBuilder().setIndex(1).setKind(SystemSgprKind.WORKGROUP_ID_X))
                        .addWorkItemVgprs(WorkItemVgpr.newBuilder().setIndex(0).setDimension(WorkItemDimension.WORK_ITEM_ID_X)))
                .setDispatch(Dispatch.newBuilder().setGroupCountX(4).setGroupCountY(2).setGroupCountZ(1)
                        .setGroupSizeX(64).setGroupSizeY(1).setGroupSizeZ(1))
                .addRanges(MemoryRange.newBuilder().setIndex(0).setGuestAddress(0x1000).setSize(a.length)
                        .setInitial(writer.add(a)).setName("a"))
                .addRanges(MemoryRange.newBuilder().setIndex(1).setGuestAddress(0x1100).setSize(b.length)
                        .setInitial(writer.add(b)).setName("b"))
                .addImages(Image.newBuilder().setIndex(0).setGuestAddress(0x8000).setType(ImageType.IMAGE_2D)
                        .setDataFormat(DataFormat.FMT_8_8_8_8).setNumericFormat(NumericFormat.NUM_UNORM)
                        .setWidth(4).setHeight(4).setDepth(1).setLayers(1).setMipLevels(3)
                        .addChannelOrder(ChannelSelect.SEL_Z).addChannelOrder(ChannelSelect.SEL_Y)
                        .addChannelOrder(ChannelSelect.SEL_X).addChannelOrder(ChannelSelect.SEL_W)
                        .setTexels(writer.add(texels)).setName("albedo"))
                .addRuns(RecordedRun.newBuilder().setLabel("native x86-64 (clang-19)")
                        .addRanges(RangeContents.newBuilder().setRangeIndex(1).setData(writer.add(filled(100, 9))))
                        .addImages(ImageContents.newBuilder().setImageIndex(0).setTexels(writer.add(texels))));
    }

    static byte[] filled(int length, int seed) {
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = (byte) (seed * 31 + i * 7);
        }
        return bytes;
    }

    byte[] bytes() throws CaptureFormatException {
        return writer.toBytes(metadata.build());
    }
}
