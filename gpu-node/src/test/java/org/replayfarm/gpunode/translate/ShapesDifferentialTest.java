package org.replayfarm.gpunode.translate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.replayfarm.model.capture.CaptureFile;
import org.junit.jupiter.api.Tag;

/**
 * Shared bodies that leave early (Shapes): a carry-out instruction (its RT_CHECK inside the body, before the mask
 * write, becomes RT_SHAPE_CHECK) and scalar loads (their fault exit becomes RT_SHAPE_RETURN, the caller's RT_CHECK
 * stopping the wave), the last load outside every range, inside a run of shared bodies (RT_RUN) that goes on after
 * it. The host model and the translation on the CPU must end with the same registers, memory, fault and instruction
 * count, in wave32 and wave64, built both ways the source allows: runs through the table (the default: what cuda-cpu
 * runs and the nvcc corpus check compiles) and every instruction inline ({@code -DRT_INLINE_SHAPES}: the GPU build's
 * code).
 */
@Tag("corpus")
class ShapesDifferentialTest {
    @TempDir
    Path dir;

    private static final CpuBuild INLINE = new CpuBuild("g++", Differential.CACHE, null, List.of("-DRT_INLINE_SHAPES"));

    @ParameterizedTest
    @CsvSource({"32, runs", "64, runs", "32, inline", "64, inline"})
    void shared_bodies_that_check_or_fault_inside_agree_with_the_host_model(int wave, String form) throws Exception {
        String mask = wave == 64 ? "s[%d:%d]" : "s%d";
        String asm = String.join("\n",
                "s_load_dword s10, s[0:1], 0x0",
                "s_load_dword s11, s[0:1], 0x4",
                "s_waitcnt lgkmcnt(0)",
                "v_add_co_u32 v1, " + String.format(mask, 12, 13) + ", v0, s10",
                "v_add_co_u32 v2, " + String.format(mask, 14, 15) + ", v0, s11",
                "v_add_co_u32 v3, " + String.format(mask, 16, 17) + ", v1, v2",
                "global_store_dword v0, v3, s[0:1] offset:16",
                "s_add_u32 s20, s0, 0x10000",
                "s_addc_u32 s21, s1, 0",
                "s_load_dword s30, s[0:1], 0x10000", // outside the 256-byte range: a fault
                "s_mov_b32 s31, 5",
                "s_mov_b32 s32, 6",
                "s_waitcnt lgkmcnt(0)",
                "v_mov_b32 v4, s30",
                "s_endpgm", "");
        byte[] buffer = new byte[256];
        buffer[0] = (byte) 0xf0;
        buffer[1] = (byte) 0xff;
        buffer[2] = (byte) 0xff;
        buffer[3] = (byte) 0xff; // v0 + 0xfffffff0 carries out for lanes 16 and up
        buffer[4] = 7;
        CaptureFile c = Differential.assemble(dir, asm, wave, wave, 1, List.of(buffer), 0, 0);
        Translation t = new Translator().translate(ProgramInfo.of(c));
        assertTrue(t.source().contains("RT_SHAPE_CHECK();"), "the carry-out body is shared, its check inside");
        assertTrue(t.source().contains("RT_SHAPE_RETURN();"), "the scalar load body is shared, its fault exit inside");
        // the faulting load is in a run, with shared instructions after it that must not execute
        Matcher run = Pattern.compile("RT_RUN\\(\\d+\\); /\\* (\\d+) instructions \\*/\\n#else\\n((?:.*\\n)*?)#endif")
                .matcher(t.source());
        boolean loadInside = false;
        while (run.find()) {
            String calls = run.group(2);
            int at = calls.indexOf("s_load_dword s30");
            loadInside |= at >= 0 && calls.indexOf("s_mov_b32 s31", at) > at;
        }
        assertTrue(loadInside, "the faulting load is inside a run, before s_mov_b32 s31:\n" + t.source());
        Differential.Side host = Differential.host(c, 1_000_000);
        Differential.Side device = form.equals("inline") ? Differential.device(c, dir, 1_000_000, INLINE)
                : Differential.device(c, dir, 1_000_000);
        assertFalse(host.faults().get(0).isEmpty(), "the host model faults on the last load");
        List<String> diff = Differential.differences(host, device, wave, wave);
        assertTrue(diff.isEmpty(), "host and translation differ:\n" + String.join("\n", diff));
        assertEquals(host.waveInstructions(), device.waveInstructions(), "wave instructions executed");
    }
}
