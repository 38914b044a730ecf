package org.replayfarm.model.isa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.replayfarm.model.testing.CorpusCheck;
import org.replayfarm.model.testing.LlvmOracle;

/**
 * VOP3 and VOP3P against llvm-objdump-19: candidates for every opcode number of both encodings, with
 * registers at both ends of their ranges, every special source, inline constant and literal kind, every
 * modifier bit, in wave32 and wave64 spelling, plus seeded random fields. Where llvm prints an operand as
 * invalid ({@code /*Invalid ...*\/}), our printer must refuse the instruction instead.
 */
@Tag("corpus")
class Vop3CorpusTest {
    private static final OpcodeTable TABLE = OpcodeTable.gfx1030();
    private static final int[] SOURCE_CODES = {0, 1, 2, 101, 104, 105, 106, 107, 108, 109, 122, 123, 124, 125, 126, 127,
            128, 129, 130, 192, 193, 194, 208, 209, 234, 235, 236, 237, 238, 239, 240, 241, 242, 243, 244, 245, 246, 247,
            248, 249, 250, 251, 252, 253, 254, 256, 257, 300, 509, 510, 511};
    private static final int[] SHORT_CODES = {0, 1, 105, 106, 107, 124, 125, 126, 127, 128, 193, 240, 242, 248, 251,
            253, 254, 256, 511};
    private static final int[] LITERALS = {0, 1, 64, 65, 0xFFFFFFFF, 0xFFFFFFF0, 0xFFFFFFEF, 0x3F800000, 0xBF000000,
            0x3E22F983, 0x3C00, 0xBC00, 0x3118, 0xFFFF, 0x12345678, 0x3FF00000, 0xC0100000, 0x3FC45F30, 0x80000000};
    private static final int[] DESTINATIONS = {0, 1, 101, 104, 105, 106, 107, 108, 123, 124, 125, 126, 127, 128, 200, 254,
            255};

    @Test
    void every_vop3_opcode_prints_as_llvm_objdump_does_in_wave32_and_wave64() {
        List<byte[]> candidates = vop3Candidates(new Random(0x7E3));
        checkBothWaves("VOP3", Encoding.VOP3, candidates);
    }

    @Test
    void every_vop3p_opcode_prints_as_llvm_objdump_does_in_wave32_and_wave64() {
        checkBothWaves("VOP3P", Encoding.VOP3P, vop3pCandidates(new Random(0x3D0)));
    }

    @Test
    void the_e64_suffix_marks_exactly_the_vop3_forms_of_instructions_that_have_a_short_encoding() {
        for (Opcode op : TABLE.rows(Encoding.VOP3)) {
            boolean shortForm = false;
            for (Encoding e : List.of(Encoding.VOP1, Encoding.VOP2, Encoding.VOPC, Encoding.VINTRP)) {
                shortForm |= TABLE.byMnemonic(e, op.mnemonic()) != null;
            }
            // operand-less instructions (v_nop, v_pipeflush, v_clrexcp) print no suffix
            assertEquals(shortForm && !op.operands().isEmpty(), op.has("e64"), op.toString());
        }
    }

    @Test
    void opcodes_missing_from_the_vop3_and_vop3p_tables_are_refused_as_unknown() {
        Decoder decoder = Decoder.gfx1030();
        int refused = 0;
        for (Encoding e : List.of(Encoding.VOP3, Encoding.VOP3P)) {
            for (int code = 0; code <= e.maxOpcode(); code++) {
                if (TABLE.lookup(e, code) != null) {
                    continue;
                }
                byte[] bytes = e == Encoding.VOP3 ? vop3(code, 0, 0, 0, false, 257, 258, 259, 0, 0)
                        : vop3p(code, 0, 0, 0, 0, false, 257, 258, 259, 0);
                try {
                    decoder.decode(ByteBuffer.wrap(bytes), 0, 0);
                    fail(e + " opcode " + code + " is not in the table but decoded");
                } catch (DecodeException ex) {
                    assertTrue(ex.getMessage().contains("unknown or reserved"), ex.getMessage());
                    refused++;
                }
            }
        }
        System.out.println("VOP3/VOP3P: " + refused + " opcode numbers outside the tables refused");
        assertTrue(refused > 0);
    }

    private static void checkBothWaves(String name, Encoding encoding, List<byte[]> candidates) {
        for (Syntax syntax : List.of(Syntax.WAVE32, Syntax.WAVE64)) {
            // odd scalar register ranges go through the oracle too: llvm prints them aligned, with a warning
            List<LlvmOracle.Verdict> verdicts = LlvmOracle.disassemble(candidates, syntax.waveSize() == 64);
            List<LlvmOracle.Verdict> valid = new ArrayList<>();
            List<String> acceptedInvalid = new ArrayList<>();
            TreeSet<Integer> llvmOpcodes = new TreeSet<>();
            int invalid = 0;
            Decoder decoder = Decoder.gfx1030();
            for (LlvmOracle.Verdict v : verdicts) {
                if (!v.decoded()) {
                    continue;
                }
                int w0 = ByteBuffer.wrap(v.candidate()).order(ByteOrder.LITTLE_ENDIAN).getInt(0);
                llvmOpcodes.add(Decoder.opcodeOf(encoding, w0, 0));
                if (!v.text().contains("nvalid")) {
                    valid.add(v);
                    continue;
                }
                invalid++;
                try {
                    Instruction insn = decoder.decode(ByteBuffer.wrap(v.candidate()), 0, 0);
                    String ours = Vop3Printer.print(insn, syntax);
                    if (acceptedInvalid.size() < 10) {
                        acceptedInvalid.add(HexFormat.ofDelimiter(" ").formatHex(v.candidate(), 0, 8) + "\n   llvm: "
                                + v.text() + "\n   ours: " + ours);
                    }
                } catch (DecodeException | IllegalArgumentException e) {
                    // refused, as it should be
                }
            }
            CorpusCheck.Report r = CorpusCheck.check(valid, syntax, Vop3Printer::print, 25);
            System.out.println(name + " wave" + syntax.waveSize() + ": " + candidates.size() + " candidates, "
                    + (r.decodedByLlvm() + invalid) + " decoded by llvm-objdump-19 (" + invalid
                    + " with operands llvm marks invalid), " + r.matches() + " match, "
                    + r.opcodesSeen().size() + " distinct opcodes");
            r.mismatches().forEach(m -> System.out.println("  mismatch " + m));
            acceptedInvalid.forEach(m -> System.out.println("  accepted invalid " + m));
            for (int code : llvmOpcodes) {
                assertTrue(TABLE.lookup(encoding, code) != null, "llvm decodes " + encoding + " opcode " + code
                        + " which our table lacks");
            }
            assertEquals(r.decodedByLlvm(), r.matches(), name + " wave" + syntax.waveSize() + " mismatches");
            assertEquals(List.of(), acceptedInvalid, "instructions llvm marks invalid that we print");
        }
    }


    // ---- VOP3 candidates

    private static List<byte[]> vop3Candidates(Random random) {
        List<byte[]> out = new ArrayList<>();
        for (int code = 0; code <= Encoding.VOP3.maxOpcode(); code++) {
            Opcode op = TABLE.lookup(Encoding.VOP3, code);
            if (op == null) {
                out.add(vop3(code, 0, 0, 0, false, 0, 0, 0, 0, 0));
                out.add(vop3(code, 2, 0, 0, false, 257, 258, 259, 0, 0));
                out.add(vop3(code, 2, 0, 0, false, 257, 258, 0, 0, 0));
                out.add(vop3(code, 2, 0, 0, false, 257, 0, 0, 0, 0));
                for (int i = 0; i < 3; i++) {
                    out.add(randomVop3(code, random));
                }
                continue;
            }
            int[] good = goodSources(op);
            int n = sources(op);
            // each source field over the interesting codes, the others good
            for (int i = 0; i < 3; i++) {
                if (i >= n && !(i == 0 && op.operandType("attr") != null)) {
                    continue;
                }
                for (int c : i == 0 ? SOURCE_CODES : SHORT_CODES) {
                    int[] s = good.clone();
                    s[i] = c;
                    out.add(withLiteral(vop3(code, 2, 0, 0, false, s[0], s[1], s[2], 0, 0), c == 255, 0x3F800000));
                }
                for (int lit : LITERALS) {
                    int[] s = good.clone();
                    s[i] = 255;
                    out.add(withLiteral(vop3(code, 2, 0, 0, false, s[0], s[1], s[2], 0, 0), true, lit));
                }
            }
            // the src1 field of v_interp_mov (the parameter), and interp attributes
            if (op.operandType("param") != null || op.operandType("attr") != null) {
                for (int c = 0; c < 8; c++) {
                    int[] s = good.clone();
                    s[1] = op.operandType("param") != null ? c : s[1];
                    s[0] = random.nextInt(512);
                    out.add(vop3(code, 2, 0, 0, false, s[0], s[1], s[2], 0, 0));
                }
            }
            boolean sdstForm = op.operandType("sdst") != null;
            for (int d : DESTINATIONS) {
                out.add(vop3(code, d, 0, 0, false, good[0], good[1], good[2], 0, 0));
                if (sdstForm && d < 128) {
                    out.add(vop3(code, 2, d >>> 0, 0, false, good[0], good[1], good[2], 0, 0));
                }
            }
            // each modifier bit alone, then all of them
            for (int b = 0; b < 3; b++) {
                out.add(vop3(code, 2, sdstForm ? 0 : 1 << b, 0, false, good[0], good[1], good[2], 0, 0));
                out.add(vop3(code, 2, 0, 0, false, good[0], good[1], good[2], 0, 1 << b));
                out.add(vop3(code, 2, sdstForm ? 0 : 1 << b, 0, false, good[0], good[1], good[2], 0, 1 << b));
            }
            for (int b = 0; b < 4 && !sdstForm; b++) {
                out.add(vop3(code, 2, 0, 1 << b, false, good[0], good[1], good[2], 0, 0));
            }
            out.add(vop3(code, 2, 0, 0, true, good[0], good[1], good[2], 0, 0));
            for (int m = 1; m < 4; m++) {
                out.add(vop3(code, 2, 0, 0, false, good[0], good[1], good[2], m, 0));
            }
            int allAbs = (1 << n) - 1;
            out.add(vop3(code, 2, sdstForm ? 5 : allAbs, sdstForm ? 0 : 0xF, true, good[0], good[1], good[2], 3, allAbs));
            out.add(withLiteral(vop3(code, 2, sdstForm ? 5 : allAbs, 0, false, 242, 255, good[2] == 0 ? 0 : 193, 0, allAbs),
                    true, 0x40490FDB));
            // seeded random fields, the opcode kept
            for (int i = 0; i < 24; i++) {
                out.add(randomVop3(code, random));
            }
        }
        return out;
    }

    // ---- VOP3P candidates

    private static List<byte[]> vop3pCandidates(Random random) {
        List<byte[]> out = new ArrayList<>();
        for (int code = 0; code <= Encoding.VOP3P.maxOpcode(); code++) {
            Opcode op = TABLE.lookup(Encoding.VOP3P, code);
            if (op == null) {
                out.add(vop3p(code, 0, 0, 0, 0, false, 0, 0, 0, 0));
                out.add(vop3p(code, 2, 0, 0, 7, false, 257, 258, 259, 0));
                out.add(vop3p(code, 2, 0, 0, 7, false, 257, 258, 0, 0));
                for (int i = 0; i < 3; i++) {
                    out.add(randomVop3p(code, random));
                }
                continue;
            }
            int n = op.sourceCount();
            int[] good = {257, 258, n > 2 ? 259 : 0};
            int hi = op.has("mix") ? 0 : 7;
            for (int i = 0; i < n; i++) {
                for (int c : i == 0 ? SOURCE_CODES : SHORT_CODES) {
                    int[] s = good.clone();
                    s[i] = c;
                    out.add(vop3p(code, 2, 0, 0, hi, false, s[0], s[1], s[2], 0));
                }
                for (int lit : LITERALS) {
                    int[] s = good.clone();
                    s[i] = 255;
                    out.add(withLiteral(vop3p(code, 2, 0, 0, hi, false, s[0], s[1], s[2], 0), true, lit));
                }
                for (int lit : new int[] {0x3C003C00, 0x00003C00, 0x3C000000, 0x0000FFFF}) {
                    int[] s = good.clone();
                    s[i] = 255;
                    out.add(withLiteral(vop3p(code, 2, 0, 0, hi, false, s[0], s[1], s[2], 0), true, lit));
                }
            }
            for (int d : new int[] {0, 1, 254, 255}) {
                out.add(vop3p(code, d, 0, 0, hi, false, good[0], good[1], good[2], 0));
            }
            for (int bits = 0; bits < 8; bits++) {
                out.add(vop3p(code, 2, bits, 0, hi, false, good[0], good[1], good[2], 0));
                out.add(vop3p(code, 2, 0, 0, hi, false, good[0], good[1], good[2], bits));
                out.add(vop3p(code, 2, bits, 0, hi, false, 242, 255, good[2] == 0 ? 0 : 193, bits));
                out.set(out.size() - 1, withLiteral(out.get(out.size() - 1), true, 0x3C00));
                out.add(vop3p(code, 2, 0, bits, hi, false, good[0], good[1], good[2], 0));
                out.add(vop3p(code, 2, 0, 0, bits, false, good[0], good[1], good[2], 0));
            }
            out.add(vop3p(code, 2, 7, 7, 5, true, good[0], good[1], good[2], 7));
            for (int i = 0; i < 40; i++) {
                out.add(randomVop3p(code, random));
            }
        }
        return out;
    }

    private static byte[] randomVop3p(int code, Random r) {
        int w0 = 0x33 << 26 | code << 16 | (r.nextInt() & 0xFFFF);
        int w1 = r.nextInt();
        if (r.nextInt(3) == 0) {
            w1 &= 0xFFF80000;
        }
        boolean lit = (w1 & 0x1FF) == 255 || (w1 >>> 9 & 0x1FF) == 255 || (w1 >>> 18 & 0x1FF) == 255;
        return withLiteral(words(w0, w1), lit, r.nextInt() & 0x01FFFE00 | 1);
    }

    /** Source count as the Decoder sees it (operands named src*). */
    private static int sources(Opcode op) {
        return op.sourceCount() + (op.operandType("vsrc1") != null ? 1 : 0) + (op.operandType("vsrc2") != null ? 1 : 0);
    }

    /** Source codes every operand of the row accepts: VGPRs, or SGPRs for scalar-only operands. */
    private static int[] goodSources(Opcode op) {
        int[] s = {0, 0, 0};
        String[] names = {"src0", "src1", "src2"};
        for (int i = 0; i < 3; i++) {
            String t = op.operandType(names[i]);
            if (t == null) {
                t = op.operandType("v" + names[i]);
            }
            if (t != null) {
                s[i] = t.equals("mask") || t.equals("sreg") ? 2 + 2 * i : 257 + i;
            }
        }
        if (op.operandType("attr") != null) {
            s[0] = 0x45;
        }
        if (op.operandType("param") != null) {
            s[1] = 1;
        }
        return s;
    }

    private static byte[] randomVop3(int code, Random r) {
        int w0 = 0x35 << 26 | code << 16 | (r.nextInt() & 0xFFFF);
        int w1 = r.nextInt();
        if (r.nextInt(3) == 0) {
            w1 &= 0xFFF80000; // src0/src1 small
        }
        boolean lit = (w1 & 0x1FF) == 255 || (w1 >>> 9 & 0x1FF) == 255 || (w1 >>> 18 & 0x1FF) == 255;
        return withLiteral(words(w0, w1), lit, r.nextInt() & 0x01FFFE00 | 1);
    }

    static byte[] vop3(int code, int vdst, int absOrSdst, int opsel, boolean clamp, int s0, int s1, int s2, int omod,
                       int neg) {
        int w0 = 0x35 << 26 | code << 16 | (clamp ? 1 << 15 : 0) | opsel << 11 | absOrSdst << 8 | vdst;
        int w1 = s0 | s1 << 9 | s2 << 18 | omod << 27 | neg << 29;
        return words(w0, w1);
    }

    static byte[] vop3p(int code, int vdst, int negHi, int opsel, int opselHi, boolean clamp, int s0, int s1, int s2,
                        int negLo) {
        int w0 = 0x33 << 26 | code << 16 | (clamp ? 1 << 15 : 0) | ((opselHi >>> 2) & 1) << 14 | opsel << 11
                | negHi << 8 | vdst;
        int w1 = s0 | s1 << 9 | s2 << 18 | (opselHi & 3) << 27 | negLo << 29;
        return words(w0, w1);
    }

    static byte[] withLiteral(byte[] base, boolean literal, int value) {
        if (!literal) {
            return base;
        }
        ByteBuffer b = ByteBuffer.allocate(base.length + 4).order(ByteOrder.LITTLE_ENDIAN);
        b.put(base).putInt(value);
        return b.array();
    }

    static byte[] words(int... w) {
        ByteBuffer b = ByteBuffer.allocate(4 * w.length).order(ByteOrder.LITTLE_ENDIAN);
        for (int x : w) {
            b.putInt(x);
        }
        return b.array();
    }
}
