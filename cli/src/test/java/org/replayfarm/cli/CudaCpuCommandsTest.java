package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.coordinator.node.FarmNode;
import org.replayfarm.coordinator.http.ApiRoutes;
import org.replayfarm.model.build.CaptureBuilder;
import org.replayfarm.model.build.DispatchShape;
import org.replayfarm.model.build.Llvm;
import org.replayfarm.model.build.RawLayout;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.model.testing.Toolchain;
import org.replayfarm.proto.Provenance;

/**
 * The commands of issue 13 on the saxpy example: {@code replay translate} writes the directory its BUILD
 * file describes (and the BUILD's g++ line builds a runner there), exits 2 naming PC, mnemonic and unit of
 * a refused instruction; {@code replay run --device cuda-cpu} compares the translation's outputs with the
 * host model and the report names what ran with its fidelity counts; {@code capture add-run --from-device
 * cuda-cpu} records such a run, which then compares equal as a recorded run; {@code replay submit --device
 * cuda-cpu} (POST /jobs) to a loopback node does the same through the coordinator.
 */
@Tag("cluster")
class CudaCpuCommandsTest {
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private static Path saxpy() {
        return Toolchain.root().resolve("examples/saxpy/saxpy.capture");
    }

    @Test
    void translate_writes_a_directory_that_builds_and_refuses_what_it_cannot_translate() throws Exception {
        Path out = dir.resolve("t");
        CliRun t = CliRun.of("translate", saxpy().toString(), "--out", out.toString());
        assertEquals(0, t.exitCode(), t.out() + t.err());
        assertTrue(t.out().contains("total") && t.out().contains("0 refused"), t.out());
        for (String f : List.of("kernel.cu", "guest.s", "BUILD", "replay_rt.h", "rt_base.h", "rt_cpu_main.cpp")) {
            assertTrue(Files.isRegularFile(out.resolve(f)), f + " written");
        }
        // the line names every header the directory holds, and counts them (rt_sys.h was written but not named)
        var said = java.util.regex.Pattern.compile("and (\\d+) headers \\(([^)]*)\\)").matcher(t.out());
        assertTrue(said.find(), t.out());
        try (var files = Files.list(out)) {
            List<String> headers = files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".h")).sorted().toList();
            assertEquals(headers, java.util.Arrays.stream(said.group(2).split(", ")).sorted().toList(), t.out());
            assertEquals(headers.size(), Integer.parseInt(said.group(1)), t.out());
        }
        String build = Files.readString(out.resolve("BUILD"));
        assertTrue(build.contains("nvcc -gencode arch=compute_90,code=[sm_90,compute_90] --fmad=false"), build);
        String gxx = build.lines().filter(l -> l.startsWith("g++ ")).findFirst().orElseThrow();
        Toolchain.run(out, List.of("bash", "-c", gxx));
        assertTrue(Files.isExecutable(out.resolve("runner")), "the BUILD's g++ line builds the runner");
        // #line directives name lines of guest.s that hold the instruction
        List<String> listing = Files.readAllLines(out.resolve("guest.s"));
        String source = Files.readString(out.resolve("kernel.cu"));
        var m = java.util.regex.Pattern.compile("#line (\\d+) \"guest.s\"\n    \\{ /\\* ([a-z0-9_]+)").matcher(source);
        int checked = 0;
        while (m.find()) {
            String line = listing.get(Integer.parseInt(m.group(1)) - 1);
            assertTrue(line.trim().startsWith(m.group(2)), "#line " + m.group(1) + " names '" + line + "'");
            checked++;
        }
        assertTrue(checked > 10, "checked " + checked + " #line directives");

        // a program with an instruction no unit translates: exit 2, naming it
        Path s = dir.resolve("kill.s");
        Files.writeString(s, "s_mov_b32 s4, 1\ns_setkill 1\ns_endpgm\n");
        byte[] object = Llvm.assemble(s, false);
        Path capture = dir.resolve("kill.capture");
        CaptureBuilder.fromRawCode(object, new RawLayout(32, 8, 106, 0, 0, Map.of(), OptionalInt.empty(),
                OptionalInt.of(0)), new DispatchShape(1, 1, 1, 32, 1, 1, 1), List.of(), Provenance.getDefaultInstance())
                .write(capture);
        CliRun refused = CliRun.of("translate", capture.toString(), "--out", dir.resolve("k").toString());
        assertEquals(2, refused.exitCode(), refused.out() + refused.err());
        assertTrue(refused.out().matches("(?s).*refused: pc 0x[0-9a-f]+ s_setkill \\(branch unit\\): .*"), refused.out());
        assertTrue(refused.err().contains("is refused"), refused.err());
        assertTrue(!Files.exists(dir.resolve("k/kernel.cu")), "nothing written for a refused translation");
    }

    @Test
    void run_add_run_and_submit_with_cuda_cpu() throws Exception {
        Path out = dir.resolve("run");
        CliRun run = CliRun.of("run", saxpy().toString(), "--every-group", "--device", "cuda-cpu", "--out", out.toString());
        assertEquals(0, run.exitCode(), run.out() + run.err());
        assertTrue(run.out().contains("device ran      CUDA C translation on the CPU, g++ "), run.out());
        JsonNode report = JSON.readTree(out.resolve("report.json").toFile());
        JsonNode device = report.get("device");
        assertEquals("cuda-cpu", device.get("kind").asText());
        assertTrue(device.get("label").asText().startsWith("CUDA C translation on the CPU, g++ "), device.toString());
        assertEquals(report.get("wave_instructions").asLong(), device.get("fidelity").get("wave_instructions").asLong(),
                "the device executed as many wave instructions as the host model");
        assertEquals(0, device.get("fidelity").get("refused").asInt());
        assertEquals(1, device.get("executions").size());
        assertTrue(report.get("comparison").get("ranges").get(1).get("compared").asInt() > 0);

        // add-run --from-device: a recorded run labelled with what ran, equal to the host model as a recorded run
        Path recorded = dir.resolve("with-run.capture");
        CliRun add = CliRun.of("capture", "add-run", saxpy().toString(), "--from-device", "cuda-cpu", "-o",
                recorded.toString());
        assertEquals(0, add.exitCode(), add.out() + add.err());
        String label = CaptureFile.open(recorded).metadata().getRuns(1).getLabel();
        assertTrue(label.startsWith("CUDA C translation on the CPU, g++ "), label);
        CliRun again = CliRun.of("run", recorded.toString(), "--every-group", "--device", "recorded:" + label, "--out",
                dir.resolve("again").toString());
        assertEquals(0, again.exitCode(), again.out() + again.err());
        CliRun both = CliRun.of("capture", "add-run", saxpy().toString(), "--from-device", "cuda-cpu", "--from",
                dir.toString(), "-o", dir.resolve("x.capture").toString());
        assertEquals(2, both.exitCode(), "--from and --from-device together are refused");

        // through the coordinator: submit (POST /jobs) with cuda-cpu, watched to its end
        try (FarmNode node = FarmNode.start(FarmNode.Settings.of(Set.of(FarmNode.COORDINATOR, "eval"), dir.resolve("node"))
                .withEvalThreads(2).withRoutes(jobs -> List.of(ApiRoutes.routes(jobs, ApiRoutes.Limits.defaults(), dir))))) {
            String url = node.httpUrl();
            CliRun submit = CliRun.of("submit", saxpy().toString(), "--every-group", "--device", "cuda-cpu",
                    "--coordinator", url);
            assertEquals(0, submit.exitCode(), submit.out() + submit.err());
            String job = submit.out().trim();
            CliRun watch = CliRun.of("watch", job, "--coordinator", url);
            assertEquals(0, watch.exitCode(), watch.out() + watch.err());
            Path results = dir.resolve("results");
            CliRun fetched = CliRun.of("results", job, "--coordinator", url, "--out", results.toString());
            assertEquals(0, fetched.exitCode(), fetched.out() + fetched.err());
            JsonNode farm = JSON.readTree(results.resolve("report.json").toFile());
            assertEquals("cuda-cpu", farm.get("device").get("kind").asText());
            assertEquals(report.get("comparison"), farm.get("comparison"), "the same comparison as replay run's");
        }
    }
}
