package org.replayfarm.gpunode.device;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.replayfarm.model.capture.CaptureFile;

/** --device choices on the example capture, and the recorded backend's outputs (the capture's own blobs). */
@Tag("unit")
class DeviceChoiceTest {
    private static final Path SAXPY = Path.of("..", "examples", "saxpy", "saxpy.capture");

    @Test
    void auto_takes_the_first_recorded_run_and_the_recorded_backend_returns_its_ranges() throws Exception {
        CaptureFile capture = CaptureFile.open(SAXPY);
        DeviceChoice.Resolved r = DeviceChoice.parse("auto").resolve(capture);
        assertTrue(r.reason().startsWith("recorded run 'native x86-64 (clang-19)' (auto: no GPU"), r.reason());
        List<DeviceEvent> events = new ArrayList<>();
        DeviceRun run = r.backend().orElseThrow().run(new DeviceRequest(capture, capture.identity()), events::add);
        assertEquals("recorded", run.kind());
        assertEquals(List.of(0, 1), List.copyOf(run.ranges().keySet()));
        byte[] y = run.rangeBytes(1);
        assertEquals(4000, y.length);
        // y[i] = 2.5 * (0.5 i) + (1000 - 0.25 i), computed here independently of both runs
        for (int i = 0; i < 1000; i++) {
            float expected = 2.5f * (0.5f * i) + (1000f - 0.25f * i);
            assertEquals(expected, java.nio.ByteBuffer.wrap(y).order(java.nio.ByteOrder.LITTLE_ENDIAN).getFloat(4 * i), "y[" + i + "]");
        }
        assertEquals(List.of(new DeviceEvent.Started("recorded", "native x86-64 (clang-19)"), new DeviceEvent.Finished(2, 0)),
                events);
        assertArrayEquals(run.rangeBytes(1), DeviceChoice.parse("recorded:native x86-64 (clang-19)").resolve(capture)
                .backend().orElseThrow().run(new DeviceRequest(capture, ""), DeviceEvents.ignore()).rangeBytes(1));
    }

    @Test
    void none_and_bad_spellings() throws Exception {
        CaptureFile capture = CaptureFile.open(SAXPY);
        assertTrue(DeviceChoice.parse("none").resolve(capture).backend().isEmpty());
        assertEquals("recorded:a b", DeviceChoice.parse("recorded:a b").spelling());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> DeviceChoice.parse("recorded:")).getMessage()
                .contains("expected auto, recorded, recorded:LABEL, dir:PATH, exec:COMMAND, cuda, cuda:DIR, cuda-cpu, cuda-cpu:DIR or none"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> DeviceChoice.parse("recorded:gpu").resolve(capture))
                .getMessage().contains("no recorded run labelled 'gpu'"));
    }

    @Test
    void translation_folders_parse_and_resolve() throws Exception {
        CaptureFile capture = CaptureFile.open(SAXPY);
        DeviceChoice cpu = DeviceChoice.parse("cuda-cpu:some/dir");
        assertEquals(DeviceChoice.Kind.CUDA_CPU, cpu.kind());
        assertTrue(cpu.folderTranslation());
        assertEquals("cuda-cpu:some/dir", cpu.spelling());
        assertEquals("cuda:x", DeviceChoice.parse("cuda:x").spelling());
        assertTrue(DeviceChoice.parse("cuda:x").folderTranslation());
        assertTrue(!DeviceChoice.parse("cuda-cpu").folderTranslation() && !DeviceChoice.parse("cuda").folderTranslation());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> cpu.resolve(capture)).getMessage()
                .contains("--device cuda-cpu:some/dir: no such folder"));
        java.nio.file.Path empty = java.nio.file.Files.createTempDirectory("rf-empty");
        try {
            assertTrue(assertThrows(IllegalArgumentException.class, () -> DeviceChoice.parse("cuda-cpu:" + empty)
                    .resolve(capture)).getMessage().contains("the folder holds no kernel.cu"));
        } finally {
            java.nio.file.Files.delete(empty);
        }
    }
}
