package org.replayfarm.gpunode.translate.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.gpunode.translate.Differential;
import org.replayfarm.model.capture.CaptureFile;

/**
 * The memory unit's differential test (issue 13): seeded random programs of DS, GLOBAL, FLAT, SCRATCH and
 * MUBUF instructions over random addresses, offsets, data and EXEC masks, wave32 and wave64, run on the
 * host model and through the translation on the CPU runner; every range byte (the programs dump their
 * VGPRs, LDS and private memory into range 2), every register of the final wave state and the fault must
 * agree. Prints how many programs and instructions ran.
 */
@Tag("unit")
class MemoryDifferentialTest {
    /** Seeds per wave size; each program runs PROGRAM_LENGTH random memory instructions. */
    static final int PROGRAMS = Integer.getInteger("replay.memdiff.programs", 2);
    /**
     * Programs that found a bug, kept as regressions (seed, wave size): 64001, wave64 ds_bpermute_b32 across
     * the 32-lane halves (the host model and the native harness addressed lanes modulo 64).
     */
    static final long[][] REGRESSIONS = {{64001, 64}};
    static final int PROGRAM_LENGTH = Integer.getInteger("replay.memdiff.length", 50);

    @TempDir
    Path dir;

    /** Programs whose seed is a multiple of 3 have a second wave and barriers. */
    static boolean twoWaves(long seed) {
        return seed % 3 == 0;
    }

    static List<String> run(Path dir, long seed, int wave, boolean exec, int length) throws Exception {
        MemoryDifferential.Built b = MemoryDifferential.build(dir, seed, wave, exec, twoWaves(seed), length);
        CaptureFile capture = CaptureFile.open(b.capture());
        Differential.Side merged = Differential.host(capture, 1_000_000);
        // one group: its own view of memory is the exact sequential result (MemoryMerge replays a group's
        // atomics per location, which mixes up overlapping atomics of different widths: see the report)
        MemoryDifferential.Outcome own = MemoryDifferential.host(b.capture());
        java.util.Map<Integer, byte[]> ranges = new java.util.LinkedHashMap<>();
        for (int i = 0; i < own.ranges().size(); i++) {
            ranges.put(i, own.ranges().get(i));
        }
        Differential.Side host = new Differential.Side(ranges, merged.waves(), merged.faults(), merged.waveInstructions());
        Differential.Side device = Differential.device(capture, dir, 1_000_000);
        List<String> diffs = Differential.differences(host, device, b.program().lanes(), wave);
        List<String> out = new ArrayList<>();
        for (String d : diffs.subList(0, Math.min(Integer.getInteger("replay.memdiff.show", 12), diffs.size()))) {
            out.add("seed " + seed + " wave" + wave + ": " + d);
        }
        if (!diffs.isEmpty()) {
            out.add("  program:\n" + b.program().asm());
        }
        return out;
    }

    /** Triage aid: -Dreplay.memdiff.bisect=SEED:WAVE finds the shortest prefix of that program that differs. */
    @Test
    void bisect() throws Exception {
        String spec = System.getProperty("replay.memdiff.bisect");
        org.junit.jupiter.api.Assumptions.assumeTrue(spec != null, "no program to bisect");
        long seed = Long.parseLong(spec.split(":")[0]);
        int wave = Integer.parseInt(spec.split(":")[1]);
        boolean exec = seed % 2 == 0;
        int lo = 0;
        int hi = PROGRAM_LENGTH;
        while (lo + 1 < hi) {
            int mid = (lo + hi) / 2;
            if (run(dir, seed, wave, exec, mid).isEmpty()) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        List<String> d = run(dir, seed, wave, exec, hi);
        java.nio.file.Files.write(java.nio.file.Path.of("target", "memory-bisect.txt"), d);
        System.out.println("first difference after " + hi + " instructions");
    }

    @Test
    void randomMemoryProgramsAgreeWithTheHostModel() throws Exception {
        List<String> failures = new ArrayList<>();
        java.util.Set<Long> ran = new java.util.HashSet<>();
        int programs = 0;
        long instructions = 0;
        long first = Long.getLong("replay.memdiff.first", 1);
        for (int wave : new int[] {32, 64}) {
            for (long seed = first; seed < first + PROGRAMS; seed++) {
                failures.addAll(run(dir, 1000 * wave + seed, wave, seed % 2 == 0, PROGRAM_LENGTH));
                ran.add(1000 * wave + seed);
                programs++;
                instructions += PROGRAM_LENGTH;
            }
        }
        for (long[] reg : REGRESSIONS) {
            if (ran.add(reg[0])) {
                failures.addAll(run(dir, reg[0], (int) reg[1], reg[0] % 2 == 0, PROGRAM_LENGTH));
                programs++;
                instructions += PROGRAM_LENGTH;
            }
        }
        System.out.printf("memory differential: %d programs, %d random memory instructions, %d differences%n",
                programs, instructions, failures.size());
        java.nio.file.Files.write(java.nio.file.Path.of("target", "memory-differential.txt"), failures);
        assertEquals(List.of(), failures);
    }
}
