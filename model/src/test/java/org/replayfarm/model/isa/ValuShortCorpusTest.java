package org.replayfarm.model.isa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.replayfarm.model.testing.CorpusCheck;
import org.replayfarm.model.testing.LlvmOracle;
import org.replayfarm.model.testing.Toolchain;

/**
 * VOP1, VOP2 and VOPC (with their DPP16, DPP8 and SDWA forms) decode and print exactly as llvm-objdump-19 does:
 * candidates for every opcode number of the three encodings, with sources across the whole operand space,
 * every literal class, every DPP control and modifier bit, every SDWA field, both wave sizes, and seeded
 * random fields. llvm-objdump-19 crashes on an SDWA select of 7, so candidates never carry one (the printer
 * refuses it).
 */
@Tag("corpus")
class ValuShortCorpusTest {
    private static final OpcodeTable TABLE = OpcodeTable.gfx1030();
    private static final Encoding[] ENCODINGS = {Encoding.VOP1, Encoding.VOP2, Encoding.VOPC};
    /** Source codes: SGPRs and specials at both ends, a few inline integers, every float constant, VGPRs. */
    private static final int[] SOURCES = {0, 1, 2, 104, 105, 106, 107, 108, 109, 122, 123, 124, 125, 126, 127, 128, 129,
            160, 192, 193, 200, 208, 209, 230, 233, 234, 235, 236, 237, 238, 239, 240, 241, 242, 243, 244, 245, 246, 247,
            248, 249, 250, 251, 252, 253, 254, 255, 256, 257, 258, 300, 510, 511};
    private static final int[] LITERALS = {0, 1, 5, 64, 65, -1, -16, -17, 0x3f000000, 0xbf800000, 0x40800000, 0xc0800000,
            0x3e22f983, 0x3c00, 0xbc00, 0x3800, 0x4400, 0x3118, 0x13c00, 0xffff3c00, 0x3ff00000, 0xbfe00000, 0x40100000,
            0xc0000000, 0x3fc45f30, 0x80000000, 0x12345678, 0x10005, 0xffff0005, 0x8000, 0xffff, 0xfff0, 0x7fffffff};
    private static final int[] DPP_CONTROLS = {0x00, 0x1B, 0x39, 0xE4, 0xFF, 0x100, 0x101, 0x108, 0x10F, 0x110, 0x111,
            0x11F, 0x120, 0x121, 0x12F, 0x130, 0x131, 0x134, 0x138, 0x13C, 0x13F, 0x140, 0x141, 0x142, 0x143, 0x144, 0x150,
            0x157, 0x15F, 0x160, 0x16A, 0x16F, 0x170, 0x1AB, 0x1FF};
    private static final int SDWA_DWORD = 6 << 8 | 6 << 16 | 6 << 24;
    /** An SDWA base word with every select at WORD_0, so that flipping any one bit never makes a select 7. */
    private static final int SDWA_FLIP_BASE = 4 << 8 | 4 << 16 | 4 << 24;

    @Test
    void every_vop1_vop2_vopc_form_prints_as_llvm_objdump_does_in_wave32() {
        List<byte[]> candidates = new ArrayList<>();
        for (Encoding e : ENCODINGS) {
            for (int op = 0; op <= maxOpcode(e); op++) {
                if (TABLE.lookup(e, op) != null) {
                    known(candidates, e, op, new Random(op * 31L + e.ordinal()));
                } else {
                    unknown(candidates, e, op);
                }
            }
        }
        check(candidates, Syntax.WAVE32);
    }

    @Test
    void lane_masks_print_as_register_pairs_in_wave64() {
        List<byte[]> candidates = new ArrayList<>();
        for (Encoding e : ENCODINGS) {
            for (Opcode row : TABLE.rows(e)) {
                int op = row.code();
                for (int src : new int[] {1, 105, 106, 107, 123, 126, 127, 240, 248, 257}) {
                    candidates.add(words(plain(e, op, 1, src, 3), 0x3f800000));
                }
                candidates.add(words(plain(e, op, 0, 255, 3), 0x40));
                candidates.add(words(plain(e, op, 0, 0, 0), 0x40));
                if (row.has("dpp")) {
                    candidates.add(words(plain(e, op, 1, ValuVariant.SRC_DPP16, 3), 2 | 0xE4 << 8 | 0xFF << 24 | 1 << 20));
                    candidates.add(words(plain(e, op, 1, ValuVariant.SRC_DPP8, 3), 2 | 0x123456 << 8));
                }
                if (row.has("sdwa")) {
                    int base = e == Encoding.VOP1 ? 6 << 8 | 6 << 16 : SDWA_DWORD;
                    candidates.add(words(plain(e, op, 1, ValuVariant.SRC_SDWA, 3), base | 2));
                    if (e == Encoding.VOPC) {
                        for (int sdst = 0; sdst < 128; sdst += sdst < 100 ? 7 : 1) {
                            candidates.add(words(plain(e, op, 1, ValuVariant.SRC_SDWA, 3), 4 << 16 | 4 << 24 | 1 << 15
                                    | sdst << 8 | 2));
                        }
                    }
                }
            }
        }
        check(candidates, Syntax.WAVE64);
    }

    @Test
    void opcodes_missing_from_the_tables_are_refused_as_reserved_and_llvm_refuses_them_too() {
        Decoder decoder = Decoder.gfx1030();
        List<byte[]> probes = new ArrayList<>();
        int refused = 0;
        for (Encoding e : ENCODINGS) {
            for (int op = 0; op <= maxOpcode(e); op++) {
                for (int vdst : new int[] {0, 1}) {
                    byte[] c = words(plain(e, op, vdst, 258, 3), 0x3f800000);
                    probes.add(c);
                    if (TABLE.lookup(e, op) == null) {
                        try {
                            decoder.decode(ByteBuffer.wrap(c), 0, 0);
                            fail(e + " opcode " + op + " is not in the table, yet it decoded");
                        } catch (DecodeException ex) {
                            assertTrue(ex.getMessage().contains("unknown or reserved"), ex.getMessage());
                            refused++;
                        }
                    }
                }
            }
        }
        TreeSet<String> missing = new TreeSet<>();
        for (LlvmOracle.Verdict v : LlvmOracle.disassemble(probes, false)) {
            if (v.decoded()) {
                int w = ByteBuffer.wrap(v.candidate()).order(ByteOrder.LITTLE_ENDIAN).getInt(0);
                Encoding e = Decoder.encodingOf(w);
                if (TABLE.lookup(e, Decoder.opcodeOf(e, w, 0)) == null) {
                    missing.add(e + " " + Decoder.opcodeOf(e, w, 0) + " (" + v.text() + ")");
                }
            }
        }
        System.out.println("VOP1/VOP2/VOPC: " + refused + " probes of reserved opcodes refused by our decoder");
        assertEquals(new TreeSet<>(), missing, "opcodes llvm-objdump-19 decodes that our tables lack");
    }

    @Test
    void odd_scalar_pairs_print_as_the_aligned_pair_below_them() throws IOException {
        List<byte[]> candidates = new ArrayList<>();
        for (Encoding e : ENCODINGS) {
            for (Opcode row : TABLE.rows(e)) {
                String type = row.operandType("src0");
                if (type != null && Operands.Type.of(type).dwords == 2) {
                    for (int code : new int[] {1, 3, 105, 109, 123}) {
                        candidates.add(words(plain(e, row.code(), 1, code, 3)));
                    }
                }
            }
        }
        List<byte[]> wave64 = new ArrayList<>();
        for (int op : new int[] {1, 129, 201}) {
            for (int sdst : new int[] {1, 3, 105, 109, 123}) {
                wave64.add(words(plain(Encoding.VOPC, op, 0, ValuVariant.SRC_SDWA, 3), 2 | 1 << 15 | sdst << 8 | 6 << 16
                        | 6 << 24));
            }
        }
        int matched = compareWithWarnings(candidates, Syntax.WAVE32) + compareWithWarnings(candidates, Syntax.WAVE64)
                + compareWithWarnings(wave64, Syntax.WAVE64);
        System.out.println("VOP1/VOP2/VOPC odd scalar pairs: " + matched + " lines match llvm-objdump-19");
        assertEquals(2 * candidates.size() + wave64.size(), matched);
    }

    /** Runs llvm-mc-19 / llvm-objdump-19 directly, reading lines that carry a misalignment warning; returns the matches. */
    private static int compareWithWarnings(List<byte[]> candidates, Syntax syntax) throws IOException {
        Path dir = Files.createTempDirectory("valu-odd");
        StringBuilder s = new StringBuilder();
        for (byte[] c : candidates) {
            s.append(".byte ");
            for (int i = 0; i < 16; i++) {
                int b = i < c.length ? c[i] & 0xFF : (i % 4 == 3 ? 0xBF : i % 4 == 2 ? 0x80 : 0);
                s.append(i == 0 ? "" : ",").append(b);
            }
            s.append('\n');
        }
        Files.writeString(dir.resolve("c.s"), s);
        Toolchain.run(dir, "llvm-mc-19", "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx1030", "-filetype=obj", "c.s", "-o", "c.o");
        List<String> cmd = new ArrayList<>(List.of("llvm-objdump-19", "-d", "--mcpu=gfx1030"));
        if (syntax.waveSize() == 64) {
            cmd.add("--mattr=+wavefrontsize64");
        }
        cmd.add("c.o");
        Map<Long, String> text = new TreeMap<>();
        Pattern line = Pattern.compile("^\\t(.*?)\\s*//\\s*([0-9A-F]{12}):((?: [0-9A-F]{8})+)(?: ; Warning: .*)?$");
        for (String l : Toolchain.run(dir, cmd).split("\n")) {
            Matcher m = line.matcher(l);
            if (m.matches() && l.contains("Warning")) {
                text.put(Long.parseLong(m.group(2), 16), m.group(1));
            }
        }
        for (String f : new String[] {"c.s", "c.o"}) {
            Files.deleteIfExists(dir.resolve(f));
        }
        Files.deleteIfExists(dir);
        Decoder decoder = Decoder.gfx1030();
        int matched = 0;
        for (int i = 0; i < candidates.size(); i++) {
            String llvm = text.get(16L * i);
            assertTrue(llvm != null, "llvm-objdump-19 printed no warned line for candidate " + i);
            try {
                String ours = ValuShortPrinter.print(decoder.decode(ByteBuffer.wrap(candidates.get(i)), 0, 0), syntax);
                assertEquals(llvm, ours);
                matched++;
            } catch (DecodeException ex) {
                fail(ex.getMessage());
            }
        }
        return matched;
    }

    private static void check(List<byte[]> candidates, Syntax syntax) {
        CorpusCheck.Report report = CorpusCheck.run(candidates, syntax, ValuShortPrinter::print, 40);
        Map<Encoding, Integer> perEncoding = new TreeMap<>();
        for (String key : report.opcodesSeen().keySet()) {
            perEncoding.merge(Encoding.valueOf(key.substring(0, key.indexOf(' '))), 1, Integer::sum);
        }
        System.out.println("VOP1/VOP2/VOPC wave" + syntax.waveSize() + ": " + report.summary() + "; distinct opcodes "
                + perEncoding);
        report.mismatches().forEach(System.out::println);
        TreeSet<String> unseen = new TreeSet<>();
        for (Encoding e : ENCODINGS) {
            for (Opcode row : TABLE.rows(e)) {
                if (!report.opcodesSeen().containsKey(e + " " + row.mnemonic())) {
                    unseen.add(e + " " + row.mnemonic());
                }
            }
        }
        assertEquals(List.of(), report.mismatches(), "mismatches with llvm-objdump-19");
        assertEquals(report.decodedByLlvm(), report.matches());
        assertEquals(new TreeSet<>(), unseen, "table rows llvm-objdump-19 never decoded");
    }

    /**
     * True for a candidate whose 64-bit scalar operand starts at an odd SGPR or trap temporary: llvm-objdump-19
     * appends "; Warning: ... scalar reg isn't aligned" to such a line, which {@link LlvmOracle} cannot read;
     * {@link #odd_scalar_pairs_print_as_the_aligned_pair_below_them} checks those.
     */
    static boolean misalignedPair(byte[] c, Syntax syntax) {
        ByteBuffer b = ByteBuffer.wrap(c).order(ByteOrder.LITTLE_ENDIAN);
        int w = b.getInt(0);
        Encoding e = Decoder.encodingOf(w);
        Opcode row = TABLE.lookup(e, Decoder.opcodeOf(e, w, 0));
        if (row == null) {
            return false;
        }
        int src0 = w & 0x1FF;
        if (src0 == ValuVariant.SRC_SDWA && e == Encoding.VOPC && syntax.waveSize() == 64 && row.has("sdwa")) {
            int x = b.getInt(4);
            return (x & 1 << 15) != 0 && odd(x >>> 8 & 0x7F);
        }
        String type = row.operandType("src0");
        return type != null && !type.equals("lanemask") && Operands.Type.of(type).dwords == 2 && odd(src0);
    }

    private static boolean odd(int code) {
        return code <= 105 && (code & 1) == 1 || code >= 108 && code <= 123 && (code & 1) == 1;
    }

    /** VOP2 opcodes 62 and 63 do not exist: their bits are the VOPC and VOP1 encodings. */
    private static int maxOpcode(Encoding e) {
        return e == Encoding.VOP2 ? 61 : e.maxOpcode();
    }

    private static int plain(Encoding e, int op, int vdst, int src0, int vsrc1) {
        return switch (e) {
            case VOP1 -> 0x3F << 25 | (vdst & 0xFF) << 17 | op << 9 | src0;
            case VOP2 -> op << 25 | (vdst & 0xFF) << 17 | (vsrc1 & 0xFF) << 9 | src0;
            case VOPC -> 0x3E << 25 | op << 17 | (vsrc1 & 0xFF) << 9 | src0;
            default -> throw new IllegalArgumentException(e.toString());
        };
    }

    /** A few forms of an opcode the table does not hold. */
    private static void unknown(List<byte[]> out, Encoding e, int op) {
        out.add(words(plain(e, op, 1, 258, 3), 0x11223344));
        out.add(words(plain(e, op, 0, 0, 0), 0x11223344));
        out.add(words(plain(e, op, 1, 255, 3), 0x3f800000));
        out.add(words(plain(e, op, 1, ValuVariant.SRC_DPP16, 3), 2 | 0xE4 << 8 | 0xFF << 24));
        out.add(words(plain(e, op, 1, ValuVariant.SRC_DPP8, 3), 2));
        out.add(words(plain(e, op, 1, ValuVariant.SRC_SDWA, 3), 2 | SDWA_DWORD));
    }

    /** Many forms of an opcode the table holds. */
    private static void known(List<byte[]> out, Encoding e, int op, Random random) {
        Opcode row = TABLE.lookup(e, op);
        for (int src : SOURCES) {
            out.add(words(plain(e, op, 1, src, 3), 0x12345678));
        }
        for (int lit : LITERALS) {
            out.add(words(plain(e, op, 2, 255, 4), lit));
            if (row.has("literal")) {
                out.add(words(plain(e, op, 2, 257, 4), lit));
            }
        }
        for (int vdst : new int[] {0, 127, 128, 200, 240, 255}) {
            for (int vsrc1 : new int[] {0, 255}) {
                out.add(words(plain(e, op, vdst, 511, vsrc1), 0x3f800000));
                out.add(words(plain(e, op, vdst, 0, vsrc1), 0x3f800000));
            }
        }
        for (int i = 0; i < 16; i++) {
            int src0 = random.nextInt(512);
            int second = src0 == ValuVariant.SRC_SDWA ? noSel7(random.nextInt()) : random.nextInt();
            out.add(words(plain(e, op, random.nextInt(256), src0, random.nextInt(256)), second));
        }
        dpp(out, e, op, row, random);
        sdwa(out, e, op, row, random);
    }

    private static void dpp(List<byte[]> out, Encoding e, int op, Opcode row, Random random) {
        boolean rich = row.has("dpp");
        boolean everyControl = rich && (row.mnemonic().equals("v_mov_b32") || row.mnemonic().equals("v_add_f32")
                || row.mnemonic().equals("v_nop"));
        int vdst = row.operands().isEmpty() ? 0 : 1;
        int base = 0xE4 << 8 | 0xF << 24 | 0xF << 28;
        if (everyControl) {
            for (int ctrl = 0; ctrl < 0x200; ctrl++) {
                out.add(words(plain(e, op, vdst, ValuVariant.SRC_DPP16, 3), (row.operands().isEmpty() ? 0 : 7)
                        | ctrl << 8 | 0x5 << 24 | 0xA << 28));
            }
        }
        for (int ctrl : rich ? DPP_CONTROLS : new int[] {0xE4}) {
            out.add(words(plain(e, op, vdst, ValuVariant.SRC_DPP16, 255), ctrl << 8 | 0x3 << 24 | 0xC << 28));
        }
        if (!rich) {
            out.add(words(plain(e, op, vdst, ValuVariant.SRC_DPP8, 3), 2));
            return;
        }
        for (int bit = 0; bit < 32; bit++) {
            out.add(words(plain(e, op, vdst, ValuVariant.SRC_DPP16, 3), base ^ 1 << bit));
        }
        out.add(words(plain(e, op, vdst, ValuVariant.SRC_DPP16, 3), base | 0xFF | 0xF << 18));
        out.add(words(plain(e, op, vdst, ValuVariant.SRC_DPP16, 3), base | 3 << 18));
        out.add(words(plain(e, op, vdst, ValuVariant.SRC_DPP16, 3), base | 0xA << 20));
        out.add(words(plain(e, op, vdst, ValuVariant.SRC_DPP16, 3), base | 0x5 << 20));
        for (int src0 : new int[] {ValuVariant.SRC_DPP8, ValuVariant.SRC_DPP8_FI}) {
            out.add(words(plain(e, op, vdst, src0, 3), 0));
            out.add(words(plain(e, op, 255, src0, 255), 0xFF | 0xFAC688 << 8));
            for (int i = 0; i < 4; i++) {
                out.add(words(plain(e, op, vdst, src0, 3), random.nextInt() & ~(row.operands().isEmpty() ? 0xFF : 0)));
            }
        }
        for (int i = 0; i < 12; i++) {
            out.add(words(plain(e, op, random.nextInt(256), ValuVariant.SRC_DPP16, random.nextInt(256)),
                    random.nextInt() & ~(random.nextBoolean() ? 0xF0_0000 : 0)));
        }
    }

    private static void sdwa(List<byte[]> out, Encoding e, int op, Opcode row, Random random) {
        int vdst = row.operands().isEmpty() ? 0 : 1;
        int dword = e == Encoding.VOP1 ? 6 << 8 | 6 << 16 : SDWA_DWORD;
        if (!row.has("sdwa")) {
            out.add(words(plain(e, op, vdst, ValuVariant.SRC_SDWA, 3), 2 | dword));
            return;
        }
        out.add(words(plain(e, op, vdst, ValuVariant.SRC_SDWA, 3), 0));
        for (int bit = 0; bit < 32; bit++) {
            int flip = e == Encoding.VOP1 ? SDWA_FLIP_BASE & 0xFFFFFF : SDWA_FLIP_BASE;
            out.add(words(plain(e, op, vdst, ValuVariant.SRC_SDWA, 3), flip ^ 1 << bit));
            out.add(words(plain(e, op, vdst, ValuVariant.SRC_SDWA, 3),
                    noSel7(dword & ~(7 << 8 * (bit % 3 + 1)) ^ 1 << bit)));
        }
        for (int sel = 0; sel < 7; sel++) {
            for (int unused = 0; unused < 4; unused++) {
                out.add(words(plain(e, op, vdst, ValuVariant.SRC_SDWA, 3), 5 | sel << 8 | unused << 11 | (6 - sel) << 16
                        | (e == Encoding.VOP1 ? 0 : sel << 24)));
            }
        }
        for (int omod = 0; omod < 4; omod++) {
            out.add(words(plain(e, op, 255, ValuVariant.SRC_SDWA, 255), 0xFF | dword | omod << 14 | 1 << 13));
        }
        for (int src : SOURCES) {
            if (src < 256) {
                out.add(words(plain(e, op, vdst, ValuVariant.SRC_SDWA, 3), src | 1 << 23 | dword));
                if (e != Encoding.VOP1) {
                    out.add(words(plain(e, op, vdst, ValuVariant.SRC_SDWA, src), 7 | 1 << 31 | dword));
                }
            }
        }
        out.add(words(plain(e, op, vdst, ValuVariant.SRC_SDWA, 3), 2 | dword | 0x33 << 19 & (e == Encoding.VOP1
                ? 0xFF_FFFF : -1)));
        for (int i = 0; i < 12; i++) {
            int x = noSel7(random.nextInt());
            if (e == Encoding.VOP1 && random.nextBoolean()) {
                x &= 0xFF_FFFF;
            }
            out.add(words(plain(e, op, random.nextInt(256), ValuVariant.SRC_SDWA, random.nextInt(256)), x));
        }
    }

    /** Replaces any SDWA select of 7 (which crashes llvm-objdump-19) by 6. */
    private static int noSel7(int x) {
        for (int shift : new int[] {8, 16, 24}) {
            if ((x >>> shift & 7) == 7) {
                x &= ~(1 << shift);
            }
        }
        return x;
    }

    private static byte[] words(int... w) {
        ByteBuffer b = ByteBuffer.allocate(4 * w.length).order(ByteOrder.LITTLE_ENDIAN);
        for (int x : w) {
            b.putInt(x);
        }
        return b.array();
    }
}
