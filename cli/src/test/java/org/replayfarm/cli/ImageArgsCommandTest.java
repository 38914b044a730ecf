package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.proto.Capture;

/** replay capture build with image: and sampler: arguments, and replay eval's image-<k>.png and .raw. */
@Tag("corpus")
class ImageArgsCommandTest {
    @TempDir
    Path dir;

    private static final String INVERT = """
            s_load_dwordx2 s[4:5], s[0:1], 0x0
            s_load_dwordx2 s[6:7], s[0:1], 0x8
            s_waitcnt lgkmcnt(0)
            s_load_dwordx8 s[8:15], s[4:5], 0x0
            s_load_dwordx8 s[24:31], s[6:7], 0x0
            s_waitcnt lgkmcnt(0)
            v_mov_b32 v1, s20
            image_load v[4:7], v[0:1], s[8:15] dmask:0xf dim:SQ_RSRC_IMG_2D unorm
            s_waitcnt vmcnt(0)
            v_sub_f32 v4, 1.0, v4
            v_sub_f32 v5, 1.0, v5
            v_sub_f32 v6, 1.0, v6
            image_store v[4:7], v[0:1], s[24:31] dmask:0xf dim:SQ_RSRC_IMG_2D unorm
            s_endpgm
            """;

    private Path png(String name, int w, int h, boolean pattern) throws Exception {
        BufferedImage img = new BufferedImage(w, h, BufferedImage.TYPE_INT_ARGB);
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                int argb = pattern ? (200 - 9 * x) << 24 | (17 * x + 40 * y) << 16 | (250 - 30 * y) << 8 | (x * y * 7) : 0;
                img.setRGB(x, y, argb);
            }
        }
        Path p = dir.resolve(name);
        ImageIO.write(img, "png", p.toFile());
        return p;
    }

    @Test
    void a_kernel_inverts_a_png_and_eval_writes_the_result_as_png_and_raw() throws Exception {
        Path in = png("in.png", 8, 4, true);
        Path blank = png("blank.png", 8, 4, false);
        Path s = dir.resolve("invert.s");
        Files.writeString(s, INVERT);
        Path capture = dir.resolve("invert.capture");
        CliRun built = CliRun.of("capture", "build", "--asm", s.toString(), "--groups", "4", "--group-size", "8",
                "--workgroup-id-sgpr", "20", "--arg", "image:" + in, "--arg", "image:" + blank + ",order=XYZW",
                "--arg", "sampler:bilinear,clamp", "--arg", "buffer:" + in, "-o", capture.toString());
        assertEquals(0, built.exitCode(), built.err());
        Capture meta = CaptureFile.open(capture).metadata();
        assertEquals(2, meta.getImagesCount());
        assertTrue(meta.getRanges(0).getName().contains("in.png"), "the buffer range stays range 0");
        assertTrue(meta.getRanges(1).getName().contains("image0 T#"), meta.getRanges(1).getName());
        assertTrue(meta.getRanges(2).getName().contains("image1 T#"), meta.getRanges(2).getName());
        assertTrue(meta.getRanges(3).getName().contains("sampler"), meta.getRanges(3).getName());

        CliRun eval = CliRun.of("eval", capture.toString(), "--every-group", "--out", dir.resolve("out").toString());
        assertEquals(0, eval.exitCode(), eval.out() + eval.err());
        BufferedImage source = ImageIO.read(in.toFile());
        BufferedImage result = ImageIO.read(dir.resolve("out/host/image-1.png").toFile());
        byte[] raw = Files.readAllBytes(dir.resolve("out/host/image-1.raw"));
        assertEquals(8 * 4 * 4, raw.length);
        for (int y = 0; y < 4; y++) {
            for (int x = 0; x < 8; x++) {
                int a = source.getRGB(x, y);
                int b = result.getRGB(x, y);
                int at = 4 * (y * 8 + x);
                for (int c = 0; c < 3; c++) {
                    int shift = 16 - 8 * c; // red, green, blue
                    int want = 255 - (a >>> shift & 0xFF);
                    assertEquals(want, b >>> shift & 0xFF, "png (" + x + ", " + y + ") channel " + c);
                    assertEquals(want, raw[at + c] & 0xFF, "raw (" + x + ", " + y + ") channel " + c);
                }
                assertEquals(a >>> 24, b >>> 24, "alpha is kept");
            }
        }
        BufferedImage unchanged = ImageIO.read(dir.resolve("out/host/image-0.png").toFile());
        assertEquals(source.getRGB(5, 3), unchanged.getRGB(5, 3));
    }

    @Test
    void bad_image_arguments_are_named() throws Exception {
        Path s = dir.resolve("k.s");
        Files.writeString(s, "s_endpgm\n");
        Path raw = dir.resolve("t.raw");
        Files.write(raw, new byte[10]);
        CliRun size = CliRun.of("capture", "build", "--asm", s.toString(), "--groups", "1", "--group-size", "1",
                "--arg", "image:raw:" + raw + ",2x2,format=8_8_UNORM", "-o", dir.resolve("x.capture").toString());
        assertEquals(2, size.exitCode());
        assertTrue(size.err().contains("holds 10 bytes") && size.err().contains("takes 8"), size.err());
        CliRun format = CliRun.of("capture", "build", "--asm", s.toString(), "--groups", "1", "--group-size", "1",
                "--arg", "image:raw:" + raw + ",5x1,format=8_8_BOGUS", "-o", dir.resolve("x.capture").toString());
        assertTrue(format.err().contains("unknown image format '8_8_BOGUS'"), format.err());
        CliRun mode = CliRun.of("capture", "build", "--asm", s.toString(), "--groups", "1", "--group-size", "1",
                "--arg", "sampler:point,sideways", "-o", dir.resolve("x.capture").toString());
        assertTrue(mode.err().contains("address mode 'sideways'"), mode.err());
    }
}
