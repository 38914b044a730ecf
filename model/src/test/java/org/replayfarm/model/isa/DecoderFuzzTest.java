package org.replayfarm.model.isa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Random bytes only ever decode or give a clear error: over a million instructions' worth, seeded and
 * repeatable, both uniform words and words steered into each encoding's prefix.
 */
@Tag("unit")
class DecoderFuzzTest {
    private static final int WORDS = 2_000_000;

    @Test
    void a_million_random_instructions_decode_and_print_or_fail_with_a_clear_error() {
        SplittableRandom random = new SplittableRandom(20261129L);
        ByteBuffer code = ByteBuffer.allocate(WORDS * 4).order(ByteOrder.LITTLE_ENDIAN);
        int[] prefixes = {0xBE800000, 0xBF000000, 0xBF800000, 0xB0000000, 0x80000000, 0xF4000000, 0x7E000000,
                0x7C000000, 0x02000000, 0xD4000000, 0xCC000000, 0xD8000000, 0xE0000000, 0xE8000000, 0xF0000000,
                0xDC000000, 0xF8000000, 0xC8000000};
        int[] masks = {0xFF800000, 0xFF800000, 0xFF800000, 0xF0000000, 0xC0000000, 0xFC000000, 0xFE000000,
                0xFE000000, 0x80000000, 0xFC000000, 0xFC000000, 0xFC000000, 0xFC000000, 0xFC000000, 0xFC000000,
                0xFC000000, 0xFC000000, 0xFC000000};
        for (int i = 0; i < WORDS; i++) {
            int w = random.nextInt();
            if (random.nextInt(4) != 0) {
                int k = random.nextInt(prefixes.length);
                w = prefixes[k] | (w & ~masks[k]);
            }
            code.putInt(w);
        }
        code.flip();
        // the words are decoded in parts side by side (one per core, each with its own decoder), every part from its
        // first word to the first instruction boundary at or past its end: every word is covered; a part starts at a
        // fixed word, not where one pass would have found a boundary, so a few words near a part's start are decoded
        // in another alignment than one pass would give (the counts differ slightly from one pass's, the coverage not)
        int parts = Math.max(1, Math.min(Runtime.getRuntime().availableProcessors(), 4));
        int per = (WORDS + parts - 1) / parts * 4;
        List<CompletableFuture<long[]>> running = new ArrayList<>();
        for (int from = 0; from < code.limit(); from += per) {
            int start = from;
            int end = Math.min(code.limit(), from + per);
            running.add(CompletableFuture.supplyAsync(() -> fuzz(code, start, end), r -> new Thread(r, "fuzz").start()));
        }
        long decoded = 0;
        long errors = 0;
        long printed = 0;
        long refusedFields = 0;
        try {
            for (CompletableFuture<long[]> part : running) {
                long[] counts = part.join();
                decoded += counts[0];
                errors += counts[1];
                printed += counts[2];
                refusedFields += counts[3];
            }
        } catch (CompletionException e) {
            if (e.getCause() instanceof Error err) {
                throw err;
            }
            throw e;
        }
        System.out.printf("decoder fuzz: %d words, %d instructions decoded (%d printed, %d with fields no instruction "
                + "takes), %d refused with a decode error%n", WORDS, decoded, printed, refusedFields, errors);
        assertTrue(decoded + errors >= 1_000_000, "a million instructions' worth");
        assertTrue(decoded > 100_000 && errors > 10_000, "the fuzz reaches both outcomes");
    }

    /** Decodes code from byte {@code from} until an instruction ends at or past {@code to}: decoded, errors, printed, refused. */
    private static long[] fuzz(ByteBuffer code, int from, int to) {
        Decoder decoder = Decoder.gfx1030();
        int offset = from;
        long decoded = 0;
        long errors = 0;
        long printed = 0;
        long refusedFields = 0;
        long base = 0x1000_0000L;
        while (offset < to) {
            try {
                Instruction insn = decoder.decode(code, offset, base);
                assertTrue(insn.length() >= 4 && insn.length() <= 28, insn.toString());
                try {
                    String text = Disassembler.text(insn, (offset & 4) == 0 ? Syntax.WAVE32 : Syntax.WAVE64);
                    assertTrue(text.startsWith(insn.mnemonic().substring(0, 2)), text);
                    printed++;
                } catch (IllegalArgumentException invalidFields) {
                    assertTrue(invalidFields.getMessage() != null && !invalidFields.getMessage().isBlank());
                    refusedFields++;
                }
                assertEquals(base + offset, insn.pc());
                offset += insn.length();
                decoded++;
            } catch (DecodeException e) {
                assertEquals(base + offset, e.pc());
                assertTrue(e.getMessage().startsWith(String.format("pc 0x%x: ", base + offset)), e.getMessage());
                assertTrue(e.getMessage().contains("(bytes "), e.getMessage());
                offset += 4;
                errors++;
            }
        }
        return new long[] {decoded, errors, printed, refusedFields};
    }

    @Test
    void an_instruction_cut_short_is_an_error_naming_its_pc_and_the_bytes_that_are_there() {
        Decoder decoder = Decoder.gfx1030();
        // v_fma_f32 v0, v1, v2, v3 (8 bytes) with its second dword missing
        ByteBuffer code = ByteBuffer.wrap(new byte[] {0x00, 0x00, 0x4b, (byte) 0xd5}).order(ByteOrder.LITTLE_ENDIAN);
        DecodeException e = org.junit.jupiter.api.Assertions.assertThrows(DecodeException.class,
                () -> decoder.decode(code, 0, 0x400));
        assertTrue(e.getMessage().startsWith("pc 0x400: truncated VOP3 instruction"), e.getMessage());
        assertTrue(e.getMessage().contains("bytes 00 00 4b d5"), e.getMessage());
    }

    @Test
    void a_program_keeps_an_undecodable_word_as_an_error_at_its_pc_and_decodes_the_rest() throws Exception {
        ByteBuffer code = ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN);
        code.putInt(0xBF800000); // s_nop 0
        code.putInt(0xBFF00000); // SOPP opcode 0x70: not an instruction
        code.putInt(0xBF810000); // s_endpgm
        code.flip();
        DecodedProgram program = DecodedProgram.decode(Decoder.gfx1030(), code, 0x2000);
        assertEquals("s_nop", program.at(0x2000).mnemonic());
        assertEquals("s_endpgm", program.at(0x2008).mnemonic());
        DecodeException e = org.junit.jupiter.api.Assertions.assertThrows(DecodeException.class, () -> program.at(0x2004));
        assertTrue(e.getMessage().contains("pc 0x2004") && e.getMessage().contains("SOPP opcode 112"), e.getMessage());
        assertEquals(1, program.errors().size());
        assertEquals(2, program.instructions().size());
    }
}
