package org.replayfarm.gpunode.device;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.model.capture.CaptureFile;

/** --device dir:PATH reads a folder of guest-<n>.bin / image-<k>.raw beside the capture, which it leaves alone. */
@Tag("unit")
class DirectoryBackendTest {
    private static final Path SAXPY = Path.of("..", "examples", "saxpy", "saxpy.capture");

    @TempDir
    Path dir;

    @Test
    void a_folder_of_range_files_is_the_device_run_and_bad_folders_are_errors_naming_them() throws Exception {
        CaptureFile capture = CaptureFile.open(SAXPY);
        byte[] y = DeviceChoice.parse("recorded").resolve(capture).backend().orElseThrow()
                .run(new DeviceRequest(capture, ""), DeviceEvents.ignore()).rangeBytes(1);
        Files.write(dir.resolve("guest-1.bin"), y);
        DeviceChoice choice = DeviceChoice.parse("dir:" + dir);
        assertEquals("dir:" + dir, choice.spelling());
        DeviceChoice.Resolved r = choice.resolve(capture);
        assertTrue(r.reason().contains(dir.toString()), r.reason());
        DeviceRun run = r.backend().orElseThrow().run(new DeviceRequest(capture, ""), DeviceEvents.ignore());
        assertEquals("dir", run.kind());
        assertEquals(List.of(1), List.copyOf(run.ranges().keySet()), "only the range with a file is recorded");
        assertArrayEquals(y, run.rangeBytes(1));

        DeviceBackend resolvedBefore = choice.resolve(capture).backend().orElseThrow();
        Files.write(dir.resolve("guest-0.bin"), new byte[7]);
        // refused when the choice resolves (before any evaluation), and by the run if the file changed after that
        IllegalArgumentException early = assertThrows(IllegalArgumentException.class, () -> choice.resolve(capture));
        assertTrue(early.getMessage().startsWith("--device dir:" + dir + ": ") && early.getMessage().contains(
                "guest-0.bin: 7 bytes, but range 0 ('arg1 x.bin') of the capture holds 4000"), early.getMessage());
        DeviceException wrong = assertThrows(DeviceException.class,
                () -> resolvedBefore.run(new DeviceRequest(capture, ""), DeviceEvents.ignore()));
        assertTrue(wrong.getMessage().contains("guest-0.bin: 7 bytes, but range 0 ('arg1 x.bin') of the capture holds 4000"),
                wrong.getMessage());

        Path empty = Files.createDirectories(dir.resolve("empty"));
        DeviceException none = assertThrows(DeviceException.class, () -> DeviceChoice.parse("dir:" + empty).resolve(capture)
                .backend().orElseThrow().run(new DeviceRequest(capture, ""), DeviceEvents.ignore()));
        assertTrue(none.getMessage().contains("holds no guest-<n>.bin"), none.getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> DeviceChoice.parse("dir:" + dir.resolve("missing"))
                .resolve(capture)).getMessage().contains("no such folder"));
    }
}
