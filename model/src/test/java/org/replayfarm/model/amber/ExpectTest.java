package org.replayfarm.model.amber;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Every EXPECT form against contents built here, passing and failing, with the failure messages. IDX is a byte
 * offset (the AmberScript docs' example probes vec2 element 255 at IDX 2040); a t% tolerance is t/100 of the
 * expected value.
 */
@Tag("unit")
class ExpectTest {
    /** The script's expectations, each checked against {@code contents}. */
    static List<ExpectOutcome> check(String body, Map<String, byte[]> contents) throws AmberException {
        AmberScript s = AmberScript.parse("#!amber\n" + body + "\n", "expect.amber");
        return s.commands().stream().filter(c -> c instanceof Expect).map(c -> ((Expect) c).check(contents::get))
                .toList();
    }

    static ExpectOutcome one(String body, Map<String, byte[]> contents) throws AmberException {
        List<ExpectOutcome> all = check(body, contents);
        assertEquals(1, all.size());
        return all.get(0);
    }

    static ByteBuffer le(int size) {
        return ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
    }

    static Map<String, byte[]> of(String name, byte[] bytes) {
        Map<String, byte[]> m = new HashMap<>();
        m.put(name, bytes);
        return m;
    }

    @Test
    void idx_is_a_byte_offset() throws AmberException {
        // vec2<int32>: element i at byte 8 * i, as in the docs' example (element 255 at IDX 2040)
        ByteBuffer b = le(256 * 8);
        for (int i = 0; i < 256; i++) {
            b.putInt(i).putInt(-i);
        }
        String decl = "BUFFER buf DATA_TYPE vec2<int32> SIZE 256 FILL 0\n";
        Map<String, byte[]> c = of("buf", b.array());
        assertTrue(one(decl + "EXPECT buf IDX 2040 EQ 255 -255", c).passed());
        assertTrue(one(decl + "EXPECT buf IDX 8 EQ 1 -1 2 -2", c).passed()); // values run on into element 2
        ExpectOutcome f = one(decl + "EXPECT buf IDX 16 EQ 2 -2 3 7", c);
        assertFalse(f.passed());
        assertEquals("EXPECT line 3: buffer 'buf' IDX 16: 1 of 4 values failed; value 3 (element 3, byte 28): "
                + "expected EQ 7, actual -3", f.message());
    }

    @Test
    void idx_past_the_end_fails() throws AmberException {
        ExpectOutcome f = one("BUFFER b DATA_TYPE uint32 SIZE 2 FILL 0\nEXPECT b IDX 4 EQ 0 0", of("b", new byte[8]));
        assertFalse(f.passed());
        assertTrue(f.message().contains("reach byte 12 of a buffer of 8 bytes"), f.message());
    }

    @Test
    void integer_comparators() throws AmberException {
        String decl = "BUFFER u DATA_TYPE uint32 SIZE 2 FILL 0\nBUFFER s DATA_TYPE int8 SIZE 2 FILL 0\n";
        Map<String, byte[]> c = of("u", le(8).putInt(0xFFFFFFFF).putInt(5).array());
        c.put("s", new byte[] {-1, 5});
        List<ExpectOutcome> r = check(decl
                + "EXPECT u IDX 0 GT 1\n" // unsigned: 4294967295 > 1
                + "EXPECT u IDX 0 EQ 4294967295 5\n"
                + "EXPECT u IDX 0 EQ 0xFFFFFFFF\n"
                + "EXPECT u IDX 4 NE 6\n"
                + "EXPECT u IDX 4 LE 5\n"
                + "EXPECT u IDX 4 GE 5\n"
                + "EXPECT s IDX 0 LT 0\n" // signed: -1 < 0
                + "EXPECT s IDX 0 EQ -1 5\n"
                + "EXPECT s IDX 1 LT 5\n" // fails
                + "EXPECT u IDX 4 NE 5\n" // fails
                + "EXPECT s IDX 0 GT 0\n", c); // fails
        for (int i = 0; i < 8; i++) {
            assertTrue(r.get(i).passed(), i + ": " + r.get(i).message());
        }
        assertEquals("EXPECT line 12: buffer 's' IDX 1: 1 of 1 values failed; value 0 (element 1, byte 1): "
                + "expected LT 5, actual 5", r.get(8).message());
        assertFalse(r.get(9).passed());
        assertTrue(r.get(10).message().contains("expected GT 0, actual -1"), r.get(10).message());
    }

    @Test
    void floats_compare_after_rounding_to_the_type() throws AmberException {
        String decl = "BUFFER f DATA_TYPE float SIZE 2 FILL 0\n";
        float next = Math.nextUp(0.1f);
        Map<String, byte[]> c = of("f", le(8).putFloat(0.1f).putFloat(next).array());
        List<ExpectOutcome> r = check(decl + "EXPECT f IDX 0 EQ 0.1\nEXPECT f IDX 4 EQ 0.1\nEXPECT f IDX 4 NE 0.1\n"
                + "EXPECT f IDX 0 LT 0.2\nEXPECT f IDX 4 GT 0.1\nEXPECT f IDX 0 GE 0.1\nEXPECT f IDX 0 LE 0.05", c);
        assertTrue(r.get(0).passed());
        assertFalse(r.get(1).passed());
        assertEquals("EXPECT line 4: buffer 'f' IDX 4: 1 of 1 values failed; value 0 (element 1, byte 4): "
                + "expected EQ 0.1, actual " + next, r.get(1).message());
        assertTrue(r.get(2).passed());
        assertTrue(r.get(3).passed());
        assertTrue(r.get(4).passed());
        assertTrue(r.get(5).passed());
        assertFalse(r.get(6).passed());
    }

    @Test
    void float16_and_double_are_decoded() throws AmberException {
        String decl = "BUFFER h DATA_TYPE float16 SIZE 2 FILL 0\nBUFFER d DATA_TYPE double SIZE 1 FILL 0\n";
        Map<String, byte[]> c = of("h", le(4).putShort((short) 0x3C00).putShort((short) 0x2E66).array());
        c.put("d", le(8).putDouble(1.0 + 1e-9).array());
        List<ExpectOutcome> r = check(decl + "EXPECT h IDX 0 EQ 1.0 0.1\nEXPECT h IDX 2 EQ 0.09997\n"
                + "EXPECT h IDX 0 EQ 1.001\n" // 1.001 rounds to 0x3C01, not 0x3C00
                + "EXPECT d IDX 0 EQ 1.0\n" // Amber's epsilon: relative 1e-8 for doubles
                + "EXPECT d IDX 0 EQ 1.0000001\nEXPECT d IDX 0 GT 1.0", c);
        assertTrue(r.get(0).passed(), r.get(0).message());
        assertTrue(r.get(1).passed(), r.get(1).message()); // 0.09997 rounds to 0x2E66 too
        assertFalse(r.get(2).passed());
        assertTrue(r.get(2).message().contains("expected EQ 1.0009766, actual 1.0"), r.get(2).message());
        assertTrue(r.get(3).passed());
        assertFalse(r.get(4).passed());
        assertTrue(r.get(5).passed());
    }

    @Test
    void tolerance_absolute_and_percent_of_the_expected_value() throws AmberException {
        String decl = "BUFFER f DATA_TYPE float SIZE 1 FILL 0\n";
        Map<String, byte[]> c = of("f", le(4).putFloat(99f).array());
        List<ExpectOutcome> r = check(decl
                + "EXPECT f IDX 0 TOLERANCE 1 EQ 100\n"
                + "EXPECT f IDX 0 TOLERANCE 0.5 EQ 100\n"
                // 1% of the expected 100 is 1: passes (1% of the actual 99 would be 0.99 and fail)
                + "EXPECT f IDX 0 TOLERANCE 1% EQ 100\n"
                + "EXPECT f IDX 0 TOLERANCE 0.9% EQ 100\n"
                + "EXPECT f IDX 0 TOLERANCE 1 % EQ 100\n", c);
        assertTrue(r.get(0).passed());
        assertFalse(r.get(1).passed());
        assertEquals("EXPECT line 4: buffer 'f' IDX 0: 1 of 1 values failed; value 0 (element 0, byte 0): "
                + "expected EQ 100.0 within 0.5, actual 99.0", r.get(1).message());
        assertTrue(r.get(2).passed());
        assertFalse(r.get(3).passed());
        assertTrue(r.get(3).message().contains("within 0.9%"), r.get(3).message());
        assertTrue(r.get(4).passed());
    }

    @Test
    void the_first_tolerance_applies_to_every_value_as_in_amber() throws AmberException {
        String decl = "BUFFER v DATA_TYPE vec2<int32> SIZE 1 FILL 0\n";
        Map<String, byte[]> c = of("v", le(8).putInt(10).putInt(20).array());
        List<ExpectOutcome> r = check(decl + "EXPECT v IDX 0 TOLERANCE 3 0 EQ 12 22\n"
                + "EXPECT v IDX 0 TOLERANCE 1 5 EQ 12 22", c);
        assertTrue(r.get(0).passed());
        assertFalse(r.get(1).passed());
        assertTrue(r.get(1).message().startsWith("EXPECT line 4: buffer 'v' IDX 0: 2 of 2 values failed"),
                r.get(1).message());
    }

    @Test
    void format_buffer_values_are_raw_components() throws AmberException {
        Map<String, byte[]> c = of("px", new byte[] {(byte) 255, (byte) 128, 0, 1});
        assertTrue(one("BUFFER px FORMAT R8G8B8A8_UNORM SIZE 1 FILL 0\nEXPECT px IDX 0 EQ 255 128 0 1", c).passed());
    }

    @Test
    void rgba_probe_on_unorm_image() throws AmberException {
        String decl = "IMAGE img FORMAT R8G8B8A8_UNORM DIM_2D WIDTH 2 HEIGHT 2\n";
        byte[] red = new byte[16];
        for (int i = 0; i < 4; i++) {
            red[4 * i] = (byte) 255;
            red[4 * i + 3] = (byte) 255;
        }
        Map<String, byte[]> c = of("img", red);
        assertTrue(one(decl + "EXPECT img IDX 0 0 SIZE 2 2 EQ_RGBA 255 0 0 255", c).passed());
        assertTrue(one(decl + "EXPECT img IDX 0 0 SIZE 2 2 EQ_RGB 255 0 0", c).passed());
        byte[] off = red.clone();
        off[4 * 3 + 1] = 5; // pixel (1, 1): green 5
        ExpectOutcome f = one(decl + "EXPECT img IDX 0 0 SIZE 2 2 EQ_RGBA 255 0 0 255", of("img", off));
        assertFalse(f.passed());
        assertEquals("EXPECT line 3: image 'img': probe failed at 1, 1: expected RGBA 255, 0, 0, 255, actual "
                + "255.0, 5.0, 0.0, 255.0; 1 of 4 pixels failed", f.message());
        // the probe only looks inside its rectangle
        assertTrue(one(decl + "EXPECT img IDX 0 0 SIZE 2 1 EQ_RGBA 255 0 0 255", of("img", off)).passed());
        // tolerances are on normalized values: 5/255 = 0.0196
        assertTrue(one(decl + "EXPECT img IDX 1 1 SIZE 1 1 EQ_RGBA 255 0 0 255 TOLERANCE 0.02", of("img", off))
                .passed());
        assertFalse(one(decl + "EXPECT img IDX 1 1 SIZE 1 1 EQ_RGBA 255 0 0 255 TOLERANCE 0.01 0.01 0.01 0.01",
                of("img", off)).passed());
        assertTrue(one(decl + "EXPECT img IDX 1 1 SIZE 1 1 EQ_RGBA 255 0 0 255 TOLERANCE 0 0.02 0 0",
                of("img", off)).passed());
        ExpectOutcome out = one(decl + "EXPECT img IDX 1 1 SIZE 2 1 EQ_RGB 255 0 0", c);
        assertFalse(out.passed());
        assertTrue(out.message().contains("outside the 2x2 frame"), out.message());
    }

    @Test
    void rgb_probe_on_float_and_format_buffer() throws AmberException {
        Map<String, byte[]> c = of("f", le(32).putFloat(1).putFloat(0).putFloat(0.5f).putFloat(1)
                .putFloat(1).putFloat(0).putFloat(0.5f).putFloat(0).array());
        // a FORMAT buffer is probed as one row of its texels; float channels are not scaled
        assertTrue(one("BUFFER f FORMAT R32G32B32A32_SFLOAT SIZE 2 FILL 0\n"
                + "EXPECT f IDX 0 0 SIZE 2 1 EQ_RGB 255 0 128 TOLERANCE 0.005", c).passed());
        ExpectOutcome f = one("BUFFER f FORMAT R32G32B32A32_SFLOAT SIZE 2 FILL 0\n"
                + "EXPECT f IDX 0 0 SIZE 2 1 EQ_RGBA 255 0 128 255 TOLERANCE 0.005", c);
        assertFalse(f.passed());
        assertTrue(f.message().contains("probe failed at 1, 0"), f.message());
        assertTrue(f.message().contains("1 of 2 pixels failed"), f.message());
    }

    @Test
    void eq_buffer() throws AmberException {
        String decl = "BUFFER a DATA_TYPE uint32 SIZE 3 FILL 0\nBUFFER b DATA_TYPE uint32 SIZE 3 FILL 0\n";
        Map<String, byte[]> c = of("a", le(12).putInt(1).putInt(2).putInt(3).array());
        c.put("b", le(12).putInt(1).putInt(2).putInt(3).array());
        assertTrue(one(decl + "EXPECT a EQ_BUFFER b", c).passed());
        c.put("b", le(12).putInt(1).putInt(9).putInt(3).array());
        ExpectOutcome f = one(decl + "EXPECT a EQ_BUFFER b", c);
        assertEquals("EXPECT line 4: buffer 'a' EQ_BUFFER 'b': 1 bytes differ, first at byte 4 (element 1): 2 != 9",
                f.message());
        c.put("b", new byte[8]);
        assertTrue(one(decl + "EXPECT a EQ_BUFFER b", c).message().contains("differ in size: 12 vs 8"));
    }

    @Test
    void rmse_buffer() throws AmberException {
        String decl = "BUFFER a DATA_TYPE float SIZE 4 FILL 0\nBUFFER b DATA_TYPE float SIZE 4 FILL 0\n";
        Map<String, byte[]> c = of("a", le(16).putFloat(1).putFloat(2).putFloat(3).putFloat(4).array());
        c.put("b", le(16).putFloat(1).putFloat(2).putFloat(3).putFloat(6).array());
        // sqrt((0 + 0 + 0 + 2^2) / 4) = 1
        assertTrue(one(decl + "EXPECT a RMSE_BUFFER b TOLERANCE 1", c).passed());
        ExpectOutcome f = one(decl + "EXPECT a RMSE_BUFFER b TOLERANCE 0.9", c);
        assertEquals("EXPECT line 4: buffer 'a' RMSE_BUFFER 'b': root mean square error 1.0 is greater than the "
                + "tolerance 0.9", f.message());
    }

    @Test
    void histogram_emd_buffer() throws AmberException {
        String decl = "BUFFER a FORMAT R8G8B8A8_UNORM SIZE 2 FILL 0\nBUFFER b FORMAT R8G8B8A8_UNORM SIZE 2 FILL 0\n";
        Map<String, byte[]> c = of("a", new byte[8]);
        c.put("b", new byte[] {1, 0, 0, 0, 0, 0, 0, 0});
        // channel R: a = {0: 1.0}, b = {0: 0.5, 1: 0.5}; cumulative differences 0.5, 0, ...: sum 0.5 / 256
        assertTrue(one(decl + "EXPECT a EQ_HISTOGRAM_EMD_BUFFER b TOLERANCE 0.001953125", c).passed());
        ExpectOutcome f = one(decl + "EXPECT a EQ_HISTOGRAM_EMD_BUFFER b TOLERANCE 0.0019", c);
        assertEquals("EXPECT line 4: buffer 'a' EQ_HISTOGRAM_EMD_BUFFER 'b': histogram earth mover's distance "
                + "0.001953125 is greater than the tolerance 0.0019", f.message());
        assertTrue(one("BUFFER a DATA_TYPE vec4<uint8> SIZE 2 FILL 0\nBUFFER b DATA_TYPE vec4<uint8> SIZE 2 FILL 0\n"
                + "EXPECT a EQ_HISTOGRAM_EMD_BUFFER b TOLERANCE 0.002", c).passed());
    }

    @Test
    void missing_contents_fail_by_name() throws AmberException {
        ExpectOutcome f = one("BUFFER b DATA_TYPE uint32 SIZE 1 FILL 0\nEXPECT b IDX 0 EQ 0", new HashMap<>());
        assertEquals("EXPECT line 3: buffer 'b' IDX 0: no contents for the buffer", f.message());
    }
}
