package org.replayfarm.gpunode.translate.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.replayfarm.gpunode.translate.ProgramInfo;
import org.replayfarm.gpunode.translate.Translation;
import org.replayfarm.gpunode.translate.Translator;
import org.replayfarm.model.isa.DecodedProgram;
import org.replayfarm.model.isa.Decoder;
import org.replayfarm.model.isa.Encoding;
import org.replayfarm.model.isa.Instruction;
import org.replayfarm.model.isa.Opcode;
import org.replayfarm.model.isa.OpcodeTable;

/**
 * Every DS, FLAT, GLOBAL, SCRATCH and non-format MUBUF row of the tables, in the operand forms that change
 * the translation (SADDR off and an SGPR pair, GLC, IDXEN/OFFEN, TFE, offsets), is translated by the memory
 * unit without a refusal, for wave32 and wave64; the kernel compiles with g++ (the CPU runner's flags) and
 * with nvcc for sm_90.
 */
@Tag("corpus")
class MemoryEmitterTest {
    private static final int ENDPGM = 0xBF810000;

    /** Dwords of every memory row in several operand forms, each followed by nothing (one program). */
    static List<int[]> instructions() {
        OpcodeTable t = OpcodeTable.gfx1030();
        List<int[]> out = new ArrayList<>();
        for (Opcode op : t.rows(Encoding.DS)) {
            for (int form = 0; form < 2; form++) {
                int w0 = 0x36 << 26 | op.code() << 18 | (form == 0 ? 0x0410 : 0x80FF);
                int w1 = (form == 0 ? 10 : 20) << 24 | 3 << 16 | 2 << 8 | 1;
                out.add(new int[] {w0, w1});
            }
        }
        int[] segs = {0, 1, 2};
        Encoding[] encs = {Encoding.FLAT, Encoding.SCRATCH, Encoding.GLOBAL};
        for (int s = 0; s < 3; s++) {
            for (Opcode op : t.rows(encs[s])) {
                for (int form = 0; form < 3; form++) {
                    boolean glc = form != 1;
                    int saddr = switch (encs[s]) {
                        case GLOBAL -> form == 0 ? 0x7d : 4;
                        case SCRATCH -> form == 0 ? 0x7d : form == 1 ? 6 : 0x7f;
                        default -> 0x7d;
                    };
                    int offset = form == 2 ? 0x7F0 : 0x010;
                    int w0 = 0x37 << 26 | op.code() << 18 | (glc ? 1 << 16 : 0) | segs[s] << 14 | offset;
                    int w1 = 12 << 24 | saddr << 16 | 6 << 8 | 2;
                    out.add(new int[] {w0, w1});
                }
            }
        }
        for (Opcode op : t.rows(Encoding.MUBUF)) {
            if (op.mnemonic().contains("_format_")) {
                continue;
            }
            for (int form = 0; form < 4; form++) {
                boolean idxen = (form & 1) != 0;
                boolean offen = (form & 2) != 0;
                boolean atomic = op.has("atomic");
                boolean glc = atomic ? form >= 2 : form == 3;
                boolean tfe = op.has("load") && form == 1;
                int w0 = 0x38 << 26 | (op.code() >> 7) << 25 | (op.code() & 0x7F) << 18 | (glc ? 1 << 14 : 0)
                        | (idxen ? 1 << 13 : 0) | (offen ? 1 << 12 : 0) | 0x24;
                int w1 = (form == 0 ? 0x80 : 5) << 24 | (tfe ? 1 << 23 : 0) | 2 << 16 | 10 << 8 | 2;
                out.add(new int[] {w0, w1});
            }
        }
        return out;
    }

    static ProgramInfo program(List<int[]> words, int waveSize, int vgprs) {
        int n = 1;
        for (int[] w : words) {
            n += w.length;
        }
        ByteBuffer code = ByteBuffer.allocate(4 * n).order(ByteOrder.LITTLE_ENDIAN);
        for (int[] w : words) {
            for (int d : w) {
                code.putInt(d);
            }
        }
        code.putInt(ENDPGM);
        code.flip();
        long base = 0x1000;
        DecodedProgram p = DecodedProgram.decode(Decoder.gfx1030(), code.duplicate().order(ByteOrder.LITTLE_ENDIAN), base);
        return new ProgramInfo("memory_rows", p, code, base, waveSize, vgprs, 65536, 64);
    }

    static Path write(Translation tr, String name) {
        try {
            Path dir = Paths.get("target", "rt-cache", name).toAbsolutePath();
            Files.createDirectories(dir);
            Files.writeString(dir.resolve("kernel.cu"), tr.source());
            for (Map.Entry<String, String> h : tr.headers().entrySet()) {
                Files.writeString(dir.resolve(h.getKey()), h.getValue());
            }
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void everyMemoryRowIsTranslatedAndCompilesForTheCpuAndSm90() {
        List<int[]> words = instructions();
        for (int wave : new int[] {32, 64}) {
            ProgramInfo p = program(words, wave, 32);
            assertTrue(p.program().errors().isEmpty(), "the test's encodings decode: " + p.program().errors());
            int memory = 0;
            for (Instruction i : p.program().instructions()) {
                memory += i.mnemonic().equals("s_endpgm") ? 0 : 1;
            }
            assertEquals(words.size(), memory);
            Translation tr = new Translator().translate(p);
            assertEquals(List.of(), tr.refusals().stream().map(Throwable::getMessage).toList());
            assertEquals(memory, tr.coverage().get("memory").translated());
            Path dir = write(tr, "memory-rows-w" + wave);
            List<String> gxx = new ArrayList<>(List.of("g++"));
            gxx.addAll(RtBuild.CPU_FLAGS);
            gxx.addAll(List.of("-x", "c++", "-c", dir.resolve("kernel.cu").toString(), "-o", dir.resolve("kernel.o").toString()));
            RtBuild.run(gxx, null, 600);
            if (RtBuild.hasNvcc()) {
                List<String> nvcc = new ArrayList<>(List.of(RtBuild.nvccPath()));
                nvcc.addAll(RtBuild.GPU_FLAGS);
                nvcc.addAll(List.of("-c", dir.resolve("kernel.cu").toString(), "-o", dir.resolve("kernel-sm90.o").toString()));
                RtBuild.run(nvcc, null, 600);
            }
        }
        Assumptions.assumeTrue(RtBuild.hasNvcc(), "nvcc is not installed: only the g++ build was checked");
    }
}
