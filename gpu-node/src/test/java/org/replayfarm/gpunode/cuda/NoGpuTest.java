package org.replayfarm.gpunode.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.replayfarm.gpunode.device.DeviceChoice;
import org.replayfarm.model.capture.CaptureFile;

/**
 * The no-GPU path for real: JCuda is on the class path and this machine has no NVIDIA driver, so the probe
 * meets the LinkageError JCuda throws, says so in one line, and {@code --device cuda} is refused naming it
 * while {@code auto} falls back to the recorded run. (On a GPU machine these are skipped; gpu-check.sh
 * covers that side.)
 */
@Tag("unit")
class NoGpuTest {
    private static final Path SAXPY = Path.of("..", "examples", "saxpy", "saxpy.capture");

    @Test
    void theProbeSaysWhyInOneLine() {
        GpuProbe.Gpu g = GpuProbe.probe();
        assumeFalse(g.available(), "this machine has a GPU: " + g.describe());
        assertTrue(g.why().startsWith("JCuda's driver library does not load") || g.why().startsWith("cuInit failed"),
                g.why());
        assertFalse(g.describe().contains("\n"), g.describe());
        // probing again (NoClassDefFoundError after the first UnsatisfiedLinkError) still answers, never throws
        GpuProbe.Gpu again = GpuProbe.probe();
        assertFalse(again.available());
        assertTrue(again.why().startsWith("JCuda's driver library does not load") || again.why().startsWith("cuInit"),
                again.why());
        assertEquals(GpuProbe.once(), GpuProbe.once(), "once is once");
    }

    @Test
    void deviceCudaIsRefusedNamingWhyAndAutoFallsBack() throws Exception {
        assumeFalse(GpuProbe.once().available());
        CaptureFile capture = CaptureFile.open(SAXPY);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> DeviceChoice.parse("cuda").resolve(capture));
        assertTrue(e.getMessage().startsWith("--device cuda: no GPU on this node: JCuda's driver library does not load")
                || e.getMessage().startsWith("--device cuda: no GPU on this node: cuInit"), e.getMessage());
        DeviceChoice.Resolved auto = DeviceChoice.parse("auto").resolve(capture);
        assertEquals("recorded", auto.backend().orElseThrow().kind());
        assertTrue(auto.reason().contains("no GPU on this node"), auto.reason());
        assertEquals("cuda", DeviceChoice.parse("cuda").spelling());
        IllegalStateException s = assertThrows(IllegalStateException.class, () -> new CudaBackend(GpuProbe.once()));
        assertTrue(s.getMessage().startsWith("--device cuda: no GPU: "), s.getMessage());
    }
}
