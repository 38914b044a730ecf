package org.replayfarm.gpunode.device;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.gpunode.translate.Differential;
import org.replayfarm.gpunode.translate.image.ImageBundle;
import org.replayfarm.model.capture.CaptureFile;

/**
 * The one step the cuda and cuda-cpu backends open a run with: a refused translation is named instruction by
 * instruction and never reaches the compiler, a failing compiler is named with the backend, and a translation
 * that passes is built once and handed back with the capture's images section.
 */
@Tag("unit")
class PreparedTranslationTest {
    @TempDir
    Path dir;

    private CaptureFile capture(String asm) throws Exception {
        return Differential.assemble(dir, asm, 32, 64, 2, List.of(new byte[64]), 0, 0);
    }

    @Test
    void a_refused_translation_is_named_and_never_built() throws Exception {
        CaptureFile c = capture("s_setkill 1\ns_sethalt 0\ns_endpgm\n");
        AtomicInteger builds = new AtomicInteger();
        DeviceException e = assertThrows(DeviceException.class, () -> PreparedTranslation.of("cuda", "nvcc", c, t -> {
            builds.incrementAndGet();
            return "never";
        }));
        assertTrue(e.getMessage().startsWith("cuda: the translation of '") && e.getMessage().contains("is refused (2 instructions)")
                && e.getMessage().contains("s_setkill") && e.getMessage().contains("s_sethalt"), e.getMessage());
        assertEquals(0, builds.get(), "a refused translation goes to no compiler");
    }

    @Test
    void a_failing_compiler_is_named_with_the_backend() throws Exception {
        CaptureFile c = capture("s_mov_b32 s4, 7\ns_endpgm\n");
        DeviceException e = assertThrows(DeviceException.class, () -> PreparedTranslation.of("cuda-cpu", "g++", c, t -> {
            throw new IOException("exit 1: error: expected ';'");
        }));
        assertEquals("cuda-cpu: g++ could not build the translation: exit 1: error: expected ';'", e.getMessage());
    }

    @Test
    void a_translation_that_passes_is_built_once_with_the_images_section() throws Exception {
        CaptureFile c = capture("s_mov_b32 s4, 7\ns_endpgm\n");
        AtomicInteger builds = new AtomicInteger();
        Object built = new Object();
        PreparedTranslation<Object> p = PreparedTranslation.of("cuda", "nvcc", c, t -> {
            builds.incrementAndGet();
            assertTrue(t.ok());
            return built;
        });
        assertEquals(1, builds.get());
        assertSame(built, p.built());
        assertTrue(p.translation().ok());
        assertArrayEquals(ImageBundle.section(c), p.imagesSection());
    }
}
