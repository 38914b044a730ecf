package org.replayfarm.gpunode.translate.vector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 13's differential test for the vector ALU: seeded random programs from {@link AluProgramGenerator}
 * run on the host model and through the translation (kernel.cu built with g++), every SGPR, SCC, MODE and
 * every lane of every VGPR compared. Programs are built two at a time (the machine's two cores). The seeds
 * are fixed, so a failure names a program that can be rebuilt; programs that once disagreed are kept under
 * src/test/resources/.../vector/regressions and run first.
 */
@Tag("unit")
class AluDifferentialTest {
    static final int PROGRAMS_PER_WAVE = Integer.getInteger("alu.diff.programs", 8);
    static final int BODY = Integer.getInteger("alu.diff.body", 60);

    @TempDir
    Path dir;

    record Case(String name, int wave, String asm, int instructions) {
    }

    @Test
    void random_programs_agree_with_the_host_model_register_for_register() throws Exception {
        List<Case> cases = new ArrayList<>();
        for (int wave : new int[] {32, 64}) {
            for (int i = 0; i < PROGRAMS_PER_WAVE; i++) {
                long seed = 0x5EED0000L + wave * 1000L + i;
                AluProgramGenerator g = new AluProgramGenerator(wave, seed);
                String asm = g.program(BODY);
                cases.add(new Case("w" + wave + "-seed" + Long.toHexString(seed), wave, asm, g.instructions()));
            }
        }
        List<String> failures = run(cases);
        int instructions = cases.stream().mapToInt(Case::instructions).sum();
        System.out.printf("ALU differential: %d programs, %d instructions, %d disagreeing%n", cases.size(),
                instructions, failures.size());
        assertEquals(List.of(), failures);
    }

    /**
     * Triage of one disagreeing program (-Dalu.triage=WAVE:SEED, e.g. 32:5eed7d00): the shortest prefix of its
     * body that already disagrees, printed with its last instructions as llvm-objdump would list them.
     */
    @Test
    void triage() throws Exception {
        String t = System.getProperty("alu.triage");
        org.junit.jupiter.api.Assumptions.assumeTrue(t != null, "set -Dalu.triage=WAVE:SEED to triage a program");
        for (String one : t.split(",")) {
            triage(Integer.parseInt(one.split(":")[0]), Long.parseLong(one.split(":")[1], 16));
        }
    }

    private void triage(int wave, long seed) throws Exception {
        int lo = 0;
        int hi = BODY;
        while (lo + 1 < hi) {
            int mid = (lo + hi) / 2;
            AluProgramGenerator g = new AluProgramGenerator(wave, seed);
            List<String> f = run(List.of(new Case("t" + mid, wave, g.program(mid), 0)));
            if (f.isEmpty()) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        AluProgramGenerator g = new AluProgramGenerator(wave, seed);
        Case c = new Case("t" + hi, wave, g.program(hi), 0);
        List<String> f = run(List.of(c));
        VectorRig rig = new VectorRig(dir, wave, AluProgramGenerator.VREGS);
        List<String> listing = rig.build("l" + hi, c.asm()).translation().listing();
        System.out.println("TRIAGE first disagreeing prefix: " + hi + " instructions; " + f);
        listing.stream().filter(l -> l.contains("//")).skip(Math.max(0, listing.size() - 8)).forEach(
                l -> System.out.println("TRIAGE " + l));
    }

    static final int THROUGH_RUNNER_PER_WAVE = Integer.getInteger("alu.diff.runner", 1);

    /**
     * The same kind of programs (other seeds) through the translator's cuda-cpu runner (the lead's
     * {@link org.replayfarm.gpunode.translate.Differential}: the CPU build cached by program hash, run as its
     * own process over the launch bundle), every range byte and every wave's registers compared.
     */
    @Test
    void random_programs_through_the_cuda_cpu_runner_agree_with_the_host_model() throws Exception {
        List<String> failures = new ArrayList<>();
        int instructions = 0;
        int programs = 0;
        for (int wave : new int[] {32, 64}) {
            for (int i = 0; i < THROUGH_RUNNER_PER_WAVE; i++) {
                long seed = 0xC0DE0000L + wave * 1000L + i;
                AluProgramGenerator g = new AluProgramGenerator(wave, seed);
                String asm = g.program(BODY);
                instructions += g.instructions();
                programs++;
                Path d = Files.createDirectories(dir.resolve("runner-" + wave + "-" + i));
                var c = org.replayfarm.gpunode.translate.Differential.assemble(d, asm, wave, wave, 1, List.of(), 0, 0);
                var host = org.replayfarm.gpunode.translate.Differential.host(c, 1_000_000);
                var dev = org.replayfarm.gpunode.translate.Differential.device(c, d, 1_000_000);
                List<String> diff = org.replayfarm.gpunode.translate.Differential.differences(host, dev, wave, wave);
                if (!diff.isEmpty()) {
                    failures.add("w" + wave + "-seed" + Long.toHexString(seed) + ": " + diff.subList(0,
                            Math.min(6, diff.size())));
                }
            }
        }
        System.out.printf("ALU differential through cuda-cpu: %d programs, %d instructions, %d disagreeing%n",
                programs, instructions, failures.size());
        assertEquals(List.of(), failures);
    }

    List<String> run(List<Case> cases) throws Exception {
        List<String> failures = new ArrayList<>();
        List<Object[]> pending = new ArrayList<>();
        for (Case c : cases) {
            VectorRig rig = new VectorRig(dir, c.wave(), AluProgramGenerator.VREGS);
            VectorRig.Built b = rig.build(c.name(), c.asm());
            if (!b.translation().ok()) {
                failures.add(c.name() + ": refused: " + b.translation().refusals());
                continue;
            }
            Path d = rig.writeTranslation(c.name(), b);
            pending.add(new Object[] {c, rig, b, d, VectorRig.compile(d)});
            if (pending.size() == 2) {
                finish(pending, failures);
            }
        }
        finish(pending, failures);
        return failures;
    }

    private void finish(List<Object[]> pending, List<String> failures) throws Exception {
        for (Object[] p : pending) {
            Case c = (Case) p[0];
            VectorRig rig = (VectorRig) p[1];
            VectorRig.Built b = (VectorRig.Built) p[2];
            Path d = (Path) p[3];
            VectorRig.await((Process) p[4], d);
            List<String> diff = VectorRig.diff(rig.host(b), rig.device(d), c.wave());
            if (!diff.isEmpty()) {
                Files.writeString(dir.resolve(c.name() + ".diff"), String.join("\n", diff));
                failures.add(c.name() + " (" + d + "): " + diff.size() + " differences, first: "
                        + diff.subList(0, Math.min(6, diff.size())));
            }
        }
        pending.clear();
    }
}
