package org.replayfarm.coordinator.job;

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
import org.replayfarm.model.capture.CaptureFormatException;

@Tag("unit")
class CaptureStoreTest {
    @TempDir
    Path dir;

    private static Path saxpy() {
        Path p = Path.of("examples/saxpy/saxpy.capture").toAbsolutePath();
        for (Path at = p; !Files.exists(p) && at.getParent() != null; at = at.getParent()) {
            p = at.getParent().resolve("examples/saxpy/saxpy.capture");
        }
        return p;
    }

    private List<Path> stored() throws Exception {
        try (var files = Files.list(dir.resolve("captures"))) {
            return files.toList();
        }
    }

    @Test
    void storesUnderTheHashOfItsBytesReadingTheOpenedCaptureOnce() throws Exception {
        Path capture = Files.copy(saxpy(), dir.resolve("saxpy.capture"));
        CaptureStore store = new CaptureStore(dir.resolve("captures"));
        CaptureFile opened = CaptureFile.open(capture);
        String sha = store.store(opened);
        assertEquals(opened.identity(), sha, "named by the capture's identity");
        assertArrayEquals(Files.readAllBytes(capture), Files.readAllBytes(store.path(sha)));
        assertEquals(sha, store.store(capture), "stored again from its path: the same capture");
        assertEquals(List.of(store.path(sha)), stored(), "one file, no temporary left");
    }

    @Test
    void refusesACaptureThatChangedSinceItWasOpenedAndAnInvalidOne() throws Exception {
        Path capture = Files.copy(saxpy(), dir.resolve("saxpy.capture"));
        CaptureStore store = new CaptureStore(dir.resolve("captures"));
        CaptureFile opened = CaptureFile.open(capture);
        Files.write(capture, new byte[] {1, 2, 3}, java.nio.file.StandardOpenOption.APPEND);
        java.io.IOException changed = assertThrows(java.io.IOException.class, () -> store.store(opened));
        assertTrue(changed.getMessage().contains("changed while it was stored"), changed.getMessage());
        assertEquals(List.of(), stored(), "nothing kept");

        Path bad = Files.write(dir.resolve("bad.capture"), new byte[] {1, 2, 3});
        assertThrows(CaptureFormatException.class, () -> store.store(bad));
        assertEquals(List.of(), stored(), "nothing kept");
    }
}
