package org.replayfarm.cli.batch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** How a batch decides a capture's status from its run, its re-run and the baseline. */
@Tag("unit")
class BatchClassifyTest {
    private static final BatchRun.Item ITEM = new BatchRun.Item(Path.of("k.capture"), "k");
    private static final String SHA = "ab".repeat(32);

    private static Baseline.Region bytes(long a, long b) {
        return new Baseline.Region("range", "C", "1", a, b, 0, 0, 0, 0);
    }

    private static BatchRun.Observed different(Baseline.Region... regions) {
        return new BatchRun.Observed("different", "range 1 (C) differs", new Baseline.Differences(List.of(regions), List.of()));
    }

    private static final BatchRun.Observed EQUAL = new BatchRun.Observed("equal", "",
            new Baseline.Differences(List.of(), List.of()));

    @Test
    void a_difference_seen_twice_fails_one_that_changes_or_vanishes_on_its_rerun_is_a_flake() throws Exception {
        AtomicInteger reruns = new AtomicInteger();
        assertEquals("fail", BatchRun.classify(ITEM, SHA, different(bytes(4, 7)), List.of(), () -> {
            reruns.incrementAndGet();
            return different(bytes(4, 7));
        }, 0).status());
        assertEquals(1, reruns.get(), "re-run once");
        BatchRun.Result vanished = BatchRun.classify(ITEM, SHA, different(bytes(4, 7)), List.of(), () -> EQUAL, 0);
        assertEquals("flake", vanished.status());
        assertTrue(vanished.reason().endsWith("then equal on its re-run"), vanished.reason());
        assertEquals("flake", BatchRun.classify(ITEM, SHA, different(bytes(4, 7)), List.of(),
                () -> different(bytes(8, 11)), 0).status());
        assertEquals("flake", BatchRun.classify(ITEM, SHA, different(bytes(4, 7)), List.of(),
                () -> new BatchRun.Observed("crash", "the job failed", null), 0).status());
    }

    @Test
    void known_differences_are_expected_failures_and_vanished_ones_notes() throws Exception {
        List<Baseline.Entry> known = List.of(Baseline.parse(SHA.substring(0, 12) + " range C bytes 0..15", "b:1"),
                Baseline.parse("k.capture range C bytes 100..103", "b:2"));
        BatchRun.Rerun never = () -> {
            throw new AssertionError("an expected failure is not re-run");
        };
        BatchRun.Result r = BatchRun.classify(ITEM, SHA, different(bytes(4, 7)), known, never, 0);
        assertEquals("expected-fail", r.status());
        assertEquals(List.of("known difference not seen: k.capture range C bytes 100..103 (b:2)"), r.notes());
        assertEquals("fail", BatchRun.classify(ITEM, SHA, different(bytes(4, 7), bytes(12, 19)), known,
                () -> different(bytes(4, 7), bytes(12, 19)), 0).status(), "12..19 is not inside a known run");
        BatchRun.Result pass = BatchRun.classify(ITEM, SHA, EQUAL, known, never, 0);
        assertEquals("pass", pass.status());
        assertEquals(2, pass.notes().size());
        assertEquals("crash", BatchRun.classify(ITEM, SHA, new BatchRun.Observed("crash", "x", null), known, never, 0)
                .status());
        assertEquals("timeout", BatchRun.classify(ITEM, SHA, new BatchRun.Observed("timeout", "x", null), known, never, 0)
                .status());
        BatchRun.Observed many = new BatchRun.Observed("different", "d",
                new Baseline.Differences(List.of(bytes(4, 7)), List.of("range C")));
        assertEquals("fail", BatchRun.classify(ITEM, SHA, many, known, () -> many, 0).status(),
                "regions beyond those listed are unknown unless the baseline says the whole range");
        assertEquals("expected-fail", BatchRun.classify(ITEM, SHA, many, List.of(Baseline.parse(SHA + " range C *", "b:3")),
                never, 0).status());
    }

    @Test
    void baseline_lines_parse_or_fail_naming_the_line() {
        Baseline.Entry image = Baseline.parse("x.capture image 2 x 3..4 y 5..9 layer 1", "f:7");
        assertTrue(image.holds(new Baseline.Region("image", "2", "2", 3, 4, 6, 8, 0, 1)));
        assertTrue(!image.holds(new Baseline.Region("image", "2", "2", 3, 4, 6, 8, 0, 0)), "another layer");
        assertEquals("x.capture range \"arg1 x.bin\" bytes 1..2",
                Baseline.parse("x.capture range \"arg1 x.bin\" bytes 1..2", "f:1").format());
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
                () -> Baseline.parse("x.capture range C offset 3", "f:9"));
        assertTrue(bad.getMessage().startsWith("f:9: 'x.capture range C offset 3': expected"), bad.getMessage());
    }
}
