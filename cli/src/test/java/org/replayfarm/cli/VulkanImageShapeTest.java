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
import org.replayfarm.proto.ImageType;

/**
 * Arrayed and cube images in Vulkan captures ({@code image:raw:PATH,WxH,layers=N}): 2D-array storage
 * images read and written, a 2D-array combined sampler sampled and fetched, image atomics on a 1D array,
 * a sampled cube (RADV's v_cubeid/v_cubesc/v_cubetc/v_cubema then image_sample with DIM cube) and a cube
 * storage image; each through ACO and LLVM, wave32 and wave64, the host model equal to lavapipe (float
 * results through unorm texels within 2 ulps, measured), and through {@code --device cuda-cpu} equal to the
 * host model. Wrong shapes are named.
 */
@Tag("corpus")
class VulkanImageShapeTest {
    @TempDir
    Path dir;
    private VulkanTestSupport v;

    @BeforeEach
    void support() {
        v = new VulkanTestSupport(dir);
    }

    private static final String ARRAYS = """
            #version 450
            layout(local_size_x = 8, local_size_y = 8) in;
            layout(set = 0, binding = 0) buffer O { vec4 o[]; };
            layout(set = 0, binding = 1, rgba8) uniform readonly image2DArray src;
            layout(set = 0, binding = 2, rgba8) uniform writeonly image2DArray dst;
            layout(set = 0, binding = 3) uniform sampler2DArray tex;
            layout(set = 0, binding = 4, r32ui) uniform uimage1DArray line;
            void main() {
              ivec2 p = ivec2(gl_LocalInvocationID.xy);
              int layer = int(gl_WorkGroupID.x);
              vec4 a = imageLoad(src, ivec3(p, layer));
              imageStore(dst, ivec3(p.yx, 2 - layer), a.zyxw);
              vec4 t = textureLod(tex, vec3((vec2(p) + 0.5) / 8.0, float(layer) + 0.25), 0.0);
              vec4 u = texelFetch(tex, ivec3(p, 2 - layer), 0);
              imageAtomicAdd(line, ivec2(p.x, p.y % 3), uint(layer + 1));
              o[gl_LocalInvocationIndex + 64u * gl_WorkGroupID.x] = a + 2.0 * t + 4.0 * u;
            }
            """;

    private static final String CUBE = """
            #version 450
            layout(local_size_x = 4, local_size_y = 4) in;
            layout(set = 0, binding = 0) buffer O { vec4 o[]; };
            layout(set = 0, binding = 1) uniform samplerCube sky;
            layout(set = 0, binding = 2, rgba8) uniform imageCube faces;
            void main() {
              ivec2 p = ivec2(gl_LocalInvocationID.xy);
              int face = int(gl_WorkGroupID.x);
              // a direction through texel p of this face (Vulkan's cube face selection), lengthened per column
              vec2 st = (vec2(p) + 0.5) / 4.0 * 2.0 - 1.0;
              vec3 d = face == 0 ? vec3(1.0, -st.y, -st.x) : face == 1 ? vec3(-1.0, -st.y, st.x)
                     : face == 2 ? vec3(st.x, 1.0, st.y) : face == 3 ? vec3(st.x, -1.0, -st.y)
                     : face == 4 ? vec3(st.x, -st.y, 1.0) : vec3(-st.x, -st.y, -1.0);
              vec4 s = textureLod(sky, d * (1.0 + 0.5 * float(p.x)), 0.0);
              vec4 f = imageLoad(faces, ivec3(p, face));
              imageStore(faces, ivec3(p, face), s.wzyx);
              o[gl_LocalInvocationIndex + 16u * gl_WorkGroupID.x] = s + 2.0 * f;
            }
            """;

    /** Two cubes: group (face, cube) samples cube `cube` toward texel p of `face` and rewrites that face. */
    private static final String CUBE_ARRAY = """
            #version 450
            layout(local_size_x = 4, local_size_y = 4) in;
            layout(set = 0, binding = 0) buffer O { vec4 o[]; };
            layout(set = 0, binding = 1) uniform samplerCubeArray sky;
            layout(set = 0, binding = 2, rgba8) uniform imageCubeArray faces;
            void main() {
              ivec2 p = ivec2(gl_LocalInvocationID.xy);
              int face = int(gl_WorkGroupID.x);
              int cube = int(gl_WorkGroupID.y);
              vec2 st = (vec2(p) + 0.5) / 4.0 * 2.0 - 1.0;
              vec3 d = face == 0 ? vec3(1.0, -st.y, -st.x) : face == 1 ? vec3(-1.0, -st.y, st.x)
                     : face == 2 ? vec3(st.x, 1.0, st.y) : face == 3 ? vec3(st.x, -1.0, -st.y)
                     : face == 4 ? vec3(st.x, -st.y, 1.0) : vec3(-st.x, -st.y, -1.0);
              vec4 s = textureLod(sky, vec4(d * (1.0 + 0.5 * float(p.y)), float(cube)), 0.0);
              vec4 f = imageLoad(faces, ivec3(p, 6 * cube + face));
              imageStore(faces, ivec3(p, 6 * cube + face), s.wzyx);
              o[gl_LocalInvocationIndex + 16u * (gl_WorkGroupID.x + 6u * gl_WorkGroupID.y)] = s + 2.0 * f
                  + vec4(vec3(textureSize(sky, 0)), float(imageSize(faces).z));
            }
            """;

    /**
     * Bilinear samples of a cube array toward every texel corner of every face (edges and corners included), so
     * that footprints cross into the neighbouring faces (seamless cube filtering).
     */
    private static final String SEAMLESS = """
            #version 450
            layout(local_size_x = 5, local_size_y = 5) in;
            layout(set = 0, binding = 0) buffer O { vec4 o[]; };
            layout(set = 0, binding = 1) uniform samplerCubeArray sky;
            void main() {
              ivec2 p = ivec2(gl_LocalInvocationID.xy);
              int face = int(gl_WorkGroupID.x);
              int cube = int(gl_WorkGroupID.y);
              vec2 st = vec2(p) / 4.0 * 2.0 - 1.0;
              vec3 d = face == 0 ? vec3(1.0, -st.y, -st.x) : face == 1 ? vec3(-1.0, -st.y, st.x)
                     : face == 2 ? vec3(st.x, 1.0, st.y) : face == 3 ? vec3(st.x, -1.0, -st.y)
                     : face == 4 ? vec3(st.x, -st.y, 1.0) : vec3(-st.x, -st.y, -1.0);
              o[gl_LocalInvocationIndex + 25u * (gl_WorkGroupID.x + 6u * gl_WorkGroupID.y)]
                  = textureLod(sky, vec4(d * 0.9, float(cube)), 0.0);
            }
            """;

    private List<String> arrayBindings() throws Exception {
        String rgba = ",8x8,layers=3,format=8_8_8_8_UNORM";
        return List.of("--binding", "0.0=zeros:3072",
                "--binding", "0.1=image:raw:" + v.bytes("src.raw", 8 * 8 * 4 * 3, 1) + rgba,
                "--binding", "0.2=image:raw:" + v.bytes("dst.raw", 8 * 8 * 4 * 3, 2) + rgba,
                "--binding", "0.3=image:raw:" + v.bytes("tex.raw", 8 * 8 * 4 * 3, 3) + rgba,
                "--binding", "0.3=sampler:nearest,clamp",
                "--binding", "0.4=image:raw:" + dir.resolve("line.raw") + ",8x1,layers=3,format=32_UINT");
    }

    private List<String> cubeBindings() throws Exception {
        String rgba = ",4x4,layers=6,format=8_8_8_8_UNORM";
        return List.of("--binding", "0.0=zeros:1536",
                "--binding", "0.1=image:raw:" + v.bytes("sky.raw", 4 * 4 * 4 * 6, 4) + rgba,
                "--binding", "0.1=sampler:nearest,clamp",
                "--binding", "0.2=image:raw:" + v.bytes("faces.raw", 4 * 4 * 4 * 6, 5) + rgba);
    }

    @ParameterizedTest(name = "{0} wave{1}")
    @CsvSource({"aco,64", "aco,32", "llvm,64", "llvm,32"})
    void arrayedImagesEqualLavapipe(String compiler, int wave) throws Exception {
        Files.write(dir.resolve("line.raw"), new byte[8 * 4 * 3]);
        String s = v.buildAndRun("arrays", ARRAYS, "3", arrayBindings(), compiler, wave);
        assertTrue(s.contains("binding 0.2 dst 192 compared, 0 differing"), s);
        assertTrue(s.contains("binding 0.4 line 24 compared, 0 differing"), s);
        var images = CaptureFile.open(dir.resolve("arrays.capture")).metadata().getImagesList();
        assertEquals(ImageType.IMAGE_2D_ARRAY, images.get(0).getType());
        assertEquals(3, images.get(0).getLayers());
        assertEquals(ImageType.IMAGE_1D_ARRAY, images.get(3).getType());
    }

    private List<String> cubeArrayBindings() throws Exception {
        String rgba = ",4x4,layers=12,format=8_8_8_8_UNORM";
        return List.of("--binding", "0.0=zeros:3072",
                "--binding", "0.1=image:raw:" + v.bytes("skies.raw", 4 * 4 * 4 * 12, 9) + rgba,
                "--binding", "0.1=sampler:nearest,clamp",
                "--binding", "0.2=image:raw:" + v.bytes("cubes.raw", 4 * 4 * 4 * 12, 10) + rgba);
    }

    @ParameterizedTest(name = "{0} wave{1}")
    @MethodSource("org.replayfarm.cli.VulkanTestSupport#compilers")
    void cubeArraysSampledAndStoredEqualLavapipe(String compiler, int wave) throws Exception {
        String s = v.buildAndRun("cubes", CUBE_ARRAY, "6,2", cubeArrayBindings(), compiler, wave);
        assertTrue(s.contains("binding 0.2 faces 192 compared, 0 differing"), s);
        assertTrue(s.contains("range 0 binding 0.0 buffer O as f32 (--view): 768 element(s) compared, 0 differing"), s);
        var images = CaptureFile.open(dir.resolve("cubes.capture")).metadata().getImagesList();
        assertEquals(ImageType.IMAGE_CUBE, images.get(0).getType());
        assertEquals(12, images.get(0).getLayers());
    }

    private List<String> seamlessBindings() throws Exception {
        return List.of("--binding", "0.0=zeros:" + 25 * 12 * 16,
                "--binding", "0.1=image:raw:" + v.bytes("seamless.raw", 4 * 4 * 4 * 12, 11) + ",4x4,layers=12,"
                        + "format=8_8_8_8_UNORM",
                "--binding", "0.1=sampler:bilinear,clamp");
    }

    /**
     * Bilinear footprints across face edges and at cube corners (where the Vulkan specification averages the
     * three texels that exist) equal lavapipe's within 0.004 (the eight-bit filter weights' span/256, as for
     * 2D bilinear samples).
     */
    @ParameterizedTest(name = "{0} wave{1}")
    @MethodSource("org.replayfarm.cli.VulkanTestSupport#compilers")
    void seamlessCubeFilteringEqualsLavapipe(String compiler, int wave) throws Exception {
        List<String> options = new ArrayList<>(List.of("--compiler", compiler, "--wave" + wave));
        options.addAll(seamlessBindings());
        String s = v.runEqual(v.build("seamless", SEAMLESS, "6,2", options), "--view", "0=f32", "--abs", "0.004");
        assertTrue(s.contains("range 0 binding 0.0 buffer O as f32 (--view): 1200 element(s) compared, 0 differing"), s);
    }

    @ParameterizedTest(name = "{0} wave{1}")
    @CsvSource({"aco,64", "aco,32", "llvm,64", "llvm,32"})
    void cubesSampledAndStoredEqualLavapipe(String compiler, int wave) throws Exception {
        String s = v.buildAndRun("cube", CUBE, "6", cubeBindings(), compiler, wave);
        assertTrue(s.contains("binding 0.2 faces 96 compared, 0 differing"), s);
        assertTrue(s.contains("range 0 binding 0.0 buffer O as f32 (--view): 384 element(s) compared, 0 differing"), s);
        var images = CaptureFile.open(dir.resolve("cube.capture")).metadata().getImagesList();
        assertEquals(ImageType.IMAGE_CUBE, images.get(0).getType());
        assertEquals(6, images.get(0).getLayers());
    }

    @Test
    void theTranslatorRunsArraysAndCubesAsTheHostModelDoes() throws Exception {
        Files.write(dir.resolve("line.raw"), new byte[8 * 4 * 3]);
        for (String name : List.of("arrays", "cube", "cubes", "seamless")) {
            List<String> options = new ArrayList<>(List.of("--no-reference"));
            options.addAll(switch (name) {
                case "cube" -> cubeBindings();
                case "cubes" -> cubeArrayBindings();
                case "seamless" -> seamlessBindings();
                default -> arrayBindings();
            });
            v.equalOnCudaCpu(v.build(name, switch (name) {
                case "cube" -> CUBE;
                case "cubes" -> CUBE_ARRAY;
                case "seamless" -> SEAMLESS;
                default -> ARRAYS;
            }, switch (name) {
                case "cube" -> "6";
                case "cubes", "seamless" -> "6,2";
                default -> "3";
            }, options));
        }
    }

    @Test
    void wrongShapesAreNamed() throws Exception {
        Path cube = v.write("cube.comp", CUBE);
        List<String> five = new ArrayList<>(cubeBindings());
        five.set(3, "0.1=image:raw:" + v.bytes("five.raw", 4 * 4 * 4 * 5, 6) + ",4x4,layers=5,format=8_8_8_8_UNORM");
        CliRun notSix = v.buildNoReference(cube, "6", five);
        assertEquals(2, notSix.exitCode(), notSix.err());
        assertTrue(notSix.err().contains("set 0 binding 1 (sky: combined-image-sampler cube): a cube needs a square image "
                + "of six layers"), notSix.err());
        assertTrue(notSix.err().contains("is 4x4 with 5 layer(s)"), notSix.err());

        Path plain = v.write("plain.comp", """
                #version 450
                layout(local_size_x = 1) in;
                layout(set = 0, binding = 0, r32ui) uniform uimage2D img;
                void main() { imageStore(img, ivec2(0), uvec4(1)); }
                """);
        CliRun layered = v.buildNoReference(plain, "1", List.of("--binding",
                "0.0=image:raw:" + v.bytes("l.raw", 2 * 2 * 4 * 2, 7) + ",2x2,layers=2,format=32_UINT"));
        assertEquals(2, layered.exitCode(), layered.err());
        assertTrue(layered.err().contains("set 0 binding 0 (img: storage-image 2D): not an arrayed image, but"), layered.err());
        assertTrue(layered.err().contains("is given 2 layers"), layered.err());

        CliRun wrongSize = v.buildNoReference(plain, "1", List.of("--binding",
                "0.0=image:raw:" + v.bytes("s.raw", 2 * 2 * 4 * 3, 7) + ",2x2,layers=2,format=32_UINT"));
        assertEquals(2, wrongSize.exitCode(), wrongSize.err());
        assertTrue(wrongSize.err().contains("holds 48 bytes; 2x2, 2 layers, 32_UINT with 1 level(s) takes 32"), wrongSize.err());

        Path ms = v.write("ms.comp", """
                #version 450
                layout(local_size_x = 1) in;
                layout(set = 0, binding = 0) uniform sampler2DMS tex;
                layout(set = 0, binding = 1) buffer O { vec4 o; };
                void main() { o = texelFetch(tex, ivec2(0), 1); }
                """);
        CliRun multisampled = v.buildNoReference(ms, "1", List.of("--binding", "0.1=zeros:16",
                "--binding", "0.0=image:raw:" + v.bytes("m.raw", 2 * 2 * 4, 8) + ",2x2,format=8_8_8_8_UNORM",
                "--binding", "0.0=sampler:nearest,clamp"));
        assertEquals(2, multisampled.exitCode(), multisampled.err());
        assertTrue(multisampled.err().contains("set 0 binding 0 (tex: combined-image-sampler 2D MS): a multisampled image; "
                + "give its samples as image:raw:PATH,WxH,samples=N"), multisampled.err());
    }
}
