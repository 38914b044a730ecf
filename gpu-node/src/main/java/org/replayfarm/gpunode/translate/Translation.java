package org.replayfarm.gpunode.translate;

import java.util.List;
import java.util.Map;

/**
 * A translated program: kernel.cu's text, the guest listing its {@code #line} directives name (one
 * string per line of guest.s), the runtime headers it includes (name → text, to lie beside it), every
 * refusal, per unit how many instructions were translated and refused, how many of the translated ones the
 * ISA itself computes approximately (transcendentals, the clock), and how many instructions the entry
 * cannot reach (not translated: they never run), and how the control flow was bounded (blocks, indirect targets,
 * or why every instruction had to be one). The source is usable only when {@link #refusals()} is empty.
 */
public record Translation(String source, List<String> listing, Map<String, String> headers, List<Refusal> refusals,
                          Map<String, Count> coverage, int approximate, int unreached,
                          String controlFlow) {
    public Translation {
        listing = List.copyOf(listing);
        headers = Map.copyOf(headers);
        refusals = List.copyOf(refusals);
        coverage = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(coverage));
    }

    /** Instructions of one unit: translated, refused. */
    public record Count(int translated, int refused) {
    }

    public boolean ok() {
        return refusals.isEmpty();
    }

    /** guest.s as it is written: the listing's lines, each ended by a newline. */
    public String guestListing() {
        StringBuilder b = new StringBuilder();
        for (String l : listing) {
            b.append(l).append('\n');
        }
        return b.toString();
    }

    /** Coverage as `replay translate` prints it: one line per unit, then the refusals. */
    public String coverageReport() {
        StringBuilder b = new StringBuilder();
        int t = 0;
        int r = 0;
        for (Map.Entry<String, Count> e : coverage.entrySet()) {
            b.append(String.format("  %-7s %5d translated, %d refused%n", e.getKey(), e.getValue().translated(),
                    e.getValue().refused()));
            t += e.getValue().translated();
            r += e.getValue().refused();
        }
        b.append(String.format("  %-7s %5d translated, %d refused%n", "total", t, r));
        b.append(String.format("  %d of the translated are approximate in the ISA (transcendentals, clocks); %d "
                + "instructions unreachable from the entry, not translated%n", approximate, unreached));
        b.append("  ").append(controlFlow).append('\n');
        for (Refusal x : refusals) {
            b.append("  refused: ").append(x.getMessage()).append('\n');
        }
        return b.toString();
    }
}
