package org.replayfarm.model.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What llvm-objdump-19 makes of candidate instruction bytes. Each candidate is placed at the start of its own
 * slot, followed by {@link #PAD} bytes of {@code s_nop 0}: whatever llvm makes of the bytes of a candidate it
 * refuses (it steps a dword and decodes again), an instruction starting inside the candidate ends within
 * {@link #LONGEST} bytes, so inside the padding, and the next slot starts at an instruction boundary. The slots
 * are assembled into an object with llvm-mc-19 ({@code .incbin} of the bytes, nothing to parse) and disassembled
 * with llvm-objdump-19; the line at each slot's address is the oracle's text for that candidate, or null when
 * llvm does not decode it ({@code .long}). A slot with no line of its own is an error, never a silent skip.
 *
 * <p>A large batch is cut into parts that run at once, one pair of processes per core (the test JVM waits
 * meanwhile), in the order given.
 */
public final class LlvmOracle {
    /** The longest instruction llvm may decode from any dword of a candidate (bytes). */
    public static final int LONGEST = 28;
    /** The {@code s_nop 0} padding after each candidate: an instruction starting at its last dword ends within it. */
    public static final int PAD = LONGEST - 4;
    /** The longest candidate: no longer than the longest instruction, so the padding's bound holds for it too. */
    private static final int MAX_CANDIDATE = LONGEST;
    /** Below this many candidates a batch runs as one part. */
    private static final int PART_MIN = 2_000;
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
        for (byte[] c : candidates) {
            if (c.length > MAX_CANDIDATE || c.length % 4 != 0 || c.length == 0) {
                throw new IllegalArgumentException("a candidate must be whole dwords and at most " + MAX_CANDIDATE + " bytes");
            }
        }
        int parts = candidates.size() < PART_MIN ? 1
                : Math.max(1, Math.min(Runtime.getRuntime().availableProcessors(), candidates.size() / PART_MIN));
        if (parts == 1) {
            return inTempDir(candidates, wave64);
        }
        List<CompletableFuture<List<Verdict>>> running = new ArrayList<>();
        int per = (candidates.size() + parts - 1) / parts;
        for (int from = 0; from < candidates.size(); from += per) {
            List<byte[]> part = candidates.subList(from, Math.min(candidates.size(), from + per));
            // a thread each: the common pool may hold fewer threads than parts
            running.add(CompletableFuture.supplyAsync(() -> inTempDir(part, wave64), r -> new Thread(r, "llvm-oracle").start()));
        }
        List<Verdict> all = new ArrayList<>(candidates.size());
        try {
            for (CompletableFuture<List<Verdict>> f : running) {
                all.addAll(f.join());
            }
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            if (e.getCause() instanceof Error err) {
                throw err;
            }
            throw e;
        }
        return all;
    }

    private static List<Verdict> inTempDir(List<byte[]> candidates, boolean wave64) {
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
        long[] starts = new long[candidates.size()];
        int total = 0;
        for (byte[] c : candidates) {
            total += c.length + PAD;
        }
        byte[] image = new byte[total];
        int at = 0;
        for (int i = 0; i < candidates.size(); i++) {
            byte[] c = candidates.get(i);
            starts[i] = at;
            System.arraycopy(c, 0, image, at, c.length);
            for (int p = at + c.length; p < at + c.length + PAD; p += 4) {
                image[p + 2] = (byte) 0x80; // s_nop 0 = 0xBF800000, little-endian
                image[p + 3] = (byte) 0xBF;
            }
            at += c.length + PAD;
        }
        Files.write(dir.resolve("c.bin"), image);
        Files.writeString(dir.resolve("c.s"), ".text\n.incbin \"c.bin\"\n");
        Toolchain.run(dir, "llvm-mc-19", "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx1030", "-filetype=obj", "c.s", "-o", "c.o");
        List<String> cmd = new ArrayList<>(List.of("llvm-objdump-19", "-d", "--mcpu=gfx1030"));
        if (wave64) {
            cmd.add("--mattr=+wavefrontsize64");
        }
        cmd.add("c.o");
        String out = Toolchain.run(dir, cmd);
        Map<Long, Integer> slotAt = new HashMap<>(candidates.size() * 2);
        for (int i = 0; i < starts.length; i++) {
            slotAt.put(starts[i], i);
        }
        String[][] hits = new String[candidates.size()][];
        int from = 0;
        while (from < out.length()) {
            int end = out.indexOf('\n', from);
            if (end < 0) {
                end = out.length();
            }
            // the padding's lines are most of the output: only a line at a slot's address goes through the pattern
            int comment = out.indexOf("// ", from);
            if (out.charAt(from) == '\t' && comment >= 0 && comment + 15 <= end) {
                Integer slot = slotAt.get(parseHex(out, comment + 3, comment + 15));
                if (slot != null) {
                    Matcher m = LINE.matcher(out.substring(from, end));
                    if (m.matches()) {
                        hits[slot] = new String[] {m.group(1), m.group(3)};
                    }
                }
            }
            from = end + 1;
        }
        List<Verdict> verdicts = new ArrayList<>(candidates.size());
        for (int i = 0; i < candidates.size(); i++) {
            String[] hit = hits[i];
            if (hit == null) {
                throw new IllegalStateException("llvm-objdump printed no line at slot " + i + " (address 0x"
                        + Long.toHexString(starts[i]) + ")");
            }
            boolean refused = hit[0].startsWith(".long");
            int length = hit[1].trim().split(" ").length * 4;
            verdicts.add(new Verdict(candidates.get(i), refused ? null : hit[0], refused ? 0 : length));
        }
        return verdicts;
    }

    /** The hexadecimal number in {@code s[from, to)}, or -1 when it is not one. */
    private static long parseHex(String s, int from, int to) {
        long v = 0;
        for (int i = from; i < to; i++) {
            int d = Character.digit(s.charAt(i), 16);
            if (d < 0) {
                return -1;
            }
            v = v << 4 | d;
        }
        return v;
    }
}
