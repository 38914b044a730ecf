package org.replayfarm.model.vulkan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The layout rules of Mesa 22.3's RADV the farm relies on, pinned against the real driver (Debian's
 * mesa-vulkan-drivers, RADV's null navi21 device): where each kind of descriptor lies in a set (read from
 * the {@code s_load} offsets of the code RADV compiles), when push constants are inlined into user SGPRs
 * and when they go behind a pointer, where the grid size goes, and that the launch layout read from the
 * driver's binary agrees with ACO's p_startpgm. A different Mesa version is refused.
 */
@Tag("unit")
class RadvLayoutGoldenTest {
    @TempDir
    Path dir;

    private RadvBinary compile(String glsl, List<String> bindings, int push, Map<String, String> env)
            throws IOException, VulkanException {
        Path src = dir.resolve("s" + System.nanoTime() + ".comp");
        Files.writeString(src, glsl);
        byte[] spv = ShaderSource.compile(src, List.of(), List.of(), null);
        Path spvFile = dir.resolve("s.spv");
        Files.write(spv.length > 0 ? spvFile : spvFile, spv);
        List<String> spec = new ArrayList<>(List.of("spirv " + spvFile, "entry main", "groups 1 1 1"));
        if (push > 0) {
            spec.add("push " + push + " -");
        }
        spec.addAll(bindings);
        Path specFile = dir.resolve("spec");
        Files.write(specFile, spec);
        java.util.HashMap<String, String> e = new java.util.HashMap<>(env);
        e.put("RADV_FORCE_FAMILY", "navi21");
        VkTool.Output out = VkTool.run(VkTool.Driver.RADV, e, List.of("compile", specFile.toString()));
        assertEquals(0, out.exit(), out.stderr());
        return RadvBinary.parse(out.stdout());
    }

    private static TreeSet<Integer> setLoadOffsets(RadvBinary b) {
        TreeSet<Integer> offsets = new TreeSet<>();
        Pattern p = Pattern.compile("s_load_dword\\w* s\\[?\\d+(?::\\d+)?\\]?, s\\[2:3\\], (null|0x[0-9a-f]+)");
        for (RadvBinary.AsmLine l : b.assembly()) {
            Matcher m = p.matcher(l.text());
            if (m.find()) {
                offsets.add(m.group(1).equals("null") ? 0 : Integer.parseInt(m.group(1).substring(2), 16));
            }
        }
        return offsets;
    }

    @Test
    void descriptorKindsLieWhereTheSetLayoutSays() throws Exception {
        String glsl = """
                #version 450
                layout(local_size_x = 64) in;
                layout(set=0, binding=0) buffer A { uint a[]; };
                layout(set=0, binding=1) uniform U { uint u; };
                layout(set=0, binding=2, r32ui) uniform uimage2D simg;
                layout(set=0, binding=3) uniform texture2D timg;
                layout(set=0, binding=4) uniform sampler smp;
                layout(set=0, binding=5) uniform sampler2D comb;
                layout(set=0, binding=6) uniform usamplerBuffer utb;
                layout(set=0, binding=7, r32ui) uniform uimageBuffer stb;
                layout(set=0, binding=8) buffer B { uint b[]; };
                void main() {
                  uint i = gl_GlobalInvocationID.x;
                  float f = texture(sampler2D(timg, smp), vec2(0.5)).x + texture(comb, vec2(0.25)).y;
                  a[i] = u + imageLoad(simg, ivec2(i, 0)).x + uint(f) + texelFetch(utb, int(i)).x + imageLoad(stb, int(i)).x;
                  b[i] = 1;
                }
                """;
        RadvBinary b = compile(glsl, List.of("binding 0 0 storage-buffer 16 -", "binding 0 1 uniform-buffer 16 -",
                "binding 0 2 storage-image 98 1 4 4 1 1 1 64 -", "binding 0 3 sampled-image 37 1 4 4 1 1 1 64 -",
                "binding 0 4 sampler 0 0 0 0 0 0 0 0", "binding 0 5 combined-image-sampler 37 1 4 4 1 1 1 64 - 0 0 0 0 0 0 0 0",
                "binding 0 6 uniform-texel-buffer 98 64 -", "binding 0 7 storage-texel-buffer 98 64 -",
                "binding 0 8 storage-buffer 16 -"), 0, Map.of());
        // sizes 16 16 32 64 16 96 16 16 16 at alignments 16 16 32 32 16 32 16 16 16, the combined S# at +80:
        // computed by hand from the rules in VulkanBuild's documentation
        TreeSet<Integer> want = new TreeSet<>(List.of(0x00, 0x10, 0x20, 0x40, 0x80, 0xa0, 0xa0 + 80, 0x100, 0x110, 0x120));
        assertEquals(want, setLoadOffsets(b));
        assertEquals("22.3", b.mesaVersion().substring(0, 4));
        assertTrue(b.set(0).used());
        assertEquals(new RadvBinary.Slot(2, 1), b.set(0), "set 0's address in s2 (after the ring offsets)");
        assertEquals(new RadvBinary.Slot(0, 2), b.shaderData(RadvBinary.UD_RING_OFFSETS));
        RadvLaunch.check(b, false);
    }

    @Test
    void aMultisampledTexelFetchReadsTheFmaskHalfOfItsDescriptorAndStorageImagesHaveNone() throws Exception {
        String glsl = """
                #version 450
                layout(local_size_x = 64) in;
                layout(set=0, binding=0) uniform sampler2DMS t;
                layout(set=0, binding=1, r32ui) uniform uimage2DMS s;
                layout(set=0, binding=2) buffer B { uint b[]; };
                void main() {
                  int i = int(gl_GlobalInvocationID.x);
                  b[i] = uint(texelFetch(t, ivec2(i, 0), 1).x) + imageLoad(s, ivec2(i, 0), 2).x;
                }
                """;
        RadvBinary b = compile(glsl, List.of("binding 0 0 combined-image-sampler 37 1 4 4 1 1 4 256 - 0 0 0 0 0 0 0 0",
                "binding 0 1 storage-image 98 1 4 4 1 1 4 256 -", "binding 0 2 storage-buffer 16 -"), 0, Map.of());
        // the combined descriptor's T# at +0 and its FMASK half at +32 (RADV writes it zero without FMASK), the
        // storage image's T# at +96, the buffer at +128; no S# load (texelFetch takes no sampler)
        assertEquals(new TreeSet<>(List.of(0x00, 0x20, 0x60, 0x80)), setLoadOffsets(b));
        long msaa = b.assembly().stream().filter(l -> l.text().startsWith("image_load")
                && l.text().contains("dim:SQ_RSRC_IMG_2D_MSAA ")).count();
        long fmask = b.assembly().stream().filter(l -> l.text().startsWith("image_load")
                && l.text().contains("dmask:0x1 dim:SQ_RSRC_IMG_2D ")).count();
        assertEquals(2, msaa, "the sampled and the storage image's sample loads");
        assertEquals(1, fmask, "the FMASK load the sample index is remapped through");
    }

    @Test
    void descriptorArraysStepByTheirDescriptorsSize() throws Exception {
        String glsl = """
                #version 450
                #extension GL_EXT_nonuniform_qualifier : require
                layout(local_size_x = 64) in;
                layout(set=0, binding=0) buffer Out { uint o[]; };
                layout(set=0, binding=1) buffer B { uint v[]; } bufs[3];
                layout(set=0, binding=2) uniform sampler2D texs[4];
                layout(set=0, binding=3, r32f) uniform image2D imgs[2];
                layout(set=0, binding=4) uniform texture2D tex2[2];
                layout(set=0, binding=5) uniform sampler smps[2];
                layout(set=0, binding=6) uniform U { uint u; } ubos[2];
                layout(set=0, binding=7) buffer R { uint r[]; } rt[];
                void main() {
                  uint i = gl_GlobalInvocationID.x;
                  uint s = bufs[0].v[i] + bufs[2].v[i] + bufs[nonuniformEXT(i % 3)].v[i];
                  float f = textureLod(texs[1], vec2(0.5), 0.0).x + textureLod(texs[nonuniformEXT(i & 3)], vec2(0.5), 0.0).y;
                  f += imageLoad(imgs[1], ivec2(i, 0)).x + textureLod(sampler2D(tex2[1], smps[1]), vec2(0.5), 0.0).x;
                  o[i] = s + uint(f) + ubos[1].u + rt[2].r[i];
                }
                """;
        List<String> spec = new ArrayList<>(List.of("array 0 1 3 0", "array 0 2 4 0", "array 0 3 2 0", "array 0 4 2 0",
                "array 0 5 2 0", "array 0 6 2 0", "array 0 7 3 1", "binding 0 0 storage-buffer 16 -"));
        for (int e = 0; e < 4; e++) {
            if (e < 3) {
                spec.add("binding 0 1[" + e + "] storage-buffer 16 -");
                spec.add("binding 0 7[" + e + "] storage-buffer 16 -");
            }
            spec.add("binding 0 2[" + e + "] combined-image-sampler 37 1 4 4 1 1 1 64 - 0 0 0 0 0 0 0 0");
            if (e < 2) {
                spec.add("binding 0 3[" + e + "] storage-image 100 1 4 4 1 1 1 64 -");
                spec.add("binding 0 4[" + e + "] sampled-image 37 1 4 4 1 1 1 64 -");
                spec.add("binding 0 5[" + e + "] sampler 0 0 0 0 0 0 0 0");
                spec.add("binding 0 6[" + e + "] uniform-buffer 16 -");
            }
        }
        for (Map<String, String> env : List.of(Map.<String, String>of(), Map.of("RADV_DEBUG", "llvm"))) {
            RadvBinary b = compile(glsl, spec, 0, env);
            // each binding at its kind's alignment, its elements one descriptor size apart (computed by hand):
            // 0: 0x0; bufs 0x10 + 16e; texs 0x40 + 96e (S# +80); imgs 0x1c0 + 32e; tex2 0x200 + 64e;
            // smps 0x280 + 16e; ubos 0x2a0 + 16e; rt (runtime-sized, 3 given) 0x2c0 + 16e
            TreeSet<Integer> constant = setLoadOffsets(b);
            for (int want : List.of(0x00, 0x10, 0x30, 0xa0, 0xa0 + 80, 0x1e0, 0x240, 0x290, 0x2b0, 0x2e0)) {
                assertTrue(constant.contains(want), env + ": a load at 0x" + Integer.toHexString(want) + " in " + constant);
            }
            String text = String.join("\n", b.assembly().stream().map(RadvBinary.AsmLine::text).toList());
            if (env.isEmpty()) {
                // ACO's waterfall over a non-uniform index: the element times 96 from the binding's start (0x40),
                // the S# 80 bytes on
                assertTrue(text.contains("s_mulk_i32 s4, 0x60"), text);
                assertTrue(text.matches("(?s).*s_load_dwordx8 s\\[\\d+:\\d+\\], s\\[2:3\\], s4 offset:0x40.*"), text);
                assertTrue(text.matches("(?s).*s_load_dwordx4 s\\[\\d+:\\d+\\], s\\[2:3\\], s4 offset:0x90.*"), text);
            }
            RadvLaunch.check(b, !env.isEmpty());
        }
    }

    private static String pushShader(int dwords) {
        return "#version 450\nlayout(local_size_x = 64) in;\nlayout(set=0, binding=0) buffer A { uint a[]; };\n"
                + "layout(push_constant) uniform P { uint v[" + dwords + "]; } pc;\n"
                + "void main() { uint s = 0; for (int k = 0; k < " + dwords + "; k++) s += pc.v[k]; a[gl_GlobalInvocationID.x] = s; }\n";
    }

    @Test
    void pushConstantsAreInlinedUpTo13DwordsBesideOneSetAndGoBehindAPointerBeyond() throws Exception {
        RadvBinary thirteen = compile(pushShader(13), List.of("binding 0 0 storage-buffer 16 -"), 52, Map.of());
        assertEquals(new RadvBinary.Slot(3, 13), thirteen.shaderData(RadvBinary.UD_INLINE_PUSH_CONSTANTS));
        assertFalse(thirteen.shaderData(RadvBinary.UD_PUSH_CONSTANTS).used());
        assertEquals((1L << 13) - 1, thirteen.inlinePushMask());
        assertEquals(16, thirteen.userSgprCount());
        RadvLaunch.check(thirteen, false);

        RadvBinary sixteen = compile(pushShader(16), List.of("binding 0 0 storage-buffer 16 -"), 64, Map.of());
        assertEquals(new RadvBinary.Slot(3, 1), sixteen.shaderData(RadvBinary.UD_PUSH_CONSTANTS));
        assertEquals(new RadvBinary.Slot(4, 8), sixteen.shaderData(RadvBinary.UD_INLINE_PUSH_CONSTANTS),
                "the first 8 dwords inline beside the pointer");
        RadvLaunch.check(sixteen, false);
    }

    @Test
    void gridSizeAndWorkgroupIdsFollowTheShadersUse() throws Exception {
        String glsl = """
                #version 450
                layout(local_size_x = 8, local_size_y = 8) in;
                layout(set=1, binding=3) buffer A { uint a[]; };
                void main() { a[gl_GlobalInvocationID.x + 64 * gl_GlobalInvocationID.y] = gl_NumWorkGroups.y + gl_WorkGroupID.z; }
                """;
        RadvBinary b = compile(glsl, List.of("binding 1 3 storage-buffer 16 -"), 0, Map.of());
        assertFalse(b.set(0).used(), "a set the shader does not use gets no SGPR");
        assertEquals(new RadvBinary.Slot(2, 1), b.set(1));
        assertEquals(new RadvBinary.Slot(3, 3), b.shaderData(RadvBinary.UD_CS_GRID_SIZE), "gfx10.3: the grid size in 3 SGPRs");
        assertTrue(b.workgroupId(0));
        assertTrue(b.workgroupId(2));
        assertEquals(1, b.workItemIdComponents(), "local ids x and y");
        RadvLaunch.check(b, false);
    }

    @Test
    void theLlvmBackendAndWave32GetTheSameRules() throws Exception {
        RadvBinary llvm = compile(pushShader(4), List.of("binding 0 0 storage-buffer 16 -"), 16, Map.of("RADV_DEBUG", "llvm"));
        assertTrue(llvm.irs().containsKey("LLVM IR"));
        assertEquals(new RadvBinary.Slot(3, 4), llvm.shaderData(RadvBinary.UD_INLINE_PUSH_CONSTANTS));
        RadvLaunch.check(llvm, true);
        RadvBinary wave32 = compile(pushShader(4), List.of("binding 0 0 storage-buffer 16 -"), 16,
                Map.of("RADV_PERFTEST", "cswave32"));
        assertEquals(32, wave32.waveSize());
        RadvLaunch.check(wave32, false);
    }

    @Test
    void anotherMesaVersionIsRefused() throws Exception {
        String glsl = "#version 450\nlayout(local_size_x = 64) in;\nlayout(set=0, binding=0) buffer A { uint a[]; };\n"
                + "void main() { a[gl_GlobalInvocationID.x] = 1; }\n";
        Path src = dir.resolve("v.comp");
        Files.writeString(src, glsl);
        Path spv = dir.resolve("v.spv");
        Files.write(spv, ShaderSource.compile(src, List.of(), List.of(), null));
        Path spec = dir.resolve("v.spec");
        Files.write(spec, List.of("spirv " + spv, "binding 0 0 storage-buffer 16 -"));
        VkTool.Output out = VkTool.run(VkTool.Driver.RADV, Map.of("RADV_FORCE_FAMILY", "navi21"), List.of("compile", spec.toString()));
        String other = out.stdout().replaceAll("Mesa 22\\.3\\.\\d+", "Mesa 24.0.1");
        VulkanException e = assertThrows(VulkanException.class, () -> RadvBinary.parse(other));
        assertTrue(e.getMessage().contains("Mesa 24.0.1") && e.getMessage().contains("22.3"), e.getMessage());
    }

    @Test
    void aShaderThatDoesNotCompileGivesGlslangsMessage() throws Exception {
        Path src = dir.resolve("bad.comp");
        Files.writeString(src, "#version 450\nlayout(local_size_x = 1) in;\nvoid main() { undefined_thing = 1; }\n");
        VulkanException e = assertThrows(VulkanException.class, () -> ShaderSource.compile(src, List.of(), List.of(), null));
        assertTrue(e.getMessage().contains("bad.comp") && e.getMessage().contains("undefined_thing"), e.getMessage());
    }

    @Test
    void invalidSpirvIsStoppedBeforeTheDriver() throws Exception {
        // SPIR-V 1.4 and later list every global an entry point uses in its interface; RADV 22.3 crashes on a
        // module that does not, so spirv-val stops it first
        Path asm = dir.resolve("iface.spvasm");
        Files.writeString(asm, """
                               OpCapability Shader
                               OpMemoryModel Logical GLSL450
                               OpEntryPoint GLCompute %main "main"
                               OpExecutionMode %main LocalSize 1 1 1
                               OpDecorate %blk Block
                               OpMemberDecorate %blk 0 Offset 0
                               OpDecorate %buf DescriptorSet 0
                               OpDecorate %buf Binding 0
                       %void = OpTypeVoid
                         %fn = OpTypeFunction %void
                       %uint = OpTypeInt 32 0
                        %blk = OpTypeStruct %uint
                        %ptr = OpTypePointer StorageBuffer %blk
                       %uptr = OpTypePointer StorageBuffer %uint
                        %buf = OpVariable %ptr StorageBuffer
                          %0 = OpConstant %uint 0
                          %7 = OpConstant %uint 7
                       %main = OpFunction %void None %fn
                          %l = OpLabel
                          %p = OpAccessChain %uptr %buf %0
                               OpStore %p %7
                               OpReturn
                               OpFunctionEnd
                """);
        VulkanException e = assertThrows(VulkanException.class,
                () -> ShaderSource.compile(asm, List.of(), List.of(), null, "spv1.5"));
        assertTrue(e.getMessage().contains("spirv-val") && e.getMessage().contains("interface"), e.getMessage());
        assertEquals(0x07230203, java.nio.ByteBuffer.wrap(ShaderSource.compile(asm, List.of(), List.of(), null, "spv1.3"))
                .order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt(0), "valid as SPIR-V 1.3");
    }
}
