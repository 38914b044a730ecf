package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.model.image.ImageDescriptor;
import org.replayfarm.proto.ImageType;

/**
 * Multisampled images in Vulkan captures ({@code image:raw:PATH,WxH[,layers=N],samples=S}): a sampled
 * {@code sampler2DMS} fetched by sample (ACO remaps the sample index through RADV's FMASK descriptor, zero
 * here: no FMASK, so the index stands), a storage {@code image2DMSArray} loaded and stored by sample, image
 * atomics on a {@code uimage2DMS}, {@code textureSamples}/{@code imageSamples}/{@code imageSize}; through ACO
 * and LLVM, wave32 and wave64 (ACO wave64 unless -Dreplay.amber.all=true), the host model equal to lavapipe (4
 * samples: lavapipe 22.3 has 1 and 4 only), and 2 and 8 samples through {@code --device cuda-cpu} equal to the
 * host model (4 samples go through it in AmberCorpusTest's sample, script 55). Wrong shapes are named.
 */
@Tag("corpus")
class VulkanMsaaTest {
    @TempDir
    Path dir;
    private VulkanTestSupport v;

    @BeforeEach
    void support() {
        v = new VulkanTestSupport(dir);
    }

    /** One group per sample: group s reads sample s (layer 0 of img) and writes it elsewhere (layer 1). */
    private static final String MS = """
            #version 450
            layout(local_size_x = 4, local_size_y = 4) in;
            layout(set = 0, binding = 0) buffer O { vec4 o[]; };
            layout(set = 0, binding = 1) uniform sampler2DMS tex;
            layout(set = 0, binding = 2, rgba8) uniform image2DMSArray img;
            layout(set = 0, binding = 3, r32ui) uniform uimage2DMS counts;
            void main() {
              ivec2 p = ivec2(gl_LocalInvocationID.xy);
              int s = int(gl_WorkGroupID.x);
              int n = textureSamples(tex);
              vec4 a = texelFetch(tex, p, s);
              vec4 b = imageLoad(img, ivec3(p, 0), s);
              imageStore(img, ivec3(p.yx, 1), n - 1 - s, min(a + b, vec4(1.0)).wzyx);
              uint before = imageAtomicAdd(counts, ivec2(p.x, 0), (s + 1) % n, uint(p.y + 1));
              ivec3 size = imageSize(img);
              o[gl_LocalInvocationIndex + 16u * gl_WorkGroupID.x] = a + 2.0 * b
                  + vec4(float(n), float(imageSamples(img)), float(size.x * 100 + size.y * 10 + size.z),
                         float(texelFetch(tex, p + ivec2(4, 0), s).x));
            }
            """;

    private List<String> bindings(int samples) throws Exception {
        String rgba = ",4x4,format=8_8_8_8_UNORM,samples=" + samples;
        Files.write(dir.resolve("counts.raw"), new byte[4 * 4 * 4 * samples]);
        return List.of("--binding", "0.0=zeros:" + 16 * 16 * samples,
                "--binding", "0.1=image:raw:" + v.bytes("tex.raw", 4 * 4 * 4 * samples, 1) + rgba,
                "--binding", "0.1=sampler:nearest,clamp",
                "--binding", "0.2=image:raw:" + v.bytes("img.raw", 4 * 4 * 4 * 2 * samples, 2) + ",4x4,layers=2,"
                        + "format=8_8_8_8_UNORM,samples=" + samples,
                "--binding", "0.3=image:raw:" + dir.resolve("counts.raw") + ",4x4,format=32_UINT,samples=" + samples);
    }

    private Path build(String name, int samples, List<String> extra) throws Exception {
        List<String> options = new ArrayList<>(extra);
        options.addAll(bindings(samples));
        return v.build(name, MS, String.valueOf(samples), options);
    }

    @ParameterizedTest(name = "{0} wave{1}")
    @MethodSource("org.replayfarm.cli.VulkanTestSupport#compilers")
    void multisampledImagesEqualLavapipe(String compiler, int wave) throws Exception {
        Path capture = build("ms", 4, List.of("--compiler", compiler, "--wave" + wave));
        String s = v.runEqual(capture, "--view", "0=f32", "--ulp", "2");
        // the texel samples each side changed: layer 1's 16 texels x 4 samples; 4 texels x 4 samples of counts
        assertTrue(s.contains("binding 0.2 img 64 compared, 0 differing"), s);
        assertTrue(s.contains("binding 0.3 counts 16 compared, 0 differing"), s);
        var images = CaptureFile.open(capture).metadata().getImagesList();
        assertEquals(ImageType.IMAGE_2D, images.get(0).getType());
        assertEquals(4, images.get(0).getSamples());
        assertEquals(ImageType.IMAGE_2D_ARRAY, images.get(1).getType());
        int[] t = ImageDescriptor.of(images.get(1)).encode();
        assertEquals(ImageDescriptor.TYPE_2D_MSAA_ARRAY, t[3] >>> 28);
        assertEquals(2, t[3] >>> 16 & 0xF, "LAST_LEVEL holds log2(samples)");
    }

    @ParameterizedTest(name = "{0} samples")
    @CsvSource({"2", "8"})
    void theTranslatorRunsMultisampledImagesAsTheHostModelDoes(int samples) throws Exception {
        v.equalOnCudaCpu(build("ms" + samples, samples, List.of("--no-reference")));
    }

    @Test
    void wrongShapesAreNamed() throws Exception {
        Path src = v.write("ms.comp", MS);
        List<String> single = new ArrayList<>(bindings(4));
        single.set(3, "0.1=image:raw:" + v.bytes("one.raw", 4 * 4 * 4, 3) + ",4x4,format=8_8_8_8_UNORM");
        CliRun r = CliRun.of(concat(List.of("capture", "build", "--source", src.toString(), "--groups", "4", "--no-reference", "-o",
                dir.resolve("x.capture").toString()), single));
        assertEquals(2, r.exitCode(), r.err());
        assertTrue(r.err().contains("set 0 binding 1 (tex: combined-image-sampler 2D MS): a multisampled image; give its "
                + "samples as image:raw:PATH,WxH,samples=N"), r.err());

        Path plain = v.write("plain.comp", """
                #version 450
                layout(local_size_x = 1) in;
                layout(set = 0, binding = 0, r32ui) uniform uimage2D img;
                void main() { imageStore(img, ivec2(0), uvec4(1)); }
                """);
        CliRun many = CliRun.of("capture", "build", "--source", plain.toString(), "--groups", "1", "--no-reference", "-o",
                dir.resolve("y.capture").toString(), "--binding",
                "0.0=image:raw:" + v.bytes("m.raw", 2 * 2 * 4 * 2, 4) + ",2x2,format=32_UINT,samples=2");
        assertEquals(2, many.exitCode(), many.err());
        assertTrue(many.err().contains("not a multisampled image, but"), many.err());

        CliRun odd = CliRun.of("capture", "build", "--source", plain.toString(), "--groups", "1", "--no-reference", "-o",
                dir.resolve("z.capture").toString(), "--binding",
                "0.0=image:raw:" + v.bytes("o.raw", 2 * 2 * 4 * 3, 5) + ",2x2,format=32_UINT,samples=3");
        assertEquals(2, odd.exitCode(), odd.err());
        assertTrue(odd.err().contains("samples= takes 1, 2, 4, 8 or 16, not '3'"), odd.err());
    }

    private static String[] concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all.toArray(String[]::new);
    }
}
