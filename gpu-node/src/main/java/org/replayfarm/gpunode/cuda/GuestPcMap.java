package org.replayfarm.gpunode.cuda;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * PC samples traced to guest instructions: a sample's {@code (cubinCrc, pcOffset)} names the module and the
 * place in it; a sample of this module goes through the cubin's line table ({@link CubinLines}), by its
 * function, to the guest.s line the translator's {@code #line} named, and that line of the listing gives the
 * guest PC and the instruction's text. A sample whose CRC names another module (another program loaded in
 * the same context) is counted apart and never read through this cubin's lines; where the sample carries no
 * CRC, or the module's CRC is not known, the function's name alone places it. Samples on runtime code that
 * no guest line encloses (the kernel's prologue) are counted apart, never dropped.
 */
public final class GuestPcMap {
    private static final Pattern LISTED_PC = Pattern.compile("// ([0-9A-Fa-f]{12}):");

    /** One guest instruction's samples: its PC, its listing text, the samples and their stall reasons. */
    public record Hotspot(long guestPc, int line, String text, long samples, Map<String, Long> stallReasons) {
    }

    /** A sample as the sampler gives it: function, the module's CRC (0: not given), offset, stall reason, count. */
    public record Sample(String function, long cubinCrc, long pcOffset, String stallReason, long samples) {
        /** A sample with no module CRC: placed by its function's name. */
        public Sample(String function, long pcOffset, String stallReason, long samples) {
            this(function, 0, pcOffset, stallReason, samples);
        }
    }

    /**
     * What the samples came to: the hottest guest instructions, the samples traced to them, the samples of this
     * module no guest line encloses, and the samples of other modules (their CRC is not this cubin's).
     */
    public record Attribution(List<Hotspot> hottest, long attributed, long unattributed, long otherModules) {
    }

    private final CubinLines lines;
    private final List<String> listing;
    private final long moduleCrc;

    /** A map for a module whose CRC is not known: samples are placed by function name only. */
    public GuestPcMap(CubinLines lines, List<String> listing) {
        this(lines, listing, 0);
    }

    /** @param moduleCrc CUPTI's CRC of this cubin ({@code cuptiGetCubinCrc}); 0 when not known */
    public GuestPcMap(CubinLines lines, List<String> listing, long moduleCrc) {
        this.lines = lines;
        this.listing = List.copyOf(listing);
        this.moduleCrc = moduleCrc;
    }

    /** Whether a sample is of this module: by CRC where both are known, else (by name) assumed so. */
    public boolean ofThisModule(Sample s) {
        return s.cubinCrc() == 0 || moduleCrc == 0 || s.cubinCrc() == moduleCrc;
    }

    /** The guest line (1-based, of guest.s) a device PC maps to. */
    public Optional<Integer> guestLine(String function, long pcOffset) {
        return lines.place(function, pcOffset).map(CubinLines.Place::guestLine).filter(l -> l > 0 && l <= listing.size());
    }

    /** The guest PC a listing line names (-1 for a line that is no instruction). */
    public long guestPc(int line) {
        Matcher m = LISTED_PC.matcher(listing.get(line - 1));
        return m.find() ? Long.parseLong(m.group(1), 16) : -1;
    }

    /** Attributes samples to guest instructions; the {@code top} hottest, by samples then PC. */
    public Attribution attribute(List<Sample> samples, int top) {
        Map<Integer, long[]> perLine = new TreeMap<>();
        Map<Integer, Map<String, Long>> stalls = new TreeMap<>();
        long attributed = 0;
        long unattributed = 0;
        long otherModules = 0;
        for (Sample s : samples) {
            if (!ofThisModule(s)) {
                otherModules += s.samples();
                continue;
            }
            Optional<Integer> line = guestLine(s.function(), s.pcOffset());
            if (line.isEmpty() || guestPc(line.get()) < 0) {
                unattributed += s.samples();
                continue;
            }
            attributed += s.samples();
            perLine.computeIfAbsent(line.get(), k -> new long[1])[0] += s.samples();
            stalls.computeIfAbsent(line.get(), k -> new TreeMap<>()).merge(s.stallReason(), s.samples(), Long::sum);
        }
        List<Hotspot> out = new ArrayList<>();
        for (Map.Entry<Integer, long[]> e : perLine.entrySet()) {
            int line = e.getKey();
            Map<String, Long> byReason = new LinkedHashMap<>();
            stalls.get(line).entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                    .forEach(x -> byReason.put(x.getKey(), x.getValue()));
            out.add(new Hotspot(guestPc(line), line, instructionText(listing.get(line - 1)), e.getValue()[0], byReason));
        }
        out.sort(Comparator.comparingLong(Hotspot::samples).reversed().thenComparingLong(Hotspot::guestPc));
        return new Attribution(out.size() > top ? List.copyOf(out.subList(0, top)) : List.copyOf(out), attributed,
                unattributed, otherModules);
    }

    /** The instruction of a listing line without its address comment. */
    static String instructionText(String line) {
        int c = line.indexOf("//");
        return (c < 0 ? line : line.substring(0, c)).trim();
    }
}
