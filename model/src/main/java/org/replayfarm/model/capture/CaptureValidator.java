package org.replayfarm.model.capture;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.replayfarm.proto.BlobRef;
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
import org.replayfarm.proto.RecordedRun;
import org.replayfarm.proto.RegisterLayout;
import org.replayfarm.proto.RoundMode;

/**
 * Checks a capture's metadata against its blobs: every count, size, address, index and enum. The first
 * problem found is thrown as a {@link CaptureFormatException} naming the field.
 */
public final class CaptureValidator {
    /** gfx1030 addresses s0..s105. */
    public static final int SGPR_LIMIT = 106;
    public static final int VGPR_LIMIT = 256;
    public static final int LDS_LIMIT = 64 * 1024;
    /**
     * The most scratch one wave can have on gfx10: COMPUTE_TMPRING_SIZE.WAVESIZE is 13 bits in units of 256 dwords
     * (what LLVM's AMDGPU backend takes as the maximum wave scratch size before gfx11).
     */
    public static final long WAVE_SCRATCH_LIMIT = 1024L * ((1 << 13) - 1);
    public static final int GROUP_SIZE_LIMIT = 1024;
    /**
     * The most groups a dispatch may have (2^31 - 1): every group count, and their product, then fits a
     * non-negative Java int, so no reader of the dispatch can see a count as negative.
     */
    public static final long MAX_GROUPS = Integer.MAX_VALUE;

    private CaptureValidator() {
    }

    public static void validate(Capture capture, BlobSource blobs) throws CaptureFormatException {
        program(capture.getProgram(), blobs);
        registers(capture.getRegisters(), capture.getProgram());
        dispatch(capture.getDispatch());
        ranges(capture.getRangesList(), blobs);
        images(capture.getImagesList(), blobs);
        runs(capture, blobs);
    }

    private static void program(Program p, BlobSource blobs) throws CaptureFormatException {
        if (!p.hasCode()) {
            throw new CaptureFormatException("program.code", "missing");
        }
        long codeLength = blobs.blob(p.getCode(), "program.code").remaining();
        if (codeLength == 0 || codeLength % 4 != 0) {
            throw new CaptureFormatException("program.code", "code is " + codeLength
                    + " bytes; it must be a non-zero multiple of 4");
        }
        long entry = p.getEntryOffset();
        if (entry < 0 || entry >= codeLength) {
            throw new CaptureFormatException("program.entry_offset", "entry " + Long.toUnsignedString(entry)
                    + " lies outside the " + codeLength + "-byte code");
        }
        if (entry % 4 != 0) {
            throw new CaptureFormatException("program.entry_offset", "entry " + entry + " is not 4-byte aligned");
        }
        if (p.getCodeAddress() % 4 != 0) {
            throw new CaptureFormatException("program.code_address", "0x" + Long.toHexString(p.getCodeAddress())
                    + " is not 4-byte aligned");
        }
        checkNoWrap("program.code_address", p.getCodeAddress(), codeLength);
        if (p.getWaveSize() != 32 && p.getWaveSize() != 64) {
            throw new CaptureFormatException("program.wave_size", "must be 32 or 64, is "
                    + Integer.toUnsignedString(p.getWaveSize()));
        }
        checkBetween("program.vgpr_count", p.getVgprCount(), 1, VGPR_LIMIT);
        checkBetween("program.sgpr_count", p.getSgprCount(), 1, SGPR_LIMIT);
        checkBetween("program.lds_bytes", p.getLdsBytes(), 0, LDS_LIMIT);
        long scratchPerWave = Integer.toUnsignedLong(p.getScratchBytesPerLane()) * p.getWaveSize();
        if (scratchPerWave > WAVE_SCRATCH_LIMIT) {
            throw new CaptureFormatException("program.scratch_bytes_per_lane", "too large: "
                    + Integer.toUnsignedString(p.getScratchBytesPerLane()) + " bytes per lane is " + scratchPerWave
                    + " bytes per wave, over gfx1030's "
                    + WAVE_SCRATCH_LIMIT + " (COMPUTE_TMPRING_SIZE.WAVESIZE: 13 bits of 1 KiB), at most "
                    + WAVE_SCRATCH_LIMIT / p.getWaveSize() + " per lane in wave" + p.getWaveSize());
        }
        FloatMode mode = p.getFloatMode();
        if (!p.hasFloatMode()) {
            throw new CaptureFormatException("program.float_mode", "missing");
        }
        checkKnown("program.float_mode.denorm_f32", mode.getDenormF32() != DenormMode.UNRECOGNIZED
                && mode.getDenormF32() != DenormMode.DENORM_MODE_UNSPECIFIED, mode.getDenormF32Value());
        checkKnown("program.float_mode.denorm_f16_f64", mode.getDenormF16F64() != DenormMode.UNRECOGNIZED
                && mode.getDenormF16F64() != DenormMode.DENORM_MODE_UNSPECIFIED, mode.getDenormF16F64Value());
        checkKnown("program.float_mode.round_f32", mode.getRoundF32() != RoundMode.UNRECOGNIZED
                && mode.getRoundF32() != RoundMode.ROUND_MODE_UNSPECIFIED, mode.getRoundF32Value());
        checkKnown("program.float_mode.round_f16_f64", mode.getRoundF16F64() != RoundMode.UNRECOGNIZED
                && mode.getRoundF16F64() != RoundMode.ROUND_MODE_UNSPECIFIED, mode.getRoundF16F64Value());
    }

    private static void registers(RegisterLayout layout, Program program) throws CaptureFormatException {
        int sgprs = program.getSgprCount();
        int vgprCount = program.getVgprCount();
        Set<Integer> usedSgprs = new HashSet<>();
        for (int i = 0; i < layout.getUserSgprsCount(); i++) {
            var sgpr = layout.getUserSgprs(i);
            String field = "registers.user_sgprs[" + i + "]";
            checkBetween(field + ".index", sgpr.getIndex(), 0, sgprs - 1);
            checkKnown(field + ".role", sgpr.getRole() != org.replayfarm.proto.UserSgprRole.UNRECOGNIZED,
                    sgpr.getRoleValue());
            if (!usedSgprs.add(sgpr.getIndex())) {
                throw new CaptureFormatException(field + ".index", "s" + sgpr.getIndex() + " is set twice");
            }
        }
        Set<Integer> kinds = new HashSet<>();
        for (int i = 0; i < layout.getSystemSgprsCount(); i++) {
            var sgpr = layout.getSystemSgprs(i);
            String field = "registers.system_sgprs[" + i + "]";
            checkBetween(field + ".index", sgpr.getIndex(), 0, sgprs - 1);
            checkKnown(field + ".kind", sgpr.getKind() != org.replayfarm.proto.SystemSgprKind.UNRECOGNIZED
                    && sgpr.getKind() != org.replayfarm.proto.SystemSgprKind.SYSTEM_SGPR_KIND_UNSPECIFIED,
                    sgpr.getKindValue());
            if (!usedSgprs.add(sgpr.getIndex())) {
                throw new CaptureFormatException(field + ".index", "s" + sgpr.getIndex()
                        + " is already set by another register of the layout");
            }
            if (!kinds.add(sgpr.getKindValue())) {
                throw new CaptureFormatException(field + ".kind", sgpr.getKind() + " appears twice");
            }
        }
        Set<Integer> vgprs = new HashSet<>();
        Set<Integer> dims = new HashSet<>();
        for (int i = 0; i < layout.getWorkItemVgprsCount(); i++) {
            var vgpr = layout.getWorkItemVgprs(i);
            String field = "registers.work_item_vgprs[" + i + "]";
            checkBetween(field + ".index", vgpr.getIndex(), 0, vgprCount - 1);
            checkKnown(field + ".dimension", vgpr.getDimension() != org.replayfarm.proto.WorkItemDimension.UNRECOGNIZED
                    && vgpr.getDimension() != org.replayfarm.proto.WorkItemDimension.WORK_ITEM_DIMENSION_UNSPECIFIED,
                    vgpr.getDimensionValue());
            if (!vgprs.add(vgpr.getIndex())) {
                throw new CaptureFormatException(field + ".index", "v" + vgpr.getIndex() + " is set twice");
            }
            if (!dims.add(vgpr.getDimensionValue())) {
                throw new CaptureFormatException(field + ".dimension", vgpr.getDimension() + " appears twice");
            }
        }
    }

    private static void dispatch(Dispatch d) throws CaptureFormatException {
        // every count and size is a uint32 on the wire: read unsigned, never as a Java int
        int[] counts = {d.getGroupCountX(), d.getGroupCountY(), d.getGroupCountZ()};
        int[] sizes = {d.getGroupSizeX(), d.getGroupSizeY(), d.getGroupSizeZ()};
        String[] axis = {"x", "y", "z"};
        long groups = 1;
        long lanes = 1;
        for (int i = 0; i < 3; i++) {
            if (counts[i] == 0) {
                throw new CaptureFormatException("dispatch.group_count_" + axis[i], "must be at least 1, is 0");
            }
            if (sizes[i] == 0) {
                throw new CaptureFormatException("dispatch.group_size_" + axis[i], "must be at least 1, is 0");
            }
            long count = Integer.toUnsignedLong(counts[i]);
            long size = Integer.toUnsignedLong(sizes[i]);
            if (count * size > 0xFFFF_FFFFL) {
                throw new CaptureFormatException("dispatch.group_count_" + axis[i], "grid of " + count + " groups of "
                        + size + " work-items overflows the 32-bit grid size in " + axis[i]);
            }
            if (size > GROUP_SIZE_LIMIT) {
                throw new CaptureFormatException("dispatch.group_size_" + axis[i], "a group of " + size
                        + " work-items in " + axis[i] + " exceeds the limit of " + GROUP_SIZE_LIMIT);
            }
            // each factor is below 2^32 and the product so far at most MAX_GROUPS (< 2^31): no overflow
            groups *= count;
            if (groups > MAX_GROUPS) {
                throw new CaptureFormatException("dispatch.group_count_" + axis[i], "the dispatch's "
                        + Integer.toUnsignedString(counts[0]) + " x " + Integer.toUnsignedString(counts[1]) + " x "
                        + Integer.toUnsignedString(counts[2]) + " groups exceed the limit of " + MAX_GROUPS + " groups");
            }
            lanes *= size;
        }
        if (lanes > GROUP_SIZE_LIMIT) {
            throw new CaptureFormatException("dispatch.group_size_x", "a group of " + lanes
                    + " work-items exceeds the limit of " + GROUP_SIZE_LIMIT);
        }
    }

    private static void ranges(List<MemoryRange> ranges, BlobSource blobs) throws CaptureFormatException {
        for (int i = 0; i < ranges.size(); i++) {
            MemoryRange r = ranges.get(i);
            String field = "ranges[" + i + "]";
            if (r.getIndex() != i) {
                throw new CaptureFormatException(field + ".index", "is " + Integer.toUnsignedString(r.getIndex())
                        + " but the range is number " + i + " in the list");
            }
            if (r.getSize() == 0) {
                throw new CaptureFormatException(field + ".size", "zero-size range '" + r.getName() + "'");
            }
            checkNoWrap(field + ".guest_address", r.getGuestAddress(), r.getSize());
            if (!r.hasInitial()) {
                throw new CaptureFormatException(field + ".initial", "missing");
            }
            long length = blobs.blob(r.getInitial(), field + ".initial").remaining();
            if (length != r.getSize()) {
                throw new CaptureFormatException(field + ".initial", "holds " + length + " bytes but the range is "
                        + Long.toUnsignedString(r.getSize()) + " bytes");
            }
        }
        List<MemoryRange> sorted = new ArrayList<>(ranges);
        sorted.sort(Comparator.comparing(MemoryRange::getGuestAddress, Long::compareUnsigned));
        for (int i = 1; i < sorted.size(); i++) {
            MemoryRange a = sorted.get(i - 1);
            MemoryRange b = sorted.get(i);
            if (Long.compareUnsigned(a.getGuestAddress() + a.getSize(), b.getGuestAddress()) > 0) {
                throw new CaptureFormatException("ranges[" + b.getIndex() + "].guest_address",
                        String.format("range %d [0x%x, 0x%x) overlaps range %d [0x%x, 0x%x)", b.getIndex(),
                                b.getGuestAddress(), b.getGuestAddress() + b.getSize(), a.getIndex(),
                                a.getGuestAddress(), a.getGuestAddress() + a.getSize()));
            }
        }
    }

    private static void images(List<Image> images, BlobSource blobs) throws CaptureFormatException {
        for (int i = 0; i < images.size(); i++) {
            Image im = images.get(i);
            String field = "images[" + i + "]";
            if (im.getIndex() != i) {
                throw new CaptureFormatException(field + ".index", "is " + Integer.toUnsignedString(im.getIndex())
                        + " but the image is number " + i + " in the list");
            }
            checkKnown(field + ".type", im.getType() != ImageType.UNRECOGNIZED
                    && im.getType() != ImageType.IMAGE_TYPE_UNSPECIFIED, im.getTypeValue());
            checkKnown(field + ".data_format", TexelLayout.bytesPerTexel(im.getDataFormat()) != 0,
                    im.getDataFormatValue());
            checkKnown(field + ".numeric_format", im.getNumericFormat() != NumericFormat.UNRECOGNIZED
                    && im.getNumericFormat() != NumericFormat.NUMERIC_FORMAT_UNSPECIFIED, im.getNumericFormatValue());
            checkBetween(field + ".width", im.getWidth(), 1, 16384);
            checkBetween(field + ".height", im.getHeight(), 1, 16384);
            checkBetween(field + ".depth", im.getDepth(), 1, 8192);
            checkBetween(field + ".layers", im.getLayers(), 1, 8192);
            int maxDim = Math.max(im.getWidth(), Math.max(im.getHeight(), im.getDepth()));
            int maxLevels = 32 - Integer.numberOfLeadingZeros(maxDim);
            checkBetween(field + ".mip_levels", im.getMipLevels(), 1, maxLevels);
            switch (im.getType()) {
                case IMAGE_1D, IMAGE_1D_ARRAY -> {
                    checkBetween(field + ".height", im.getHeight(), 1, 1);
                    checkBetween(field + ".depth", im.getDepth(), 1, 1);
                }
                case IMAGE_2D, IMAGE_2D_ARRAY -> checkBetween(field + ".depth", im.getDepth(), 1, 1);
                case IMAGE_CUBE -> {
                    checkBetween(field + ".depth", im.getDepth(), 1, 1);
                    if (im.getWidth() != im.getHeight()) {
                        throw new CaptureFormatException(field + ".height", "a cube's faces must be square; "
                                + im.getWidth() + "x" + im.getHeight());
                    }
                    if (im.getLayers() % 6 != 0) {
                        throw new CaptureFormatException(field + ".layers", "a cube has 6 faces per cube, "
                                + im.getLayers() + " layers is not a multiple of 6");
                    }
                }
                default -> { }
            }
            if (im.getType() == ImageType.IMAGE_1D || im.getType() == ImageType.IMAGE_2D
                    || im.getType() == ImageType.IMAGE_3D) {
                checkBetween(field + ".layers", im.getLayers(), 1, 1);
            }
            if (im.getChannelOrderCount() != 4) {
                throw new CaptureFormatException(field + ".channel_order", "needs 4 selects (x, y, z, w), has "
                        + im.getChannelOrderCount());
            }
            for (int c = 0; c < 4; c++) {
                ChannelSelect sel = im.getChannelOrder(c);
                checkKnown(field + ".channel_order[" + c + "]", sel != ChannelSelect.UNRECOGNIZED
                        && sel != ChannelSelect.CHANNEL_SELECT_UNSPECIFIED, im.getChannelOrderValue(c));
            }
            long expected = TexelLayout.totalBytes(im);
            if (!im.hasTexels()) {
                throw new CaptureFormatException(field + ".texels", "missing");
            }
            long actual = blobs.blob(im.getTexels(), field + ".texels").remaining();
            if (actual != expected) {
                throw new CaptureFormatException(field + ".texels", "holds " + actual + " bytes, but a "
                        + im.getWidth() + "x" + im.getHeight() + "x" + im.getDepth() + " " + im.getType() + " of "
                        + im.getLayers() + " layer(s) and " + im.getMipLevels() + " mip level(s) in "
                        + im.getDataFormat() + " takes " + expected);
            }
        }
    }

    private static void runs(Capture capture, BlobSource blobs) throws CaptureFormatException {
        Set<String> labels = new HashSet<>();
        for (int r = 0; r < capture.getRunsCount(); r++) {
            RecordedRun run = capture.getRuns(r);
            String field = "runs[" + r + "]";
            if (run.getLabel().isBlank()) {
                throw new CaptureFormatException(field + ".label", "a recorded run must say what produced it");
            }
            if (!labels.add(run.getLabel())) {
                throw new CaptureFormatException(field + ".label", "'" + run.getLabel() + "' is used twice");
            }
            Set<Integer> seen = new HashSet<>();
            for (int i = 0; i < run.getRangesCount(); i++) {
                var contents = run.getRanges(i);
                String f = field + ".ranges[" + i + "]";
                int index = contents.getRangeIndex();
                if (index < 0 || index >= capture.getRangesCount()) {
                    throw new CaptureFormatException(f + ".range_index", "no range " + Integer.toUnsignedString(index)
                            + " (the capture has " + capture.getRangesCount() + ")");
                }
                if (!seen.add(index)) {
                    throw new CaptureFormatException(f + ".range_index", "range " + index + " appears twice");
                }
                checkLength(f + ".data", contents.getData(), capture.getRanges(index).getSize(), blobs);
            }
            seen.clear();
            for (int i = 0; i < run.getImagesCount(); i++) {
                var contents = run.getImages(i);
                String f = field + ".images[" + i + "]";
                int index = contents.getImageIndex();
                if (index < 0 || index >= capture.getImagesCount()) {
                    throw new CaptureFormatException(f + ".image_index", "no image " + Integer.toUnsignedString(index)
                            + " (the capture has " + capture.getImagesCount() + ")");
                }
                if (!seen.add(index)) {
                    throw new CaptureFormatException(f + ".image_index", "image " + index + " appears twice");
                }
                checkLength(f + ".texels", contents.getTexels(),
                        TexelLayout.totalBytes(capture.getImages(index)), blobs);
            }
        }
    }

    private static void checkLength(String field, BlobRef ref, long expected, BlobSource blobs)
            throws CaptureFormatException {
        long actual = blobs.blob(ref, field).remaining();
        if (actual != expected) {
            throw new CaptureFormatException(field, "holds " + actual + " bytes, expected "
                    + Long.toUnsignedString(expected));
        }
    }

    private static void checkBetween(String field, int value, int min, int max) throws CaptureFormatException {
        if (value < min || value > max) {
            throw new CaptureFormatException(field, "is " + Integer.toUnsignedString(value) + "; must be in ["
                    + min + ", " + max + "]");
        }
    }

    private static void checkKnown(String field, boolean known, int rawValue) throws CaptureFormatException {
        if (!known) {
            throw new CaptureFormatException(field, "unknown or unset value " + rawValue);
        }
    }

    private static void checkNoWrap(String field, long address, long size) throws CaptureFormatException {
        if (Long.compareUnsigned(address, -1L - size + 1) > 0 && size != 0) {
            throw new CaptureFormatException(field, String.format(
                    "0x%x + %s bytes wraps past the end of the 64-bit address space", address,
                    Long.toUnsignedString(size)));
        }
    }
}
