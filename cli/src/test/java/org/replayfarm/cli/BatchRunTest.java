package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.model.testing.Toolchain;

/**
 * {@code replay run} over several captures in one process and one cluster: saxpy against its native outputs
 * passes; the exp kernel against its native x86-64 build fails (exp differs by an ulp here and there, checked
 * twice: a failure, not a flake), and is expected-fail once its differences are in a baseline, where a known
 * difference no longer seen is a note; a truncated capture crashes without stopping the rest; a capture that
 * cannot finish in time times out. One junit.xml and one summary for all.
 */
@Tag("cluster")
class BatchRunTest {
    @TempDir
    Path dir;

    @Test
    void statuses_baseline_junit_and_summary_of_a_batch() throws Exception {
        Path object = Toolchain.compileOpenCl(dir, "expk", TypedDiffTest.SOURCE, "-include",
                Toolchain.root().resolve("include/replay-cl.h").toString());
        ByteBuffer a = ByteBuffer.allocate(512 * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < 512; i++) {
            a.putFloat((i % 37) * 0.173f - 2.5f);
        }
        Files.write(dir.resolve("a.bin"), a.array());
        Path expk = dir.resolve("expk.capture");
        String[] args = {"--kernel", "expk", "--groups", "8", "--group-size", "64", "--arg", "buffer:" + dir.resolve("a.bin"),
                "--arg", "zeros:2048", "--arg", "zeros:16", "--arg", "u32:512"};
        CliRun built = CliRun.of(concat(new String[] {"capture", "build", "--elf", object.toString()}, args,
                new String[] {"-o", expk.toString()}));
        assertEquals(0, built.exitCode(), built.out() + built.err());
        Path devices = dir.resolve("devices");
        CliRun native_ = CliRun.of(concat(new String[] {"capture", "native-run", dir.resolve("expk.cl").toString()}, args,
                new String[] {"--out", devices.resolve("expk").toString()}));
        assertEquals(0, native_.exitCode(), native_.out() + native_.err());
        Path saxpy = dir.resolve("saxpy.capture");
        Files.copy(Toolchain.root().resolve("examples/saxpy/saxpy.capture"), saxpy);
        CliRun recorded = CliRun.of("run", saxpy.toString(), "--group", "0", "--evaluators", "1", "--out",
                dir.resolve("s").toString());
        assertEquals(0, recorded.exitCode(), recorded.out() + recorded.err());
        Files.createDirectories(devices.resolve("saxpy"));
        for (String f : List.of("guest-0.bin", "guest-1.bin")) {
            Files.copy(dir.resolve("s/device").resolve(f), devices.resolve("saxpy").resolve(f));
        }
        Path broken = dir.resolve("broken.capture");
        Files.write(broken, java.util.Arrays.copyOf(Files.readAllBytes(saxpy), 5000));

        Path out = dir.resolve("b1");
        Path baseline = dir.resolve("known.txt");
        CliRun b1 = CliRun.of("run", saxpy.toString(), expk.toString(), broken.toString(), "--every-group", "--device",
                "dir:" + devices, "--evaluators", "2", "--out", out.toString(), "--write-baseline", baseline.toString());
        assertEquals(1, b1.exitCode(), b1.out() + b1.err());
        JsonNode batch = new ObjectMapper().readTree(out.resolve("batch.json").toFile());
        assertEquals(List.of("pass", "fail", "crash"), List.of(batch.get("captures").get(0).get("status").asText(),
                batch.get("captures").get(1).get("status").asText(), batch.get("captures").get(2).get("status").asText()));
        JsonNode expkReport = new ObjectMapper().readTree(out.resolve("expk/report.json").toFile());
        int differing = expkReport.get("comparison").get("ranges").get(1).get("differing_elements").asInt();
        assertTrue(differing > 0, "native exp differs from v_exp_f32 somewhere");
        assertTrue(Files.isRegularFile(out.resolve("expk/rerun/report.json")), "a failing capture is re-run once");
        assertTrue(batch.get("captures").get(2).get("reason").asText().contains("runs past the end of the file"));
        String junit = Files.readString(out.resolve("junit.xml"));
        assertTrue(junit.contains("<testsuites tests=\"3\" failures=\"1\" errors=\"1\""), junit);
        assertTrue(junit.contains("<testcase classname=\"replay\" name=\"expk\""), junit);
        String summary = Files.readString(out.resolve("summary.txt"));
        assertTrue(summary.contains("statuses        1 pass, 1 fail, 1 crash, 0 timeout, 0 expected-fail, 0 flake"), summary);
        List<String> known = Files.readAllLines(baseline);
        assertEquals(1 + differing, known.size(), "one line per differing element of C: " + known);

        // the differences in the baseline: expected-fail; a known difference no longer seen: a note
        Files.writeString(baseline, String.join("\n", known) + "\n" + expkReport.get("capture_sha256").asText()
                .substring(0, 16) + " range C bytes 4000..4003\n");
        Path manifest = dir.resolve("suite.txt");
        Files.writeString(manifest, "# the suite\nsaxpy.capture\nexpk.capture\n");
        CliRun b2 = CliRun.of("run", "--manifest", manifest.toString(), "--every-group", "--device", "dir:" + devices,
                "--baseline", baseline.toString(), "--evaluators", "2", "--out", dir.resolve("b2").toString());
        assertEquals(0, b2.exitCode(), b2.out() + b2.err());
        assertTrue(b2.out().contains("statuses        1 pass, 0 fail, 0 crash, 0 timeout, 1 expected-fail, 0 flake"), b2.out());
        assertTrue(b2.out().contains("note: known difference not seen: " + expkReport.get("capture_sha256").asText()
                .substring(0, 16) + " range C bytes 4000..4003"), b2.out());
        assertTrue(Files.readString(dir.resolve("b2/junit.xml")).contains("failures=\"0\" errors=\"0\""));

        // a capture that cannot finish before the timeout on any machine: one wave spinning under a budget of 1e12
        // instructions (a budget of 5e8 ran out in 2.5 s, near enough to the timeout of 1 s for a fast machine)
        Path spin = dir.resolve("spin.s");
        Files.writeString(spin, "loop:\ns_branch loop\ns_endpgm\n");
        Path spinning = dir.resolve("spin.capture");
        CliRun spinBuilt = CliRun.of("capture", "build", "--asm", spin.toString(), "--groups", "1", "--group-size", "1",
                "--arg", "zeros:64", "--workgroup-id-sgpr", "2", "-o", spinning.toString());
        assertEquals(0, spinBuilt.exitCode(), spinBuilt.err());
        CliRun b3 = CliRun.of("run", spinning.toString(), "--every-group", "--budget", "1000000000000",
                "--timeout", "1", "--evaluators", "1", "--out", dir.resolve("b3").toString());
        assertEquals(1, b3.exitCode(), b3.out() + b3.err());
        assertTrue(b3.out().contains("timeout       spin"), b3.out());
        assertTrue(Files.readString(dir.resolve("b3/junit.xml")).contains("type=\"timeout\""));
    }

    private static String[] concat(String[]... parts) {
        return java.util.Arrays.stream(parts).flatMap(java.util.Arrays::stream).toArray(String[]::new);
    }
}
