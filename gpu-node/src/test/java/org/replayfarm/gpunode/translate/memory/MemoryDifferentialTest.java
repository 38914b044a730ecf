package org.replayfarm.gpunode.translate.memory;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MemoryDifferentialTest {
    @TempDir
    Path dir;

    @Test
    void hostOnlySmoke() throws Exception {
        int faults = 0;
        for (long seed = 1; seed <= 20; seed++) {
            for (int w : new int[] {32, 64}) {
                var b = MemoryDifferential.build(dir, seed, w, false, 40);
                var o = MemoryDifferential.host(b.capture());
                if (o.fault().isPresent()) {
                    faults++;
                    System.out.println("seed " + seed + " w" + w + ": " + o.fault().get());
                }
            }
        }
        System.out.println("faults " + faults);
    }
}
