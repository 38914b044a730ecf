package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.model.capture.CaptureWriter;
import org.replayfarm.proto.Capture;
import org.replayfarm.proto.DataFormat;
import org.replayfarm.proto.Dispatch;
import org.replayfarm.proto.Image;
import org.replayfarm.proto.ImageType;
import org.replayfarm.proto.MemoryRange;
import org.replayfarm.proto.NumericFormat;
import org.replayfarm.proto.Program;
import org.replayfarm.proto.RecordedRun;

/** replay capture add-run: ranges and images from a directory, sizes checked, the file rewritten deterministically. */
@Tag("unit")
class CaptureAddRunTest {
    @TempDir
    Path dir;

    /** A capture with one 64-byte range and one 4x2 RGBA8 image of 2 mips (8 + 2 texels). */
    private Path capture() throws Exception {
        CaptureWriter w = new CaptureWriter();
        byte[] code = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(0xBF810000).array();
        Capture c = Capture.newBuilder()
                .setProgram(Program.newBuilder().setCode(w.add(code)).setCodeAddress(0x2000_0000L).setWaveSize(32)
                        .setVgprCount(8).setSgprCount(106).setFloatMode(org.replayfarm.proto.FloatMode.newBuilder().setIeee(true)
                                .setDenormF32(org.replayfarm.proto.DenormMode.DENORM_NONE)
                                .setDenormF16F64(org.replayfarm.proto.DenormMode.DENORM_NONE)
                                .setRoundF32(org.replayfarm.proto.RoundMode.ROUND_NEAREST_EVEN)
                                .setRoundF16F64(org.replayfarm.proto.RoundMode.ROUND_NEAREST_EVEN)))
                .setDispatch(Dispatch.newBuilder().setGroupCountX(1).setGroupCountY(1).setGroupCountZ(1).setGroupSizeX(1)
                        .setGroupSizeY(1).setGroupSizeZ(1))
                .addRanges(MemoryRange.newBuilder().setIndex(0).setGuestAddress(0x1_0000_0000L).setSize(64)
                        .setInitial(w.add(new byte[64])).setName("out"))
                .addImages(Image.newBuilder().setIndex(0).setGuestAddress(0x3_0000_0000L).setType(ImageType.IMAGE_2D)
                        .setDataFormat(DataFormat.FMT_8_8_8_8).setNumericFormat(NumericFormat.NUM_UNORM).setWidth(4)
                        .setHeight(2).setDepth(1).setLayers(1).setMipLevels(2)
                        .addChannelOrder(org.replayfarm.proto.ChannelSelect.SEL_X).addChannelOrder(org.replayfarm.proto.ChannelSelect.SEL_Y)
                        .addChannelOrder(org.replayfarm.proto.ChannelSelect.SEL_Z).addChannelOrder(org.replayfarm.proto.ChannelSelect.SEL_W)
                        .setTexels(w.add(new byte[40])).setName("tex"))
                .build();
        Path file = dir.resolve("c.capture");
        w.write(c, file);
        return file;
    }

    private static byte[] pattern(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (seed + 3 * i);
        }
        return b;
    }

    @Test
    void a_run_with_a_range_and_an_image_is_attached_and_the_same_inputs_give_the_same_bytes() throws Exception {
        Path capture = capture();
        Path from = Files.createDirectories(dir.resolve("gpu"));
        Files.write(from.resolve("guest-0.bin"), pattern(64, 1));
        Files.write(from.resolve("image-0.raw"), pattern(40, 7));
        Files.writeString(from.resolve("notes.txt"), "other files are ignored");
        Path copy = dir.resolve("copy.capture");
        Files.copy(capture, copy);
        CliRun a = CliRun.of("capture", "add-run", capture.toString(), "--label", "gfx1030 (Radeon RX 6800)", "--from", from.toString());
        assertEquals(0, a.exitCode(), a.err());
        assertTrue(a.out().startsWith("added run 'gfx1030 (Radeon RX 6800)' (1 range(s), 1 image(s))"), a.out());
        CaptureFile f = CaptureFile.open(capture);
        RecordedRun run = f.metadata().getRuns(0);
        byte[] range = new byte[64];
        f.blob(run.getRanges(0).getData()).get(range);
        assertArrayEquals(pattern(64, 1), range);
        byte[] texels = new byte[40];
        f.blob(run.getImages(0).getTexels()).get(texels);
        assertArrayEquals(pattern(40, 7), texels);
        CliRun b = CliRun.of("capture", "add-run", copy.toString(), "--label", "gfx1030 (Radeon RX 6800)", "--from", from.toString());
        assertEquals(0, b.exitCode(), b.err());
        assertArrayEquals(Files.readAllBytes(capture), Files.readAllBytes(copy), "deterministic");

        // a second run keeps the first; replay eval's host/ layout is accepted
        Path evalOut = Files.createDirectories(dir.resolve("eval/host"));
        Files.write(evalOut.resolve("guest-0.bin"), pattern(64, 9));
        CliRun second = CliRun.of("capture", "add-run", capture.toString(), "--label", "host", "--from", dir.resolve("eval").toString());
        assertEquals(0, second.exitCode(), second.err());
        CaptureFile g = CaptureFile.open(capture);
        assertEquals(2, g.metadata().getRunsCount());
        assertEquals(0, g.metadata().getRuns(1).getImagesCount());
        CliRun again = CliRun.of("capture", "add-run", capture.toString(), "--label", "host", "--from", dir.resolve("eval").toString());
        assertEquals(2, again.exitCode());
        assertTrue(again.err().contains("already has a run labelled 'host' (--replace replaces it)"), again.err());
        CliRun replaced = CliRun.of("capture", "add-run", capture.toString(), "--label", "host", "--replace", "--from",
                from.toString());
        assertEquals(0, replaced.exitCode(), replaced.err());
        assertEquals(2, CaptureFile.open(capture).metadata().getRunsCount());
        assertEquals(1, CaptureFile.open(capture).metadata().getRuns(1).getImagesCount());
    }

    @Test
    void wrong_sizes_unknown_indices_and_empty_directories_are_refused_naming_the_file() throws Exception {
        Path capture = capture();
        byte[] before = Files.readAllBytes(capture);
        Path from = Files.createDirectories(dir.resolve("bad"));
        Files.write(from.resolve("image-0.raw"), new byte[32]);
        CliRun small = CliRun.of("capture", "add-run", capture.toString(), "--label", "x", "--from", from.toString());
        assertEquals(2, small.exitCode());
        assertTrue(small.err().contains("image-0.raw: 32 bytes, but image 0 (tex) holds 40 (4x2, 2 mip(s), FMT_8_8_8_8)"),
                small.err());
        Files.delete(from.resolve("image-0.raw"));
        Files.write(from.resolve("guest-0.bin"), new byte[65]);
        CliRun big = CliRun.of("capture", "add-run", capture.toString(), "--label", "x", "--from", from.toString());
        assertTrue(big.err().contains("guest-0.bin: 65 bytes, but range 0 (out) holds 64"), big.err());
        Files.delete(from.resolve("guest-0.bin"));
        Files.write(from.resolve("guest-3.bin"), new byte[64]);
        CliRun unknown = CliRun.of("capture", "add-run", capture.toString(), "--label", "x", "--from", from.toString());
        assertTrue(unknown.err().contains("guest-3.bin: the capture has no range 3 (it has 1 range)"), unknown.err());
        Files.delete(from.resolve("guest-3.bin"));
        CliRun empty = CliRun.of("capture", "add-run", capture.toString(), "--label", "x", "--from", from.toString());
        assertTrue(empty.err().contains("holds no guest-<n>.bin and no image-<k>.raw"), empty.err());
        assertArrayEquals(before, Files.readAllBytes(capture), "a refused run leaves the capture as it was");
    }
}
