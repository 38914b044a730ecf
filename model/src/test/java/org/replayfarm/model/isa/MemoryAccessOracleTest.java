package org.replayfarm.model.isa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The memory facts the table derives from mnemonics, checked against llvm-mc-19: for every load, store and
 * atomic of DS, FLAT, GLOBAL, SCRATCH, MUBUF, MTBUF and SMEM, an instruction whose data and destination
 * registers are as wide as the facts say (not as the table's operand column says) must assemble, and the same
 * instruction with one register more in the data must be refused. So the dword counts the handlers use
 * (access width, D16 packing, cmpswap's data pair, read2/write2 pairs, _rtn results) are LLVM's.
 */
@Tag("unit")
class MemoryAccessOracleTest {
    private static final Set<Encoding> CHECKED = Set.of(Encoding.DS, Encoding.FLAT, Encoding.GLOBAL, Encoding.SCRATCH,
            Encoding.MUBUF, Encoding.MTBUF, Encoding.SMEM);
    private static final Pattern ERROR = Pattern.compile("^[^:\\n]*\\.s:(\\d+):\\d+: error:", Pattern.MULTILINE);

    /** VGPRs from 10 (v10 or v[10:..]); a 0-wide list is none. */
    private static String v(int first, int n) {
        return n == 1 ? "v" + first : "v[" + first + ":" + (first + n - 1) + "]";
    }

    private static String s(int first, int n) {
        return n == 1 ? "s" + first : "s[" + first + ":" + (first + n - 1) + "]";
    }

    /** The registers the facts give the datum of one lane (D16 and sub-dword: one). */
    private static int dataRegs(MemoryAccess a) {
        if (a.format()) {
            return a.d16() ? (a.components() + 1) / 2 : a.components();
        }
        int element = a.pair() != null ? a.pair().elementBytes() / 4 : a.dwords();
        return Math.max(1, element);
    }

    /**
     * The instruction text with the widths the facts imply; {@code extra} registers added to the data operand
     * (the destination for loads).
     */
    static String line(Opcode op, int extra) {
        MemoryAccess a = op.memory();
        String m = op.mnemonic();
        int d = dataRegs(a);
        boolean cmp = a.isAtomic() && a.atomic().compares();
        int data = cmp ? 2 * d : d;
        int ret = a.pair() != null ? 2 * d : d;
        String glc = a.returns() == MemoryAccess.Returns.IF_GLC ? " glc" : "";
        switch (op.encoding()) {
            case GLOBAL:
                if (a.addtid()) {
                    return m + " " + v(10, 1 + extra) + ", off";
                }
                return a.isLoad() ? m + " " + v(10, d + extra) + ", v[2:3], off"
                        : a.isStore() ? m + " v[2:3], " + v(10, d + extra) + ", off"
                        : m + " " + v(10, d) + ", v[2:3], " + v(20, data + extra) + ", off" + glc;
            case FLAT:
                return a.isLoad() ? m + " " + v(10, d + extra) + ", v[2:3]"
                        : a.isStore() ? m + " v[2:3], " + v(10, d + extra)
                        : m + " " + v(10, d) + ", v[2:3], " + v(20, data + extra) + glc;
            case SCRATCH:
                return a.isLoad() ? m + " " + v(10, d + extra) + ", v2, off" : m + " v2, " + v(10, d + extra) + ", off";
            case MUBUF:
            case MTBUF:
                return m + " " + v(10, (a.isAtomic() ? data : d) + extra) + ", off, s[0:3], 0" + glc;
            case SMEM:
                return m + " " + s(20, a.dwords() + extra) + ", " + ("base128".equals(op.operandType("sbase")) ? "s[4:7]" : "s[2:3]") + ", 0";
            case DS:
                if (a.addtid()) {
                    return m + " " + v(10, 1 + extra);
                }
                if (a.isLoad()) {
                    return m + " " + v(10, ret + extra) + ", v1";
                }
                boolean second = a.pair() != null || a.isAtomic() && (cmp || a.atomic() == AtomicOp.MSKOR
                        || a.atomic() == AtomicOp.WRAP);
                String sources = "v1, " + v(20, d + extra) + (second ? ", " + v(30, d) : "");
                if (a.isAtomic() && a.returns() == MemoryAccess.Returns.YES) {
                    return m + " " + v(10, ret) + ", " + sources;
                }
                return m + " " + sources;
            default:
                throw new IllegalArgumentException(op.toString());
        }
    }

    @Test
    void llvm_mc_accepts_the_widths_the_facts_give_and_refuses_one_register_more(@TempDir Path dir) throws Exception {
        List<Opcode> rows = new ArrayList<>();
        for (Encoding e : CHECKED) {
            for (Opcode op : OpcodeTable.gfx1030().rows(e)) {
                if (op.memory().kind() != MemoryAccess.Kind.OTHER) {
                    rows.add(op);
                }
            }
        }
        assertTrue(rows.size() > 300, "memory rows checked: " + rows.size());
        List<String> good = new ArrayList<>();
        List<String> bad = new ArrayList<>();
        for (Opcode op : rows) {
            good.add(line(op, 0));
            bad.add(line(op, 1));
        }
        Set<Integer> goodErrors = errorLines(dir, "good", good);
        List<String> refusedGood = new ArrayList<>();
        for (int n : goodErrors) {
            refusedGood.add(good.get(n - 1));
        }
        assertEquals(List.of(), refusedGood, "llvm-mc-19 refused the widths the facts give");
        Set<Integer> badErrors = errorLines(dir, "bad", bad);
        List<String> acceptedBad = new ArrayList<>();
        for (int i = 0; i < bad.size(); i++) {
            if (!badErrors.contains(i + 1)) {
                acceptedBad.add(bad.get(i));
            }
        }
        assertEquals(List.of(), acceptedBad, "llvm-mc-19 accepted a datum one register wider than the facts say");
    }

    private static final String SIGNED_LOADS = """
            kernel void k(global const char* c, global const short* s, global int* out, local char* lc, local short* ls) {
              int i = get_global_id(0);
              lc[i] = (char) out[i + 9]; ls[i] = (short) out[i + 5];
              barrier(CLK_LOCAL_MEM_FENCE);
              out[4 * i] = c[i]; out[4 * i + 1] = s[i]; out[4 * i + 2] = lc[i ^ 1]; out[4 * i + 3] = ls[i ^ 1];
            }
            """;

    /**
     * clang-19 picks the sign- or zero-extending load a C type needs: char and short widened to int (global and
     * local) must come out as loads whose facts say signed, byte and short wide; uchar and ushort as unsigned.
     */
    @Test
    void clang_chooses_loads_whose_facts_extend_as_the_c_types_do(@TempDir Path dir) throws IOException {
        String unsigned = SIGNED_LOADS.replace("char*", "uchar*").replace("short*", "ushort*").replace("(char)", "(uchar)")
                .replace("(short)", "(ushort)");
        for (boolean signed : new boolean[] {true, false}) {
            String name = signed ? "signed" : "unsigned";
            Path object = org.replayfarm.model.testing.Toolchain.compileOpenCl(dir, name, signed ? SIGNED_LOADS : unsigned);
            List<String> subDword = new ArrayList<>();
            for (String line : org.replayfarm.model.testing.Toolchain.disassemble(object).split("\n")) {
                String[] words = line.trim().split("\\s+");
                if (words.length == 0 || !(words[0].startsWith("global_") || words[0].startsWith("ds_"))) {
                    continue;
                }
                Opcode op = OpcodeTable.gfx1030().byMnemonic(words[0].startsWith("ds_") ? Encoding.DS : Encoding.GLOBAL,
                        words[0]);
                MemoryAccess a = op.memory();
                if (a.isLoad() && a.bytes() < 4) {
                    subDword.add(a.bytes() + (a.signed() ? " signed" : " unsigned"));
                }
            }
            subDword.sort(null);
            String s = signed ? " signed" : " unsigned";
            assertEquals(List.of("1" + s, "1" + s, "2" + s, "2" + s), subDword, name + " kernel's sub-dword loads");
        }
    }

    /** The 1-based lines llvm-mc-19 reports an error on. */
    private static Set<Integer> errorLines(Path dir, String name, List<String> lines) throws IOException, InterruptedException {
        Path s = dir.resolve(name + ".s");
        Files.writeString(s, String.join("\n", lines) + "\n");
        Process p = new ProcessBuilder("llvm-mc-19", "-arch=amdgcn", "-mcpu=gfx1030", s.getFileName().toString(),
                "-o", "/dev/null").directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(2, TimeUnit.MINUTES), "llvm-mc-19 did not finish");
        Set<Integer> errors = new TreeSet<>();
        Matcher m = ERROR.matcher(out);
        while (m.find()) {
            errors.add(Integer.parseInt(m.group(1)));
        }
        assertEquals(errors.isEmpty(), p.exitValue() == 0, "llvm-mc-19 exit " + p.exitValue() + ":\n" + out);
        return errors;
    }
}
