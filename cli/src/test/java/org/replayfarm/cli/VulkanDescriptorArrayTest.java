package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
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

/**
 * Arrays of descriptors in Vulkan captures: storage and uniform buffers, combined image-samplers, storage
 * images, sampled images and samplers, and a runtime-sized array (a variable descriptor count), indexed by
 * constants, by dynamically uniform values and by {@code nonuniformEXT} values. Each element is given as
 * {@code --binding SET.BINDING[I]=...}; the host model runs RADV's code (ACO and LLVM, wave32 and wave64) on
 * the layout the farm built and must equal lavapipe's run of the same SPIR-V; the integer results are also
 * computed here.
 */
@Tag("corpus")
class VulkanDescriptorArrayTest {
    @TempDir
    Path dir;
    private VulkanTestSupport v;

    @BeforeEach
    void support() {
        v = new VulkanTestSupport(dir);
    }

    private static final String ARRAYS = """
            #version 450
            #extension GL_EXT_nonuniform_qualifier : require
            layout(local_size_x = 8, local_size_y = 8) in;
            layout(set = 0, binding = 0) buffer OutU { uint ou[]; };
            layout(set = 0, binding = 1) buffer OutF { vec4 of[]; };
            layout(set = 0, binding = 2) readonly buffer B { uint v[]; } bufs[3];
            layout(set = 0, binding = 3) uniform U { uint k; } ubos[2];
            layout(set = 0, binding = 4) uniform sampler2D texs[3];
            layout(set = 0, binding = 5, rgba8) uniform readonly image2D imgs[2];
            layout(set = 0, binding = 6) uniform texture2D ts[2];
            layout(set = 0, binding = 7) uniform sampler smps[2];
            layout(set = 0, binding = 8, rgba8) uniform writeonly image2D outs[2];
            layout(set = 1, binding = 0) readonly buffer R { uint r[]; } rt[];
            void main() {
              ivec2 p = ivec2(gl_LocalInvocationID.xy);
              uint g = gl_WorkGroupID.x;
              uint l = gl_LocalInvocationIndex;
              uint i = l + 64u * g;
              ou[i] = bufs[0].v[i] + 10u * bufs[2].v[i] + 100u * bufs[nonuniformEXT(l % 3u)].v[i]
                    + 1000u * rt[nonuniformEXT(l & 1u)].r[i] + 10000u * rt[g + 1u].r[0] + ubos[g].k;
              vec2 uv = (vec2(p) + 0.5) / 8.0;
              vec4 a = textureLod(texs[nonuniformEXT(l % 3u)], uv * 1.25, 0.0);
              vec4 b = imageLoad(imgs[g], p);
              vec4 c = textureLod(sampler2D(ts[g ^ 1u], smps[g]), uv * 1.5 - 0.25, 0.0);
              imageStore(outs[g], p, a.wzyx);
              of[i] = a + 2.0 * b + 4.0 * c;
            }
            """;

    private Path texels(String name, int seed) throws Exception {
        byte[] px = new byte[8 * 8 * 4];
        for (int i = 0; i < px.length; i++) {
            px[i] = (byte) (i * (31 + 2 * seed) + seed * 17);
        }
        Path p = dir.resolve(name);
        Files.write(p, px);
        return p;
    }

    private static int buf(int k, int i) {
        return i * (k + 1) % 97;
    }

    private static int rt(int k, int i) {
        return i * (k + 5) % 89;
    }

    /** Every binding of {@link #ARRAYS}, element by element. */
    private List<String> arrayBindings() throws Exception {
        List<String> args = new ArrayList<>(List.of("--binding", "0.0=zeros:512", "--binding", "0.1=zeros:2048"));
        String rgba = ",8x8,format=8_8_8_8_UNORM";
        for (int k = 0; k < 3; k++) {
            int kk = k;
            args.addAll(List.of("--binding", "0.2[" + k + "]=buffer:" + v.words("b" + k + ".bin", 128, i -> buf(kk, i))));
            args.addAll(List.of("--binding", "0.4[" + k + "]=image:raw:" + texels("t" + k + ".raw", k) + rgba,
                    "--binding", "0.4[" + k + "]=sampler:nearest," + (k == 1 ? "wrap" : "clamp")));
            args.addAll(List.of("--binding", "1.0[" + k + "]=buffer:" + v.words("r" + k + ".bin", 128, i -> rt(kk, i))));
        }
        for (int k = 0; k < 2; k++) {
            int kk = k;
            args.addAll(List.of("--binding", "0.3[" + k + "]=uniform:" + v.words("u" + k + ".bin", 4, i -> i == 0 ? 7 * (kk + 1) : 0),
                    "--binding", "0.5[" + k + "]=image:raw:" + texels("i" + k + ".raw", 5 + k) + rgba,
                    "--binding", "0.6[" + k + "]=image:raw:" + texels("s" + k + ".raw", 9 + k) + rgba,
                    // one sampler state for both: lavapipe 22.3 samples a dynamically indexed separate
                    // sampler with one element's state (aDynamicSamplerIndexIsReportedAgainstLavapipe)
                    "--binding", "0.7[" + k + "]=sampler:nearest,clamp",
                    "--binding", "0.8[" + k + "]=image:raw:" + texels("o" + k + ".raw", 12 + k) + rgba));
        }
        return args;
    }

    @ParameterizedTest(name = "{0} wave{1}")
    @CsvSource({"aco,64", "aco,32", "llvm,64", "llvm,32"})
    void descriptorArraysEqualLavapipeOnEachCompilerAndWaveSize(String compiler, int wave) throws Exception {
        List<String> options = new ArrayList<>(arrayBindings());
        options.addAll(List.of("--compiler", compiler, "--wave" + wave));
        CliRun built = v.tryBuild("arrays", ARRAYS, "2", options);
        assertEquals(0, built.exitCode(), built.err());
        assertTrue(built.out().contains("reference run: lavapipe (Mesa 22.3"), built.out());
        assertTrue(built.out().matches("(?s).*decoder: all \\d+ instructions read as RADV prints them.*"), built.out());
        // the float results through unorm texels: lavapipe's unorm-to-float conversion and the host model's
        // differ by up to 2 ulps (measured), which SPIR-V allows
        String s = v.runEqual(dir.resolve("arrays.capture"), "--view", "1=f32", "--ulp", "2");
        assertTrue(s.matches("(?s).*range 1 binding 0.1 buffer OutF as f32 \\(--view\\): 512 element\\(s\\) compared, "
                + "0 differing, 0 device-only.*"), s);
        assertTrue(s.contains("unsupported 0"), s);
        assertTrue(s.contains("binding 0.8[1] outs 64 compared, 0 differing"), s);
        // the integer part, computed here: constant, non-uniform and dynamically uniform elements
        ByteBuffer b = VulkanTestSupport.hostRange(dir.resolve("arrays-run"), 0);
        for (int i = 0; i < 128; i++) {
            int l = i % 64;
            int g = i / 64;
            int want = buf(0, i) + 10 * buf(2, i) + 100 * buf(l % 3, i) + 1000 * rt(l & 1, i) + 10000 * rt(g + 1, 0) + 7 * (g + 1);
            assertEquals(want, b.getInt(4 * i), "ou[" + i + "]");
        }
    }

    @Test
    void theTranslatorRunsDescriptorArraysAsTheHostModelDoes() throws Exception {
        List<String> options = new ArrayList<>(arrayBindings());
        options.add("--no-reference");
        v.equalOnCudaCpu(v.build("arrays", ARRAYS, "2", options));
    }

    /**
     * Lavapipe 22.3 takes a non-uniform storage-image index from one lane for every lane (the SPIR-V's
     * OpImageRead operand is decorated NonUniform); RADV's code loops over the indices. The farm reports
     * the difference, and the host model gives each lane its own image.
     */
    @Test
    void aNonUniformStorageImageIndexIsReportedAgainstLavapipe() throws Exception {
        Path src = v.write("nu.comp", """
                #version 450
                #extension GL_EXT_nonuniform_qualifier : require
                layout(local_size_x = 8, local_size_y = 8) in;
                layout(set = 0, binding = 0, r32ui) uniform readonly uimage2D imgs[2];
                layout(set = 0, binding = 1) buffer Out { uint o[]; };
                void main() {
                  ivec2 p = ivec2(gl_LocalInvocationID.xy);
                  uint k = 1u - (uint(p.x >> 1) & 1u);
                  o[gl_LocalInvocationIndex] = imageLoad(imgs[nonuniformEXT(k)], p).x;
                }
                """);
        Path one = v.words("one.raw", 64, i -> 100 + i);
        Path two = v.words("two.raw", 64, i -> 200 + i);
        Path capture = dir.resolve("nu.capture");
        CliRun built = CliRun.of("capture", "build", "--source", src.toString(), "--groups", "1",
                "--binding", "0.0[0]=image:raw:" + one + ",8x8,format=32_UINT",
                "--binding", "0.0[1]=image:raw:" + two + ",8x8,format=32_UINT",
                "--binding", "0.1=zeros:256", "-o", capture.toString());
        assertEquals(0, built.exitCode(), built.err());
        Path out = dir.resolve("run");
        CliRun ran = CliRun.of("run", capture.toString(), "--every-group", "--out", out.toString());
        assertEquals(1, ran.exitCode(), () -> VulkanTestSupport.summary(out));
        assertTrue(VulkanTestSupport.summary(out).contains("range 0 (binding 0.1 buffer Out)"), () -> VulkanTestSupport.summary(out));
        ByteBuffer host = VulkanTestSupport.hostRange(out, 0);
        for (int i = 0; i < 64; i++) {
            int k = 1 - ((i % 8) >> 1 & 1);
            assertEquals((k == 0 ? 100 : 200) + i, host.getInt(4 * i), "o[" + i + "]");
        }
    }

    /**
     * Lavapipe 22.3 samples through a dynamically uniform index into an array of separate samplers with
     * one element's state for every workgroup: group 1 picks the wrapping sampler, lavapipe clamps. The
     * host model follows RADV's code, which loads the S# of the element the group asks for.
     */
    @Test
    void aDynamicSamplerIndexIsReportedAgainstLavapipe() throws Exception {
        Path src = v.write("smp.comp", """
                #version 450
                layout(local_size_x = 1) in;
                layout(set = 0, binding = 0) buffer O { uint o[]; };
                layout(set = 0, binding = 1) uniform texture2D t;
                layout(set = 0, binding = 2) uniform sampler smps[2];
                void main() {
                  uint g = gl_WorkGroupID.x;
                  o[g] = uint(255.0 * textureLod(sampler2D(t, smps[g]), vec2(-0.15625), 0.0).r + 0.5);
                }
                """);
        Path texels = texels("t.raw", 3);
        Path capture = dir.resolve("smp.capture");
        CliRun built = CliRun.of("capture", "build", "--source", src.toString(), "--groups", "2",
                "--binding", "0.0=zeros:8", "--binding", "0.1=image:raw:" + texels + ",8x8,format=8_8_8_8_UNORM",
                "--binding", "0.2[0]=sampler:nearest,clamp", "--binding", "0.2[1]=sampler:nearest,wrap",
                "-o", capture.toString());
        assertEquals(0, built.exitCode(), built.err());
        Path out = dir.resolve("run");
        CliRun ran = CliRun.of("run", capture.toString(), "--every-group", "--out", out.toString());
        assertEquals(1, ran.exitCode(), () -> VulkanTestSupport.summary(out));
        assertTrue(VulkanTestSupport.summary(out).contains("range 0 (binding 0.0 buffer O): 1 of 8 compared bytes differ"), () -> VulkanTestSupport.summary(out));
        // -0.15625 is texel -1.25: clamped, texel (0, 0); wrapped, texel (6, 6); red channels computed here
        byte[] px = Files.readAllBytes(texels);
        ByteBuffer host = VulkanTestSupport.hostRange(out, 0);
        assertEquals(px[0] & 0xFF, host.getInt(0), "group 0, clamped");
        assertEquals(px[(6 * 8 + 6) * 4] & 0xFF, host.getInt(4), "group 1, wrapped");
    }

    @Test
    void missingExtraAndUnindexedElementsAreNamed() throws Exception {
        Path src = v.write("arrays.comp", ARRAYS);
        List<String> all = arrayBindings();
        // element 1 of bufs left out
        CliRun missing = build(src, without(all, "0.2[1]="));
        assertEquals(2, missing.exitCode(), missing.err());
        assertTrue(missing.err().contains("set 0 binding 2 (bufs: storage-buffer[3])"), missing.err());
        assertTrue(missing.err().contains("element 1 is not given (--binding 0.2[1]=buffer:PATH)"), missing.err());
        // the runtime-sized array: elements 0 to the highest given, none skipped
        CliRun gap = build(src, without(all, "1.0[1]="));
        assertEquals(2, gap.exitCode(), gap.err());
        assertTrue(gap.err().contains("set 1 binding 0 (rt: storage-buffer[] (runtime-sized))"), gap.err());
        assertTrue(gap.err().contains("element 1 is not given"), gap.err());
        // a combined image-sampler element given its image only
        CliRun half = build(src, without(all, "0.4[2]=sampler"));
        assertEquals(2, half.exitCode(), half.err());
        assertTrue(half.err().contains("set 0 binding 4 (texs: combined-image-sampler 2D[3])"), half.err());
        assertTrue(half.err().contains("image:... and sampler:..."), half.err());
        // past the end, an array given without an element, an element of a plain binding
        List<String> extra = new ArrayList<>(all);
        extra.addAll(List.of("--binding", "0.3[2]=zeros:16"));
        CliRun past = build(src, extra);
        assertEquals(2, past.exitCode(), past.err());
        assertTrue(past.err().contains("--binding 0.3[2]=zeros:16: set 0 binding 3 (ubos: uniform-buffer[2]) has elements 0 to 1"), past.err());
        List<String> plain = new ArrayList<>(without(all, "0.7[1]="));
        plain.addAll(List.of("--binding", "0.7=sampler:nearest,clamp"));
        CliRun unindexed = build(src, plain);
        assertEquals(2, unindexed.exitCode(), unindexed.err());
        assertTrue(unindexed.err().contains("is an array of descriptors: name each element as --binding 0.7[I]=..."), unindexed.err());
        List<String> indexed = new ArrayList<>(without(all, "0.0="));
        indexed.addAll(List.of("--binding", "0.0[1]=zeros:512"));
        CliRun notArray = build(src, indexed);
        assertEquals(2, notArray.exitCode(), notArray.err());
        assertTrue(notArray.err().contains("set 0 binding 0 (OutU: storage-buffer) is not an array of descriptors"), notArray.err());
    }

    private CliRun build(Path src, List<String> bindings) {
        return v.buildNoReference(src, "2", bindings);
    }

    /** The binding arguments less those whose value starts with {@code prefix} (and their "--binding"). */
    private static List<String> without(List<String> args, String prefix) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < args.size(); i += 2) {
            if (!args.get(i + 1).startsWith(prefix)) {
                out.add(args.get(i));
                out.add(args.get(i + 1));
            }
        }
        return out;
    }
}
