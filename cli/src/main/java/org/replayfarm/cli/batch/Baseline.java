package org.replayfarm.cli.batch;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Known differences (deqp-runner's baseline): one per line, {@code #} starts a comment,
 * <pre>
 *   CAPTURE range NAME bytes A..B     a run of bytes of a range (NAME: its parameter, name or index; quote a name
 *                                     with spaces)
 *   CAPTURE range NAME *              anything in the range
 *   CAPTURE image K x X0..X1 y Y0..Y1 [mip M] [layer L]   a box of texels
 *   CAPTURE image K *                 anything in the image
 * </pre>
 * CAPTURE is the capture's SHA-256 (or a prefix of at least 12 digits) or its file name. A difference region of a
 * run is known when an entry of its capture holds it whole.
 */
public record Baseline(List<Entry> entries) {
    /** One known difference; {@code line} is where it was read ("" for one made from a report). */
    public record Entry(String capture, String kind, String name, long a0, long a1, long b0, long b1, int mip, int layer,
                        boolean whole, String line) {
        boolean forCapture(String sha, String file) {
            return capture.equalsIgnoreCase(sha) || (capture.length() >= 12 && sha.toLowerCase(Locale.ROOT)
                    .startsWith(capture.toLowerCase(Locale.ROOT))) || capture.equals(file);
        }

        boolean holds(Region r) {
            if (!kind.equals(r.kind()) || !(name.equals(r.name()) || name.equals(r.altName()))) {
                return false;
            }
            if (whole) {
                return true;
            }
            if (kind.equals("range")) {
                return r.a0() >= a0 && r.a1() <= a1;
            }
            return r.mip() == mip && r.layer() == layer && r.a0() >= a0 && r.a1() <= a1 && r.b0() >= b0 && r.b1() <= b1;
        }

        /** The entry as a baseline line. */
        public String format() {
            String n = name.contains(" ") ? "\"" + name + "\"" : name;
            if (whole) {
                return capture + " " + kind + " " + n + " *";
            }
            if (kind.equals("range")) {
                return capture + " range " + n + " bytes " + a0 + ".." + a1;
            }
            return capture + " image " + n + " x " + a0 + ".." + a1 + " y " + b0 + ".." + b1
                    + (mip != 0 ? " mip " + mip : "") + (layer != 0 ? " layer " + layer : "");
        }
    }

    /**
     * A difference region of a run, from report.json: a range's run of bytes ({@code a0..a1}) or an image's box
     * ({@code a0..a1} in x, {@code b0..b1} in y); {@code altName} is the range's index.
     */
    public record Region(String kind, String name, String altName, long a0, long a1, long b0, long b1, int mip, int layer) {
        public String describe() {
            return kind.equals("range") ? "range " + name + " bytes " + a0 + ".." + a1
                    : "image " + name + " x " + a0 + ".." + a1 + " y " + b0 + ".." + b1 + (mip != 0 ? " mip " + mip : "")
                    + (layer != 0 ? " layer " + layer : "");
        }
    }

    /** A run's difference regions, and whether they are all listed (a report keeps at most 100 per range or image). */
    public record Differences(List<Region> regions, List<String> unlisted) {
        public static Differences of(JsonNode report) {
            List<Region> regions = new ArrayList<>();
            List<String> unlisted = new ArrayList<>();
            JsonNode c = report.path("comparison");
            for (JsonNode r : c.path("ranges")) {
                String name = r.path("name").asText();
                for (JsonNode g : r.path("regions")) {
                    long o = g.path("offset").asLong();
                    regions.add(new Region("range", name, String.valueOf(r.path("index").asInt()), o,
                            o + g.path("length").asLong() - 1, 0, 0, 0, 0));
                }
                if (r.path("regions_total").asLong() > r.path("regions").size()) {
                    unlisted.add("range " + name);
                }
            }
            for (JsonNode i : c.path("images")) {
                String k = String.valueOf(i.path("index").asInt());
                for (JsonNode g : i.path("regions")) {
                    regions.add(new Region("image", k, k, g.path("x0").asLong(), g.path("x1").asLong(), g.path("y0").asLong(),
                            g.path("y1").asLong(), g.path("mip").asInt(), g.path("layer").asInt()));
                }
                if (i.path("regions_total").asLong() > i.path("regions").size()) {
                    unlisted.add("image " + k);
                }
            }
            return new Differences(List.copyOf(regions), List.copyOf(unlisted));
        }
    }

    public static Baseline empty() {
        return new Baseline(List.of());
    }

    public static Baseline read(Path file) throws IOException {
        List<Entry> out = new ArrayList<>();
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        for (int n = 0; n < lines.size(); n++) {
            String line = lines.get(n).replaceAll("#.*", "").trim();
            if (!line.isEmpty()) {
                out.add(parse(line, file + ":" + (n + 1)));
            }
        }
        return new Baseline(List.copyOf(out));
    }

    static Entry parse(String line, String where) {
        List<String> t = tokens(line);
        String bad = where + ": '" + line + "': expected CAPTURE range NAME bytes A..B | CAPTURE range NAME * | "
                + "CAPTURE image K x X0..X1 y Y0..Y1 [mip M] [layer L] | CAPTURE image K *";
        if (t.size() < 4 || !(t.get(1).equals("range") || t.get(1).equals("image"))) {
            throw new IllegalArgumentException(bad);
        }
        String capture = t.get(0);
        String kind = t.get(1);
        String name = t.get(2);
        try {
            if (t.size() == 4 && t.get(3).equals("*")) {
                return new Entry(capture, kind, name, 0, 0, 0, 0, 0, 0, true, where);
            }
            if (kind.equals("range") && t.size() == 5 && t.get(3).equals("bytes")) {
                long[] s = span(t.get(4));
                return new Entry(capture, kind, name, s[0], s[1], 0, 0, 0, 0, false, where);
            }
            if (kind.equals("image") && t.size() >= 7 && t.get(3).equals("x") && t.get(5).equals("y")) {
                long[] x = span(t.get(4));
                long[] y = span(t.get(6));
                int mip = 0;
                int layer = 0;
                for (int i = 7; i < t.size(); i += 2) {
                    if (i + 1 >= t.size()) {
                        throw new IllegalArgumentException(bad);
                    }
                    switch (t.get(i)) {
                        case "mip" -> mip = Integer.parseInt(t.get(i + 1));
                        case "layer" -> layer = Integer.parseInt(t.get(i + 1));
                        default -> throw new IllegalArgumentException(bad);
                    }
                }
                return new Entry(capture, kind, name, x[0], x[1], y[0], y[1], mip, layer, false, where);
            }
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(bad);
        }
        throw new IllegalArgumentException(bad);
    }

    private static long[] span(String s) {
        String[] p = s.split("\\.\\.");
        if (p.length != 2) {
            throw new NumberFormatException(s);
        }
        return new long[] {Long.parseLong(p[0]), Long.parseLong(p[1])};
    }

    private static List<String> tokens(String line) {
        List<String> out = new ArrayList<>();
        StringBuilder b = new StringBuilder();
        boolean quoted = false;
        boolean any = false;
        for (char ch : line.toCharArray()) {
            if (ch == '"') {
                quoted = !quoted;
                any = true;
            } else if (Character.isWhitespace(ch) && !quoted) {
                if (any) {
                    out.add(b.toString());
                    b.setLength(0);
                    any = false;
                }
            } else {
                b.append(ch);
                any = true;
            }
        }
        if (any) {
            out.add(b.toString());
        }
        return out;
    }

    /** The entries of one capture. */
    public List<Entry> of(String sha, String file) {
        return entries.stream().filter(e -> e.forCapture(sha, file)).toList();
    }

    /** Baseline lines that make every difference of a run known ({@code replay run --write-baseline}). */
    public static List<String> lines(String sha, Differences d) {
        List<String> out = new ArrayList<>();
        for (String u : d.unlisted()) {
            String[] p = u.split(" ", 2);
            out.add(new Entry(sha, p[0], p[1], 0, 0, 0, 0, 0, 0, true, "").format());
        }
        for (Region r : d.regions()) {
            if (d.unlisted().contains(r.kind() + " " + r.name())) {
                continue;
            }
            out.add(new Entry(sha, r.kind(), r.name(), r.a0(), r.a1(), r.b0(), r.b1(), r.mip(), r.layer(), false, "")
                    .format());
        }
        return out;
    }
}
