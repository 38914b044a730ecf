package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The alert rules shipped in deploy/prometheus are read by Prometheus' own {@code promtool}: they parse, and
 * their rule tests (series in, alerts out: a downed node, stalled jobs, resent slices, no coordinator) pass.
 * Skips, saying so, where promtool is not installed ({@code ./run-tests} installs Debian's prometheus).
 */
@Tag("unit")
class PrometheusRulesTest {
    static final Path DIR = Path.of(System.getProperty("replayfarm.root", ".."), "deploy", "prometheus");

    @BeforeAll
    static void needsPromtool() {
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/promtool")),
                "promtool is not installed (Debian's prometheus: ./run-tests installs it)");
    }

    @Test
    void the_rules_parse() throws Exception {
        String out = promtool("check", "rules", "replay-farm.rules.yml");
        assertTrue(out.contains("SUCCESS"), out);
    }

    @Test
    void the_rule_tests_pass() throws Exception {
        promtool("test", "rules", "replay-farm.rules.test.yml");
    }

    private static String promtool(String... args) throws Exception {
        String[] argv = new String[args.length + 1];
        argv[0] = "/usr/bin/promtool";
        System.arraycopy(args, 0, argv, 1, args.length);
        Process p = new ProcessBuilder(argv).directory(DIR.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "promtool " + String.join(" ", args) + " did not end");
        assertEquals(0, p.exitValue(), "promtool " + String.join(" ", args) + ":\n" + out);
        return out;
    }
}
