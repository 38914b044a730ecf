package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.coordinator.node.FarmNode;
import org.replayfarm.coordinator.http.ApiRoutes;
import org.replayfarm.model.testing.Toolchain;

/**
 * The HTTP API in front of the clustered job service, as {@code replay node --role coordinator} serves it:
 * {@code replay submit}, {@code watch} and {@code results} against a real coordinator-and-evaluator node
 * give the files {@code replay eval} writes.
 */
@Tag("cluster")
class FarmApiTest {
    @TempDir
    Path dir;

    @Test
    void submit_watch_and_results_through_a_cluster_node_equal_replay_eval() throws Exception {
        Path saxpy = Toolchain.root().resolve("examples/saxpy/saxpy.capture");
        try (FarmNode node = FarmNode.start(FarmNode.Settings.of(Set.of(FarmNode.COORDINATOR, "eval"), dir.resolve("node"))
                .withEvalThreads(2).withSerializeMessages(true)
                .withRoutes(jobs -> List.of(ApiRoutes.routes(jobs, ApiRoutes.Limits.defaults()))))) {
            String url = node.httpUrl();
            CliRun submit = CliRun.of("submit", saxpy.toString(), "--coordinator", url, "--every-group");
            assertEquals(0, submit.exitCode(), submit.err());
            String job = submit.out().trim();
            CliRun watch = CliRun.of("watch", job, "--coordinator", url);
            assertEquals(0, watch.exitCode(), watch.out() + watch.err());
            CliRun results = CliRun.of("results", job, "--coordinator", url, "--out", dir.resolve("farm").toString());
            assertEquals(0, results.exitCode(), results.err());
        }
        CliRun eval = CliRun.of("eval", saxpy.toString(), "--every-group", "--out", dir.resolve("eval").toString());
        assertEquals(0, eval.exitCode(), eval.err());
        try (var files = Files.list(dir.resolve("eval/host"))) {
            List<Path> bins = files.toList();
            assertTrue(bins.size() >= 4);
            for (Path bin : bins) {
                assertArrayEquals(Files.readAllBytes(bin), Files.readAllBytes(dir.resolve("farm/host").resolve(bin.getFileName())),
                        bin.getFileName() + " from the farm equals replay eval's");
            }
        }
    }
}
