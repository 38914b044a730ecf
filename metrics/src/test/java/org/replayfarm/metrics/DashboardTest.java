package org.replayfarm.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.replayfarm.model.testing.Toolchain;

/** deploy/grafana/replay-farm.json is a Grafana dashboard over a Prometheus variable that queries only metrics FarmMetrics exports. */
@Tag("unit")
class DashboardTest {
    static final Path DASHBOARD = Toolchain.root().resolve("deploy/grafana/replay-farm.json");
    /** A PromQL identifier of ours; label matchers and strings are cut out first. */
    static final Pattern NAME = Pattern.compile("\\breplay_[a-zA-Z0-9_:]*");
    /** A kamon-system-metrics series name (cli's BindAddressTest finds each the dashboard uses in a real scrape). */
    static final Pattern JVM_NAME = Pattern.compile("\\b(?:jvm|process)_[a-zA-Z0-9_:]*");

    /** The JVM and process series names a PromQL expression references. */
    static Set<String> jvmNames(String promql) {
        String bare = promql.replaceAll("\\{[^}]*\\}", "").replaceAll("\"[^\"]*\"", "");
        Set<String> out = new TreeSet<>();
        Matcher m = JVM_NAME.matcher(bare);
        while (m.find()) {
            out.add(m.group());
        }
        return out;
    }


    static Set<String> exported() {
        return Stream.of(FarmMetrics.Metric.values()).flatMap(m -> m.prometheusSeriesNames().stream())
                .collect(Collectors.toSet());
    }

    /** The metric names a PromQL expression references. */
    static Set<String> names(String promql) {
        String bare = promql.replaceAll("\\{[^}]*\\}", "").replaceAll("\"[^\"]*\"", "");
        Set<String> out = new TreeSet<>();
        Matcher m = NAME.matcher(bare);
        while (m.find()) {
            out.add(m.group());
        }
        return out;
    }

    @Test
    void the_dashboard_is_grafana_json_on_a_prometheus_variable_and_every_metric_it_queries_is_exported() throws Exception {
        JsonNode d = new ObjectMapper().readTree(DASHBOARD.toFile());
        assertTrue(d.path("title").isTextual() && d.path("panels").isArray() && d.path("schemaVersion").isInt(), "a dashboard");
        JsonNode variables = d.path("templating").path("list");
        boolean datasource = false;
        List<String> exprs = new ArrayList<>();
        for (JsonNode v : variables) {
            if (v.path("type").asText().equals("datasource")) {
                assertEquals("datasource", v.path("name").asText());
                assertEquals("prometheus", v.path("query").asText());
                datasource = true;
            } else if (v.path("type").asText().equals("query")) {
                exprs.add(v.path("definition").asText());
            }
        }
        assertTrue(datasource, "a Prometheus datasource variable");
        Set<String> ids = new TreeSet<>();
        int targets = 0;
        for (JsonNode p : d.path("panels")) {
            assertTrue(ids.add(p.path("id").asText()), "panel ids are unique: " + p.path("id"));
            if (p.path("type").asText().equals("row")) {
                continue;
            }
            assertEquals("${datasource}", p.path("datasource").path("uid").asText(), p.path("title").asText());
            for (JsonNode t : p.path("targets")) {
                assertEquals("${datasource}", t.path("datasource").path("uid").asText());
                exprs.add(t.path("expr").asText());
                targets++;
            }
        }
        assertTrue(targets > 0);
        Set<String> exported = exported();
        Set<String> used = new TreeSet<>();
        Set<String> jvm = new TreeSet<>();
        for (String e : exprs) {
            Set<String> n = names(e);
            jvm.addAll(jvmNames(e));
            assertFalse(n.isEmpty() && jvmNames(e).isEmpty(), "every query names a metric of ours or of the JVM: " + e);
            for (String name : n) {
                assertTrue(exported.contains(name), "'" + name + "' in " + e + " is no metric FarmMetrics exports");
            }
            used.addAll(n);
        }
        // what the dashboard is for: progress per job, throughput per node, differences, faults
        for (String needed : List.of("replay_job_groups_done_total", "replay_eval_groups_total",
                "replay_job_texels_differing_total", "replay_job_guest_bytes_differing_total", "replay_job_faults_total")) {
            assertTrue(used.contains(needed), "the dashboard shows " + needed);
        }
        // and every node's JVM: heap, GC, threads, the process's CPU (Kamon's Prometheus names)
        for (String needed : List.of("jvm_memory_used_bytes_sum", "jvm_gc_seconds_sum", "jvm_threads_states",
                "process_cpu_usage_sum")) {
            assertTrue(jvm.contains(needed), "the dashboard shows " + needed + ": " + jvm);
        }
    }

    @Test
    void the_name_check_catches_a_metric_that_does_not_exist() {
        assertEquals(Set.of("replay_job_groups_done_total", "replay_nonexistent_total"),
                names("sum by (job) (replay_job_groups_done_total{job=~\"replay_x\"}) / replay_nonexistent_total"));
        assertFalse(exported().contains("replay_nonexistent_total"));
    }

    /**
     * Prometheus puts its own target label {@code job} on every scraped series and renames a metric's own
     * {@code job} to {@code exported_job}: the job tag is {@code job_id}, and the dashboard selects and
     * groups by it.
     */
    @Test
    void the_job_tag_is_job_id_which_prometheus_keeps_and_the_dashboard_uses_it() throws Exception {
        assertEquals("job_id", FarmMetrics.JOB);
        String text = java.nio.file.Files.readString(DASHBOARD);
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("by \\((\\w+)\\)|\\{(\\w+)=~|\\{\\{(\\w+)\\}\\}|label_values\\([a-z_]+, (\\w+)\\)")
                .matcher(text);
        Set<String> labels = new java.util.TreeSet<>();
        while (m.find()) {
            for (int g = 1; g <= 4; g++) {
                if (m.group(g) != null) {
                    labels.add(m.group(g));
                }
            }
        }
        assertTrue(labels.contains("job_id"), labels.toString());
        assertFalse(labels.contains("job"), "the dashboard selects by Prometheus' scrape job: " + labels);
    }
}
