package org.replayfarm.model.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Consumer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.proto.Capture;
import org.replayfarm.proto.DataFormat;
import org.replayfarm.proto.ImageType;

/**
 * Each bad metadata field is refused by the writer and, written into an otherwise good file, by the
 * reader, with an error that names the field.
 */
@Tag("unit")
class CaptureValidationTest {
    @TempDir
    Path dir;

    private CaptureFormatException refused(String field, Consumer<Capture.Builder> damage) throws Exception {
        SampleCapture sample = new SampleCapture();
        byte[] good = sample.bytes();
        Capture.Builder bad = sample.metadata.build().toBuilder();
        damage.accept(bad);
        CaptureFormatException byWriter = assertThrows(CaptureFormatException.class,
                () -> sample.writer.toBytes(bad.build()));
        assertEquals(field, byWriter.field(), byWriter.getMessage());
        Path p = dir.resolve("bad.capture");
        Files.write(p, CaptureFileTest.rewriteMetadata(good, bad.build()));
        CaptureFormatException byReader = assertThrows(CaptureFormatException.class, () -> CaptureFile.open(p));
        assertEquals(field, byReader.field(), byReader.getMessage());
        return byReader;
    }

    /** The sample with {@code change} is written and opened without error. */
    private void accepted(Consumer<Capture.Builder> change) throws Exception {
        SampleCapture sample = new SampleCapture();
        byte[] good = sample.bytes();
        Capture.Builder changed = sample.metadata.build().toBuilder();
        change.accept(changed);
        sample.writer.toBytes(changed.build());
        Path p = dir.resolve("changed.capture");
        Files.write(p, CaptureFileTest.rewriteMetadata(good, changed.build()));
        assertEquals(changed.getProgram(), CaptureFile.open(p).metadata().getProgram());
    }

    @Test
    void overlapping_ranges_are_refused_naming_both() throws Exception {
        var e = refused("ranges[1].guest_address", c -> c.getRangesBuilder(1).setGuestAddress(0x10ff));
        assertTrue(e.getMessage().contains("overlaps range 0"), e.getMessage());
    }

    @Test
    void a_zero_size_range_is_refused() throws Exception {
        refused("ranges[0].size", c -> c.getRangesBuilder(0).setSize(0));
    }

    @Test
    void a_range_whose_blob_is_not_its_size_is_refused() throws Exception {
        refused("ranges[0].initial", c -> c.getRangesBuilder(0).setSize(255));
    }

    @Test
    void a_range_that_wraps_the_address_space_is_refused() throws Exception {
        refused("ranges[1].guest_address", c -> c.getRangesBuilder(1).setGuestAddress(-50L));
    }

    @Test
    void a_range_numbered_out_of_order_is_refused() throws Exception {
        refused("ranges[1].index", c -> c.getRangesBuilder(1).setIndex(5));
    }

    @Test
    void image_texels_not_matching_format_and_extent_are_refused() throws Exception {
        var e = refused("images[0].texels", c -> c.getImagesBuilder(0).setDataFormat(DataFormat.FMT_16_16_16_16));
        assertTrue(e.getMessage().contains("takes 168"), e.getMessage());
        refused("images[0].texels", c -> c.getImagesBuilder(0).setMipLevels(2));
        refused("images[0].texels", c -> c.getImagesBuilder(0).setWidth(5));
    }

    @Test
    void an_image_with_an_impossible_shape_is_refused() throws Exception {
        refused("images[0].mip_levels", c -> c.getImagesBuilder(0).setMipLevels(4));
        refused("images[0].height", c -> c.getImagesBuilder(0).setType(ImageType.IMAGE_1D));
        refused("images[0].layers", c -> c.getImagesBuilder(0).setType(ImageType.IMAGE_CUBE));
        refused("images[0].channel_order", c -> c.getImagesBuilder(0).clearChannelOrder().addChannelOrder(org.replayfarm.proto.ChannelSelect.SEL_X));
        refused("images[0].data_format", c -> c.getImagesBuilder(0).setDataFormatValue(99));
    }

    @Test
    void group_counts_of_zero_are_refused() throws Exception {
        refused("dispatch.group_count_x", c -> c.getDispatchBuilder().setGroupCountX(0));
        refused("dispatch.group_count_z", c -> c.getDispatchBuilder().setGroupCountZ(0));
        refused("dispatch.group_size_y", c -> c.getDispatchBuilder().setGroupSizeY(0));
    }

    @Test
    void group_counts_whose_product_overflows_are_refused() throws Exception {
        var e = refused("dispatch.group_count_x", c -> c.getDispatchBuilder().setGroupSizeX(1)
                .setGroupCountX(-1).setGroupCountY(-1).setGroupCountZ(-1));
        assertTrue(e.getMessage().contains("4294967295 x 4294967295 x 4294967295 groups exceed the limit"),
                e.getMessage());
        refused("dispatch.group_count_x", c -> c.getDispatchBuilder().setGroupCountX(1 << 30).setGroupSizeX(64));
        refused("dispatch.group_size_x", c -> c.getDispatchBuilder().setGroupSizeX(1024).setGroupSizeY(2));
    }

    @Test
    void a_y_or_z_group_count_of_2_pow_31_or_more_is_read_unsigned_and_refused() throws Exception {
        // 30 x 17 x 2^31 was read as "30 x 17 x -2147483648" and evaluated 0 groups
        var e = refused("dispatch.group_count_z", c -> c.getDispatchBuilder().setGroupSizeX(1).setGroupSizeY(1)
                .setGroupSizeZ(1).setGroupCountX(30).setGroupCountY(17).setGroupCountZ(1 << 31));
        assertTrue(e.getMessage().contains("30 x 17 x 2147483648 groups exceed the limit of 2147483647"), e.getMessage());
        refused("dispatch.group_count_y", c -> c.getDispatchBuilder().setGroupSizeX(1).setGroupSizeY(1)
                .setGroupCountX(1).setGroupCountY(0x8000_0001));
        // 46341^2 > 2^31 - 1: the product is bounded, not just each count
        refused("dispatch.group_count_y", c -> c.getDispatchBuilder().setGroupSizeX(1).setGroupSizeY(1)
                .setGroupCountX(46341).setGroupCountY(46341));
    }

    @Test
    void group_sizes_whose_product_wraps_64_bits_are_refused() throws Exception {
        // 2^31 in each of x, y, z multiplies to 2^93, which wrapped to 0 work-items and passed
        refused("dispatch.group_size_x", c -> c.getDispatchBuilder().setGroupCountX(1).setGroupCountY(1)
                .setGroupCountZ(1).setGroupSizeX(1 << 31).setGroupSizeY(1 << 31).setGroupSizeZ(1 << 31));
    }

    @Test
    void a_program_entry_outside_the_code_is_refused() throws Exception {
        var e = refused("program.entry_offset", c -> c.getProgramBuilder().setEntryOffset(8));
        assertTrue(e.getMessage().contains("outside the 8-byte code"), e.getMessage());
        refused("program.entry_offset", c -> c.getProgramBuilder().setEntryOffset(-4));
        refused("program.entry_offset", c -> c.getProgramBuilder().setEntryOffset(2));
    }

    @Test
    void bad_program_fields_are_refused() throws Exception {
        refused("program.wave_size", c -> c.getProgramBuilder().setWaveSize(48));
        refused("program.vgpr_count", c -> c.getProgramBuilder().setVgprCount(0));
        refused("program.sgpr_count", c -> c.getProgramBuilder().setSgprCount(107));
        refused("program.float_mode.round_f32", c -> c.getProgramBuilder().getFloatModeBuilder().setRoundF32Value(9));
        refused("program.lds_bytes", c -> c.getProgramBuilder().setLdsBytes(65537));
        // 100,000,000 bytes per lane (a whole group's scratch ran the host model out of memory): over the hardware's
        // 8,387,584 bytes per wave; the most a wave64 lane may have passes, one byte more does not
        refused("program.scratch_bytes_per_lane", c -> c.getProgramBuilder().setScratchBytesPerLane(100_000_000));
        refused("program.scratch_bytes_per_lane", c -> c.getProgramBuilder().setWaveSize(64)
                .setScratchBytesPerLane((int) (CaptureValidator.WAVE_SCRATCH_LIMIT / 64) + 1));
        refused("program.scratch_bytes_per_lane", c -> c.getProgramBuilder().setScratchBytesPerLane(-1));
        accepted(c -> c.getProgramBuilder().setWaveSize(64).setScratchBytesPerLane((int) (CaptureValidator.WAVE_SCRATCH_LIMIT / 64)));
    }

    @Test
    void register_layout_conflicts_are_refused() throws Exception {
        refused("registers.system_sgprs[0].index", c -> c.getRegistersBuilder().getSystemSgprsBuilder(0).setIndex(0));
        refused("registers.user_sgprs[0].index", c -> c.getRegistersBuilder().getUserSgprsBuilder(0).setIndex(106));
        refused("registers.system_sgprs[0].index", c -> c.getProgramBuilder().setSgprCount(1));
        refused("registers.work_item_vgprs[0].index", c -> c.getRegistersBuilder().getWorkItemVgprsBuilder(0).setIndex(8));
        refused("registers.work_item_vgprs[0].dimension",
                c -> c.getRegistersBuilder().getWorkItemVgprsBuilder(0).setDimensionValue(0));
    }

    @Test
    void recorded_runs_must_name_real_ranges_with_matching_sizes() throws Exception {
        refused("runs[0].ranges[0].range_index", c -> c.getRunsBuilder(0).getRangesBuilder(0).setRangeIndex(7));
        refused("runs[0].ranges[0].data", c -> c.getRunsBuilder(0).getRangesBuilder(0).setRangeIndex(0));
        refused("runs[0].label", c -> c.getRunsBuilder(0).setLabel(" "));
        refused("runs[0].images[0].image_index", c -> c.getRunsBuilder(0).getImagesBuilder(0).setImageIndex(1));
    }
}
