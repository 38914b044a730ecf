package org.replayfarm.model.isa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** A fault at a PC with no bytes behind it names the PC and the problem, without an empty "(bytes )". */
@Tag("unit")
class DecodedProgramMessageTest {
    private static final long BASE = 0x1000;

    private static DecodedProgram program(int... words) {
        ByteBuffer code = ByteBuffer.allocate(words.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (int w : words) {
            code.putInt(w);
        }
        code.flip();
        return DecodedProgram.decode(Decoder.gfx1030(), code, BASE);
    }

    @Test
    void a_pc_outside_the_code_has_no_empty_bytes_clause() {
        // s_endpgm (llvm-mc-19 -mcpu=gfx1030: [0x00,0x00,0x81,0xbf])
        DecodedProgram p = program(0xBF810000);
        DecodeException past = assertThrows(DecodeException.class, () -> p.at(BASE + 8));
        assertEquals("pc 0x1008: outside the program's code", past.getMessage());
        DecodeException before = assertThrows(DecodeException.class, () -> p.at(BASE - 4));
        assertEquals("pc 0xffc: outside the program's code", before.getMessage());
    }

    @Test
    void undecodable_bytes_are_still_listed() {
        // SOPP opcode 0x7F: llvm-objdump-19 --mcpu=gfx1030 prints it as ".long 0xbfff0000" (no instruction)
        DecodedProgram p = program(0xBFFF0000, 0xBF810000);
        DecodeException e = assertThrows(DecodeException.class, () -> p.at(BASE));
        assertEquals(true, e.getMessage().startsWith("pc 0x1000: "), e.getMessage());
        assertEquals(true, e.getMessage().endsWith("(bytes 00 00 ff bf)"), e.getMessage());
    }
}
