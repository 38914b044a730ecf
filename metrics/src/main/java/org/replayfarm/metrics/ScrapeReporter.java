package org.replayfarm.metrics;

import com.typesafe.config.Config;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import kamon.metric.Instrument;
import kamon.metric.Metric;
import kamon.metric.MetricSnapshot;
import kamon.metric.PeriodSnapshot;
import kamon.module.MetricReporter;
import kamon.prometheus.PrometheusSettings;
import kamon.prometheus.PrometheusSettings$;
import kamon.prometheus.ScrapeDataBuilder;
import kamon.tag.TagSet;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The Prometheus text of this JVM's Kamon metrics, written by kamon-prometheus's own
 * {@link ScrapeDataBuilder}. Not the stock {@code PrometheusReporter}: that one accumulates every series
 * it ever saw for five years, so a series removed from Kamon (a job's, once the job is over) would stay
 * on {@code /metrics} forever. Here counters are summed per series only while Kamon still reports the
 * series (each tick carries every registered instrument), gauges are the latest tick's, and only
 * distributions (histograms, which are never removed) go through Kamon's accumulator.
 */
final class ScrapeReporter implements MetricReporter {
    private PrometheusSettings.Generic settings;
    private final PeriodSnapshot.Accumulator distributions =
            new PeriodSnapshot.Accumulator(Duration.ofDays(1825), Duration.ZERO, Duration.ofDays(1825));
    private Map<String, Map<TagSet, Long>> counters = new HashMap<>();
    private volatile String data = "# no metrics yet: the first tick has not passed\n";

    ScrapeReporter(Config config) {
        reconfigure(config);
    }

    /** The latest scrape (text exposition format 0.0.4). */
    String scrape() {
        return data;
    }

    // Kamon's settings classes are nested in a Scala object, which javac cannot name: raw types here
    @Override
    @SuppressWarnings({"unchecked", "rawtypes"})
    public synchronized void reportPeriodSnapshot(PeriodSnapshot s) {
        Map<String, Map<TagSet, Long>> next = new HashMap<>();
        List<MetricSnapshot> summed = new ArrayList<>();
        for (MetricSnapshot m : (Iterable<MetricSnapshot>) (Iterable) CollectionConverters.asJava(s.counters())) {
            Map<TagSet, Long> before = counters.getOrDefault(m.name(), Map.of());
            Map<TagSet, Long> now = new HashMap<>();
            List<Instrument.Snapshot<Object>> instruments = new ArrayList<>();
            for (Instrument.Snapshot<Object> i : (Iterable<Instrument.Snapshot<Object>>) (Iterable) CollectionConverters.asJava(m.instruments())) {
                long total = before.getOrDefault(i.tags(), 0L) + (Long) i.value();
                now.put(i.tags(), total);
                instruments.add(new Instrument.Snapshot<>(i.tags(), total));
            }
            next.put(m.name(), now);
            summed.add(new MetricSnapshot(m.name(), m.description(), (Metric.Settings) m.settings(),
                    CollectionConverters.asScala(instruments).toSeq()));
        }
        counters = next; // a series Kamon no longer reports (removed) is gone
        scala.collection.immutable.Seq none = scala.collection.immutable.List$.MODULE$.empty();
        distributions.add(new PeriodSnapshot(s.from(), s.to(), none, none, s.histograms(), s.timers(), s.rangeSamplers()));
        PeriodSnapshot d = distributions.peek();
        data = new ScrapeDataBuilder(settings, PrometheusSettings$.MODULE$.environmentTags(settings))
                .appendCounters((scala.collection.immutable.Seq) CollectionConverters.asScala(summed).toSeq())
                .appendGauges(s.gauges())
                .appendHistograms(d.histograms())
                .appendHistograms(d.timers())
                .appendHistograms(d.rangeSamplers())
                .build();
    }

    @Override
    public void stop() {
    }

    @Override
    public synchronized void reconfigure(Config config) {
        settings = PrometheusSettings$.MODULE$.readSettings(config.getConfig("kamon.prometheus"));
    }
}
