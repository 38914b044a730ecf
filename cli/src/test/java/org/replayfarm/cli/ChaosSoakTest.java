package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.cli.chaos.ChaosSoak;
import org.replayfarm.cli.chaos.FaultNet;
import org.replayfarm.cli.chaos.Outputs;
import org.replayfarm.model.testing.Toolchain;

/**
 * The soak as a benchmark ({@code -Dreplay.chaos.soak=MINUTES}, {@code -Dreplay.chaos.nodes=K}, 4 by default;
 * {@code -Dreplay.chaos.seed=S}): {@link ChaosSoak} in a network namespace of its own, jobs submitted steadily
 * while faults from the schedules come and go at random. Prints its figures (jobs submitted, finished equal to
 * replay eval's, failed with a reason, lost, doubled, the worst recovery); holds it to none lost or doubled and
 * no violation of the history's rules. The figures and logs stay under cli/target/network-faults/soak/.
 */
@Tag("cluster")
@EnabledIfSystemProperty(named = "replay.chaos.soak", matches = "[0-9]+")
class ChaosSoakTest {
    @TempDir
    Path dir;

    @Test
    void jobs_under_random_faults_are_none_lost_none_doubled() throws Exception {
        Process check = new ProcessBuilder("unshare", "-n", "true").redirectErrorStream(true).start();
        Assumptions.assumeTrue(check.waitFor(30, TimeUnit.SECONDS) && check.exitValue() == 0,
                "cannot make a network namespace here (unshare -n): the soak needs the privilege to");
        int minutes = Integer.getInteger("replay.chaos.soak");
        int nodes = Integer.getInteger("replay.chaos.nodes", 4);
        long seed = Long.getLong("replay.chaos.seed", 36);
        int groups = 16;
        Path object = Toolchain.compileOpenCl(dir, "spinc", CoordinatorKillTest.SPIN_COUNT, "-O2");
        Path capture = dir.resolve("spinc.capture");
        CliRun built = CliRun.of("capture", "build", "--elf", object.toString(), "--kernel", "spinc", "--groups",
                String.valueOf(groups), "--group-size", "64", "--arg", "zeros:" + groups * 64 * 4, "--arg", "zeros:4",
                "--arg", "u32:20000", "-o", capture.toString());
        assertEquals(0, built.exitCode(), built.err());
        CliRun eval = CliRun.of("eval", capture.toString(), "--every-group", "--out", dir.resolve("ref").toString());
        assertEquals(0, eval.exitCode(), eval.err());
        String digest = Outputs.digest(dir.resolve("ref"));

        Path kept = Path.of(System.getProperty("replayfarm.root", "."), "cli", "target", "network-faults", "soak");
        Files.createDirectories(kept);
        Path work = Files.createDirectories(dir.resolve("soak"));
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process soak = new ProcessBuilder("unshare", "-n", java, "-Xmx512m", "-cp", classpath, ChaosSoak.class.getName(),
                work.toString(), capture.toString(), FaultNet.namespace(), String.valueOf(minutes), String.valueOf(nodes),
                String.valueOf(seed), digest).redirectErrorStream(true).redirectOutput(work.resolve("soak.err").toFile()).start();
        boolean ended = soak.waitFor(minutes * 60L + 900, TimeUnit.SECONDS);
        if (!ended) {
            soak.descendants().forEach(ProcessHandle::destroyForcibly);
            soak.destroyForcibly();
        }
        try (var files = Files.list(work)) {
            for (Path f : files.filter(f -> f.toString().endsWith(".err") || f.toString().endsWith(".jsonl")
                    || f.toString().endsWith(".txt")).toList()) {
                Files.copy(f, kept.resolve(f.getFileName()), StandardCopyOption.REPLACE_EXISTING);
            }
        }
        assertTrue(ended && soak.exitValue() == 0, "the soak did not run to its end:\n" + Files.readString(work.resolve("soak.err")));
        String report = Files.readString(work.resolve("soak.txt"));
        System.out.print(report);
        assertTrue(report.contains(", lost 0, doubled 0"), report);
        assertTrue(report.contains("checker: no violation"), report);
    }
}
