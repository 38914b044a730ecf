package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
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
import org.replayfarm.model.capture.CaptureFile;

/**
 * Vulkan compute shaders through {@code replay capture build --source}: RADV's null navi21 device
 * compiles them (ACO or LLVM, wave32 or wave64), the capture launches the code as RADV lays it out, and
 * {@code replay run} compares the host model with lavapipe's run of the same SPIR-V recorded in the
 * capture. Expected values come from lavapipe and, for the arithmetic, from the test's own computation.
 */
@Tag("corpus")
class VulkanCaptureTest {
    @TempDir
    Path dir;
    private VulkanTestSupport v;

    @BeforeEach
    void support() {
        v = new VulkanTestSupport(dir);
    }

    private static final String SCALE = """
            #version 450
            layout(local_size_x = 64) in;
            layout(set = 0, binding = 0) readonly buffer In { uint a[]; };
            layout(set = 0, binding = 1) writeonly buffer Out { uint b[]; };
            layout(set = 0, binding = 2, rgba8) uniform writeonly image2D img;
            layout(push_constant) uniform P { uint n; uint k; } pc;
            void main() {
              uint i = gl_GlobalInvocationID.x;
              if (i < pc.n) {
                b[i] = a[i] * pc.k + i;
                imageStore(img, ivec2(i % 16, i / 16), vec4(float(i % 4) / 3.0, 0.5, 1.0, 0.25));
              }
            }
            """;

    @ParameterizedTest(name = "{0} wave{1}")
    @CsvSource({"aco,64", "aco,32", "llvm,64", "llvm,32"})
    void hostModelEqualsLavapipeOnEachCompilerAndWaveSize(String compiler, int wave) throws Exception {
        Path src = v.write("scale.comp", SCALE);
        Path in = v.words("in.bin", 128, i -> i * 3 + 1);
        Path texels = dir.resolve("img.raw");
        Files.write(texels, new byte[16 * 8 * 4]);
        Path capture = dir.resolve("scale.capture");
        CliRun built = CliRun.of("capture", "build", "--source", src.toString(), "--groups", "2",
                "--binding", "0.0=buffer:" + in, "--binding", "0.1=zeros:512",
                "--binding", "0.2=image:raw:" + texels + ",16x8,format=8_8_8_8_UNORM",
                "--push", "u32:100", "--push", "u32:7", "--compiler", compiler, "--wave" + wave, "-o", capture.toString());
        assertEquals(0, built.exitCode(), built.err());
        assertTrue(built.out().contains(compiler + ", wave" + wave), built.out());
        assertTrue(built.out().contains("reference run: lavapipe (Mesa 22.3"), built.out());
        assertTrue(built.out().matches("(?s).*decoder: all \\d+ instructions read as RADV prints them.*"), built.out());
        var meta = CaptureFile.open(capture).metadata();
        assertEquals(wave, meta.getProgram().getWaveSize());
        assertTrue(meta.getProvenance().getArgumentsList().contains("compiler=" + compiler));
        Path out = dir.resolve("run");
        CliRun run = CliRun.of("run", capture.toString(), "--every-group", "--out", out.toString());
        assertEquals(0, run.exitCode(), () -> VulkanTestSupport.summary(out) + run.err());
        assertTrue(VulkanTestSupport.summary(out).contains("equal"), () -> VulkanTestSupport.summary(out));
        assertTrue(VulkanTestSupport.summary(out).contains("unsupported 0"), () -> VulkanTestSupport.summary(out));
        // the values themselves, computed here: b[i] = a[i] * 7 + i for i < 100, untouched (0) after
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(out.resolve("host").resolve("guest-1.bin"))).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < 128; i++) {
            assertEquals(i < 100 ? (i * 3 + 1) * 7 + i : 0, b.getInt(4 * i), "b[" + i + "]");
        }
    }

    @Test
    void everyDescriptorKindAndPushConstantsBehindTheirPointer() throws Exception {
        Path src = v.write("kinds.comp", """
                #version 450
                layout(local_size_x = 8, local_size_y = 8) in;
                layout(set = 0, binding = 0) buffer A { uint a[]; };
                layout(set = 0, binding = 1) uniform U { uint u; };
                layout(set = 0, binding = 2, r32ui) uniform uimage2D simg;
                layout(set = 0, binding = 3) uniform texture2D timg;
                layout(set = 0, binding = 4) uniform sampler smp;
                layout(set = 0, binding = 5) uniform sampler2D comb;
                layout(set = 1, binding = 0) uniform usamplerBuffer utb;
                layout(set = 1, binding = 1, r32ui) uniform uimageBuffer stb;
                layout(set = 2, binding = 0) buffer D { uint d[]; };
                layout(push_constant) uniform P { uint v[20]; } pc;
                void main() {
                  uint x = gl_GlobalInvocationID.x, y = gl_GlobalInvocationID.y;
                  uint i = x + 8 * gl_NumWorkGroups.x * y;
                  vec4 t = texture(sampler2D(timg, smp), (vec2(x, y) + 0.5) / 8.0);
                  vec4 c = textureLod(comb, (vec2(y, x) + 0.5) / 8.0, 0.0);
                  uint pushed = 0;
                  for (int k = 0; k < 20; k++) pushed += pc.v[k] << (k % 3);
                  uint s = imageLoad(simg, ivec2(x, y)).x + texelFetch(utb, int(i % 16)).x;
                  if (i < 16) imageStore(stb, int(i), uvec4(s));
                  a[i] = s + u + uint(t.x * 255.0) + uint(c.y * 255.0) + pushed + gl_WorkGroupID.y;
                  d[i] = gl_LocalInvocationIndex;
                }
                """);
        Path u = v.words("u.bin", 4, i -> i == 0 ? 1000 : 0);
        Path simg = v.words("simg.raw", 64, i -> i * 11);
        Path rgba = dir.resolve("rgba.raw");
        byte[] px = new byte[8 * 8 * 4];
        for (int i = 0; i < px.length; i++) {
            px[i] = (byte) (i * 37);
        }
        Files.write(rgba, px);
        Path texel = v.words("texel.bin", 16, i -> 1 << i);
        StringBuilder push = new StringBuilder("bytes:");
        for (int i = 0; i < 20; i++) {
            push.append(String.format("%02x000000", i * 5 + 1));
        }
        Path capture = dir.resolve("kinds.capture");
        List<String> args = new ArrayList<>(List.of("capture", "build", "--source", src.toString(), "--groups", "2,2",
                "--binding", "0.0=zeros:1024", "--binding", "0.1=uniform:" + u,
                "--binding", "0.2=image:raw:" + simg + ",8x8,format=32_UINT",
                "--binding", "0.3=image:raw:" + rgba + ",8x8,format=8_8_8_8_UNORM",
                "--binding", "0.4=sampler:point,clamp",
                "--binding", "0.5=image:raw:" + rgba + ",8x8,format=8_8_8_8_UNORM", "--binding", "0.5=sampler:point,wrap",
                "--binding", "1.0=texel-buffer:" + texel + ",format=32_UINT",
                "--binding", "1.1=texel-buffer:" + texel + ",format=32_UINT",
                "--binding", "2.0=zeros:1024", "--push", push.toString(), "-o", capture.toString()));
        CliRun built = CliRun.of(args.toArray(String[]::new));
        assertEquals(0, built.exitCode(), built.err());
        Path out = dir.resolve("run");
        CliRun run = CliRun.of("run", capture.toString(), "--every-group", "--out", out.toString());
        assertEquals(0, run.exitCode(), () -> VulkanTestSupport.summary(out) + run.err());
        assertTrue(VulkanTestSupport.summary(out).contains("equal"), () -> VulkanTestSupport.summary(out));
        // the lavapipe-run command gives the same reference alone
        Path ref = dir.resolve("ref");
        args.set(1, "lavapipe-run");
        args.remove("-o");
        args.remove(capture.toString());
        args.remove("capture");
        List<String> lp = new ArrayList<>(List.of("capture", "lavapipe-run", src.toString()));
        lp.addAll(args.subList(3, args.size()));
        lp.addAll(List.of("--out", ref.toString()));
        CliRun alone = CliRun.of(lp.toArray(String[]::new));
        assertEquals(0, alone.exitCode(), alone.err());
        assertEquals(java.util.Arrays.toString(Files.readAllBytes(out.resolve("host").resolve("guest-0.bin"))),
                java.util.Arrays.toString(Files.readAllBytes(ref.resolve("guest-0.bin"))));
    }

    @Test
    void wrongInputIsNamedBySetAndBinding() throws Exception {
        Path src = v.write("scale.comp", SCALE);
        Path in = v.words("in.bin", 128, i -> i);
        Path texels = dir.resolve("img.raw");
        Files.write(texels, new byte[16 * 8 * 4]);
        String image = "0.2=image:raw:" + texels + ",16x8,format=8_8_8_8_UNORM";
        Path out = dir.resolve("x.capture");
        // a binding the shader declares is not given
        CliRun missing = CliRun.of("capture", "build", "--source", src.toString(), "--groups", "1", "--binding",
                "0.0=buffer:" + in, "--binding", image, "--push", "u32:1", "--push", "u32:2", "-o", out.toString());
        assertEquals(2, missing.exitCode());
        assertTrue(missing.err().contains("set 0 binding 1 (b: storage-buffer)") || missing.err().contains("set 0 binding 1 (Out"),
                missing.err());
        // the wrong kind of resource
        CliRun kind = CliRun.of("capture", "build", "--source", src.toString(), "--groups", "1", "--binding",
                "0.0=buffer:" + in, "--binding", "0.1=uniform:" + in, "--binding", image, "--push", "u32:1", "--push",
                "u32:2", "-o", out.toString());
        assertEquals(2, kind.exitCode());
        assertTrue(kind.err().contains("binding 1") && kind.err().contains("buffer:PATH"), kind.err());
        // push constants of the wrong size
        CliRun push = CliRun.of("capture", "build", "--source", src.toString(), "--groups", "1", "--binding",
                "0.0=buffer:" + in, "--binding", "0.1=zeros:512", "--binding", image, "--push", "u32:1", "-o", out.toString());
        assertEquals(2, push.exitCode());
        assertTrue(push.err().contains("4 bytes of push constants") && push.err().contains("8 bytes"), push.err());
        // a binding the shader does not declare
        CliRun extra = CliRun.of("capture", "build", "--source", src.toString(), "--groups", "1", "--binding",
                "0.0=buffer:" + in, "--binding", "0.1=zeros:512", "--binding", image, "--binding", "3.9=zeros:4",
                "--push", "u32:1", "--push", "u32:2", "-o", out.toString());
        assertEquals(2, extra.exitCode());
        assertTrue(extra.err().contains("3.9") && extra.err().contains("declares no such binding"), extra.err());
        // a shader that does not compile: glslang's message
        Path bad = v.write("bad.comp", "#version 450\nlayout(local_size_x = 1) in;\nvoid main() { nope = 1; }\n");
        CliRun broken = CliRun.of("capture", "build", "--source", bad.toString(), "--groups", "1", "-o", out.toString());
        assertEquals(2, broken.exitCode());
        assertTrue(broken.err().contains("does not compile") && broken.err().contains("nope"), broken.err());
        assertTrue(!Files.exists(out));
    }

    @Test
    void aRayQueryShaderIsRefusedByName() throws Exception {
        CliRun r = v.tryBuild("rq", """
                #version 460
                #extension GL_EXT_ray_query : require
                layout(local_size_x = 8) in;
                layout(set = 0, binding = 0) uniform accelerationStructureEXT scene;
                layout(set = 0, binding = 1) buffer O { float t[]; };
                void main() {
                  rayQueryEXT q;
                  rayQueryInitializeEXT(q, scene, gl_RayFlagsOpaqueEXT, 0xFF, vec3(gl_LocalInvocationID.x, 0.0, -1.0),
                                        0.0, vec3(0.0, 0.0, 1.0), 10.0);
                  while (rayQueryProceedEXT(q)) {}
                  t[gl_LocalInvocationID.x] = rayQueryGetIntersectionTEXT(q, true);
                }
                """, "1", List.of("--binding", "0.1=zeros:32", "--no-reference"));
        assertEquals(2, r.exitCode(), r.out() + r.err());
        assertTrue(r.err().contains("set 0 binding 0") && r.err().contains("acceleration structures (ray queries) are not "
                + "built into Vulkan captures yet"), r.err());
    }

    private static final String TWO_RUNS = """
            #!amber
            SHADER compute twice GLSL
            #version 450
            layout(local_size_x = 8) in;
            layout(set = 0, binding = 0) buffer B { uint v[]; };
            void main() { uint i = gl_GlobalInvocationID.x; v[i] = v[i] * 2u + i; }
            END
            BUFFER buf DATA_TYPE uint32 SIZE 16 SERIES_FROM 1 INC_BY 1
            PIPELINE compute p
              ATTACH twice
              BIND BUFFER buf AS storage DESCRIPTOR_SET 0 BINDING 0
            END
            RUN p 2 1 1
            RUN p 2 1 1
            """;

    @Test
    void amberRunsCarryBuffersAndFailingExpectsAreNamed() throws Exception {
        // v = 1..16; after one run v[i] = 2(i+1) + i = 3i + 2, after two 2(3i + 2) + i = 7i + 4: computed here
        StringBuilder want = new StringBuilder();
        for (int i = 0; i < 16; i++) {
            want.append(' ').append(7 * i + 4);
        }
        Path ok = v.write("ok.amber", TWO_RUNS + "EXPECT buf IDX 0 EQ" + want + "\n");
        CliRun r = CliRun.of("amber", ok.toString());
        assertEquals(0, r.exitCode(), r.out() + r.err());
        assertTrue(r.out().contains("amber: 2 runs, 1 expects passed, 0 failed, 0 unsupported"), r.out());
        assertEquals(2, r.out().lines().filter(l -> l.matches("run \\d \\(line \\d+\\): RUN p 2 1 1: .*equal.*")).count(), r.out());

        Path bad = v.write("bad.amber", TWO_RUNS + "EXPECT buf IDX 4 EQ 12\n");
        CliRun failed = CliRun.of("amber", bad.toString());
        assertEquals(1, failed.exitCode(), failed.out());
        assertTrue(failed.out().contains("expected EQ 12, actual 11"), failed.out());
        assertTrue(failed.out().contains("0 expects passed, 1 failed"), failed.out());

        Path unsupported = v.write("u.amber", TWO_RUNS.replace("RUN p 2 1 1\nRUN", "VIRTUAL_FILE x\nEND\nRUN"));
        CliRun refused = CliRun.of("amber", unsupported.toString());
        assertEquals(2, refused.exitCode(), refused.out() + refused.err());
        assertTrue(refused.err().contains("VIRTUAL_FILE"), refused.err());

        // capture build --amber --run 2: the second run's capture, its inputs lavapipe's results of the first
        Path capture = dir.resolve("second.capture");
        CliRun built = CliRun.of("capture", "build", "--amber", ok.toString(), "--run", "2", "-o", capture.toString());
        assertEquals(0, built.exitCode(), built.err());
        var meta = CaptureFile.open(capture).metadata();
        var file = CaptureFile.open(capture);
        ByteBuffer in = file.blob(meta.getRanges(0).getInitial()).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < 16; i++) {
            assertEquals(3 * i + 2, in.getInt(4 * i), "run 2's input v[" + i + "]");
        }
        Path out = dir.resolve("run2");
        CliRun run = CliRun.of("run", capture.toString(), "--every-group", "--out", out.toString());
        assertEquals(0, run.exitCode(), () -> VulkanTestSupport.summary(out));
        CliRun which = CliRun.of("capture", "build", "--amber", ok.toString(), "-o", dir.resolve("x.capture").toString());
        assertEquals(2, which.exitCode());
        assertTrue(which.err().contains("2 compute RUNs; choose one with --run 1..2"), which.err());
    }

    @Test
    void hlslThroughGlslangsHlslFrontEnd() throws Exception {
        Path src = v.write("scale.hlsl", """
                struct P { uint k; };
                [[vk::push_constant]] ConstantBuffer<P> pc;
                [[vk::binding(0, 0)]] StructuredBuffer<uint> In;
                [[vk::binding(1, 0)]] RWStructuredBuffer<uint> Out;
                [numthreads(64, 1, 1)]
                void main(uint3 id : SV_DispatchThreadID) {
                    Out[id.x] = In[id.x] * pc.k + 1;
                }
                """);
        Path in = v.words("in.bin", 128, i -> i);
        Path capture = dir.resolve("hlsl.capture");
        CliRun built = CliRun.of("capture", "build", "--source", src.toString(), "--groups", "2", "--binding",
                "0.0=buffer:" + in, "--binding", "0.1=zeros:512", "--push", "u32:5", "-o", capture.toString());
        assertEquals(0, built.exitCode(), built.err());
        Path out = dir.resolve("run");
        CliRun run = CliRun.of("run", capture.toString(), "--every-group", "--out", out.toString());
        assertEquals(0, run.exitCode(), () -> VulkanTestSupport.summary(out));
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(out.resolve("host").resolve("guest-1.bin"))).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < 128; i++) {
            assertEquals(5 * i + 1, b.getInt(4 * i), "Out[" + i + "]");
        }
    }
}
