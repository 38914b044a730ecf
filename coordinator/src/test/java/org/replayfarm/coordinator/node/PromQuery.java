package org.replayfarm.coordinator.node;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The PromQL a scaler's query may use here, evaluated over one scrape as Prometheus would over the samples
 * of that scrape: a sum of {@code sum(NAME)} or {@code sum(NAME{label="value",...})} terms. Anything else
 * is refused with the part it does not cover (so a query changed to something richer fails loudly here
 * instead of being half evaluated). A term whose metric has no sample in the scrape is an error too:
 * Prometheus' {@code sum} of nothing is no value, and KEDA would scale on no data.
 */
record PromQuery(List<Term> terms) {
    record Term(String metric, Map<String, String> labels) {
    }

    private static final Pattern TERM = Pattern.compile(
            "\\s*sum\\s*\\(\\s*([a-zA-Z_:][a-zA-Z0-9_:]*)\\s*(\\{([^}]*)\\})?\\s*\\)\\s*");
    private static final Pattern MATCHER = Pattern.compile("\\s*([a-zA-Z_][a-zA-Z0-9_]*)\\s*=\\s*\"([^\"]*)\"\\s*");

    static PromQuery parse(String query) {
        List<Term> terms = new ArrayList<>();
        for (String part : query.split("\\+")) {
            Matcher m = TERM.matcher(part);
            if (!m.matches()) {
                throw new IllegalArgumentException("the query's term '" + part.trim()
                        + "' is not sum(NAME{label=\"value\"}) (the PromQL this check evaluates): " + query);
            }
            Map<String, String> labels = new LinkedHashMap<>();
            if (m.group(3) != null && !m.group(3).isBlank()) {
                for (String matcher : m.group(3).split(",")) {
                    Matcher l = MATCHER.matcher(matcher);
                    if (!l.matches()) {
                        throw new IllegalArgumentException("label matcher '" + matcher + "' is not label=\"value\": " + query);
                    }
                    labels.put(l.group(1), l.group(2));
                }
            }
            terms.add(new Term(m.group(1), labels));
        }
        return new PromQuery(terms);
    }

    /** The query's value over {@code samples}. */
    double evaluate(List<MetricsScrapeTest.Sample> samples) {
        double total = 0;
        for (Term t : terms) {
            double v = MetricsScrapeTest.sum(samples, t.metric(), t.labels());
            if (Double.isNaN(v)) {
                throw new AssertionError("the scrape has no sample of " + t.metric() + t.labels()
                        + ": the scaler's query would have no value");
            }
            total += v;
        }
        return total;
    }
}
