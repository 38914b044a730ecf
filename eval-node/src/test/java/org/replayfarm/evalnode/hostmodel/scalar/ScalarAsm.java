package org.replayfarm.evalnode.hostmodel.scalar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.replayfarm.evalnode.hostmodel.AsmRunner;
import org.replayfarm.evalnode.hostmodel.wave.Wave;

/** Shared helpers of the scalar unit tests: run a program, read registers and SCC records. */
public final class ScalarAsm {
    private ScalarAsm() {
    }

    /** Runs {@code body} + s_endpgm as one wave32 (or wave64) wave and returns wave 0; fails on a fault. */
    static Wave run(Path dir, boolean wave64, String body) throws Exception {
        AsmRunner r = new AsmRunner(dir);
        if (wave64) {
            r.wave64();
        }
        var out = r.run(body + "\ns_endpgm\n");
        assertTrue(out.result().fault().isEmpty(), () -> out.result().fault().get().toString());
        return out.wave(0);
    }

    static Wave run(Path dir, String body) throws Exception {
        return run(dir, false, body);
    }

    /** Runs a program that must fault, and returns the fault's message. */
    static String fault(Path dir, String body) throws Exception {
        var out = new AsmRunner(dir).run(body + "\ns_endpgm\n");
        assertTrue(out.result().fault().isPresent(), "expected a fault");
        return out.result().fault().get().message();
    }

    /** Assembly that records SCC in {@code sN} (1 or 0) through s_cselect_b32. */
    static String scc(int n) {
        return "s_cselect_b32 s" + n + ", 1, 0\n";
    }

    public static void assertSgpr(Wave w, int code, long expected) {
        assertEquals((int) expected, w.sgpr(code), () -> String.format("s%d: expected 0x%08x, got 0x%08x", code,
                (int) expected, w.sgpr(code)));
    }

    static void assertSgpr64(Wave w, int code, long expected) {
        assertEquals(expected, w.sgpr64(code), () -> String.format("s[%d:%d]: expected 0x%016x, got 0x%016x", code,
                code + 1, expected, w.sgpr64(code)));
    }

    /** SCC as recorded by {@link #scc}. */
    static void assertScc(Wave w, int code, boolean expected) {
        assertEquals(expected ? 1 : 0, w.sgpr(code), "SCC recorded in s" + code);
    }
}
