package org.replayfarm.coordinator.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.replayfarm.coordinator.job.JobProgress;

/**
 * A job's progress as JSON carries memory compared in elements (a typed range's elements, an untyped range's bytes)
 * and the order-dependent locations beside the bytes, so {@code replay watch} and the web UI count what the report
 * counts; progress from a coordinator of an earlier build, without them, still reads (as 0).
 */
@Tag("unit")
class ProgressJsonTest {
    @Test
    void elements_and_order_dependent_locations_go_there_and_back() {
        JobProgress.Figures f = JobProgress.Figures.NONE.withComparison(10, 1, 4000, 6, 1000, 2, 3);
        JobProgress p = new JobProgress("j1", "abc", "finished", 4, 4, 1.5, 0, 0, 100, "", f);
        String json = ProgressJson.write(p);
        assertTrue(json.contains("\"elements_compared\":1000"), json);
        JobProgress back = ProgressJson.read(json);
        assertEquals(1000, back.figures().elementsCompared());
        assertEquals(2, back.figures().elementsDiffering());
        assertEquals(3, back.figures().orderDependent());
        assertEquals(4000, back.figures().bytesCompared());
    }

    @Test
    void progress_without_them_reads_as_zero_and_a_mistyped_one_is_named() {
        String json = ProgressJson.write(new JobProgress("j1", "abc", "finished", 4, 4, 1.5, 0, 0, 100, "",
                JobProgress.Figures.NONE.withComparison(10, 1, 4000, 6)));
        String older = json.replaceAll(",\"elements_compared\":\\d+,\"elements_differing\":\\d+,\"order_dependent\":\\d+", "");
        assertTrue(!older.contains("elements_compared"), older);
        assertEquals(0, ProgressJson.read(older).figures().elementsCompared());
        String wrong = json.replace("\"order_dependent\":0", "\"order_dependent\":\"x\"");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ProgressJson.read(wrong));
        assertTrue(e.getMessage().contains("order_dependent"), e.getMessage());
    }
}
