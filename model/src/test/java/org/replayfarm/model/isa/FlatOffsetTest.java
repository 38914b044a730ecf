package org.replayfarm.model.isa;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("unit")
class FlatOffsetTest {
    @Test
    void a_global_or_scratch_offset_is_signed_twelve_bits() {
        assertEquals(-2048, FlatOffset.of(Encoding.GLOBAL, 0x800));
        assertEquals(-1, FlatOffset.of(Encoding.SCRATCH, 0xFFF));
        assertEquals(2047, FlatOffset.of(Encoding.GLOBAL, 0x7FF));
        assertEquals(0, FlatOffset.of(Encoding.GLOBAL, 0));
    }

    @Test
    void a_flat_offset_is_unsigned_eleven_bits() {
        assertEquals(2047, FlatOffset.of(Encoding.FLAT, 0x7FF));
        assertEquals(5, FlatOffset.of(Encoding.FLAT, 5));
    }
}
