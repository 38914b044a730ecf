package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.model.testing.Toolchain;
import org.replayfarm.model.testing.Await;

/** {@code replay run} (an embedded cluster) writes what {@code replay eval} writes, and exits the same way. */
@Tag("cluster")
class RunCommandTest {
    @TempDir
    Path dir;

    @Test
    void replay_run_writes_the_same_files_as_replay_eval_on_the_example() throws Exception {
        Path capture = Toolchain.root().resolve("examples/saxpy/saxpy.capture");
        CliRun eval = CliRun.of("eval", capture.toString(), "--every-group", "--threads", "2", "--out", dir.resolve("eval").toString());
        CliRun run = CliRun.of("run", capture.toString(), "--every-group", "--evaluators", "2", "--out", dir.resolve("run").toString());
        assertEquals(0, eval.exitCode(), eval.err());
        assertEquals(0, run.exitCode(), run.out() + run.err());
        assertHoldsEvalFiles(dir.resolve("eval"), dir.resolve("run"));
        List<String> evalLines = eval.out().lines().filter(l -> !l.startsWith("groups") && !l.startsWith("output")
                && !l.startsWith("capture")).toList();
        assertTrue(run.out().lines().toList().containsAll(evalLines), run.out());
    }

    @Test
    void a_faulted_group_gives_exit_status_1_as_replay_eval_and_group_lists_are_checked() throws Exception {
        Path s = dir.resolve("k.s");
        Files.writeString(s, EvalCommandTest.STORE_ID);
        Path capture = dir.resolve("k.capture");
        CliRun built = CliRun.of("capture", "build", "--asm", s.toString(), "--groups", "6", "--group-size", "1",
                "--arg", "zeros:64", "--workgroup-id-sgpr", "2", "-o", capture.toString());
        assertEquals(0, built.exitCode(), built.err());
        CliRun eval = CliRun.of("eval", capture.toString(), "--group", "5", "--group", "2", "--group", "0",
                "--threads", "1", "--out", dir.resolve("eval").toString());
        CliRun run = CliRun.of("run", capture.toString(), "--group", "5", "--group", "2", "--group", "0",
                "--evaluators", "1", "--out", dir.resolve("run").toString());
        assertEquals(1, eval.exitCode(), eval.out() + eval.err());
        assertEquals(1, run.exitCode(), run.out() + run.err());
        assertTrue(run.out().contains("group (2, 0, 0) wave 0 lane 0 pc 0x"), run.out());
        assertTrue(run.out().contains("result          host incomplete (exit status 1)"), run.out());
        assertHoldsEvalFiles(dir.resolve("eval"), dir.resolve("run"));

        CliRun outside = CliRun.of("run", capture.toString(), "--group", "6", "--out", dir.resolve("x").toString());
        assertEquals(2, outside.exitCode());
        assertTrue(outside.err().contains("group (6, 0, 0) is outside the dispatch of 6 x 1 x 1 groups"), outside.err());
    }

    /**
     * The embedded node's metrics endpoint takes a free port, so the run names it on stderr: scraped the moment the
     * line is printed (the node is up, the job about to start), it answers with this node's series.
     */
    @Test
    void replay_run_names_its_metrics_endpoint_and_it_serves_while_the_run_lasts() throws Exception {
        Path capture = Toolchain.root().resolve("examples/saxpy/saxpy.capture");
        java.util.List<String> scraped = new java.util.ArrayList<>();
        CliRun run = CliRun.ofAtErrLine(java.util.regex.Pattern.compile("; metrics at (http://\\S+/metrics)\n"), m -> {
            try {
                var http = java.net.http.HttpClient.newHttpClient();
                var r = http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(m.group(1))).build(),
                        java.net.http.HttpResponse.BodyHandlers.ofString());
                scraped.add(r.statusCode() + "\n" + r.body());
            } catch (Exception e) {
                scraped.add("failed: " + e);
            }
        }, "run", capture.toString(), "--every-group", "--evaluators", "1", "--out", dir.resolve("m").toString());
        assertEquals(0, run.exitCode(), run.out() + run.err());
        assertTrue(run.err().contains("replay run: evaluating 16 group(s) on 1 evaluator thread(s); metrics at "
                + "http://127.0.0.1:"), run.err());
        assertEquals(1, scraped.size(), run.err());
        // before Kamon's first tick (5 s) the endpoint says it has no snapshot yet; after it, the node's series
        assertTrue(scraped.get(0).startsWith("200\n") && (scraped.get(0).contains("# no metrics yet")
                        || scraped.get(0).contains("jvm_memory_used_bytes")),
                scraped.get(0).lines().limit(5).toList().toString());

        CliRun off = CliRun.of("run", capture.toString(), "--every-group", "--no-metrics", "--out", dir.resolve("n").toString());
        assertEquals(0, off.exitCode(), off.err());
        assertTrue(off.err().contains("evaluator thread(s)\n") && !off.err().contains("metrics at"), off.err());
    }

    /**
     * replay run writes every file replay eval writes, byte for byte, and its report (run-report/2) holds
     * every field of eval's (eval-report/1) with the same value, the schema name and wall time aside.
     */
    static void assertHoldsEvalFiles(Path eval, Path run) throws Exception {
        assertHoldsEvalFiles(eval, run, false);
    }

    /** As above; {@code anyThreads}: the report's thread count may differ too (a cluster of other nodes). */
    static void assertHoldsEvalFiles(Path eval, Path run, boolean anyThreads) throws Exception {
        List<Path> files;
        try (Stream<Path> w = Files.walk(eval)) {
            files = w.filter(Files::isRegularFile).map(eval::relativize).sorted().toList();
        }
        for (Path f : files) {
            if (f.toString().equals("report.json")) {
                ObjectMapper json = new ObjectMapper();
                ObjectNode a = (ObjectNode) json.readTree(eval.resolve(f).toFile());
                ObjectNode b = (ObjectNode) json.readTree(run.resolve(f).toFile());
                assertEquals("replay-farm/run-report/2", b.get("schema").asText());
                for (var names = a.fieldNames(); names.hasNext(); ) {
                    String name = names.next();
                    if (!name.equals("schema") && !name.equals("wall_time_seconds") && !(anyThreads && name.equals("threads"))) {
                        assertEquals(a.get(name), b.get(name), "report.json field " + name);
                    }
                }
            } else {
                assertArrayEquals(Files.readAllBytes(eval.resolve(f)), Files.readAllBytes(run.resolve(f)), f.toString());
            }
        }
    }

    /** Every file byte for byte; report.json's wall time aside (it says how long, not what). */
    static void assertSameFiles(Path expected, Path actual) throws Exception {
        assertSameFiles(expected, actual, false);
    }

    /** As above; {@code anyThreads}: the report's thread count may differ too (a cluster of other nodes). */
    static void assertSameFiles(Path expected, Path actual, boolean anyThreads) throws Exception {
        List<Path> files;
        try (Stream<Path> w = Files.walk(expected)) {
            files = w.filter(Files::isRegularFile).map(expected::relativize).sorted().toList();
        }
        try (Stream<Path> w = Files.walk(actual)) {
            assertEquals(files, w.filter(Files::isRegularFile).map(actual::relativize).sorted().toList());
        }
        for (Path f : files) {
            if (f.toString().equals("report.json")) {
                ObjectMapper json = new ObjectMapper();
                ObjectNode a = (ObjectNode) json.readTree(expected.resolve(f).toFile());
                ObjectNode b = (ObjectNode) json.readTree(actual.resolve(f).toFile());
                assertTrue(b.get("wall_time_seconds").asDouble() > 0);
                a.put("wall_time_seconds", 0.0);
                if (anyThreads) {
                    a.put("threads", 0);
                    b.put("threads", 0);
                }
                b.put("wall_time_seconds", 0.0);
                assertEquals(json.writerWithDefaultPrettyPrinter().writeValueAsString(a),
                        json.writerWithDefaultPrettyPrinter().writeValueAsString(b));
            } else {
                assertArrayEquals(Files.readAllBytes(expected.resolve(f)), Files.readAllBytes(actual.resolve(f)), f.toString());
            }
        }
    }

    /**
     * SIGTERM while a slice runs stops replay run at once (it took 57 s: the embedded evaluator drained,
     * finishing its slice first), says so, writes no report and leaves no work directory behind.
     */
    @Test
    void replay_run_exits_promptly_on_sigterm_while_a_slice_runs() throws Exception {
        Path s = dir.resolve("spin.s");
        Files.writeString(s, "loop:\ns_branch loop\ns_endpgm\n");
        Path capture = dir.resolve("spin.capture");
        CliRun built = CliRun.of("capture", "build", "--asm", s.toString(), "--groups", "2", "--group-size", "1",
                "--arg", "zeros:64", "-o", capture.toString());
        assertEquals(0, built.exitCode(), built.err());
        Path tmp = Files.createDirectories(dir.resolve("tmp"));
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Path err = dir.resolve("run.err");
        // each group loops under a budget of 1e12 instructions: the run cannot end before the SIGTERM on any machine
        Process p = new ProcessBuilder(javaBin, "-Xmx512m", "-Djava.io.tmpdir=" + tmp, "-cp", classpath,
                "org.replayfarm.cli.Replay", "run", capture.toString(), "--every-group", "--evaluators", "1", "--budget", "1000000000000",
                "--metrics-port", "0", "--out", dir.resolve("out").toString())
                .redirectError(err.toFile()).redirectOutput(dir.resolve("run.out").toFile()).start();
        try {
            // the child's stderr is the only thing it says; its groups loop until stopped, so the SIGTERM comes while
            // they run whatever the machine (and the checks below hold even before the first slice)
            Await.until("replay run saying it evaluates (or ending)",
                    () -> Files.readString(err).contains("replay run: evaluating 2 group(s)") || !p.isAlive());
            assertTrue(Files.readString(err).contains("replay run: evaluating 2 group(s)"), Files.readString(err));
            p.destroy(); // SIGTERM
            // without the SIGTERM its groups would run for hours: ending at all is the observable, the limit only a bound
            assertTrue(p.waitFor(Await.LIMIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS),
                    "replay run still runs " + Await.LIMIT.toSeconds() + " s after SIGTERM");
            assertEquals(143, p.exitValue(), "killed by SIGTERM");
            assertTrue(Files.readString(err).contains("replay run: interrupted"), Files.readString(err));
            assertTrue(!Files.exists(dir.resolve("out/report.json")));
            try (var left = Files.list(tmp)) {
                assertEquals(List.of(), left.filter(f -> f.getFileName().toString().startsWith("replay-run")).toList());
            }
        } finally {
            p.destroyForcibly();
        }
    }

    /**
     * A batch (several captures in one embedded cluster) that ends normally says nothing of an interruption: its
     * shutdown hook printed "replay run: interrupted; ... holds no new report" after every finished batch, below
     * the batch's own "result passed", and in a separate JVM, as a user runs it, since a hook runs at exit only.
     */
    @Test
    void a_batch_that_ends_normally_does_not_say_it_was_interrupted() throws Exception {
        Path saxpy = Toolchain.root().resolve("examples/saxpy/saxpy.capture");
        Path shadow = Toolchain.root().resolve("examples/shadow-pass/shadow.capture");
        Path tmp = Files.createDirectories(dir.resolve("tmp"));
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Path err = dir.resolve("batch.err");
        Path out = dir.resolve("batch.out");
        Process p = new ProcessBuilder(javaBin, "-Xmx512m", "-Djava.io.tmpdir=" + tmp, "-cp", classpath,
                "org.replayfarm.cli.Replay", "run", saxpy.toString(), shadow.toString(), "--every-group",
                "--evaluators", "1", "--no-metrics", "--no-progress", "--out", dir.resolve("out").toString())
                .redirectError(err.toFile()).redirectOutput(out.toFile()).start();
        try {
            assertTrue(p.waitFor(180, java.util.concurrent.TimeUnit.SECONDS), "the batch still runs after 180 s");
            assertEquals(0, p.exitValue(), Files.readString(out) + Files.readString(err));
            assertTrue(Files.readString(out).contains("result          passed (exit status 0)"), Files.readString(out));
            assertTrue(!Files.readString(err).contains("interrupted"), Files.readString(err));
            assertTrue(Files.isRegularFile(dir.resolve("out/saxpy/report.json")), "the batch wrote saxpy's report");
            try (var left = Files.list(tmp)) {
                assertEquals(List.of(), left.filter(f -> f.getFileName().toString().startsWith("replay-run")).toList());
            }
        } finally {
            p.destroyForcibly();
        }
    }
}
