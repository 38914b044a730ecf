package org.replayfarm.model.isa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.replayfarm.model.testing.LlvmOracle;

/**
 * Compares the decoder and {@link ScalarPrinter} with llvm-objdump-19 over generated SOP1, SOP2, SOPK,
 * SOPC, SOPP and SMEM instructions: every opcode number of each encoding, every register code at both
 * ends of its range, every inline constant, literals, every structured immediate, the SMEM flag bits and
 * seeded random fields, in wave32 and wave64 syntax.
 * <p>
 * Register ranges start at every register, aligned or not: llvm-objdump-19 prints a misaligned range as
 * the aligned range the hardware reads (with a trailing "; Warning" the oracle reads past);
 * {@link #out_of_range_registers_and_bad_fields_are_refused}
 * covers them. Where llvm prints an operand with an "Invalid register" comment, we must refuse it.
 */
@Tag("corpus")
class ScalarCorpusTest {
    private static final OpcodeTable TABLE = OpcodeTable.gfx1030();
    private static final int[] LITERALS = {0, 1, 16, 64, 65, -1, -16, -17, 0x80000000, 0x7fffffff, 0x3f000000,
            0xbf000000, 0x3f800000, 0xbf800000, 0x40000000, 0xc0000000, 0x40800000, 0xc0800000, 0x3e22f983,
            0x3fe00000, 0x12345678, 0xfffffff0, 0xffff};

    // ---------------------------------------------------------------- tests

    @Test
    void every_sop1_opcode_prints_as_llvm_objdump_does() {
        check(Encoding.SOP1, sop1(new Random(1)), true);
    }

    @Test
    void every_sop2_opcode_prints_as_llvm_objdump_does() {
        check(Encoding.SOP2, sop2(new Random(2)), true);
    }

    @Test
    void every_sopc_opcode_prints_as_llvm_objdump_does() {
        check(Encoding.SOPC, sopc(new Random(3)), true);
    }

    @Test
    void every_sopk_opcode_prints_as_llvm_objdump_does_with_hwreg_and_version_operands() {
        check(Encoding.SOPK, sopk(new Random(4), false), true);
        check(Encoding.SOPK, sopk(new Random(5), true), false);
    }

    @Test
    void every_sopp_opcode_prints_as_llvm_objdump_does_with_waitcnt_sendmsg_and_depctr_operands() {
        check(Encoding.SOPP, sopp(new Random(6), false), true);
        check(Encoding.SOPP, sopp(new Random(7), true), false);
    }

    @Test
    void every_smem_opcode_prints_as_llvm_objdump_does_with_offsets_and_cache_bits() {
        check(Encoding.SMEM, smem(new Random(8)), true);
    }

    @Test
    void out_of_range_registers_and_bad_fields_are_refused() throws DecodeException {
        Decoder d = Decoder.gfx1030();
        // s_load_dwordx16 s[96:111]; s_mov_b64 s[0:1], m0; s_wakeup with a non-zero immediate
        int[][] bad = {{smemW0(4, 96, 0, false, false), smemW1(0x7d, 0)}, {sop1(4, 0, 124)}, {sopp(3, 1)}};
        for (int[] words : bad) {
            Instruction insn = d.decode(buffer(words), 0, 0);
            assertThrows(IllegalArgumentException.class, () -> ScalarPrinter.print(insn, Syntax.WAVE32),
                    insn.mnemonic() + " " + HexFormat.of().formatHex(bytes(words)));
        }
    }

    @Test
    void opcodes_the_tables_lack_are_refused_as_unknown_or_reserved() {
        Decoder d = Decoder.gfx1030();
        DecodeException e = assertThrows(DecodeException.class, () -> d.decode(buffer(sop1(0, 0, 0)), 0, 0));
        assertTrue(e.getMessage().contains("unknown or reserved"), e.getMessage());
        e = assertThrows(DecodeException.class, () -> d.decode(buffer(smemW0(5, 0, 0, false, false), 0), 0, 0));
        assertTrue(e.getMessage().contains("unknown or reserved"), e.getMessage());
    }

    // ---------------------------------------------------------------- the comparison

    private static void check(Encoding e, List<int[]> candidates, boolean bothSyntaxes) {
        List<String> failures = new ArrayList<>();
        for (Syntax syntax : bothSyntaxes ? List.of(Syntax.WAVE32, Syntax.WAVE64) : List.of(Syntax.WAVE32)) {
            List<byte[]> bytes = new ArrayList<>();
            for (int[] c : candidates) {
                bytes.add(bytes(c));
            }
            List<LlvmOracle.Verdict> verdicts = LlvmOracle.disassemble(bytes, syntax.waveSize() == 64);
            Decoder decoder = Decoder.gfx1030();
            int decoded = 0;
            int matches = 0;
            int refused = 0;
            TreeMap<String, Integer> seen = new TreeMap<>();
            TreeSet<Integer> missing = new TreeSet<>();
            for (int i = 0; i < verdicts.size(); i++) {
                LlvmOracle.Verdict v = verdicts.get(i);
                int[] words = candidates.get(i);
                int code = Decoder.opcodeOf(e, words[0], words.length > 1 ? words[1] : 0);
                assertEquals(e, Decoder.encodingOf(words[0]), "generator made a non-" + e + " word");
                if (TABLE.lookup(e, code) == null) {
                    if (v.decoded()) {
                        missing.add(code);
                    }
                    try {
                        decoder.decode(ByteBuffer.wrap(v.candidate()), 0, 0);
                        failures.add(e + " opcode " + code + " is not in the table but decodes");
                    } catch (DecodeException x) {
                        if (!x.getMessage().contains("unknown or reserved")) {
                            failures.add(x.getMessage());
                        }
                    }
                    continue;
                }
                if (!v.decoded()) {
                    continue;
                }
                decoded++;
                String ours;
                int length;
                try {
                    Instruction insn = decoder.decode(ByteBuffer.wrap(v.candidate()), 0, 0);
                    length = insn.length();
                    ours = ScalarPrinter.print(insn, syntax);
                    seen.merge(insn.mnemonic(), 1, Integer::sum);
                } catch (DecodeException | RuntimeException x) {
                    ours = "<" + x + ">";
                    length = -1;
                }
                if (v.text().contains("/*Invalid")) {
                    if (ours.startsWith("<java.lang.IllegalArgumentException")) {
                        refused++;
                    } else if (failures.size() < 30) {
                        failures.add(mismatch(v, "llvm marks it invalid; ours: " + ours));
                    }
                } else if (ours.equals(v.text()) && length == v.length()) {
                    matches++;
                } else if (failures.size() < 30) {
                    failures.add(mismatch(v, ours + " (" + length + " bytes)"));
                }
            }
            if (!missing.isEmpty()) {
                failures.add(e + " opcodes llvm decodes but the table lacks: " + missing);
            }
            System.out.printf("%s wave%d: %d candidates, %d decoded by llvm-objdump-19, %d match, %d refused as llvm"
                    + " marks invalid, %d distinct opcodes%n", e, syntax.waveSize(), candidates.size(), decoded, matches,
                    refused, seen.size());
        }
        assertTrue(failures.isEmpty(), failures.size() + " failures:\n" + String.join("\n", failures));
    }

    private static String mismatch(LlvmOracle.Verdict v, String ours) {
        return "bytes " + HexFormat.ofDelimiter(" ").formatHex(v.candidate()) + "\n   llvm: " + v.text() + " ("
                + v.length() + " bytes)\n   ours: " + ours;
    }

    // ---------------------------------------------------------------- operand codes

    private static int dwords(Opcode row, String name) {
        String type = row == null ? null : row.operandType(name);
        if (type == null) {
            return 4; // unknown shape: registers aligned for any width, so llvm prints no warning
        }
        return switch (type) {
            case "b64", "r64", "x64", "base64" -> 2;
            case "x128", "base128" -> 4;
            case "x256" -> 8;
            case "x512" -> 16;
            default -> 1;
        };
    }

    /**
     * Register-like codes 0..127, for a range of this many dwords; misaligned starts included, since
     * llvm-objdump-19 prints them aligned (with a warning the oracle reads past), as ours must.
     */
    private static List<Integer> registers(int dwords) {
        List<Integer> out = new ArrayList<>();
        for (int c = 0; c < 128; c++) {
            out.add(c);
        }
        return out;
    }

    /** Every source code 0..255 for this width. */
    private static List<Integer> sources(int dwords) {
        List<Integer> out = registers(dwords);
        for (int c = 128; c < 256; c++) {
            out.add(c);
        }
        return out;
    }

    private static int any(Random r, List<Integer> codes) {
        return codes.get(r.nextInt(codes.size()));
    }

    private static int literal(Random r) {
        return r.nextInt(3) == 0 ? r.nextInt() : LITERALS[r.nextInt(LITERALS.length)];
    }

    // ---------------------------------------------------------------- generators

    static int sop1(int op, int sdst, int ssrc0) {
        return 0xBE800000 | sdst << 16 | op << 8 | ssrc0;
    }

    static int sop2(int op, int sdst, int ssrc0, int ssrc1) {
        return 0x80000000 | op << 23 | sdst << 16 | ssrc1 << 8 | ssrc0;
    }

    static int sopk(int op, int sdst, int simm16) {
        return 0xB0000000 | op << 23 | sdst << 16 | simm16 & 0xFFFF;
    }

    static int sopc(int op, int ssrc0, int ssrc1) {
        return 0xBF000000 | op << 16 | ssrc1 << 8 | ssrc0;
    }

    static int sopp(int op, int simm16) {
        return 0xBF800000 | op << 16 | simm16 & 0xFFFF;
    }

    static int smemW0(int op, int sdata, int sbase, boolean glc, boolean dlc) {
        return 0xF4000000 | op << 18 | (glc ? 1 << 16 : 0) | (dlc ? 1 << 14 : 0) | sdata << 6 | sbase >> 1;
    }

    static int smemW1(int soffset, int offset) {
        return soffset << 25 | offset & 0x1FFFFF;
    }

    private static int[] withLiteral(int w, boolean literal, int value) {
        return literal ? new int[] {w, value} : new int[] {w};
    }

    private static List<int[]> sop1(Random r) {
        List<int[]> out = new ArrayList<>();
        for (int op = 0; op < 256; op++) {
            Opcode row = TABLE.lookup(Encoding.SOP1, op);
            int start = out.size();
            List<Integer> dst = registers(dwords(row, "sdst"));
            List<Integer> src = sources(dwords(row, "ssrc0"));
            for (int s : src) {
                out.add(withLiteral(sop1(op, 8, s), s == 255, 0x12345678));
            }
            for (int d : dst) {
                out.add(new int[] {sop1(op, d, 128)});
            }
            for (int lit : LITERALS) {
                out.add(new int[] {sop1(op, 0, 255), lit});
            }
            for (int i = 0; i < 16; i++) {
                int s = any(r, src);
                out.add(withLiteral(sop1(op, any(r, dst), s), s == 255, literal(r)));
            }
            thinUnlessInTable(out, start, row);
        }
        return out;
    }

    private static List<int[]> sop2(Random r) {
        List<int[]> out = new ArrayList<>();
        for (int op = 0; op < 96; op++) {
            Opcode row = TABLE.lookup(Encoding.SOP2, op);
            int start = out.size();
            List<Integer> dst = registers(dwords(row, "sdst"));
            List<Integer> src0 = sources(dwords(row, "ssrc0"));
            List<Integer> src1 = sources(dwords(row, "ssrc1"));
            for (int s : src0) {
                out.add(withLiteral(sop2(op, 8, s, 16), s == 255, 0x12345678));
            }
            for (int s : src1) {
                out.add(withLiteral(sop2(op, 8, 16, s), s == 255, 0xfffffff0));
            }
            for (int d : dst) {
                out.add(new int[] {sop2(op, d, 129, 130)});
            }
            for (int lit : LITERALS) {
                out.add(new int[] {sop2(op, 0, 255, 255), lit});
            }
            for (int i = 0; i < 16; i++) {
                int a = any(r, src0);
                int b = any(r, src1);
                out.add(withLiteral(sop2(op, any(r, dst), a, b), a == 255 || b == 255, literal(r)));
            }
            thinUnlessInTable(out, start, row);
        }
        return out;
    }

    private static List<int[]> sopc(Random r) {
        List<int[]> out = new ArrayList<>();
        for (int op = 0; op < 128; op++) {
            Opcode row = TABLE.lookup(Encoding.SOPC, op);
            int start = out.size();
            List<Integer> src0 = sources(dwords(row, "ssrc0"));
            List<Integer> src1 = sources(dwords(row, "ssrc1"));
            for (int s : src0) {
                out.add(withLiteral(sopc(op, s, 16), s == 255, 0x3e22f983));
            }
            for (int s : src1) {
                out.add(withLiteral(sopc(op, 16, s), s == 255, 0x40));
            }
            for (int lit : LITERALS) {
                out.add(new int[] {sopc(op, 255, 0), lit});
            }
            for (int i = 0; i < 16; i++) {
                int a = any(r, src0);
                int b = any(r, src1);
                out.add(withLiteral(sopc(op, a, b), a == 255 || b == 255, literal(r)));
            }
            thinUnlessInTable(out, start, row);
        }
        return out;
    }

    private static final int[] IMM16 = {0, 1, 2, 3, 15, 16, 63, 64, 65, 0x70, 0x7f, 0x80, 0xff, 0x100, 0x3ff, 0x400,
            0x1234, 0x3f00, 0x7fff, 0x8000, 0x8001, 0xc000, 0xfc7f, 0xfff0, 0xfffe, 0xffff};

    /** SOPK: every opcode with every destination and many immediates; {@code full}: all 65536 hwreg and version codes. */
    private static List<int[]> sopk(Random r, boolean full) {
        List<int[]> out = new ArrayList<>();
        if (full) {
            for (int v = 0; v < 0x10000; v++) {
                out.add(new int[] {sopk(18, 8, v)});
                out.add(new int[] {sopk(1, 0, v)});
            }
            return out;
        }
        for (int op = 0; op < 29; op++) {
            Opcode row = TABLE.lookup(Encoding.SOPK, op);
            List<Integer> dst = registers(dwords(row, "sdst"));
            for (int d : dst) {
                out.add(new int[] {sopk(op, d, 0x10), 0x12345678});
            }
            for (int v : IMM16) {
                out.add(new int[] {sopk(op, 8, v), LITERALS[out.size() % LITERALS.length]});
            }
            for (int i = 0; i < 64; i++) {
                out.add(new int[] {sopk(op, any(r, dst), r.nextInt(0x10000)), literal(r)});
            }
        }
        return out;
    }

    /** SOPP: every opcode with many immediates; {@code full}: all 65536 codes of s_waitcnt, s_sendmsg, s_waitcnt_depctr. */
    private static List<int[]> sopp(Random r, boolean full) {
        List<int[]> out = new ArrayList<>();
        if (full) {
            for (int v = 0; v < 0x10000; v++) {
                out.add(new int[] {sopp(12, v)});
                out.add(new int[] {sopp(16, v)});
                out.add(new int[] {sopp(35, v)});
            }
            return out;
        }
        for (int op = 0; op < 128; op++) {
            for (int v : IMM16) {
                out.add(new int[] {sopp(op, v)});
            }
            for (int v = 4; v < 0x120; v += 7) {
                out.add(new int[] {sopp(op, v)});
            }
            for (int i = 0; i < 48; i++) {
                out.add(new int[] {sopp(op, r.nextInt(0x10000))});
            }
        }
        return out;
    }

    private static final int[] OFFSETS = {0, 1, 4, 0x10, 0xfff, 0x1000, 0xfffff, 0x100000, 0x1ffff0, 0x1fffff};

    private static List<int[]> smem(Random r) {
        List<int[]> out = new ArrayList<>();
        for (int op = 0; op < 256; op++) {
            Opcode row = TABLE.lookup(Encoding.SMEM, op);
            int start = out.size();
            int dataDwords = dwords(row, "sdata");
            List<Integer> data = registers(dataDwords);
            List<Integer> bases = new ArrayList<>();
            for (int b = 0; b < 128; b += 2) {
                bases.add(b);
            }
            int data0 = data.get(2);
            for (int d : data) {
                out.add(new int[] {smemW0(op, d, 4, false, false), smemW1(0x7d, 0x10)});
            }
            for (int b : bases) {
                out.add(new int[] {smemW0(op, data0, b, false, false), smemW1(0x7d, 0x20)});
            }
            for (int so = 0; so < 128; so++) {
                out.add(new int[] {smemW0(op, data0, 8, so % 2 == 0, so % 3 == 0), smemW1(so, so % 4 == 0 ? 0 : 0x40)});
            }
            for (int off : OFFSETS) {
                for (int flags = 0; flags < 4; flags++) {
                    out.add(new int[] {smemW0(op, data0, 8, (flags & 1) != 0, (flags & 2) != 0), smemW1(0x7d, off)});
                    out.add(new int[] {smemW0(op, data0, 8, (flags & 1) != 0, (flags & 2) != 0), smemW1(3, off)});
                }
            }
            for (int i = 0; i < 24; i++) {
                int w0 = smemW0(op, any(r, data), any(r, bases), r.nextBoolean(), r.nextBoolean());
                out.add(new int[] {w0, smemW1(r.nextInt(128), r.nextInt(0x200000))});
            }
            // the bits no field claims: 15 and 17 of the first dword, 24:21 of the second
            out.add(new int[] {smemW0(op, data0, 8, false, false) | 1 << 15, smemW1(0x7d, 8)});
            out.add(new int[] {smemW0(op, data0, 8, false, false) | 1 << 17, smemW1(0x7d, 8)});
            out.add(new int[] {smemW0(op, data0, 8, false, false), smemW1(0x7d, 8) | 0xF << 21});
            thinUnlessInTable(out, start, row);
        }
        return out;
    }

    /** For an opcode the table lacks, keeps every 8th of its candidates (enough to see llvm refuse it). */
    private static void thinUnlessInTable(List<int[]> out, int start, Opcode row) {
        if (row != null) {
            return;
        }
        List<int[]> kept = new ArrayList<>();
        for (int i = start; i < out.size(); i += 8) {
            kept.add(out.get(i));
        }
        out.subList(start, out.size()).clear();
        out.addAll(kept);
    }

    // ---------------------------------------------------------------- bytes

    static byte[] bytes(int[] words) {
        ByteBuffer b = ByteBuffer.allocate(words.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (int w : words) {
            b.putInt(w);
        }
        return b.array();
    }

    private static ByteBuffer buffer(int... words) {
        return ByteBuffer.wrap(bytes(words));
    }
}
