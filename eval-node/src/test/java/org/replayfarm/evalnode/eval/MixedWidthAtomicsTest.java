package org.replayfarm.evalnode.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.evalnode.hostmodel.HostModel;
import org.replayfarm.evalnode.hostmodel.Kernel;
import org.replayfarm.evalnode.hostmodel.asm.GuestAsm;

/**
 * The merge defect issue 13's memory differential found (seed 32001, wave32): one group's atomics on one
 * location at two widths were replayed at the first one's width. Through the host model (llvm-mc-19
 * assembles the program) and the merge; the expected bytes are worked out by hand below.
 */
@Tag("unit")
class MixedWidthAtomicsTest {
    @TempDir
    Path dir;

    @Test
    void a_dword_add_then_a_qword_add_on_one_address_merge_as_executed() throws Exception {
        byte[] initial = new byte[16];
        ByteBuffer.wrap(initial).order(ByteOrder.LITTLE_ENDIAN).putInt(0, 100);
        Kernel kernel = new GuestAsm(dir).groupSize(1).buffer(initial).kernel("""
                v_mov_b32 v1, 0
                v_mov_b32 v2, 1
                global_atomic_add v1, v2, s[0:1]
                v_mov_b32 v3, -1
                v_mov_b32 v4, 0
                global_atomic_add_x2 v1, v[3:4], s[0:1]
                s_endpgm
                """);
        MemoryMerge merge = new MemoryMerge(kernel.memory(), kernel.dispatch());
        merge.add(new HostModel(kernel, 1_000).runGroup(0, 0, 0));
        merge.applyAtomics();
        // 100 + 1 = 101 (4 bytes), then 101 + 0xFFFFFFFF = 0x1_0000_0064 (8 bytes: the carry reaches the high dword)
        assertEquals(0x1_0000_0064L, ByteBuffer.wrap(merge.range(0)).order(ByteOrder.LITTLE_ENDIAN).getLong(0));
    }
}
