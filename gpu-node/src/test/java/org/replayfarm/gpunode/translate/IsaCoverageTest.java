package org.replayfarm.gpunode.translate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.MalformedInputException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.replayfarm.evalnode.hostmodel.semantics.Fidelity;
import org.replayfarm.evalnode.hostmodel.semantics.SemanticsTable;
import org.replayfarm.model.isa.DecodedProgram;
import org.replayfarm.model.isa.Decoder;
import org.replayfarm.model.isa.Encoding;
import org.replayfarm.model.isa.Opcode;
import org.replayfarm.model.isa.OpcodeTable;
import org.replayfarm.model.testing.Toolchain;

/**
 * The instruction table as every consumer sees it, row by row: whether the host model executes the row (its
 * reference tier's fidelity; whether the fast tier has a lane kernel or loop for it), whether the translator
 * emits code for it, and which modules' tests name it. Two checks: a row the host model executes must have a
 * translation (a missing emitter fails here, naming the row), and docs/isa-coverage.md must be this matrix as
 * generated now (regenerate with {@code -Dreplay.isa.coverage.update=true} and review the diff).
 *
 * <p>A row's translation is tried on instructions made from its opcode: first with every other field zero
 * (registers s0/v0, no modifiers, no GDS or LDS bit), then with VGPR sources, then a few with seeded random
 * fields; the row is translated when one of them translates without a refusal. Where the translation is the
 * fault the host model raises for the row (s_code_end, the GDS-only DS rows), the matrix says so.
 */
@Tag("unit")
class IsaCoverageTest {
    static final Path DOC = Toolchain.root().resolve("docs/isa-coverage.md");
    private static final int END = 0xBF810000; // s_endpgm
    private static final Pattern TOKEN = Pattern.compile("[a-z][a-z0-9_]*");

    /** What the matrix says of a row. */
    record Row(Opcode op, String host, String fast, boolean translated, String translation, String tests) {
        boolean executed() {
            return !host.equals("—");
        }
    }

    private static List<Row> rows;
    private static double scanSeconds;
    private static double translateSeconds;

    @BeforeAll
    static void build() throws IOException {
        long t0 = System.nanoTime();
        Map<String, boolean[]> named = testMentions();
        long t1 = System.nanoTime();
        SemanticsTable host = SemanticsTable.gfx1030();
        Translator translator = new Translator();
        rows = new ArrayList<>();
        for (Encoding e : Encoding.values()) {
            for (Opcode op : OpcodeTable.gfx1030().rows(e)) {
                Fidelity f = host.handler(op) == null ? Fidelity.UNSUPPORTED : host.fidelity(op);
                String h = switch (f) {
                    case EXACT -> "exact";
                    case APPROXIMATE -> "approximate";
                    case UNSUPPORTED -> "—";
                };
                String fast = host.laneLoop(op) != null ? "lane loop" : host.laneKernel(op) != null ? "lane kernel" : "—";
                String translation = translate(translator, op, host.handler(op) != null);
                boolean[] n = named.getOrDefault(op.mnemonic(), new boolean[3]);
                String tests = (n[0] ? "model " : "") + (n[1] ? "host " : "") + (n[2] ? "translator" : "");
                rows.add(new Row(op, h, fast, translation.startsWith("yes"), translation,
                        tests.isBlank() ? "—" : tests.trim().replace(' ', ',').replace(",", ", ")));
            }
        }
        scanSeconds = (t1 - t0) / 1e9;
        translateSeconds = (System.nanoTime() - t1) / 1e9;
    }

    @Test
    void every_row_the_host_model_executes_has_a_translation() {
        System.out.printf("[isa coverage] %d rows; test sources scanned in %.1f s, rows translated in %.1f s%n",
                rows.size(), scanSeconds, translateSeconds);
        List<String> missing = new ArrayList<>();
        for (Row r : rows) {
            if (r.executed() && !r.translated()) {
                missing.add(r.op().encoding() + " " + r.op().mnemonic() + " (opcode " + r.op().code() + "): "
                        + r.translation());
            }
        }
        assertEquals(List.of(), missing, "rows the host model executes but the translator has no emitter for");
    }

    @Test
    void the_coverage_matrix_in_docs_is_current() throws IOException {
        String text = markdown(rows);
        if (Boolean.getBoolean("replay.isa.coverage.update")) {
            Files.writeString(DOC, text);
        }
        assertTrue(Files.exists(DOC), DOC + " is missing: generate it with -Dreplay.isa.coverage.update=true");
        assertEquals(Files.readString(DOC), text, "docs/isa-coverage.md is stale: regenerate it with "
                + "-Dreplay.isa.coverage.update=true (IsaCoverageTest) and review the diff");
    }

    // ------------------------------------------------------------------ the matrix

    static String markdown(List<Row> rows) {
        StringBuilder b = new StringBuilder();
        b.append("# ISA coverage: every opcode-table row, by consumer\n\n");
        b.append("Generated from the opcode tables (`model/src/main/resources/org/replayfarm/model/isa/*.tsv`), the host\n")
                .append("model's semantics table and the translator by `IsaCoverageTest` (gpu-node), which fails when this\n")
                .append("file is stale. Regenerate after a change to any of them:\n\n")
                .append("```sh\n")
                .append("mvn -o test -pl gpu-node -am -Dtest=IsaCoverageTest -Dsurefire.failIfNoSpecifiedTests=false \\\n")
                .append("    -Dreplay.isa.coverage.update=true\n")
                .append("```\n\n");
        b.append("Columns: **host**: the host model's reference tier executes the row bit for bit (exact) or within a\n")
                .append("documented bound (approximate), or not (—: executing it faults the group); **fast tier**: the\n")
                .append("fast tier runs the row through a pre-resolved lane kernel or its own lane loop (— : it runs the\n")
                .append("reference handler; GLOBAL dword accesses, 1D/2D image_load/store and the BVH intersections have\n")
                .append("their own fast steps, not shown); **translation**: the translator emits CUDA for the row (else why\n")
                .append("not); **tests**: the modules whose tests name the mnemonic (model: decoder and disassembler; host:\n")
                .append("eval-node; translator: gpu-node and cli). A row the host executes without a translation fails\n")
                .append("the test.\n\n");
        b.append("| encoding | rows | host executes | fast tier | translated | named in tests |\n");
        b.append("|---|---:|---:|---:|---:|---:|\n");
        Map<Encoding, int[]> sums = new EnumMap<>(Encoding.class);
        for (Row r : rows) {
            int[] s = sums.computeIfAbsent(r.op().encoding(), x -> new int[5]);
            s[0]++;
            s[1] += r.executed() ? 1 : 0;
            s[2] += r.fast().equals("—") ? 0 : 1;
            s[3] += r.translated() ? 1 : 0;
            s[4] += r.tests().equals("—") ? 0 : 1;
        }
        int[] total = new int[5];
        for (Map.Entry<Encoding, int[]> e : sums.entrySet()) {
            int[] s = e.getValue();
            b.append("| ").append(e.getKey()).append(" | ").append(s[0]).append(" | ").append(s[1]).append(" | ")
                    .append(s[2]).append(" | ").append(s[3]).append(" | ").append(s[4]).append(" |\n");
            for (int i = 0; i < 5; i++) {
                total[i] += s[i];
            }
        }
        b.append("| all | ").append(total[0]).append(" | ").append(total[1]).append(" | ").append(total[2])
                .append(" | ").append(total[3]).append(" | ").append(total[4]).append(" |\n");
        Encoding current = null;
        for (Row r : rows) {
            if (r.op().encoding() != current) {
                current = r.op().encoding();
                b.append("\n## ").append(current).append("\n\n");
                b.append("| opcode | mnemonic | host | fast tier | translation | tests |\n");
                b.append("|---:|---|---|---|---|---|\n");
            }
            b.append("| ").append(r.op().code()).append(" | ").append(r.op().mnemonic()).append(" | ").append(r.host())
                    .append(" | ").append(r.fast()).append(" | ").append(r.translation().replace("|", "\\|"))
                    .append(" | ").append(r.tests()).append(" |\n");
        }
        return b.toString();
    }

    // ------------------------------------------------------------------ translation of a row

    /**
     * How the row translates: "yes" when an instruction of it translates without a refusal (naming the fault
     * it is translated as, where the emitter translates the row as a fault); else "no: " and the refusal of the
     * first instance.
     */
    static String translate(Translator translator, Opcode op, boolean executed) {
        Encoding e = op.encoding();
        // plain instances: every field zero; then VGPR sources (v0) with VOP3P's default op_sel_hi, and SOPK's
        // SIMM16 naming the MODE register (s_setreg/s_getreg); then only the first source a VGPR (v_permlane*);
        // then seeded random fields
        boolean valu3 = e == Encoding.VOP3 || e == Encoding.VOP3P;
        int vgprs = 256 | 256 << 9 | 256 << 18 | (e == Encoding.VOP3P ? 3 << 27 : 0);
        List<int[]> tries = new ArrayList<>(List.of(new int[] {word(e, op.code(), 0), 0, 32},
                new int[] {word(e, op.code(), e == Encoding.VOP3P ? 1 << 14 : e == Encoding.SOPK ? 1 : 256),
                        valu3 ? vgprs : 0, 32},
                new int[] {word(e, op.code(), e == Encoding.VOP3P ? 1 << 14 : 256), valu3 ? 256 : 0, 32}));
        SplittableRandom random = new SplittableRandom(e.ordinal() * 1024L + op.code());
        for (int k = 0; k < 6; k++) {
            tries.add(new int[] {word(e, op.code(), random.nextInt()),
                    random.nextInt() & 0xFF00FFFF | (random.nextInt() & 0x007F0000), k % 2 == 0 ? 64 : 32});
        }
        String first = null;
        // a row the host model does not execute needs only a reason: its plain instance's
        for (int[] t : executed ? tries : tries.subList(0, 1)) {
            String outcome = tryOne(translator, op, t[0], t[1], t[2]);
            if (outcome.startsWith("yes")) {
                return outcome;
            }
            first = first == null ? outcome : first;
        }
        return first;
    }

    private static final Pattern FAULT = Pattern.compile("/\\* ([^\\n]*) \\*/\\n[^\\n]*RT_FAULT_NOW\\(RT_FAULT_UNSUPPORTED");

    private static String tryOne(Translator translator, Opcode op, int w0, int w1, int wave) {
        if (op.encoding() == Encoding.MTBUF) {
            w1 = (w1 & ~(1 << 21)) | ((op.code() >> 3) & 1) << 21;
        }
        ByteBuffer code = ByteBuffer.allocate(32).order(ByteOrder.LITTLE_ENDIAN);
        code.putInt(w0);
        if (op.encoding().baseBytes() == 8) {
            code.putInt(w1);
        }
        while (code.hasRemaining()) {
            code.putInt(END);
        }
        code.flip();
        DecodedProgram p = DecodedProgram.decode(Decoder.gfx1030(), code.duplicate().order(ByteOrder.LITTLE_ENDIAN), 0x1000);
        if (p.instructions().isEmpty() || p.instructions().get(0).opcode() != op) {
            return "no: the instruction made for it does not decode to it";
        }
        Translation t = translator.translate(new ProgramInfo("row", p, code, 0x1000, wave, 256, 65536, 1024));
        if (!t.ok()) {
            Refusal r = t.refusals().get(0);
            return "no: " + r.unit() + " unit: " + r.reason();
        }
        Matcher m = FAULT.matcher(t.source());
        return m.find() ? "yes, as a fault: " + m.group(1) : "yes";
    }

    /** The first dword of an instruction of the encoding with the opcode; {@code r} fills the other fields. */
    static int word(Encoding e, int code, int r) {
        return switch (e) {
            case SOP1 -> 0xBE800000 | (r & 0x7F00FF) | code << 8;
            case SOP2 -> 0x80000000 | (r & 0x007FFFFF) | code << 23;
            case SOPK -> 0xB0000000 | (r & 0x007FFFFF) | code << 23;
            case SOPC -> 0xBF000000 | (r & 0xFFFF) | code << 16;
            case SOPP -> 0xBF800000 | (r & 0xFFFF) | code << 16;
            case SMEM -> 0xF4000000 | (r & 0x0003FFFF) | code << 18;
            case VOP1 -> 0x7E000000 | (r & 0x01FE01FF) | code << 9;
            case VOP2 -> (r & 0x01FFFFFF) | code << 25;
            case VOPC -> 0x7C000000 | (r & 0x1FFFF) | code << 17;
            case VOP3 -> 0xD4000000 | (r & 0xFFFF) | code << 16;
            case VOP3P -> 0xCC000000 | (r & 0xFFFF) | code << 16;
            case DS -> 0xD8000000 | (r & 0x0003FFFF) | code << 18;
            case MUBUF -> 0xE0000000 | (r & 0x0003FFFF) | (code & 0x7F) << 18 | ((code >> 7) & 1) << 25;
            case MTBUF -> 0xE8000000 | (r & 0x03F8FFFF) | (code & 7) << 16;
            case MIMG -> 0xF0000000 | (r & 0x0003FFFE) | (code & 0x7F) << 18 | (code >> 7) & 1;
            case FLAT -> 0xDC000000 | (r & 0x3FFF) | code << 18;
            case SCRATCH -> 0xDC000000 | (r & 0x3FFF) | 1 << 14 | code << 18;
            case GLOBAL -> 0xDC000000 | (r & 0x3FFF) | 2 << 14 | code << 18;
            case EXP -> 0xF8000000 | (r & 0x03FFFFFF);
            case VINTRP -> 0xC8000000 | (r & 0x0300FFFF) | code << 16;
        };
    }

    // ------------------------------------------------------------------ tests naming a row

    /** Per lower-case word of the test sources: named in model's, eval-node's, gpu-node's or cli's tests. */
    private static Map<String, boolean[]> testMentions() throws IOException {
        Map<String, boolean[]> named = new HashMap<>();
        String[][] trees = {{"model"}, {"eval-node"}, {"gpu-node", "cli"}};
        for (int k = 0; k < trees.length; k++) {
            for (String module : trees[k]) {
                Path root = Toolchain.root().resolve(module).resolve("src/test");
                if (!Files.isDirectory(root)) {
                    continue;
                }
                try (Stream<Path> files = Files.walk(root)) {
                    for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile).sorted()::iterator) {
                        if (f.getFileName().toString().equals("IsaCoverageTest.java") || Files.size(f) > 4 << 20) {
                            continue;
                        }
                        String text;
                        try {
                            text = Files.readString(f);
                        } catch (MalformedInputException e) {
                            continue; // a binary file
                        }
                        Matcher m = TOKEN.matcher(text);
                        while (m.find()) {
                            named.computeIfAbsent(m.group(), x -> new boolean[3])[k] = true;
                        }
                    }
                } catch (UncheckedIOException e) {
                    throw e.getCause();
                }
            }
        }
        return named;
    }
}
