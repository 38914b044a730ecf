package org.replayfarm.evalnode.hostmodel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.evalnode.hostmodel.asm.GuestAsm;
import org.replayfarm.evalnode.hostmodel.wave.Wave;

/** The parts of the host model every unit relies on: wave start state, program end, faults. */
@Tag("unit")
class HostModelCoreTest {
    @TempDir
    Path dir;

    @Test
    void waves_start_with_work_item_ids_exec_for_real_lanes_and_buffer_addresses_in_sgprs() throws Exception {
        var out = new GuestAsm(dir).groupSize(40).buffer(new byte[16]).run("s_endpgm\n");
        assertTrue(out.result().fault().isEmpty(), out.result().fault().toString());
        assertEquals(2, out.group().waves().size(), "40 work-items make two wave32s");
        Wave w1 = out.wave(1);
        assertEquals(0xFFL, w1.exec(), "the second wave holds work-items 32..39");
        assertEquals(33, w1.vgpr(0, 1), "v0 = work-item id x");
        long address = out.capture().getRanges(0).getGuestAddress();
        assertEquals(address, w1.sgpr64(0), "s[0:1] = buffer 0's address");
        assertEquals(0, w1.sgpr(2), "workgroup id x after the buffers");
        assertEquals(2, out.result().waveInstructions());
        assertEquals(40, out.result().laneInstructions());
    }

    @Test
    void an_instruction_the_model_does_not_execute_faults_the_group_naming_wave_pc_and_instruction() throws Exception {
        var out = new GuestAsm(dir).runToFault("s_sethalt 1\ns_endpgm\n");
        var fault = out.result().fault().orElseThrow();
        assertEquals(0, fault.wave());
        assertEquals("s_sethalt 1", fault.instruction());
        assertTrue(fault.message().startsWith("unsupported instruction"), fault.message());
        assertTrue(fault.toString().startsWith("group (0, 0, 0) wave 0 pc 0x"), fault.toString());
    }
}
