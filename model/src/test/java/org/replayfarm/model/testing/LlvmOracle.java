package org.replayfarm.model.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What llvm-objdump-19 makes of candidate instruction bytes. Each candidate is placed at the start of
 * its own 64-byte slot (padded with {@code s_nop 0}; wide enough that whatever llvm makes of the bytes
 * after a candidate it refuses cannot reach the next slot), the slots are assembled into an object with
 * llvm-mc-19 and disassembled with llvm-objdump-19; the line at each slot's address is the oracle's
 * text for that candidate, or null when llvm does not decode it ({@code .long}).
 */
public final class LlvmOracle {
    public static final int SLOT = 64;
    private static final int MAX_CANDIDATE = 28;
    private static final Pattern LINE = Pattern.compile("^\\t(.*?)\\s*//\\s*([0-9A-F]{12}):((?: [0-9A-F]{8})+)(?: <.*>)?(?: ; Warning: .*)?$");

    /** One candidate's verdict: llvm's text and the bytes it took, or text null when llvm refused it. */
    public record Verdict(byte[] candidate, String text, int length) {
        public boolean decoded() {
            return text != null;
        }
    }

    private LlvmOracle() {
    }

    public static List<Verdict> disassemble(List<byte[]> candidates, boolean wave64) {
        try {
            Path dir = Files.createTempDirectory("oracle");
            try {
                return run(dir, candidates, wave64);
            } finally {
                try (var files = Files.list(dir)) {
                    for (Path f : files.toList()) {
                        Files.deleteIfExists(f);
                    }
                }
                Files.deleteIfExists(dir);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<Verdict> run(Path dir, List<byte[]> candidates, boolean wave64) throws IOException {
        StringBuilder s = new StringBuilder(candidates.size() * 170);
        for (byte[] c : candidates) {
            if (c.length > MAX_CANDIDATE || c.length % 4 != 0) {
                throw new IllegalArgumentException("a candidate must be whole dwords and at most " + MAX_CANDIDATE + " bytes");
            }
            s.append(".byte ");
            for (int i = 0; i < SLOT; i++) {
                int b = i < c.length ? c[i] & 0xFF : (i % 4 == 3 ? 0xBF : i % 4 == 2 ? 0x80 : 0);
                s.append(i == 0 ? "" : ",").append(b);
            }
            s.append('\n');
        }
        Files.writeString(dir.resolve("c.s"), s);
        Toolchain.run(dir, "llvm-mc-19", "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx1030", "-filetype=obj", "c.s", "-o", "c.o");
        List<String> cmd = new ArrayList<>(List.of("llvm-objdump-19", "-d", "--mcpu=gfx1030"));
        if (wave64) {
            cmd.add("--mattr=+wavefrontsize64");
        }
        cmd.add("c.o");
        String out = Toolchain.run(dir, cmd);
        Map<Long, String[]> byAddress = new HashMap<>();
        for (String line : out.split("\n")) {
            Matcher m = LINE.matcher(line);
            if (m.matches()) {
                long address = Long.parseLong(m.group(2), 16);
                if (address % SLOT == 0) {
                    byAddress.put(address, new String[] {m.group(1), m.group(3)});
                }
            }
        }
        List<Verdict> verdicts = new ArrayList<>(candidates.size());
        for (int i = 0; i < candidates.size(); i++) {
            String[] hit = byAddress.get((long) i * SLOT);
            if (hit == null) {
                throw new IllegalStateException("llvm-objdump printed no line at slot " + i);
            }
            boolean refused = hit[0].startsWith(".long");
            int length = hit[1].trim().split(" ").length * 4;
            verdicts.add(new Verdict(candidates.get(i), refused ? null : hit[0], refused ? 0 : length));
        }
        return verdicts;
    }
}
