package org.replayfarm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.gpunode.cuda.GpuProbe;
import org.replayfarm.model.capture.CaptureFile;

/**
 * {@code --device cuda} where there is no GPU (this machine: JCuda loads, the driver is absent): replay run
 * and capture add-run --from-device exit 2 naming why; add-run --from-device cuda-cpu records a run labelled
 * with the device and the translation's hash, which replay run then compares equal.
 */
@Tag("cluster")
class CudaDeviceCommandsTest {
    private static final Path SAXPY = Path.of("..", "examples", "saxpy", "saxpy.capture");

    @TempDir
    Path dir;

    @Test
    void withoutAGpuDeviceCudaExitsTwoNamingWhy() {
        assumeFalse(GpuProbe.once().available(), "this machine has a GPU");
        CliRun run = CliRun.of("run", SAXPY.toString(), "--every-group", "--device", "cuda", "--no-progress",
                "--no-metrics", "--out", dir.resolve("out").toString());
        assertEquals(2, run.exitCode(), run.out() + run.err());
        assertTrue(run.err().contains("--device cuda: no GPU on this node: JCuda's driver library does not load")
                || run.err().contains("--device cuda: no GPU on this node: cuInit"), run.err());
        CliRun add = CliRun.of("capture", "add-run", SAXPY.toString(), "--from-device", "cuda", "-o",
                dir.resolve("x.capture").toString());
        assertEquals(2, add.exitCode(), add.out() + add.err());
        assertTrue(add.err().contains("--device cuda: no GPU on this node"), add.err());
        CliRun both = CliRun.of("capture", "add-run", SAXPY.toString(), "--from-device", "cuda", "--from", dir.toString());
        assertEquals(2, both.exitCode());
        assertTrue(both.err().contains("give one of --from DIR and --from-device cuda|cuda-cpu"), both.err());
    }

    @Test
    void addRunFromDeviceRecordsALabelledRunThatCompares() throws Exception {
        Path out = dir.resolve("with-run.capture");
        CliRun add = CliRun.of("capture", "add-run", SAXPY.toString(), "--from-device", "cuda-cpu", "-o", out.toString());
        assertEquals(0, add.exitCode(), add.out() + add.err());
        CaptureFile c = CaptureFile.open(out);
        String label = c.metadata().getRuns(c.metadata().getRunsCount() - 1).getLabel();
        assertTrue(label.matches("CUDA C translation on the CPU, g\\+\\+ [0-9.]+, translation [0-9a-f]{12}"), label);
        CliRun run = CliRun.of("run", out.toString(), "--every-group", "--device", "recorded:" + label, "--no-progress",
                "--no-metrics", "--out", dir.resolve("cmp").toString());
        assertEquals(0, run.exitCode(), run.out() + run.err());
        assertTrue(Files.readString(dir.resolve("cmp/report.json")).contains(label));
    }
}
