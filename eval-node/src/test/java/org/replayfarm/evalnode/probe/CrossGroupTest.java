package org.replayfarm.evalnode.probe;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.evalnode.eval.Evaluation;
import org.replayfarm.evalnode.eval.GroupSelection;
import org.replayfarm.evalnode.hostmodel.HostModel;
import org.replayfarm.evalnode.hostmodel.Kernel;
import org.replayfarm.model.build.CaptureBuilder;
import org.replayfarm.model.build.DispatchShape;
import org.replayfarm.model.build.KernelArg;
import org.replayfarm.model.build.Llvm;
import org.replayfarm.model.build.RawLayout;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.proto.Capture;
import org.replayfarm.proto.Provenance;

/**
 * The slice across groups (issue 34): each of four groups swaps a value of its own (group * 3 + 100) into one word
 * with a returning global_atomic_swap and stores what it got back; the exchange's order matters, so the evaluation
 * runs the groups one after another in group order (the in-order pass) and group g gets group g-1's value. The slice
 * of group 2's stored word follows its atomic into group 1 and through the value group 1 swapped in to the scalar
 * arithmetic that made it there (assembled by llvm-mc-19; the expected values are read off the program by hand).
 */
@Tag("unit")
class CrossGroupTest {
    @TempDir
    Path dir;

    static final String SWAP = """
            v_cmp_eq_u32_e32 vcc_lo, 0, v0
            s_and_saveexec_b32 s12, vcc_lo
            s_cbranch_execz done
            s_mul_i32 s13, s4, 3
            s_add_u32 s13, s13, 100
            v_mov_b32_e32 v1, s13
            v_mov_b32_e32 v2, 0
            global_atomic_swap v3, v2, v1, s[0:1] glc
            s_waitcnt vmcnt(0)
            s_lshl_b32 s14, s4, 2
            v_mov_b32_e32 v4, s14
            global_store_dword v4, v3, s[2:3]
            done:
            s_endpgm
            """;

    @Test
    void a_value_read_by_an_atomic_is_followed_into_the_group_that_wrote_it_in_the_in_order_pass() throws Exception {
        CaptureFile file = build(SWAP);
        Kernel kernel = new Kernel(file);
        Evaluation.Outcome o = Evaluation.run(kernel, new GroupSelection(true, List.of()).resolve(kernel.dispatch()),
                1, HostModel.DEFAULT_BUDGET, n -> { });
        List<int[]> inOrder = CrossGroup.parse(o.inOrder().groups());
        assertEquals(4, inOrder.size(), "the groups of the in-order pass: " + o.inOrder().groups());
        ByteBuffer out = ByteBuffer.wrap(o.memory().range(1)).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(List.of(7, 100, 103, 106), List.of(out.getInt(0), out.getInt(4), out.getInt(8), out.getInt(12)),
                "each group gets the value the group before it swapped in");

        HostModel model = new HostModel(kernel, HostModel.DEFAULT_BUDGET);
        Execution b = CrossGroup.record(model, inOrder, new int[] {2, 0, 0}, Execution.Target.range(1, 8, 4));
        Execution.Store store = b.store();
        assertNotNull(store, "group 2 stores word 2");
        Slice slice = Slice.of(b, store.wave(), store.step());
        // recorded as the pass ran it: the swap gave back group 1's value
        Execution.Step swap = slice.entries().stream().map(Slice.Entry::step)
                .filter(s -> s.insn().mnemonic().equals("global_atomic_swap")).findFirst().orElseThrow();
        int[] returned = b.values(model, Set.of(swap.seq())).get(swap.seq()).after().get(Registers.VGPR + 3);
        assertEquals(103, returned[0]);

        List<CrossGroup.Link> links = CrossGroup.follow(model, inOrder, b, slice, 8);
        assertEquals(1, links.size(), "one location read, one writer: " + links);
        CrossGroup.Link link = links.get(0);
        assertArrayEquals(new int[] {1, 0, 0}, link.group());
        assertEquals(swap.seq(), link.atomic().seq());
        assertEquals(0, link.bytes().range());
        List<String> there = link.slice().entries().stream().map(e -> e.step().text()).toList();
        assertEquals("global_atomic_swap v3, v2, v1, s[0:1] glc", there.get(there.size() - 1), there.toString());
        assertTrue(there.contains("s_add_u32 s13, s13, 0x64") && there.contains("s_mul_i32 s13, s4, 3")
                && there.contains("v_mov_b32_e32 v1, s13"), "group 1's slice of the value it swapped in: " + there);
        // the first group of the pass read the capture's word: nothing to follow
        Execution first = CrossGroup.record(model, inOrder, new int[] {0, 0, 0}, Execution.Target.range(1, 0, 4));
        assertTrue(CrossGroup.follow(model, inOrder, first, Slice.of(first, first.store().wave(),
                first.store().step()), 8).isEmpty());
    }

    /** Four wave32 groups of 32: the word at s[0:1] (range 0, holding 7), the output at s[2:3], the group id in s4. */
    CaptureFile build(String asm) throws Exception {
        Path s = dir.resolve("k.s");
        Files.writeString(s, asm);
        byte[] object = Llvm.assemble(s, false);
        Files.write(dir.resolve("word.bin"), new byte[] {7, 0, 0, 0});
        Files.write(dir.resolve("out.bin"), new byte[16]);
        List<KernelArg> args = List.of(KernelArg.parse("buffer:" + dir.resolve("word.bin")),
                KernelArg.parse("buffer:" + dir.resolve("out.bin")));
        DispatchShape shape = new DispatchShape(4, 1, 1, 32, 1, 1, 1);
        Capture first = CaptureBuilder.fromRawCode(object, layout(Map.of()), shape, args,
                Provenance.getDefaultInstance()).metadata();
        Map<Integer, Integer> addresses = new LinkedHashMap<>();
        for (int i = 0; i < 2; i++) {
            long address = first.getRanges(i).getGuestAddress();
            addresses.put(2 * i, (int) address);
            addresses.put(2 * i + 1, (int) (address >>> 32));
        }
        Path capture = dir.resolve("swap.capture");
        CaptureBuilder.fromRawCode(object, layout(addresses), shape, args, Provenance.getDefaultInstance())
                .write(capture);
        return CaptureFile.open(capture);
    }

    private static RawLayout layout(Map<Integer, Integer> userSgprs) {
        return new RawLayout(32, 16, 106, 0, 0, userSgprs, OptionalInt.of(7), OptionalInt.of(4));
    }
}
