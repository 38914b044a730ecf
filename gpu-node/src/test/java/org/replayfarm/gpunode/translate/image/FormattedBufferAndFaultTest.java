package org.replayfarm.gpunode.translate.image;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.model.image.ImageFormat;

/**
 * Formatted buffers (MUBUF buffer_load/store_format_* with D16 and D16_HI, MTBUF tbuffer_*) over many buffer
 * formats, strides, swizzled V#s and OOB_SELECT range checks, and the image unit's faults (T# TYPE, BVH TYPE, a
 * node past the BVH SIZE, a level or layer inside the view the capture lacks, an atomic on a format it cannot
 * use, a MIN_LOD clamp, a partial store of a packed element), each through the translation and the CPU runner
 * against the host model: ranges, VGPRs and the fault records (group, wave, lane, PC) equal.
 */
@Tag("corpus")
class FormattedBufferAndFaultTest {
    @TempDir
    Path dir;

    private Path file(String name, byte[] b) throws Exception {
        Path p = dir.resolve(name);
        Files.write(p, b);
        return p;
    }

    private void same(String what, String asm, int wave, int lanes, List<String> args) throws Exception {
        var capture = ImageRig.capture(dir, asm, wave, lanes, 1, args, c -> c);
        ImageRig.Side host = ImageRig.host(capture);
        ImageRig.Side device = ImageRig.device(capture, dir);
        List<String> diff = ImageRig.differences(host, device, lanes, wave, Set.of(), 0, new long[1]);
        assertTrue(diff.isEmpty(), what + ":\n  " + String.join("\n  ", diff));
        assertTrue(host.faults().stream().allMatch(String::isEmpty), what + ": the host model faulted " + host.messages());
    }

    /** V# from the kernarg: buffer 0 in, buffer 1 out, u32 word 1 high bits (stride, swizzle), u32 word 3. */
    private static final String BUFFERS = """
            s_load_dwordx2 s[2:3], s[0:1], 0x0
            s_load_dwordx2 s[4:5], s[0:1], 0x8
            s_load_dword s6, s[0:1], 0x10
            s_load_dword s7, s[0:1], 0x14
            s_waitcnt lgkmcnt(0)
            s_mov_b32 s8, s2
            s_and_b32 s9, s3, 0xffff
            s_or_b32 s9, s9, s6
            s_mov_b32 s10, 20
            s_mov_b32 s11, s7
            s_mov_b32 s12, s4
            s_and_b32 s13, s5, 0xffff
            s_or_b32 s13, s13, s6
            s_mov_b32 s14, 20
            s_mov_b32 s15, s7
            v_lshlrev_b32 v1, 2, v0
            buffer_load_format_xyzw v[4:7], v0, s[8:11], 0 idxen
            buffer_load_format_xy v[8:9], v[0:1], s[8:11], 0 idxen offen offset:2
            buffer_load_format_d16_xyz v[10:11], v0, s[8:11], 0 idxen
            v_mov_b32 v12, 0x5555aaaa
            buffer_load_format_d16_hi_x v12, v0, s[8:11], 0 idxen
            buffer_load_format_x v[13:14], v0, s[8:11], 0 idxen tfe
            tbuffer_load_format_xyzw v[16:19], v0, s[8:11], 0 format:[BUF_FMT_8_8_8_8_SNORM] idxen
            tbuffer_load_format_d16_xy v20, v0, s[8:11], 0 format:[BUF_FMT_16_16_FLOAT] idxen
            s_waitcnt vmcnt(0)
            buffer_store_format_xyzw v[4:7], v0, s[12:15], 0 idxen
            tbuffer_store_format_d16_xyzw v[10:11], v0, s[12:15], 0 format:[BUF_FMT_8_8_8_8_UNORM] idxen offset:4
            s_waitcnt vmcnt(0)
            """;

    @Test
    void formatted_buffers_over_formats_strides_swizzles_and_range_checks() throws Exception {
        Random r = new Random(17);
        String[] formats = {"8_8_8_8_UNORM", "16_16_FLOAT", "32_32_32_32_FLOAT", "10_11_11_FLOAT", "2_10_10_10_SNORM",
                "8_8_UINT", "16_16_16_16_SINT", "32_FLOAT", "32_32_32_UINT", "16_USCALED", "8_SNORM"};
        int runs = 0;
        for (String name : formats) {
            int number = ImageFormat.parse(name).number();
            for (int variant = 0; variant < 3; variant++) {
                int stride = variant == 0 ? 16 : variant == 1 ? 24 : 8;
                int word1 = stride << 16 | (variant == 2 ? 1 << 31 : 0);
                // DST_SEL: identity, a swizzle with 0 and 1, identity; OOB_SELECT 0, 1, 3; INDEX_STRIDE 8 << variant
                int sel = variant == 1 ? (5 | 4 << 3 | 1 << 6 | 0 << 9) : (4 | 5 << 3 | 6 << 6 | 7 << 9);
                int oob = variant == 0 ? 0 : variant == 1 ? 1 : 3;
                int word3 = sel | number << 12 | variant << 21 | oob << 28;
                byte[] in = new byte[32 * 24 + 64];
                r.nextBytes(in);
                Path a = file(name + variant + ".in", in);
                Path b = file(name + variant + ".out", new byte[in.length]);
                same(name + " variant " + variant, BUFFERS, 32, 32, List.of("buffer:" + a, "buffer:" + b,
                        "u32:" + Integer.toUnsignedString(word1), "u32:" + Integer.toUnsignedString(word3)));
                runs++;
            }
        }
        assertEquals(33, runs);
    }

    /** One program, the fault chosen by argument 4 (u32 0..7); argument 0 a 2x2x3 2D array, 1 a 32_FLOAT 2x2. */
    private static final String FAULTS = """
            s_load_dwordx2 s[2:3], s[0:1], 0x0
            s_load_dwordx2 s[4:5], s[0:1], 0x8
            s_load_dwordx2 s[6:7], s[0:1], 0x10
            s_load_dwordx2 s[16:17], s[0:1], 0x18
            s_load_dword s18, s[0:1], 0x20
            s_waitcnt lgkmcnt(0)
            s_load_dwordx8 s[8:15], s[2:3], 0x0
            s_load_dwordx8 s[24:31], s[4:5], 0x0
            s_load_dwordx4 s[32:35], s[6:7], 0x0
            s_load_dwordx4 s[36:39], s[16:17], 0x0
            s_waitcnt lgkmcnt(0)
            v_and_b32 v1, 1, v0
            v_bfe_u32 v2, v0, 1, 1
            v_lshrrev_b32 v3, 2, v0
            v_mov_b32 v4, 0
            s_cmp_eq_u32 s18, 0
            s_cbranch_scc1 type
            s_cmp_eq_u32 s18, 1
            s_cbranch_scc1 layer
            s_cmp_eq_u32 s18, 2
            s_cbranch_scc1 level
            s_cmp_eq_u32 s18, 3
            s_cbranch_scc1 atomic
            s_cmp_eq_u32 s18, 4
            s_cbranch_scc1 minlod
            s_cmp_eq_u32 s18, 5
            s_cbranch_scc1 bvhtype
            s_cmp_eq_u32 s18, 6
            s_cbranch_scc1 bvhsize
            s_branch done
            type:
            s_and_b32 s11, s11, 0x0fffffff
            s_mov_b32 exec_lo, 0
            image_load v5, v[1:3], s[8:15] dmask:0x1 dim:SQ_RSRC_IMG_2D_ARRAY unorm
            s_branch done
            layer:
            s_and_b32 s11, s11, 0x0fffffff
            s_or_b32 s11, s11, 0xd0000000
            s_and_b32 s12, s12, 0xe000c000
            s_or_b32 s12, s12, 0x10003
            image_load v5, v[1:3], s[8:15] dmask:0x1 dim:SQ_RSRC_IMG_2D_ARRAY unorm
            s_branch done
            level:
            s_or_b32 s27, s27, 0x30000
            v_mov_b32 v4, 2
            image_load_mip v5, [v1, v2, v4], s[24:31] dmask:0x1 dim:SQ_RSRC_IMG_2D unorm
            s_branch done
            atomic:
            image_atomic_add v5, v[1:2], s[24:31] dmask:0x1 dim:SQ_RSRC_IMG_2D unorm glc
            s_branch done
            minlod:
            s_or_b32 s25, s25, 0x100
            v_mov_b32 v6, 0.5
            image_sample_lz v5, v[6:7], s[24:31], s[32:35] dmask:0x1 dim:SQ_RSRC_IMG_2D
            s_branch done
            bvhtype:
            s_and_b32 s39, s39, 0x0fffffff
            image_bvh_intersect_ray v[8:11], v[12:22], s[36:39]
            s_branch done
            bvhsize:
            v_mov_b32 v12, 5
            v_cmp_eq_u32 vcc_lo, 7, v0
            v_cndmask_b32 v12, 5, 0x7fff5, vcc_lo
            image_bvh_intersect_ray v[8:11], v[12:22], s[36:39]
            s_branch done
            done:
            s_waitcnt vmcnt(0)
            """;

    @Test
    void image_faults_name_the_same_wave_lane_and_pc() throws Exception {
        byte[] layers = new byte[4 * 12];
        new Random(2).nextBytes(layers);
        Path l = file("l.in", layers);
        Path f = file("f.in", new byte[16]);
        byte[] nodes = new byte[128];
        java.util.Arrays.fill(nodes, (byte) 0xFF);
        Path n = file("n.bvh", nodes);
        List<String> seen = new ArrayList<>();
        for (int k = 0; k <= 7; k++) {
            List<String> args = List.of("image:raw:" + l + ",2x2x3,format=32_FLOAT", "image:raw:" + f + ",2x2,format=32_FLOAT",
                    "sampler:point,clamp", "bvh:" + n, "u32:" + k);
            var capture = ImageRig.capture(dir, FAULTS, 32, 16, 1, args, c -> {
                var x = c.toBuilder();
                x.setImages(0, x.getImages(0).toBuilder().setType(org.replayfarm.proto.ImageType.IMAGE_2D_ARRAY).setDepth(1)
                        .setLayers(3));
                return x.build();
            });
            ImageRig.Side host = ImageRig.host(capture);
            ImageRig.Side device = ImageRig.device(capture, dir);
            List<String> diff = ImageRig.differences(host, device, 16, 32, Set.of(), 0, new long[1]);
            assertTrue(diff.isEmpty(), "fault " + k + ":\n  " + String.join("\n  ", diff));
            seen.add(host.faults().get(0));
        }
        // seven faults (the bvhsize one in lane 7), then the run that faults nowhere
        for (int k = 0; k < 7; k++) {
            assertTrue(seen.get(k).startsWith("wave 0 lane " + (k == 6 ? "7" : "-1") + " pc 0x"), k + ": " + seen.get(k));
        }
        assertEquals("", seen.get(7));
        assertEquals(8, new java.util.HashSet<>(seen).size(), "each fault at its own PC: " + seen);
    }

    /** Every program this class ran through cuda-cpu also compiles with nvcc for sm_90 (ImageRig.nvccCheck). */
    @org.junit.jupiter.api.AfterAll
    static void its_programs_compile_with_nvcc_for_sm_90(@TempDir Path nvcc) throws Exception {
        int n = ImageRig.nvccCheck(nvcc);
        org.junit.jupiter.api.Assertions.assertTrue(n > 0, "no program was run, none compiled");
        System.out.println("[image nvcc] FormattedBufferAndFaultTest: " + n + " translations compiled for sm_90");
    }
}
