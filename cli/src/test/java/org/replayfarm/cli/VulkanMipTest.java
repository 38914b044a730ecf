package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.proto.ImageType;

/**
 * Mipmapped images in Vulkan captures ({@code image:raw:PATH,WxH[,layers=N],format=FMT,mips=N}, every level after
 * the one above) sampled with a sampler's mip filter ({@code sampler:...,mip=nearest|linear}): lavapipe's reference
 * run gets the same levels and the same mipmap mode. A 2D image sampled at explicit LODs, through
 * nearest and linear mip filters, equals lavapipe; so do a mipmapped cube (linear mip filter) and a mipmapped cube
 * array (nearest mip filter), sampled seamlessly on each level; the translation runs all three as the host model does.
 */
@Tag("corpus")
class VulkanMipTest {
    @TempDir
    Path dir;
    private VulkanTestSupport v;

    @BeforeEach
    void support() {
        v = new VulkanTestSupport(dir);
    }

    /**
     * Group g samples at LOD g / 2 + 1/8 (0.125 to 3.625, past the last level: no LOD halfway between two levels,
     * where Vulkan lets the nearest level go either way) and at g / 2 + 3/8, wrapping. (textureGrad compiles to
     * image_sample_d, which the host model does not execute yet.)
     */
    private static final String MIP_2D = """
            #version 450
            layout(local_size_x = 8, local_size_y = 8) in;
            layout(set = 0, binding = 0) buffer O { vec4 o[]; };
            layout(set = 0, binding = 1) uniform sampler2D nearestMips;
            layout(set = 0, binding = 2) uniform sampler2D linearMips;
            void main() {
              vec2 uv = (vec2(gl_LocalInvocationID.xy) + 0.25) / 8.0;
              float lod = 0.5 * float(gl_WorkGroupID.x) + 0.125;
              uint i = gl_LocalInvocationIndex + 64u * gl_WorkGroupID.x;
              o[4u * i] = textureLod(nearestMips, uv, lod);
              o[4u * i + 1u] = textureLod(linearMips, uv, lod);
              o[4u * i + 2u] = textureLod(linearMips, uv * 1.5 - 0.125, lod + 0.25);
              o[4u * i + 3u] = vec4(textureQueryLevels(linearMips), textureSize(linearMips, 1), textureSize(nearestMips, 3).x);
            }
            """;

    /**
     * Group (face, k) samples toward texel p of that face at LOD k / 2 + 1/8 (0.125 to 2.625, past the last of three
     * levels 4x4, 2x2, 1x1): level 0's texel centres fall between the smaller levels' texels, so footprints there
     * cross into the neighbouring faces.
     */
    private static final String MIP_CUBE = """
            #version 450
            layout(local_size_x = 4, local_size_y = 4) in;
            layout(set = 0, binding = 0) buffer O { vec4 o[]; };
            layout(set = 0, binding = 1) uniform samplerCube sky;
            void main() {
              ivec2 p = ivec2(gl_LocalInvocationID.xy);
              int face = int(gl_WorkGroupID.x);
              vec2 st = (vec2(p) + 0.5) / 4.0 * 2.0 - 1.0;
              vec3 d = face == 0 ? vec3(1.0, -st.y, -st.x) : face == 1 ? vec3(-1.0, -st.y, st.x)
                     : face == 2 ? vec3(st.x, 1.0, st.y) : face == 3 ? vec3(st.x, -1.0, -st.y)
                     : face == 4 ? vec3(st.x, -st.y, 1.0) : vec3(-st.x, -st.y, -1.0);
              float lod = 0.5 * float(gl_WorkGroupID.y) + 0.125;
              o[gl_LocalInvocationIndex + 16u * (gl_WorkGroupID.x + 6u * gl_WorkGroupID.y)] = textureLod(sky, d, lod);
            }
            """;

    /**
     * Group (face, k, cube) samples cube `cube` toward a point a quarter texel past texel p's centre at LOD
     * k / 2 + 1/8 + cube / 4 (nearest level: never halfway between two levels).
     */
    private static final String MIP_CUBE_ARRAY = """
            #version 450
            layout(local_size_x = 4, local_size_y = 4) in;
            layout(set = 0, binding = 0) buffer O { vec4 o[]; };
            layout(set = 0, binding = 1) uniform samplerCubeArray sky;
            void main() {
              ivec2 p = ivec2(gl_LocalInvocationID.xy);
              int face = int(gl_WorkGroupID.x);
              int cube = int(gl_WorkGroupID.z);
              vec2 st = (vec2(p) + 0.75) / 4.0 * 2.0 - 1.0;
              vec3 d = face == 0 ? vec3(1.0, -st.y, -st.x) : face == 1 ? vec3(-1.0, -st.y, st.x)
                     : face == 2 ? vec3(st.x, 1.0, st.y) : face == 3 ? vec3(st.x, -1.0, -st.y)
                     : face == 4 ? vec3(st.x, -st.y, 1.0) : vec3(-st.x, -st.y, -1.0);
              float lod = 0.5 * float(gl_WorkGroupID.y) + 0.125 + 0.25 * float(cube);
              uint i = gl_LocalInvocationIndex + 16u * (gl_WorkGroupID.x + 6u * (gl_WorkGroupID.y + 6u * gl_WorkGroupID.z));
              o[i] = textureLod(sky, vec4(d, float(cube)), lod);
            }
            """;

    private static int levelBytes(int size, int layers, int levels) {
        int n = 0;
        for (int l = 0; l < levels; l++) {
            int s = Math.max(1, size >> l);
            n += s * s * layers * 4;
        }
        return n;
    }

    private List<String> mip2dBindings() throws Exception {
        String mips = ",8x8,format=8_8_8_8_UNORM,mips=4";
        int n = levelBytes(8, 1, 4);
        return List.of("--binding", "0.0=zeros:" + 8 * 4 * 64 * 16,
                "--binding", "0.1=image:raw:" + v.bytes("a.raw", n, 1) + mips,
                "--binding", "0.1=sampler:point,clamp,mip=nearest",
                "--binding", "0.2=image:raw:" + v.bytes("b.raw", n, 2) + mips,
                "--binding", "0.2=sampler:bilinear,wrap,mip=linear");
    }

    /**
     * Within 0.008 of lavapipe's: two eight-bit weight stages (bilinear, then between two levels), span/256 each;
     * 0.0054 measured, 93 of 8192 values past 0.004, all from the linear mip filter.
     */
    @ParameterizedTest(name = "{0} wave{1}")
    @MethodSource("org.replayfarm.cli.VulkanTestSupport#compilers")
    void mipmapped2dSamplesEqualLavapipe(String compiler, int wave) throws Exception {
        List<String> options = new ArrayList<>(List.of("--compiler", compiler, "--wave" + wave));
        options.addAll(mip2dBindings());
        Path capture = v.build("mip2d", MIP_2D, "8", options);
        String s = v.runEqual(capture, "--view", "0=f32", "--abs", "0.008");
        assertTrue(s.contains("range 0 binding 0.0 buffer O as f32 (--view): 8192 element(s) compared, 0 differing"), s);
        assertEquals(4, CaptureFile.open(capture).metadata().getImages(0).getMipLevels());
    }

    @Test
    void theTranslatorRunsMipmapped2dSamplesAsTheHostModelDoes() throws Exception {
        List<String> options = new ArrayList<>(List.of("--no-reference"));
        options.addAll(mip2dBindings());
        v.equalOnCudaCpu(v.build("mip2d", MIP_2D, "8", options));
    }

    private List<String> mipCubeBindings() throws Exception {
        return List.of("--binding", "0.0=zeros:" + 16 * 36 * 16,
                "--binding", "0.1=image:raw:" + v.bytes("sky.raw", levelBytes(4, 6, 3), 3)
                        + ",4x4,layers=6,format=8_8_8_8_UNORM,mips=3",
                "--binding", "0.1=sampler:bilinear,clamp,mip=linear");
    }

    private List<String> mipCubeArrayBindings() throws Exception {
        return List.of("--binding", "0.0=zeros:" + 16 * 72 * 16,
                "--binding", "0.1=image:raw:" + v.bytes("skies.raw", levelBytes(4, 12, 3), 4)
                        + ",4x4,layers=12,format=8_8_8_8_UNORM,mips=3",
                "--binding", "0.1=sampler:bilinear,clamp,mip=nearest");
    }

    /**
     * Within 0.008 of lavapipe's, as the 2D samples: two eight-bit weight stages (the seamless bilinear footprint on
     * each level, then between the two levels), span/256 each.
     */
    @ParameterizedTest(name = "{0} wave{1}")
    @MethodSource("org.replayfarm.cli.VulkanTestSupport#compilers")
    void mipmappedCubeSamplesEqualLavapipe(String compiler, int wave) throws Exception {
        List<String> options = new ArrayList<>(List.of("--compiler", compiler, "--wave" + wave));
        options.addAll(mipCubeBindings());
        Path capture = v.build("mipcube", MIP_CUBE, "6,6", options);
        var meta = CaptureFile.open(capture).metadata();
        assertEquals(ImageType.IMAGE_CUBE, meta.getImages(0).getType());
        assertEquals(3, meta.getImages(0).getMipLevels());
        String s = v.runEqual(capture, "--view", "0=f32", "--abs", "0.008");
        assertTrue(s.contains("range 0 binding 0.0 buffer O as f32 (--view): 2304 element(s) compared, 0 differing"), s);
    }

    /** A mipmapped cube array through the nearest mip filter: one bilinear weight stage, within 0.008 as above. */
    @ParameterizedTest(name = "{0} wave{1}")
    @MethodSource("org.replayfarm.cli.VulkanTestSupport#compilers")
    void mipmappedCubeArraySamplesEqualLavapipe(String compiler, int wave) throws Exception {
        List<String> options = new ArrayList<>(List.of("--compiler", compiler, "--wave" + wave));
        options.addAll(mipCubeArrayBindings());
        Path capture = v.build("mipcubes", MIP_CUBE_ARRAY, "6,6,2", options);
        String s = v.runEqual(capture, "--view", "0=f32", "--abs", "0.008");
        assertTrue(s.contains("range 0 binding 0.0 buffer O as f32 (--view): 4608 element(s) compared, 0 differing"), s);
    }

    @Test
    void theTranslatorRunsMipmappedCubeSamplesAsTheHostModelDoes() throws Exception {
        List<String> cube = new ArrayList<>(List.of("--no-reference"));
        cube.addAll(mipCubeBindings());
        v.equalOnCudaCpu(v.build("mipcube", MIP_CUBE, "6,6", cube));
        List<String> array = new ArrayList<>(List.of("--no-reference"));
        array.addAll(mipCubeArrayBindings());
        v.equalOnCudaCpu(v.build("mipcubes", MIP_CUBE_ARRAY, "6,6,2", array));
    }

    /**
     * Amber fills a mipmapped image's level 0 from the script and leaves the other levels to the runner: the farm
     * refuses {@code MIP_LEVELS} above 1 and {@code BASE_MIP_LEVEL} by name (exit 2) rather than build one level.
     */
    @Test
    void amberMipLevelsAreRefusedByName() throws Exception {
        String script = """
                #!amber
                SHADER compute s GLSL
                #version 450
                layout(local_size_x = 1) in;
                layout(set = 0, binding = 0, rgba8) uniform image2D img;
                void main() { imageStore(img, ivec2(0), vec4(1.0)); }
                END
                IMAGE img FORMAT R8G8B8A8_UNORM MIP_LEVELS 2 DIM_2D WIDTH 4 HEIGHT 4 FILL 0
                PIPELINE compute p
                  ATTACH s
                  BIND BUFFER img AS storage_image DESCRIPTOR_SET 0 BINDING 0%s
                END
                RUN p 1 1 1
                """;
        CliRun mips = CliRun.of("amber", v.write("mips.amber", script.formatted("")).toString());
        assertEquals(2, mips.exitCode(), mips.out() + mips.err());
        assertTrue((mips.out() + mips.err()).contains("IMAGE img MIP_LEVELS 2 (mipmapped images"), mips.out() + mips.err());
        CliRun base = CliRun.of("amber", v.write("base.amber", script.formatted(" BASE_MIP_LEVEL 1")).toString());
        assertEquals(2, base.exitCode(), base.out() + base.err());
        assertTrue((base.out() + base.err()).contains("BASE_MIP_LEVEL 1 (a view from a mip level other than 0)"), base.out() + base.err());
    }
}
