package org.replayfarm.model.isa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.model.testing.CorpusCheck;

/**
 * Assembly text goes round: we print seeded random instructions of every encoding as assembly, llvm-mc-19
 * assembles the lines it accepts, and the bytes it encodes must decode and print, with ours, exactly as
 * llvm-mc-19 prints them back.
 */
@Tag("corpus")
class AssemblyRoundTripTest {
    private static final int INSTRUCTIONS = 60_000;
    private static final Pattern ERROR_LINE = Pattern.compile("^[^:]+\\.s:(\\d+):\\d+: error:", Pattern.MULTILINE);
    private static final Pattern ENCODED = Pattern.compile("^\\t(.*?)\\s*; encoding: \\[([^\\]]*)\\]");

    @TempDir
    Path dir;

    @Test
    void assembly_we_print_reassembles_and_prints_back_as_llvm_prints_it_in_wave32() throws Exception {
        roundTrip(Syntax.WAVE32, 11);
    }

    @Test
    void assembly_we_print_reassembles_and_prints_back_as_llvm_prints_it_in_wave64() throws Exception {
        roundTrip(Syntax.WAVE64, 12);
    }

    private void roundTrip(Syntax syntax, long seed) throws Exception {
        List<String> lines = new ArrayList<>();
        Decoder decoder = Decoder.gfx1030();
        SplittableRandom random = new SplittableRandom(seed);
        ByteBuffer words = ByteBuffer.allocate(32).order(ByteOrder.LITTLE_ENDIAN);
        while (lines.size() < INSTRUCTIONS) {
            words.clear();
            for (int i = 0; i < 8; i++) {
                words.putInt(random.nextInt());
            }
            int k = random.nextInt(PREFIXES.length);
            words.putInt(0, PREFIXES[k] | (words.getInt(0) & ~MASKS[k]));
            words.flip();
            try {
                Instruction insn = decoder.decode(words, 0, 0);
                lines.add(Disassembler.text(insn, syntax));
            } catch (DecodeException | IllegalArgumentException refused) {
                // not an instruction we would print: nothing to assemble
            }
        }
        // llvm-mc-19 assembles the lines in parts side by side (one per core); a part's line n is corpus line
        // first + n, and the parts' encodings are read back in order
        int parts = Math.max(1, Math.min(Runtime.getRuntime().availableProcessors(), 4));
        int per = (lines.size() + parts - 1) / parts;
        List<CompletableFuture<Integer>> running = new ArrayList<>();
        for (int p = 0, first = 0; first < lines.size(); p++, first += per) {
            Path source = dir.resolve("corpus-" + p + ".s");
            Files.write(source, lines.subList(first, Math.min(lines.size(), first + per)).stream().map(l -> "\t" + l).toList());
            List<String> cmd = new ArrayList<>(List.of("llvm-mc-19", "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx1030"));
            if (syntax.waveSize() == 64) {
                cmd.add("-mattr=+wavefrontsize64");
            }
            cmd.addAll(List.of("-show-encoding", source.getFileName().toString()));
            ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile())
                    .redirectError(dir.resolve("err-" + p + ".txt").toFile()).redirectOutput(dir.resolve("out-" + p + ".txt").toFile());
            running.add(CompletableFuture.supplyAsync(() -> {
                try {
                    return pb.start().waitFor();
                } catch (Exception e) {
                    throw new AssertionError("cannot run llvm-mc-19", e);
                }
            }, r -> new Thread(r, "llvm-mc").start()));
        }
        running.forEach(CompletableFuture::join);
        Set<Integer> rejected = new HashSet<>();
        TreeMap<String, Integer> reasons = new TreeMap<>();
        List<String[]> encoded = new ArrayList<>();
        for (int p = 0; p < running.size(); p++) {
            String errorText = Files.readString(dir.resolve("err-" + p + ".txt"));
            Matcher errors = ERROR_LINE.matcher(errorText);
            while (errors.find()) {
                rejected.add(p * per + Integer.parseInt(errors.group(1)));
                int end = errorText.indexOf('\n', errors.end());
                String reason = errorText.substring(errors.end(), end < 0 ? errorText.length() : end).trim();
                reasons.merge(reason, 1, Integer::sum);
            }
            for (String line : Files.readAllLines(dir.resolve("out-" + p + ".txt"))) {
                Matcher m = ENCODED.matcher(line);
                if (m.find()) {
                    encoded.add(new String[] {m.group(1), m.group(2)});
                }
            }
        }
        System.out.println("llvm-mc-19 rejected lines, by reason: " + reasons);
        assertEquals(lines.size() - rejected.size(), encoded.size(), "one encoding per accepted line");
        List<byte[]> bytes = new ArrayList<>();
        for (String[] e : encoded) {
            String[] hex = e[1].split(",");
            byte[] b = new byte[hex.length];
            for (int i = 0; i < hex.length; i++) {
                b[i] = (byte) Integer.parseInt(hex[i].trim().substring(2), 16);
            }
            bytes.add(b);
        }
        // llvm-objdump-19 is the reference for what the encoded bytes mean (llvm-mc echoes its input,
        // including modifiers it could not encode, such as dlc on a buffer atomic)
        CorpusCheck.Report r = CorpusCheck.run(bytes, syntax, Disassembler::text, 20);
        TreeMap<String, Integer> byEncoding = new TreeMap<>();
        r.opcodesSeen().keySet().forEach(k -> byEncoding.merge(k.substring(0, k.indexOf(' ')), 1, Integer::sum));
        System.out.printf("assembly round trip wave%d: %d lines printed by us, %d rejected by llvm-mc-19, %d encoded; "
                        + "%s; distinct opcodes per encoding %s%n", syntax.waveSize(), lines.size(), rejected.size(),
                encoded.size(), r.summary(), byEncoding);
        r.mismatches().forEach(m -> System.out.println("  mismatch " + m));
        assertEquals(r.decodedByLlvm(), r.matches(), "every encoded line prints back as llvm-objdump-19 prints it");
        assertTrue(encoded.size() > INSTRUCTIONS / 2, "most printed lines are assembly llvm-mc-19 accepts");
        assertEquals(Encoding.values().length, byEncoding.size(), "every encoding reached: " + byEncoding.keySet());
    }

    /** First-dword prefixes of each encoding (the bits that select it), and the bits they fix. */
    private static final int[] PREFIXES = {0xBE800000, 0xBF000000, 0xBF800000, 0xB0000000, 0x80000000, 0xF4000000,
            0x7E000000, 0x7C000000, 0x02000000, 0xD4000000, 0xD5000000, 0xD6000000, 0xD7000000, 0xCC000000, 0xD8000000,
            0xE0000000, 0xE8000000, 0xF0000000, 0xDC000000, 0xDC004000, 0xDC008000, 0xF8000000, 0xC8000000};
    private static final int[] MASKS = {0xFF800000, 0xFF800000, 0xFF800000, 0xF0000000, 0xC0000000, 0xFC000000,
            0xFE000000, 0xFE000000, 0x80000000, 0xFF000000, 0xFF000000, 0xFF000000, 0xFF000000, 0xFC000000, 0xFC000000,
            0xFC000000, 0xFC000000, 0xFC000000, 0xFC00C000, 0xFC00C000, 0xFC00C000, 0xFC000000, 0xFC000000};
}
