package org.replayfarm.coordinator.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.replayfarm.evalnode.hostmodel.HostModel;
import org.replayfarm.evalnode.hostmodel.Kernel;
import org.replayfarm.evalnode.hostmodel.StoreTracer;
import org.replayfarm.model.isa.Disassembler;
import org.replayfarm.model.isa.Syntax;

/**
 * The instruction responsible: re-runs the groups that wrote an element (or texel) on the host model with
 * store tracing ({@link HostModel#runTraced}) and names every store or atomic to its bytes: group, wave,
 * lane, PC, the instruction as the listing prints it, the value written and, when line info is at hand, the
 * source line. An atomic location names every group that contributed, each with its own atomics.
 */
public final class StoreTrace {
    /** Stores listed per element and group at most (a loop storing one place again and again is cut short). */
    public static final int STORES_KEPT = 8;

    /**
     * One write to a traced element: the group, wave, lane and PC, the instruction's text, its kind
     * ({@code store}, {@code atomic add}, {@code texel store}, ...), the value written (as the element's type
     * when the write covers the element exactly, else its bytes in hex) and the source line ("" unknown).
     */
    public record Store(String group, int wave, int lane, long pc, String instruction, String kind, String value,
                        String source) {
        /** One line, as the summary and {@code replay explain} print it. */
        public String describe() {
            return String.format("%s wave %d lane %d pc 0x%x: %s  [%s] wrote %s%s", group, wave, lane, pc, instruction, kind,
                    value, source.isEmpty() ? "" : "  at " + source);
        }
    }

    /** What to trace: bytes [offset, offset + length) of range {@code range}, or texel {@code texel} of an image. */
    public record Target(int range, long offset, int length, int image, long texel, ElementType type,
                         org.replayfarm.model.image.ImageFormat format) {
        public static Target bytes(int range, long offset, int length, ElementType type) {
            return new Target(range, offset, length, -1, -1, type, null);
        }

        /** A texel; {@code format} (may be null) prints the values written as channels. */
        public static Target texel(int image, long texel, org.replayfarm.model.image.ImageFormat format) {
            return new Target(-1, -1, 0, image, texel, null, format);
        }

        boolean hit(StoreTracer.Event e) {
            if (range >= 0) {
                return e.range() == range && e.offset() < offset + length && e.offset() + e.value().length > offset;
            }
            return e.image() == image && e.texel() == texel;
        }

        String value(StoreTracer.Event e) {
            byte[] v = e.value();
            if (range >= 0 && type != null && e.offset() == offset && v.length == length) {
                List<String> parts = new ArrayList<>();
                for (int c = 0; c < type.components(); c++) {
                    long bits = type.bits(v, 0, c);
                    parts.add(type.value(bits) + " (" + type.hex(bits) + ")");
                }
                return String.join(", ", parts);
            }
            if (range < 0 && format != null && v.length == format.bytesPerTexel()) {
                long[] raw = org.replayfarm.model.image.TexelCodec.unpack(format, v, 0);
                int[] bits = format.channelBits();
                List<String> parts = new ArrayList<>();
                for (int c = 0; c < raw.length; c++) {
                    parts.add(Diff.channelText(format, bits[c], raw[c]) + String.format(" (0x%0" + ((bits[c] + 3) / 4) + "x)",
                            raw[c]));
                }
                return String.join(", ", parts);
            }
            StringBuilder b = new StringBuilder("0x");
            for (int i = v.length - 1; i >= 0; i--) {
                b.append(String.format("%02x", v[i] & 0xFF));
            }
            if (range >= 0) {
                b.append(" to bytes ").append(e.offset()).append("..").append(e.offset() + v.length - 1);
            }
            return b.toString();
        }
    }

    /** Maps a PC to its source line ({@code file:line}), or "" when there is no line info. */
    @FunctionalInterface
    public interface SourceLines {
        SourceLines NONE = pc -> "";

        String at(long pc);
    }

    private static final Pattern GROUP = Pattern.compile("\\((\\d+), (\\d+), (\\d+)\\)");

    private StoreTrace() {
    }

    /** A group's id from its report name {@code (x, y, z)}. */
    public static int[] groupId(String name) {
        Matcher m = GROUP.matcher(name.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException("group '" + name + "': expected (x, y, z)");
        }
        return new int[] {Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3))};
    }

    /**
     * Re-runs, once each, every group some target names, with store tracing, and returns per target the
     * writes to it in the order each group made them (groups in the order first named).
     */
    public static Map<Target, List<Store>> trace(Kernel kernel, long budget, Map<Target, List<String>> groups,
                                                 SourceLines lines) {
        return trace(kernel, budget, groups, lines, List.of());
    }

    /**
     * As above; a group of {@code inOrder} (the groups the merge ran again one after another, in that order, for
     * order-dependent atomics) is traced as it ran there: the pass runs again up to the last such group named, each
     * on the memory the ones before it left, so its stores show the values it stored in the merged result.
     */
    public static Map<Target, List<Store>> trace(Kernel kernel, long budget, Map<Target, List<String>> groups,
                                                 SourceLines lines, List<String> inOrder) {
        Set<String> all = new LinkedHashSet<>();
        groups.values().forEach(all::addAll);
        Map<Target, List<Store>> out = new LinkedHashMap<>();
        groups.keySet().forEach(t -> out.put(t, new ArrayList<>()));
        HostModel model = new HostModel(kernel, budget);
        Set<String> sequenced = new java.util.HashSet<>(inOrder);
        sequenced.retainAll(all);
        if (!sequenced.isEmpty()) {
            org.replayfarm.evalnode.eval.InOrder.Sequence sequence = new org.replayfarm.evalnode.eval.InOrder.Sequence(
                    kernel, budget, HostModel.Tier.byDefault());
            int left = sequenced.size();
            for (String g : inOrder) {
                if (left == 0) {
                    break;
                }
                int[] id = groupId(g);
                if (sequenced.contains(g)) {
                    left--;
                    sequence.next(id[0], id[1], id[2], tracer(g, groups, out, kernel, lines));
                } else {
                    sequence.next(id[0], id[1], id[2], null);
                }
            }
        }
        for (String g : all) {
            if (sequenced.contains(g)) {
                continue;
            }
            int[] id = groupId(g);
            model.runTraced(id[0], id[1], id[2], tracer(g, groups, out, kernel, lines));
        }
        return out;
    }

    /** What records group {@code g}'s writes to the targets that name it, at most {@link #STORES_KEPT} each. */
    private static StoreTracer tracer(String g, Map<Target, List<String>> groups, Map<Target, List<Store>> out,
                                      Kernel kernel, SourceLines lines) {
        Syntax syntax = kernel.waveSize() == 64 ? Syntax.WAVE64 : Syntax.WAVE32;
        List<Target> mine = groups.entrySet().stream().filter(e -> e.getValue().contains(g)).map(Map.Entry::getKey)
                .toList();
        Map<Target, int[]> kept = new java.util.HashMap<>();
        return e -> {
            for (Target t : mine) {
                List<Store> list = out.get(t);
                int[] n = kept.computeIfAbsent(t, k -> new int[1]);
                if (n[0] < STORES_KEPT && t.hit(e)) {
                    n[0]++;
                    String text;
                    try {
                        text = Disassembler.text(e.instruction(), syntax);
                    } catch (IllegalArgumentException ex) {
                        text = e.instruction().mnemonic();
                    }
                    list.add(new Store(g, e.wave(), e.lane(), e.pc(), text, e.kind(), t.value(e), lines.at(e.pc())));
                }
            }
        };
    }

}
