package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.model.bvh.BvhBuilder;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.proto.Capture;

/** {@code --arg bvh:PATH}: the nodes and the descriptor become ranges after the buffers, and a kernel tests the root through it. */
@Tag("corpus")
class BvhArgumentTest {
    @TempDir
    Path dir;

    /** Lane l casts a ray down at x = l / 4 + 1/16 onto the root of the BVH whose descriptor address is the second argument. */
    static final String ROOT_TEST = """
            s_load_dwordx4 s[4:7], s[0:1], 0x0
            s_waitcnt lgkmcnt(0)
            s_load_dwordx4 s[8:11], s[6:7], 0x0
            v_mov_b32 v10, 5
            v_mov_b32 v11, 0x447a0000
            v_cvt_f32_u32 v12, v0
            v_mul_f32 v12, 0.25, v12
            v_add_f32 v12, 0x3d800000, v12
            v_mov_b32 v13, 0x41200000
            v_mov_b32 v14, 1.0
            v_mov_b32 v15, 0
            v_mov_b32 v16, -1.0
            v_mov_b32 v17, 0
            v_mov_b32 v18, 0x7f800000
            v_mov_b32 v19, -1.0
            v_mov_b32 v20, 0x7f800000
            s_waitcnt lgkmcnt(0)
            image_bvh_intersect_ray v[24:27], v[10:20], s[8:11]
            s_waitcnt vmcnt(0)
            v_lshlrev_b32 v1, 4, v0
            global_store_dwordx4 v1, v[24:27], s[4:5]
            s_endpgm
            """;

    @Test
    void a_bvh_argument_adds_its_nodes_and_descriptor_after_the_buffers_and_the_kernel_reads_them() throws Exception {
        // a 4 x 4 quad at y = 0 as two triangles sharing an edge: one node holding both (types 0 and 1)
        float[] quad = {0, 0, 0, 0, 0, 4, 4, 0, 4, 0, 0, 0, 4, 0, 4, 4, 0, 0};
        Path nodes = dir.resolve("quad.bvh");
        Files.write(nodes, BvhBuilder.build(quad, 1).nodes());
        Path s = dir.resolve("k.s");
        Files.writeString(s, ROOT_TEST);
        Path out = dir.resolve("k.capture");
        CliRun built = CliRun.of("capture", "build", "--asm", s.toString(), "--groups", "1", "--group-size", "32",
                "--arg", "bvh:" + nodes, "--arg", "zeros:512", "--vgprs", "32", "-o", out.toString());
        assertEquals(0, built.exitCode(), built.err());
        Capture c = CaptureFile.open(out).metadata();
        assertTrue(c.getRanges(0).getName().contains("zeros"), "the buffer keeps range 0: " + c.getRanges(0).getName());
        assertTrue(c.getRanges(1).getName().contains("quad.bvh"));
        assertTrue(c.getRanges(2).getName().contains("descriptor"));
        assertEquals(16, c.getRanges(2).getSize());

        // the arguments are in the order given: the descriptor's address first, then the zeros
        Files.writeString(s, ROOT_TEST.replace("s[4:7], s[0:1], 0x0\n", "s[4:7], s[0:1], 0x0\ns_mov_b64 s[12:13], s[4:5]\n"
                + "s_mov_b64 s[4:5], s[6:7]\ns_mov_b64 s[6:7], s[12:13]\n"));
        built = CliRun.of("capture", "build", "--asm", s.toString(), "--groups", "1", "--group-size", "32",
                "--arg", "bvh:" + nodes, "--arg", "zeros:512", "--vgprs", "32", "-o", out.toString());
        assertEquals(0, built.exitCode(), built.err());
        CliRun eval = CliRun.of("eval", out.toString(), "--every-group", "--out", dir.resolve("o").toString());
        assertEquals(0, eval.exitCode(), eval.out() + eval.err());
        ByteBuffer r = ByteBuffer.wrap(Files.readAllBytes(dir.resolve("o/host/guest-0.bin"))).order(ByteOrder.LITTLE_ENDIAN);
        for (int lane = 0; lane < 32; lane++) {
            int first = r.getInt(16 * lane);
            int second = r.getInt(16 * lane + 4);
            if (lane < 16) {
                // both triangles' boxes are the whole quad: the root returns the node's two triangles
                assertEquals(first & ~7, second & ~7, "lane " + lane);
                assertEquals(Set.of(0, 1), Set.of(first & 7, second & 7), "lane " + lane);
                assertEquals(-1, r.getInt(16 * lane + 8));
            } else {
                assertEquals(-1, first, "lane " + lane + " passes beside the quad");
                assertEquals(-1, second);
            }
        }
    }

    @Test
    void a_bvh_file_that_is_not_whole_nodes_is_refused_naming_it() throws Exception {
        Path nodes = dir.resolve("bad.bvh");
        Files.write(nodes, new byte[100]);
        Path s = dir.resolve("k.s");
        Files.writeString(s, "s_endpgm\n");
        CliRun built = CliRun.of("capture", "build", "--asm", s.toString(), "--groups", "1", "--group-size", "32",
                "--arg", "bvh:" + nodes, "-o", dir.resolve("k.capture").toString());
        assertEquals(2, built.exitCode());
        assertTrue(built.err().contains("bad.bvh holds 100 bytes"), built.err());
    }
}
