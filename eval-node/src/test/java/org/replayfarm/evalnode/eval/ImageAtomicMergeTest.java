package org.replayfarm.evalnode.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.evalnode.hostmodel.Kernel;
import org.replayfarm.evalnode.hostmodel.TexelAtomic;
import org.replayfarm.evalnode.hostmodel.asm.GuestAsm;

/**
 * Image atomics of many groups on one texel, end to end: llvm-mc-19 assembles the kernel (through {@link GuestAsm},
 * with the kernarg layout {@code capture build} gives plain assembly), every group's
 * lanes atomically combine a value into texel (1, 2) of a 4x4 32_UINT image, the groups run on several
 * threads and the merge combines their contributions. The expected texel is computed here, in plain Java.
 */
@Tag("unit")
class ImageAtomicMergeTest {
    private static final int GROUPS = 12;
    private static final int LANES = 32;
    private static final int INITIAL = 0x1234_5678;

    @TempDir
    Path dir;

    /** s[2:3] the T# address; T# in s[8:15]; v4 = lane * 0x9E3779B1 + group * 0x7FEB352D; (x, y) = (1, 2). */
    private static String kernel(String atomic) {
        return """
                s_load_dwordx2 s[2:3], s[0:1], 0x0
                s_waitcnt lgkmcnt(0)
                s_load_dwordx8 s[8:15], s[2:3], 0x0
                s_waitcnt lgkmcnt(0)
                v_mul_lo_u32 v4, 0x9E3779B1, v0
                s_mul_i32 s16, s20, 0x7FEB352D
                v_add_nc_u32 v4, s16, v4
                v_mov_b32 v1, 1
                v_mov_b32 v2, 2
                """ + atomic + "\ns_endpgm\n";
    }

    private static int operand(int group, int lane) {
        return lane * 0x9E3779B1 + group * 0x7FEB352D;
    }

    private Evaluation.Outcome run(String atomic) throws Exception {
        byte[] texels = new byte[16 * 4];
        ByteBuffer.wrap(texels).order(ByteOrder.LITTLE_ENDIAN).putInt(4 * (2 * 4 + 1), INITIAL);
        GuestAsm asm = new GuestAsm(dir).groups(GROUPS).groupSize(LANES);
        Path raw = asm.file("u32.raw", texels);
        Kernel kernel = asm.arg("image:raw:" + raw + ",4x4,format=32_UINT").kernel(kernel(atomic));
        List<int[]> groups = new ArrayList<>();
        for (int g = 0; g < GROUPS; g++) {
            groups.add(new int[] {g, 0, 0});
        }
        Evaluation.Outcome o = Evaluation.run(kernel, groups, 3, 1_000_000, done -> { });
        assertTrue(o.faults().isEmpty(), o.faults().toString());
        Evaluation.write(o, kernel, "00", dir.resolve("out"));
        return o;
    }

    private static int texel(Evaluation.Outcome o, int x, int y) {
        return ByteBuffer.wrap(o.images().texels(0)).order(ByteOrder.LITTLE_ENDIAN).getInt(4 * (y * 4 + x));
    }

    @Test
    void every_group_adding_into_one_texel_sums_exactly_with_no_conflict() throws Exception {
        Evaluation.Outcome o = run("image_atomic_add v4, v[1:2], s[8:15] dmask:0x1 dim:SQ_RSRC_IMG_2D unorm");
        int sum = INITIAL;
        for (int g = 0; g < GROUPS; g++) {
            for (int l = 0; l < LANES; l++) {
                sum += operand(g, l);
            }
        }
        assertEquals(sum, texel(o, 1, 2));
        assertEquals(0, o.images().conflictCount());
        assertTrue(o.images().orderDependent().isEmpty(), o.images().orderDependent().toString());
        for (int t = 0; t < 16; t++) {
            if (t != 2 * 4 + 1) {
                assertEquals(0, ByteBuffer.wrap(o.images().texels(0)).order(ByteOrder.LITTLE_ENDIAN).getInt(4 * t),
                        "texel " + t + " is untouched");
            }
        }
        assertEquals(o.memory().groupName(o.images().storers(0)[9]), "(" + (GROUPS - 1) + ", 0, 0)",
                "the texel is traced to the last contributing group");
        assertEquals(0, new ObjectMapper().readTree(dir.resolve("out/report.json").toFile())
                .get("order_dependent_atomics").size());
    }

    @Test
    void swaps_from_several_groups_are_reported_order_dependent() throws Exception {
        Evaluation.Outcome o = run("image_atomic_swap v4, v[1:2], s[8:15] dmask:0x1 dim:SQ_RSRC_IMG_2D unorm");
        // applied in group order, lanes in lane order: the last group's last lane wins
        assertEquals(operand(GROUPS - 1, LANES - 1), texel(o, 1, 2));
        assertEquals(0, o.images().conflictCount(), "a swap is an atomic, not a store");
        assertEquals(1, o.images().orderDependent().size());
        ImageMerge.OrderDependent d = o.images().orderDependent().get(0);
        assertEquals("swap", d.op());
        assertFalse(d.afterStore());
        assertEquals(GROUPS, d.groups().size());
        JsonNode reported = new ObjectMapper().readTree(dir.resolve("out/report.json").toFile())
                .get("order_dependent_atomics");
        assertEquals(1, reported.size());
        assertEquals(0, reported.get(0).get("image").asInt());
        assertEquals(1, reported.get(0).get("x").asInt());
        assertEquals(2, reported.get(0).get("y").asInt());
        assertEquals("swap", reported.get(0).get("op").asText());
        assertEquals("(0, 0, 0)", reported.get(0).get("groups").get(0).asText());
    }

    @Test
    void image_atomics_survive_the_wire() {
        var g = new org.replayfarm.evalnode.hostmodel.GroupResult(3, 1, 0, List.of(), List.of(), List.of(),
                List.of(new TexelAtomic(2, 99, "cmpswap", 8, 0xFEDC_BA98_7654_3210L, -5L, 0x1_0000_0001L),
                        new TexelAtomic(0, 1, "add", 4, 7, 0, 3)), java.util.Optional.empty(), 1, 2, 3, 4, 5);
        var back = org.replayfarm.evalnode.cluster.SliceCodec.decode(org.replayfarm.evalnode.cluster.SliceCodec.encode(g));
        assertEquals(g.texelAtomics(), back.texelAtomics());
    }
}
