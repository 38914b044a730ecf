package org.replayfarm.model.isa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.replayfarm.model.testing.CorpusCheck;

/**
 * MIMG, EXP and VINTRP against llvm-objdump-19: candidates for every opcode number with every dim, data
 * mask, modifier and NSA length, registers at both ends of their ranges and seeded random fields; every
 * candidate llvm decodes must decode and print identically here.
 */
@Tag("corpus")
class ImageCorpusTest {
    private static final OpcodeTable TABLE = OpcodeTable.gfx1030();

    // ------------------------------------------------------------ MIMG

    @Test
    void every_mimg_opcode_prints_as_llvm_objdump_does_with_every_dim_dmask_and_modifier() {
        List<byte[]> c = new ArrayList<>();
        for (int op = 0; op <= Encoding.MIMG.maxOpcode(); op++) {
            boolean known = TABLE.lookup(Encoding.MIMG, op) != null;
            if (!known) {
                // the shapes llvm accepts for some opcode: plain, ray-intersection-like, NSA, sampler
                c.add(mimg(op, 0, 0, 1, 0, 0, 0, 0, 0, List.of()));
                c.add(mimg(op, 1, 0, 0xF, 8, 16, 2, 1, 0, List.of()));
                for (int a16 = 0; a16 < 2; a16++) {
                    c.add(mimg(op, 0, 1 << 12 | 1 << 15, 0xF, 4, 0, 0, 0, a16 << 30, List.of()));
                    for (int nsa = 1; nsa <= 3; nsa++) {
                        c.add(mimg(op, nsa << 8, 1 << 12 | 1 << 15, 0xF, 4, 0, 0, 0, a16 << 30,
                                List.of(0x04030201, 0x08070605, 0x0C0B0A09).subList(0, nsa)));
                        c.add(mimg(op, nsa << 8 | 1, 0, 0xF, 4, 0, 0, 1, a16 << 30,
                                List.of(0x04030201, 0x08070605, 0x0C0B0A09).subList(0, nsa)));
                    }
                }
                continue;
            }
            for (int dim = 0; dim < 8; dim++) {
                for (int dmask : new int[] {0, 1, 3, 7, 0xF, 0xA}) {
                    for (int mods = 0; mods < 8; mods++) { // a16, tfe, d16
                        int w0mods = (mods & 2) != 0 ? 1 << 16 : 0;
                        int w1mods = ((mods & 1) != 0 ? 1 << 30 : 0) | ((mods & 4) != 0 ? 1 << 31 : 0);
                        c.add(mimg(op, dim, w0mods, dmask, 8, 16, 2, 1, w1mods, List.of()));
                    }
                }
            }
            // each modifier bit alone and all together, plus the bits llvm ignores
            for (int bit : new int[] {7, 12, 13, 14, 15, 16, 17, 25}) {
                c.add(mimg(op, 1, 1 << bit, 0xF, 4, 12, 0, 0, 0, List.of()));
            }
            c.add(mimg(op, 2, 1 << 7 | 1 << 12 | 1 << 13 | 1 << 15 | 1 << 16 | 1 << 17 | 1 << 25, 0xF, 4, 12, 0, 0,
                    1 << 30 | 1 << 31, List.of()));
            c.add(mimg(op, 1, 0, 0xF, 4, 12, 0, 0, 0xF << 26, List.of()));
            c.add(mimg(op, 1, 0, 0xF, 4, 12, 0, 1, 0, List.of()));
        }
        check("MIMG dims, dmasks, modifiers", c, Syntax.WAVE32);
    }

    @Test
    void mimg_nsa_forms_print_their_address_lists_as_llvm_objdump_does() {
        List<byte[]> c = new ArrayList<>();
        List<Integer> nsaBytes = List.of(0x0C0B0A09, 0x100F0E0D, 0x14131211);
        List<Integer> highBytes = List.of(0xFFFEFDFC, 0x00FBFAF9, 0x80F8F7F6);
        for (int op = 0; op <= Encoding.MIMG.maxOpcode(); op++) {
            if (TABLE.lookup(Encoding.MIMG, op) == null) {
                continue;
            }
            for (int nsa = 1; nsa <= 3; nsa++) {
                for (int dim = 0; dim < 8; dim++) {
                    for (int mods = 0; mods < 4; mods++) {
                        int w1mods = (mods & 1) != 0 ? 1 << 30 : 0;
                        int w0mods = (mods & 2) != 0 ? 1 << 16 : 0;
                        c.add(mimg(op, dim | nsa << 8, w0mods, 0xF, 4, 20, 0, 0, w1mods, nsaBytes.subList(0, nsa)));
                        c.add(mimg(op, dim | nsa << 8, w0mods | 1 << 12 | 1 << 15, 0x1, 255, 252, 1, 0, w1mods,
                                highBytes.subList(0, nsa)));
                    }
                }
            }
        }
        check("MIMG NSA", c, Syntax.WAVE32);
    }

    @Test
    void ray_intersections_print_as_llvm_objdump_does_plain_and_nsa_with_every_modifier_bit() {
        List<byte[]> c = new ArrayList<>();
        List<Integer> nsaBytes = List.of(0x0C0B0A09, 0x100F0E0D, 0x14131211);
        for (Opcode row : TABLE.rows(Encoding.MIMG)) {
            if (!row.has("bvh")) {
                continue;
            }
            int op = row.code();
            int fixed = 1 << 12 | 1 << 15;
            for (int nsa = 0; nsa <= 3; nsa++) {
                for (int a16 = 0; a16 < 2; a16++) {
                    List<Integer> extra = nsaBytes.subList(0, nsa);
                    for (int dim = 0; dim < 8; dim++) {
                        c.add(mimg(op, nsa << 8 | dim, fixed, 0xF, 4, 20, 1, 0, a16 << 30, extra));
                    }
                    for (int dmask = 0; dmask < 16; dmask++) {
                        c.add(mimg(op, nsa << 8, fixed, dmask, 4, 20, 1, 0, a16 << 30, extra));
                    }
                    for (int bit : new int[] {7, 12, 13, 14, 15, 16, 17, 25}) {
                        c.add(mimg(op, nsa << 8, fixed ^ 1 << bit, 0xF, 4, 20, 1, 0, a16 << 30, extra));
                    }
                    for (int reg : new int[] {0, 244, 245, 246, 247, 248, 251, 252, 253, 255}) {
                        c.add(mimg(op, nsa << 8, fixed, 0xF, reg, reg, 1, 0, a16 << 30, extra));
                    }
                    for (int field = 0; field < 32; field++) {
                        c.add(mimg(op, nsa << 8, fixed, 0xF, 4, 20, field, 0, a16 << 30, extra));
                        c.add(mimg(op, nsa << 8, fixed, 0xF, 4, 20, 0, field, a16 << 30, extra));
                    }
                    c.add(mimg(op, nsa << 8, fixed, 0xF, 4, 20, 0, 0, a16 << 30 | 1 << 31, extra));
                }
            }
        }
        check("MIMG ray intersection", c, Syntax.WAVE32);
    }

    @Test
    void mimg_registers_at_the_ends_of_their_ranges_print_as_llvm_objdump_does() {
        List<byte[]> c = new ArrayList<>();
        for (int op = 0; op <= Encoding.MIMG.maxOpcode(); op++) {
            if (TABLE.lookup(Encoding.MIMG, op) == null) {
                continue;
            }
            for (int reg : new int[] {0, 1, 240, 244, 245, 248, 250, 251, 252, 253, 254, 255}) {
                for (int dim : new int[] {0, 2, 7}) {
                    c.add(mimg(op, dim, 0, 0xF, reg, 0, 0, 0, 0, List.of()));
                    c.add(mimg(op, dim, 1 << 12 | 1 << 15, 0xF, 0, reg, 0, 0, 0, List.of()));
                    c.add(mimg(op, dim, 1 << 12 | 1 << 15, 0x3, reg, reg, 0, 0, 1 << 30, List.of()));
                }
            }
            for (int field = 0; field < 32; field++) {
                c.add(mimg(op, 1, 1 << 12 | 1 << 15, 0xF, 0, 4, field, 0, 0, List.of()));
                c.add(mimg(op, 1, 0, 0xF, 0, 4, 0, field, 0, List.of()));
            }
        }
        check("MIMG register ranges", c, Syntax.WAVE32);
    }

    @Test
    void mimg_random_fields_print_as_llvm_objdump_does_in_wave32_and_wave64() {
        Random random = new Random(0x1A6E);
        List<byte[]> c = new ArrayList<>();
        for (int op = 0; op <= Encoding.MIMG.maxOpcode(); op++) {
            for (int i = 0; i < 120; i++) {
                int w0 = 0xF0000000 | (op & 0x7F) << 18 | op >> 7 | random.nextInt() & 0x0203FFFE;
                if (random.nextInt(3) > 0) {
                    w0 &= ~6; // mostly the plain form
                }
                // w1 [29:26] are ignored by llvm (tested above); clear here so that when llvm refuses the candidate
                // and resumes at w1, no long instruction starting there reaches into the next slot
                int w1 = random.nextInt() & ~(0xF << 26);
                if (random.nextBoolean()) {
                    w1 &= ~(0x1F << 21); // a zero sampler field half the time
                }
                if (random.nextBoolean()) {
                    w1 = w1 & ~(0x1F << 16) | random.nextInt(8) << 16;
                }
                List<Integer> nsa = new ArrayList<>();
                for (int k = 0; k < (w0 >>> 1 & 3); k++) {
                    nsa.add(k == 2 ? random.nextInt() & 0x7FFFFFFF : random.nextInt()); // likewise
                }
                c.add(words(w0, w1, nsa));
            }
        }
        check("MIMG random", c, Syntax.WAVE32);
        check("MIMG random (wave64)", c.subList(0, c.size() / 4), Syntax.WAVE64);
    }

    @Test
    void mimg_opcodes_outside_the_table_are_refused_by_the_decoder() {
        int refused = 0;
        for (int op = 0; op <= Encoding.MIMG.maxOpcode(); op++) {
            if (TABLE.lookup(Encoding.MIMG, op) == null) {
                assertRefused(mimg(op, 0, 0, 1, 0, 0, 0, 0, 0, List.of()));
                refused++;
            }
        }
        System.out.println("MIMG: " + refused + " opcode numbers outside the table refused");
    }

    /** A MIMG candidate; {@code dimNsa} is the dim with the NSA dword count in bits 8 and 9. */
    private static byte[] mimg(int op, int dimNsa, int w0mods, int dmask, int vdata, int vaddr, int srsrc, int ssamp,
                               int w1mods, List<Integer> nsa) {
        int w0 = 0xF0000000 | (op & 0x7F) << 18 | op >> 7 | (dimNsa >> 8 & 3) << 1 | (dimNsa & 7) << 3 | dmask << 8
                | w0mods;
        int w1 = vaddr | vdata << 8 | srsrc << 16 | ssamp << 21 | w1mods;
        return words(w0, w1, nsa);
    }

    // ------------------------------------------------------------ EXP

    @Test
    void every_exp_target_enable_mask_and_modifier_prints_as_llvm_objdump_does() {
        List<byte[]> c = new ArrayList<>();
        Random random = new Random(0xE4B);
        for (int target = 0; target < 64; target++) {
            for (int en = 0; en < 16; en++) {
                for (int mods = 0; mods < 8; mods++) {
                    c.add(words(0xF8000000 | mods << 10 | target << 4 | en, 0x04030201, List.of()));
                }
            }
            c.add(words(0xF8000000 | target << 4 | 0xF, 0xFF00FE01, List.of()));
        }
        for (int i = 0; i < 2000; i++) {
            c.add(words(0xF8000000 | random.nextInt() & 0x03FFFFFF, random.nextInt(), List.of()));
        }
        check("EXP", c, Syntax.WAVE32);
        check("EXP (wave64)", c.subList(0, 600), Syntax.WAVE64);
    }

    // ------------------------------------------------------------ VINTRP

    @Test
    void every_vintrp_opcode_attribute_and_channel_prints_as_llvm_objdump_does() {
        List<byte[]> c = new ArrayList<>();
        Random random = new Random(0x1E7);
        for (int op = 0; op <= Encoding.VINTRP.maxOpcode(); op++) {
            for (int attr = 0; attr < 64; attr++) {
                for (int chan = 0; chan < 4; chan++) {
                    c.add(words(0xC8000000 | (attr * 4 + chan) % 256 << 18 | op << 16 | attr << 10 | chan << 8 | attr * 4
                            + chan, List.of()));
                }
            }
            for (int vsrc : new int[] {0, 1, 2, 3, 4, 127, 128, 254, 255}) {
                for (int vdst : new int[] {0, 255}) {
                    c.add(words(0xC8000000 | vdst << 18 | op << 16 | 5 << 10 | 2 << 8 | vsrc, List.of()));
                }
            }
            for (int i = 0; i < 300; i++) {
                c.add(words(0xC8000000 | op << 16 | random.nextInt() & 0x03FCFFFF, List.of()));
            }
        }
        check("VINTRP", c, Syntax.WAVE32);
        check("VINTRP (wave64)", c, Syntax.WAVE64);
        for (int op = 0; op <= Encoding.VINTRP.maxOpcode(); op++) {
            if (TABLE.lookup(Encoding.VINTRP, op) == null) {
                assertRefused(words(0xC8000000 | op << 16, List.of()));
            }
        }
    }

    @Test
    void a_register_range_past_v255_is_an_illegal_argument() {
        Instruction insn = decode(mimg(32, 2, 0, 0xF, 0, 255, 0, 0, 0, List.of()));
        assertEquals("image_sample", insn.mnemonic());
        Instruction cmpswap = decode(mimg(16, 0, 0, 0x3, 255, 0, 0, 0, 0, List.of()));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ImagePrinter.print(cmpswap, Syntax.WAVE32));
        assertTrue(e.getMessage().contains("past v255"), e.getMessage());
        Instruction load = decode(mimg(0, 0, 0, 0x1, 0, 0, 0, 3, 0, List.of()));
        assertThrows(IllegalArgumentException.class, () -> ImagePrinter.print(load, Syntax.WAVE32));
    }

    // ------------------------------------------------------------ helpers

    private static void check(String what, List<byte[]> candidates, Syntax syntax) {
        long start = System.nanoTime();
        CorpusCheck.Report r = CorpusCheck.run(candidates, syntax, ImagePrinter::print, 12);
        Map<String, Integer> perEncoding = new TreeMap<>();
        for (String key : r.opcodesSeen().keySet()) {
            perEncoding.merge(key.substring(0, key.indexOf(' ')), 1, Integer::sum);
        }
        System.out.printf("%s: %s; distinct opcodes per encoding %s (%d ms)%n", what, r.summary(), perEncoding,
                (System.nanoTime() - start) / 1_000_000);
        assertTrue(r.decodedByLlvm() > 0, what + ": llvm decoded none of the candidates");
        assertEquals(List.of(), r.mismatches(), what + ": " + (r.decodedByLlvm() - r.matches())
                + " candidates differ from llvm-objdump-19 (an opcode llvm decodes and our table lacks shows as a"
                + " DecodeException)");
        assertEquals(r.decodedByLlvm(), r.matches());
    }

    private static void assertRefused(byte[] bytes) {
        DecodeException e = assertThrows(DecodeException.class,
                () -> Decoder.gfx1030().decode(ByteBuffer.wrap(bytes), 0, 0));
        assertTrue(e.getMessage().contains("unknown or reserved"), e.getMessage());
    }

    private static Instruction decode(byte[] bytes) {
        try {
            Instruction insn = Decoder.gfx1030().decode(ByteBuffer.wrap(bytes), 0, 0);
            assertNotNull(insn);
            return insn;
        } catch (DecodeException e) {
            throw new AssertionError(e);
        }
    }

    private static byte[] words(int w0, List<Integer> more) {
        ByteBuffer b = ByteBuffer.allocate(4 + 4 * more.size()).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(w0);
        more.forEach(b::putInt);
        return b.array();
    }

    private static byte[] words(int w0, int w1, List<Integer> more) {
        List<Integer> rest = new ArrayList<>();
        rest.add(w1);
        rest.addAll(more);
        return words(w0, rest);
    }
}
