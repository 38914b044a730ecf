package org.replayfarm.evalnode.hostmodel.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.evalnode.hostmodel.asm.GuestAsm;
import org.replayfarm.evalnode.hostmodel.wave.Wave;

/**
 * buffer_load_format_xyzw / buffer_store_format_xyzw (the V#'s FORMAT) and their tbuffer forms (the
 * instruction's format, named symbolically so llvm-mc-19 supplies the number) on the packed 10/11-bit
 * formats. The expected words and values are worked out here by bit manipulation from the layouts
 * (names list fields from the most significant bits down: 2_10_10_10 is R10G10B10A2 with x in [9:0],
 * 10_11_11 is R11G11B10 float with x in [10:0]), not by the model's texel codec.
 */
@Tag("unit")
class PackedBufferFormatTest {
    @TempDir
    Path dir;

    private static final int XYZW = 4 | 5 << 3 | 6 << 6 | 7 << 9;
    // the V# FORMAT numbers (llvm-mc-19 prints these numbers as the names used in the tbuffer forms below)
    private static final int FMT_10_11_11_FLOAT = 36;
    private static final int FMT_10_10_10_2_SINT = 49;
    private static final int FMT_2_10_10_10_UNORM = 50;

    private static void vsharp(Wave w, int format) {
        long base = w.sgpr64(0);
        w.setSgpr(4, (int) base);
        w.setSgpr(5, (int) (base >>> 32 & 0xFFFF));
        w.setSgpr(6, 64);
        w.setSgpr(7, XYZW | format << 12 | 3 << 28);
    }

    private static int f(float v) {
        return Float.floatToRawIntBits(v);
    }

    @Test
    void packed_formats_load_through_the_descriptor_and_the_instruction() throws Exception {
        byte[] data = new byte[64];
        // 2_10_10_10_UNORM at 0: x 1023, y 0, z 341, w 1
        int rgb10a2 = 1023 | 0 << 10 | 341 << 20 | 1 << 30;
        MemoryOps.putDword(data, 0, rgb10a2);
        // 10_11_11_FLOAT at 4: x = 1.0 (11-bit: exponent 15), y = 2.75 (exponent 16, mantissa 24/64),
        // z = 0.1875 (10-bit: exponent 12, mantissa 16/32)
        int r11g11b10 = (15 << 6) | ((16 << 6) | 24) << 11 | ((12 << 5) | 16) << 22;
        MemoryOps.putDword(data, 4, r11g11b10);
        // 10_10_10_2_SINT at 8: x (2 bits) -2, y (10 bits) -1, z 511, w -512
        int packed = (-2 & 3) | (-1 & 0x3FF) << 2 | 511 << 12 | (-512 & 0x3FF) << 22;
        MemoryOps.putDword(data, 8, packed);
        // 11_11_10_FLOAT at 12: x (10 bits) a denormal 3 * 2^-19, y (11 bits) infinity, z (11 bits) 65024
        int b10g11r11 = 3 | (31 << 6) << 10 | ((30 << 6) | 63) << 21;
        MemoryOps.putDword(data, 12, b10g11r11);
        var out = new GuestAsm(dir).buffer(data).setup(w -> {
            w.setExec(1);
            vsharp(w, FMT_2_10_10_10_UNORM);
            w.setVgpr(1, 0, 0);
        }).run("buffer_load_format_xyzw v[2:5], v1, s[4:7], 0 offen\n"
                + "tbuffer_load_format_xyzw v[6:9], v1, s[4:7], 0 format:[BUF_FMT_10_11_11_FLOAT] offen offset:4\n"
                + "tbuffer_load_format_xyzw v[10:13], v1, s[4:7], 0 format:[BUF_FMT_10_10_10_2_SINT] offen offset:8\n"
                + "tbuffer_load_format_xyzw v[14:17], v1, s[4:7], 0 format:[BUF_FMT_11_11_10_FLOAT] offen offset:12\n"
                + "tbuffer_load_format_xyzw v[18:21], v1, s[4:7], 0 format:[BUF_FMT_2_10_10_10_UNORM] offen").ok();
        Wave w = out.wave(0);
        float[] unorm = {1f, 0f, (float) (341 / 1023.0), (float) (1 / 3.0)};
        for (int c = 0; c < 4; c++) {
            assertEquals(unorm[c], Float.intBitsToFloat(w.vgpr(2 + c, 0)), "2_10_10_10_UNORM via the V#, channel " + c);
            assertEquals(unorm[c], Float.intBitsToFloat(w.vgpr(18 + c, 0)), "2_10_10_10_UNORM via tbuffer, channel " + c);
        }
        assertEquals(1.0f, Float.intBitsToFloat(w.vgpr(6, 0)));
        assertEquals(2.75f, Float.intBitsToFloat(w.vgpr(7, 0)));
        assertEquals(0.1875f, Float.intBitsToFloat(w.vgpr(8, 0)));
        assertEquals(1.0f, Float.intBitsToFloat(w.vgpr(9, 0)), "w missing: 1.0");
        assertEquals(-2, w.vgpr(10, 0));
        assertEquals(-1, w.vgpr(11, 0));
        assertEquals(511, w.vgpr(12, 0));
        assertEquals(-512, w.vgpr(13, 0));
        assertEquals((float) (3 * Math.pow(2, -19)), Float.intBitsToFloat(w.vgpr(14, 0)));
        assertEquals(Float.POSITIVE_INFINITY, Float.intBitsToFloat(w.vgpr(15, 0)));
        assertEquals(65024f, Float.intBitsToFloat(w.vgpr(16, 0)));
    }

    @Test
    void packed_formats_store_through_the_descriptor_and_the_instruction() throws Exception {
        float third = 2 / 3f;
        var out = new GuestAsm(dir).buffer(new byte[64]).setup(w -> {
            w.setExec(1);
            vsharp(w, FMT_2_10_10_10_UNORM);
            w.setVgpr(1, 0, 0);
            w.setVgpr(2, 0, f(0.25f));
            w.setVgpr(3, 0, f(1.5f));   // clamps to 1
            w.setVgpr(4, 0, f(-0.5f));  // clamps to 0
            w.setVgpr(5, 0, f(third));
            w.setVgpr(6, 0, f(1.0f + 0x1p-6f)); // halfway between two 10-bit floats: to even, 1.0
            w.setVgpr(7, 0, f(-2f));            // negative: 0
            w.setVgpr(8, 0, f(3f));
            w.setVgpr(9, 0, 1);
            w.setVgpr(10, 0, -3);
            w.setVgpr(11, 0, 0x7FF);           // low 10 bits kept: 1023
            w.setVgpr(12, 0, -512);
            w.setVgpr(13, 0, f(100000f));      // past 65024: infinity
            w.setVgpr(14, 0, f(0.5f + 0x1p-8f));
            w.setVgpr(15, 0, f(0x1p-16f));     // a 10-bit denormal
        }).run("buffer_store_format_xyzw v[2:5], v1, s[4:7], 0 offen\n"
                + "tbuffer_store_format_xyzw v[6:9], v1, s[4:7], 0 format:[BUF_FMT_11_11_10_FLOAT] offen offset:4\n"
                + "tbuffer_store_format_xyzw v[9:12], v1, s[4:7], 0 format:[BUF_FMT_10_10_10_2_SINT] offen offset:8\n"
                + "tbuffer_store_format_xyz v[13:15], v1, s[4:7], 0 format:[BUF_FMT_10_11_11_FLOAT] offen offset:12").ok();
        byte[] b = out.buffer(0);
        int x = (int) Math.rint(0.25 * 1023); // 255.75 -> 256
        int w = (int) Math.rint(third * 3.0);
        assertEquals(x | 1023 << 10 | 0 << 20 | w << 30, MemoryOps.dword(b, 0), "2_10_10_10_UNORM");
        // 11_11_10: x (10 bits) 1.0 = exponent 15; y (11 bits) 0; z (11 bits) 3.0 = exponent 16, mantissa 32/64
        assertEquals((15 << 5) | 0 << 10 | ((16 << 6) | 32) << 21, MemoryOps.dword(b, 4), "11_11_10_FLOAT");
        assertEquals((1 & 3) | (-3 & 0x3FF) << 2 | 1023 << 12 | (-512 & 0x3FF) << 22, MemoryOps.dword(b, 8),
                "10_10_10_2_SINT keeps each component's low bits");
        // 10_11_11: x infinity (exponent 31); y 0.5 + 2^-8 is exactly half an 11-bit ulp (2^-7)
        // above 0.5: to even, 0.5 (exponent 14);
        // z 2^-16 = 2^-14 * (8 / 32) as a 10-bit denormal: mantissa 8
        assertEquals((31 << 6) | (14 << 6) << 11 | 8 << 22, MemoryOps.dword(b, 12), "10_11_11_FLOAT");
        for (int i = 16; i < 64; i++) {
            assertEquals(0, b[i], "byte " + i + " untouched");
        }
    }

    @Test
    void a_partial_store_of_a_packed_element_and_format_zero_fault_by_name() throws Exception {
        var partial = new GuestAsm(dir).buffer(new byte[64]).setup(w -> {
            w.setExec(1);
            vsharp(w, FMT_10_11_11_FLOAT);
            w.setVgpr(1, 0, 0);
        }).runToFault("buffer_store_format_x v2, v1, s[4:7], 0 offen");
        assertNotNull(partial.fault());
        assertTrue(partial.fault().message().contains("1 of the 3 components of the packed format 10_11_11_FLOAT"),
                partial.fault().message());
        var invalid = new GuestAsm(dir).buffer(new byte[64]).setup(w -> {
            w.setExec(1);
            vsharp(w, 0);
            w.setVgpr(1, 0, 0);
        }).runToFault("buffer_load_format_x v2, v1, s[4:7], 0 offen");
        assertNotNull(invalid.fault());
        assertTrue(invalid.fault().message().contains("buffer format 0"), invalid.fault().message());
    }
}
