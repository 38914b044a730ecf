package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * OpenCL C images as written (issue 39 point 2): {@code image2d_t}, {@code image3d_t}, {@code image1d_t} and
 * {@code sampler_t} parameters built by {@code capture build --source} (clang-19 with the device libraries, whose
 * ockl reads ROCm's image object), run on the host model, compared with {@code capture native-run} (clang-19 for
 * x86-64 with the harness's own image implementation) and translated ({@code --device cuda-cpu}, equal to the host).
 * Linear filtering is compared within the documented bound, {@code --abs 0.004}: the device's 8-bit sub-texel
 * fraction against the native build's float weights.
 */
@Tag("corpus")
class OpenClImagesTest {
    /** The documented bound of a linearly filtered read of values in [0, 1] against the native reference. */
    static final double LINEAR_BOUND = 1.0 / 256;

    @TempDir
    Path dir;

    private Path kernel(String name) throws Exception {
        Path p = dir.resolve(name);
        try (InputStream in = getClass().getResourceAsStream("/opencl-images/" + name)) {
            Files.write(p, in.readAllBytes());
        }
        return p;
    }

    /** Texels of {@code count} bytes, deterministic: UNORM 8 below 251 (a UINT write adds up to 4 without saturating). */
    private Path bytes(String name, int count, long seed) throws Exception {
        byte[] b = new byte[count];
        Random r = new Random(seed);
        for (int i = 0; i < count; i++) {
            b[i] = (byte) r.nextInt(251);
        }
        Path p = dir.resolve(name);
        Files.write(p, b);
        return p;
    }

    /** {@code count} channels of floats in [0, 1), as f32 or (exactly representable) f16. */
    private Path floats(String name, int count, boolean half, long seed) throws Exception {
        Random r = new Random(seed);
        ByteBuffer b = ByteBuffer.allocate(count * (half ? 2 : 4)).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < count; i++) {
            float f = r.nextInt(1024) / 1024f;
            if (half) {
                b.putShort((short) org.replayfarm.model.fp.Half.fromFloatBits(Float.floatToRawIntBits(f), 0)); // exact: k/1024
            } else {
                b.putFloat(f);
            }
        }
        Path p = dir.resolve(name);
        Files.write(p, b.array());
        return p;
    }

    private static void ok(CliRun r) {
        assertEquals(0, r.exitCode(), r.out() + r.err());
    }

    private static String[] args(List<String> head, List<String> tail) {
        List<String> all = new ArrayList<>(head);
        all.addAll(tail);
        return all.toArray(String[]::new);
    }

    private static float[] f32s(Path p) throws Exception {
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(p)).order(ByteOrder.LITTLE_ENDIAN);
        float[] f = new float[b.capacity() / 4];
        for (int i = 0; i < f.length; i++) {
            f[i] = b.getFloat(4 * i);
        }
        return f;
    }

    /** Builds, runs natively, attaches the native run as 'native'; returns the capture. */
    private Path buildAndRunNatively(Path source, String kernel, String opt, int wave, List<String> dispatch)
            throws Exception {
        Path capture = dir.resolve(kernel + "-O" + opt + "-w" + wave + ".capture");
        List<String> build = new ArrayList<>(List.of("capture", "build", "--source", source.toString(), "--kernel", kernel,
                "-O", opt, "-o", capture.toString()));
        if (wave == 64) {
            build.add("--wave64");
        }
        ok(CliRun.of(args(build, dispatch)));
        Path nat = dir.resolve("native-" + capture.getFileName());
        CliRun ran = CliRun.of(args(List.of("capture", "native-run", source.toString(), "--kernel", kernel, "--wave-size",
                String.valueOf(wave), "--out", nat.toString()), dispatch));
        ok(ran);
        // a linear sampler's run names the tolerance to compare it with; a nearest one's does not
        assertEquals(dispatch.stream().anyMatch(a -> a.startsWith("sampler:bilinear")),
                ran.out().contains("compare with --abs 0.004"), ran.out());
        ok(CliRun.of("capture", "add-run", capture.toString(), "--label", "native", "--from", nat.toString()));
        return capture;
    }

    @ParameterizedTest(name = "-O{0} wave{1}")
    @CsvSource({"0,32", "0,64", "2,32", "2,64"})
    void a_bilinear_resampler_is_within_a_256th_of_the_native_reference_and_translates_exactly(String opt, int wave)
            throws Exception {
        Path source = kernel("resample.cl");
        Path src = bytes("src.raw", 8 * 6 * 4, 3);
        List<String> dispatch = List.of("--groups", "5,3", "--group-size", "4,4",
                "--arg", "image:raw:" + src + ",8x6,format=8_8_8_8_UNORM", "--arg", "sampler:bilinear,clamp",
                "--arg", "zeros:3840", "--arg", "u32:20", "--arg", "u32:12");
        Path capture = buildAndRunNatively(source, "resample", opt, wave, dispatch);

        // the native reference is the specification's bilinear filter (checked here against the formula itself)
        float[] nat = f32s(dir.resolve("native-" + capture.getFileName()).resolve("guest-0.bin"));
        byte[] texels = Files.readAllBytes(src);
        for (int y = 0; y < 12; y++) {
            for (int x = 0; x < 20; x++) {
                double u = (x + 0.5) / 20 * 8 - 0.5;
                double v = (y + 0.5) / 12 * 6 - 0.5;
                int i0 = (int) Math.floor(u);
                int j0 = (int) Math.floor(v);
                double a = u - i0;
                double b = v - j0;
                for (int c = 0; c < 4; c++) {
                    double want = (1 - a) * (1 - b) * texel(texels, i0, j0, c) + a * (1 - b) * texel(texels, i0 + 1, j0, c)
                            + (1 - a) * b * texel(texels, i0, j0 + 1, c) + a * b * texel(texels, i0 + 1, j0 + 1, c);
                    assertEquals(want, nat[(y * 20 + x) * 4 + c], 1e-6, "native pixel " + x + "," + y + " channel " + c);
                }
            }
        }

        CliRun exact = CliRun.of("run", capture.toString(), "--every-group", "--device", "recorded:native",
                "--out", dir.resolve("exact").toString());
        assertEquals(1, exact.exitCode(), "the device's 8-bit fractions show against float weights: " + exact.out());
        float[] host = f32s(dir.resolve("exact").resolve("host").resolve("guest-0.bin"));
        double largest = 0;
        for (int i = 0; i < host.length; i++) {
            largest = Math.max(largest, Math.abs(host[i] - nat[i]));
        }
        assertTrue(largest > 0 && largest <= LINEAR_BOUND, "largest |host - native| " + largest);
        CliRun bounded = CliRun.of("run", capture.toString(), "--every-group", "--device", "recorded:native",
                "--abs", "0.004", "--out", dir.resolve("bounded").toString());
        assertEquals(0, bounded.exitCode(), bounded.out() + bounded.err());

        CliRun translated = CliRun.of("run", capture.toString(), "--every-group", "--device", "cuda-cpu",
                "--out", dir.resolve("cuda").toString());
        assertEquals(0, translated.exitCode(), translated.out() + translated.err());
        assertTrue(translated.out().contains("result          equal"), translated.out());
    }

    private static double texel(byte[] t, int x, int y, int c) {
        x = Math.max(0, Math.min(7, x));
        y = Math.max(0, Math.min(5, y));
        return (t[(y * 8 + x) * 4 + c] & 0xFF) / 255.0;
    }

    @ParameterizedTest(name = "-O{0}")
    @CsvSource({"0", "2"})
    void each_image_query_answers_the_image_it_was_given(String opt) throws Exception {
        Path source = kernel("queries.cl");
        List<String> dispatch = List.of("--groups", "1", "--group-size", "32",
                "--arg", "image:raw:" + floats("a.raw", 8 * 6, false, 1) + ",8x6,format=32_FLOAT",
                "--arg", "image:raw:" + floats("b.raw", 16 * 4 * 4, true, 2) + ",16x4,format=16_16_16_16_FLOAT",
                "--arg", "image:raw:" + bytes("c.raw", 4 * 5 * 3 * 4, 3) + ",4x5x3,format=8_8_8_8_UNORM,order=ZYXW",
                "--arg", "image:raw:" + floats("d.raw", 16 * 4, false, 4) + ",16x1,format=32_32_32_32_FLOAT",
                "--arg", "zeros:88");
        Path capture = buildAndRunNatively(source, "queries", opt, 32, dispatch);
        CliRun run = CliRun.of("run", capture.toString(), "--every-group", "--device", "recorded:native",
                "--out", dir.resolve("out").toString());
        assertEquals(0, run.exitCode(), run.out() + run.err());
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(dir.resolve("out").resolve("host").resolve("guest-0.bin")))
                .order(ByteOrder.LITTLE_ENDIAN);
        int[] got = new int[22];
        for (int i = 0; i < got.length; i++) {
            got[i] = b.getInt(4 * i);
        }
        // the OpenCL 2.0 API specification's values: CL_FLOAT 0x10DE, CL_R 0x10B0, CL_HALF_FLOAT 0x10DD,
        // CL_RGBA 0x10B5, CL_UNORM_INT8 0x10D2, CL_BGRA 0x10B6
        int[] want = {8, 6, 0x10DE, 0x10B0, 8, 6, 16, 4, 0x10DD, 0x10B5, 4, 5, 3, 4, 5, 3, 0, 0x10D2, 0x10B6, 16, 0x10DE,
            0x10B5};
        assertArrayEquals(want, got);
    }

    @ParameterizedTest(name = "{0} {1} {2} {3}")
    @CsvSource({
        "reads, 8_8_8_8_UNORM, 'bilinear,clamp', 0.125",
        "reads, 8_8_8_8_UNORM, 'bilinear,border', 0.125",
        "reads, 8_8_8_8_UNORM, 'point,wrap', 0.125",
        "reads, 8_8_8_8_UNORM, 'point,mirror', 0.125",
        "reads, 8_8_8_8_UNORM, 'point,border,unnormalized', 1",
        "reads, 32_FLOAT, 'point,clamp,unnormalized', 1",
        "reads, 32_FLOAT, 'bilinear,wrap', 0.125",
        "reads, 32_32_32_32_FLOAT, 'bilinear,mirror', 0.125",
        "reads, 16_16_16_16_FLOAT, 'point,clamp', 0.125",
        "reads, 16_16_16_16_FLOAT, 'bilinear,clamp,unnormalized', 1",
        "reads_uint, 8_8_8_8_UINT, 'point,wrap', 0.125",
        "reads_uint, 32_UINT, 'point,clamp,unnormalized', 1",
        "reads_uint, 8_8_8_8_UINT, 'point,border,unnormalized', 1",
        "reads_int, 16_16_16_16_SINT, 'point,mirror', 0.125",
    })
    void reads_and_writes_equal_the_native_reference_and_the_translation_equals_the_host(String kernel, String format,
            String sampler, String scale) throws Exception {
        Path source = kernel("reads.cl");
        org.replayfarm.model.image.ImageFormat f = org.replayfarm.model.image.ImageFormat.parse(format);
        int texelBytes = f.bytesPerTexel();
        Path src = f.numeric() == org.replayfarm.proto.NumericFormat.NUM_FLOAT
                ? floats("src.raw", 8 * 8 * f.channels(), f.channelBits()[0] == 16, 11)
                : bytes("src.raw", 8 * 8 * texelBytes, 11);
        Path dst = dir.resolve("dst.raw");
        Files.write(dst, new byte[16 * 16 * texelBytes]);
        List<String> dispatch = new ArrayList<>(List.of("--groups", "4,4", "--group-size", "4,4",
                "--arg", "image:raw:" + src + ",8x8,format=" + format, "--arg", "sampler:" + sampler,
                "--arg", "zeros:4096"));
        if (!kernel.equals("reads_int")) {
            dispatch.addAll(List.of("--arg", "zeros:4096", "--arg", "image:raw:" + dst + ",16x16,format=" + format));
        }
        dispatch.addAll(List.of("--arg", "f32:" + scale));
        Path capture = buildAndRunNatively(source, kernel, "2", 32, dispatch);
        List<String> compare = new ArrayList<>(List.of("run", capture.toString(), "--every-group", "--device",
                "recorded:native", "--out", dir.resolve("native").toString()));
        if (sampler.startsWith("bilinear")) {
            compare.addAll(List.of("--abs", "0.004"));
        }
        CliRun run = CliRun.of(compare.toArray(String[]::new));
        assertEquals(0, run.exitCode(), run.out() + run.err());
        assertTrue(run.out().contains(" 0 differing"), run.out());
        CliRun translated = CliRun.of("run", capture.toString(), "--every-group", "--device", "cuda-cpu",
                "--out", dir.resolve("cuda").toString());
        assertEquals(0, translated.exitCode(), translated.out() + translated.err());
    }

    /** 1D and 3D images; a 3D linear read is within 3/512 of the reference (three axes of 1/512). */
    @ParameterizedTest(name = "{0}")
    @CsvSource({"'point,mirror', 0.0625, 0", "'bilinear,wrap', 0.0625, 0.006", "'bilinear,border,unnormalized', 1, 0.006"})
    void one_and_three_dimensional_images_read_as_the_native_reference_and_translate_exactly(String sampler, String scale,
            String abs) throws Exception {
        Path source = kernel("dims.cl");
        List<String> dispatch = List.of("--groups", "1", "--group-size", "32",
                "--arg", "image:raw:" + bytes("a.raw", 16 * 4, 5) + ",16x1,format=8_8_8_8_UNORM",
                "--arg", "image:raw:" + bytes("b.raw", 4 * 3 * 2 * 4, 6) + ",4x3x2,format=8_8_8_8_UNORM",
                "--arg", "sampler:" + sampler, "--arg", "zeros:2560", "--arg", "f32:" + scale);
        Path capture = buildAndRunNatively(source, "dims", "2", 32, dispatch);
        CliRun run = CliRun.of("run", capture.toString(), "--every-group", "--device", "recorded:native", "--abs", abs,
                "--out", dir.resolve("native").toString());
        assertEquals(0, run.exitCode(), run.out() + run.err());
        CliRun translated = CliRun.of("run", capture.toString(), "--every-group", "--device", "cuda-cpu",
                "--out", dir.resolve("cuda").toString());
        assertEquals(0, translated.exitCode(), translated.out() + translated.err());
    }

    @Test
    void an_image_or_sampler_parameter_given_the_wrong_kind_is_an_error_naming_it() throws Exception {
        Path resample = kernel("resample.cl");
        Path queries = kernel("queries.cl");
        Path array = dir.resolve("array.cl");
        Files.writeString(array, "kernel void texels(read_only image1d_buffer_t img, global int *out) {\n"
                + "    out[0] = get_image_width(img);\n}\n");
        Path flat = bytes("flat.raw", 8 * 6 * 4, 1);
        Path volume = bytes("volume.raw", 4 * 4 * 3 * 4, 2);
        Path layered = bytes("layered.raw", 4 * 4 * 3 * 4, 3);
        List<String> named = List.of("--cflag", "-cl-kernel-arg-info", "--groups", "1", "--group-size", "8");
        String[][] cases = {
            {resample + "", "resample", "zeros:64", "sampler:point,clamp", "zeros:64", "u32:1", "u32:1"},
            {resample + "", "resample", "image:raw:" + volume + ",4x4x3,format=8_8_8_8_UNORM", "sampler:point,clamp",
                "zeros:64", "u32:1", "u32:1"},
            {resample + "", "resample", "image:raw:" + flat + ",8x6,format=8_8_8_8_UNORM", "u32:0", "zeros:64", "u32:1",
                "u32:1"},
            {resample + "", "resample", "image:raw:" + flat + ",8x6,format=8_8_8_8_UNORM", "sampler:point,clamp",
                "zeros:64", "sampler:point,clamp", "u32:1"},
            {queries + "", "queries", "image:raw:" + flat + ",8x6,format=8_8_8_8_UNORM",
                "image:raw:" + flat + ",8x6,format=8_8_8_8_UNORM", "image:raw:" + volume + ",4x4x3,format=8_8_8_8_UNORM",
                "image:raw:" + flat + ",8x6,format=8_8_8_8_UNORM", "zeros:88"},
            {array + "", "texels", "image:raw:" + flat + ",8x6,format=8_8_8_8_UNORM", "zeros:4"},
            {resample + "", "resample", "image:raw:" + layered + ",4x4,layers=3,format=8_8_8_8_UNORM",
                "sampler:point,clamp", "zeros:64", "u32:1", "u32:1"},
        };
        String[] want = {
            "argument 0 (image2d_t src) is an OpenCL image2d_t; give image:PNG or image:raw:PATH,WxH[xD],format=FMT, "
                    + "not 'zeros:64'",
            "argument 0 (image2d_t src) is a 2D image; 'image:raw:volume.raw,4x4,format=8_8_8_8_UNORM,order=XYZW,mips=1'"
                    + " is a 3D image (4x4x3)",
            "argument 1 (sampler_t smp) is an OpenCL sampler_t; give sampler:FILTER,ADDRESS_MODE[,unnormalized], not 'u32:0'",
            "argument 3 (uint dst_width) is a by_value, not a sampler_t; 'sampler:point,clamp' does not fit it",
            "argument 3 (image1d_t d) is a 1D image; 'image:raw:flat.raw,8x6,format=8_8_8_8_UNORM,order=XYZW,mips=1' is 8x6"
                    + " (give image:raw:PATH,Wx1,format=FMT)",
            "argument 0 (image1d_buffer_t img): image1d_buffer_t parameters are not supported by --arg image: (image1d_t, "
                    + "image2d_t, image3d_t, image1d_array_t and image2d_array_t are)",
            "argument 0 (image2d_t src) is not an image array; 'image:raw:layered.raw,4x4,layers=3,format=8_8_8_8_UNORM,"
                    + "order=XYZW,mips=1' has 3 layers",
        };
        for (int k = 0; k < cases.length; k++) {
            List<String> cmd = new ArrayList<>(List.of("capture", "build", "--source", cases[k][0], "--kernel", cases[k][1],
                    "-o", dir.resolve("wrong.capture").toString()));
            cmd.addAll(named);
            for (int a = 2; a < cases[k].length; a++) {
                cmd.addAll(List.of("--arg", cases[k][a]));
            }
            CliRun r = CliRun.of(cmd.toArray(String[]::new));
            assertEquals(2, r.exitCode(), "case " + k + ": " + r.out() + r.err());
            assertTrue(r.err().contains(want[k]), "case " + k + ": " + r.err());
            assertTrue(!Files.exists(dir.resolve("wrong.capture")), "case " + k + " wrote no capture");
        }
    }

    @Test
    void native_run_refuses_an_image_for_a_hip_kernel_by_argument() throws Exception {
        Path hip = dir.resolve("copy.hip");
        Files.writeString(hip, "__global__ void copy(float *out) { out[threadIdx.x] = 1.0f; }\n");
        CliRun r = CliRun.of("capture", "native-run", hip.toString(), "--kernel", "copy", "--groups", "1",
                "--group-size", "8", "--arg", "image:raw:" + bytes("i.raw", 16, 1) + ",2x2,format=8_8_8_8_UNORM",
                "--out", dir.resolve("n").toString());
        assertEquals(2, r.exitCode(), r.out() + r.err());
        assertTrue(r.err().contains("native-run implements OpenCL C's images and samplers; a HIP kernel takes none"),
                r.err());
    }

    /** Image arrays run on the host model and translate; the native reference has none and says so. */
    @ParameterizedTest(name = "-O{0} {1}")
    @CsvSource({"0, 'point,clamp'", "2, 'bilinear,wrap'"})
    void image_arrays_answer_their_size_and_translate_exactly(String opt, String sampler) throws Exception {
        Path source = kernel("layers.cl");
        String[] dispatch = {"--groups", "1", "--group-size", "32",
            "--arg", "image:raw:" + bytes("a.raw", 4 * 2 * 3 * 4, 9) + ",4x2,layers=3,format=8_8_8_8_UNORM",
            "--arg", "image:raw:" + bytes("b.raw", 8 * 2 * 4, 10) + ",8x1,layers=2,format=8_8_8_8_UNORM",
            "--arg", "sampler:" + sampler, "--arg", "zeros:2048", "--arg", "zeros:28"};
        Path capture = dir.resolve("layers.capture");
        ok(CliRun.of(args(List.of("capture", "build", "--source", source.toString(), "--kernel", "layers", "-O", opt,
                "-o", capture.toString()), List.of(dispatch))));
        CliRun translated = CliRun.of("run", capture.toString(), "--every-group", "--device", "cuda-cpu",
                "--out", dir.resolve("cuda").toString());
        assertEquals(0, translated.exitCode(), translated.out() + translated.err());
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(dir.resolve("cuda").resolve("host").resolve("guest-1.bin")))
                .order(ByteOrder.LITTLE_ENDIAN);
        int[] got = new int[7];
        for (int i = 0; i < got.length; i++) {
            got[i] = b.getInt(4 * i);
        }
        assertArrayEquals(new int[] {3, 2, 4, 2, 8, 4, 2}, got, "array sizes, widths, height, dim");
        CliRun nat = CliRun.of(args(List.of("capture", "native-run", source.toString(), "--kernel", "layers", "--out",
                dir.resolve("native").toString()), List.of(dispatch)));
        assertEquals(2, nat.exitCode(), nat.out() + nat.err());
        assertTrue(nat.err().contains("image arrays are not in the native reference"), nat.err());
    }
}
