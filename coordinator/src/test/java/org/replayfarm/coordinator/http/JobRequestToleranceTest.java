package org.replayfarm.coordinator.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.replayfarm.coordinator.report.CompareWith;
import org.replayfarm.evalnode.eval.GroupSelection;
import org.replayfarm.gpunode.device.DeviceChoice;

/**
 * {@code POST /jobs} takes {@code "abs"} and {@code "rel"} beside {@code "ulp"}, and views with tolerances; what is
 * wrong is refused naming the field; {@code replay submit}'s body carries them as it was given them.
 */
@Tag("unit")
class JobRequestToleranceTest {
    private static final String SHA = "b".repeat(64);

    private static JobRequest parse(String more) throws JobRequest.Invalid {
        return JobRequest.parse(("{\"capture\": \"" + SHA + "\", \"groups\": \"every\"" + more + "}")
                .getBytes(StandardCharsets.UTF_8));
    }

    private static String refused(String more) {
        return assertThrows(JobRequest.Invalid.class, () -> parse(more)).getMessage();
    }

    @Test
    void abs_rel_and_view_tolerances_are_taken_beside_ulp() throws Exception {
        JobRequest r = parse(", \"ulp\": 4, \"abs\": 2.4e-7, \"rel\": 1e-5, \"views\": [\"C=f32,abs=1e-6\", "
                + "\"image:1=rel=1e-3\"], \"device\": \"none\", \"device_timeout_seconds\": 30");
        CompareWith c = r.compare();
        assertEquals(4, c.ulp());
        assertEquals(2.4e-7, c.abs());
        assertEquals(1e-5, c.rel());
        assertEquals(List.of("C=f32,abs=1e-6", "image:1=rel=1e-3"), c.views());
        assertEquals(30, c.device().timeoutSeconds(), "the timeout keeps the tolerances");
        assertEquals(2.4e-7, c.options(GroupSelection.everyGroup()).abs());
        CompareWith none = parse("").compare();
        assertEquals(0.0, none.abs(), "not given: 0, exact");
        assertEquals(0.0, none.rel());
        assertEquals(0.0, parse(", \"abs\": 0").compare().abs());
        assertEquals(1.0, parse(", \"rel\": 1").compare().rel(), "an integral number is a number");
    }

    @Test
    void a_bad_tolerance_is_refused_naming_the_field() {
        String abs = "'abs' must be a finite number 0 or more (the largest |host - device| accepted for float values), not ";
        assertEquals(abs + "-1.0E-6", refused(", \"abs\": -1e-6"));
        assertEquals(abs + "\"1e-6\"", refused(", \"abs\": \"1e-6\""));
        assertEquals(abs + "null", refused(", \"abs\": null"));
        assertTrue(refused(", \"abs\": 1e400").startsWith(abs), "past the double range: infinite");
        assertTrue(refused(", \"rel\": -2").startsWith("'rel' must be a finite number 0 or more (the largest |host - "
                + "device| / max(|host|, |device|) accepted for float values), not -2"), refused(", \"rel\": -2"));
        assertEquals("'views[1]': --view 'C=f32,abs=x': abs 'x': expected a finite number 0 or more (1e-6, 0.001)",
                refused(", \"views\": [\"C=f32\", \"C=f32,abs=x\"]"));
        assertEquals("'views[0]': --view 'C=f32,slack=1': unknown tolerance 'slack=1' (abs=X, rel=X or ulp=N)",
                refused(", \"views\": [\"C=f32,slack=1\"]"));
        assertTrue(refused(", \"tolerance\": 1").startsWith("unknown field 'tolerance' (a job takes \"capture\", \"groups\", "
                + "\"device\", \"device_timeout_seconds\", \"ulp\", \"abs\", \"rel\", \"approximate\""));
    }

    @Test
    void replay_submit_sends_the_tolerances_it_was_given_and_only_those() throws Exception {
        CompareWith c = new CompareWith(DeviceChoice.parse("none"), 2, false).withTolerances(1e-6, 1e-4)
                .withViews(List.of("C=rel=1e-5"), 10);
        JobRequest sent = new JobRequest(SHA, GroupSelection.everyGroup(), c, "k.capture");
        String body = sent.toJson().toString();
        JobRequest back = JobRequest.parse(body.getBytes(StandardCharsets.UTF_8));
        assertEquals(c.abs(), back.compare().abs());
        assertEquals(c.rel(), back.compare().rel());
        assertEquals(c.ulp(), back.compare().ulp());
        assertEquals(c.views(), back.compare().views());
        String exact = new JobRequest(SHA, GroupSelection.everyGroup(), CompareWith.auto(), "").toJson().toString();
        assertFalse(exact.contains("\"abs\"") || exact.contains("\"rel\""),
                "not asked for: not sent (a coordinator from before them refuses the fields): " + exact);
    }
}
