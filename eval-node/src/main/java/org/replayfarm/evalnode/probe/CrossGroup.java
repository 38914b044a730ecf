package org.replayfarm.evalnode.probe;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.replayfarm.evalnode.eval.InOrder;
import org.replayfarm.evalnode.hostmodel.HostModel;
import org.replayfarm.evalnode.hostmodel.InitialImages;
import org.replayfarm.evalnode.hostmodel.InitialMemory;
import org.replayfarm.model.isa.MemoryAccess;

/**
 * The slice across groups. Within one dispatch the host model lets a group read what another wrote in one place: the
 * in-order pass, where the groups that meet on an order-dependent atomic location (a compare-and-swap loop, an
 * exchange) run one after another in group order, each on the memory the ones before it left (their stores and
 * atomics). There a returning atomic of a group gives back bytes an earlier group of the pass wrote; this follows
 * such an atomic of a slice to the group that last wrote its bytes before it, records that group's run as the pass
 * ran it, and takes the slice of its write there (the value it stored or swapped in, and its address).
 *
 * <p>What it cannot follow: plain loads (the host model does not record which bytes a load read, and outside the
 * in-order pass every group reads the capture's initial memory: a load of another group's store is a race the merge
 * reports as a conflict, not a value it carries); LDS (one group's own: the slice already follows it across the
 * group's waves); and global memory one wave of a group stored and another wave of the same group read, which the
 * group's own slice covers by taking every earlier store of the group.
 */
public final class CrossGroup {
    /**
     * Atomic step {@code atomic} of the slice's group read {@code bytes} last written, before that group ran, by
     * {@code group}: its run in the pass ({@code execution}) and the slice of that write there.
     */
    public record Link(Execution.Step atomic, Execution.Target bytes, int[] group, Execution execution, Slice slice) {
    }

    private CrossGroup() {
    }

    /**
     * Group {@code g}'s run as the evaluation ran it: on the memory the groups before it in {@code inOrder} left when it
     * is one of them (the in-order pass), else on the capture's memory.
     */
    public static Execution record(HostModel model, List<int[]> inOrder, int[] g, Execution.Target target) {
        int at = indexOf(inOrder, g);
        if (at < 0) {
            return Execution.record(model, g, target);
        }
        InOrder.Sequence sequence = new InOrder.Sequence(model.kernel(), HostModel.DEFAULT_BUDGET,
                HostModel.Tier.byDefault());
        for (int[] before : inOrder.subList(0, at)) {
            sequence.next(before[0], before[1], before[2], null);
        }
        return Execution.record(model, g, target, copy(sequence.memoryNow()), copy(sequence.imagesNow()));
    }

    /**
     * The links of {@code slice} (of {@code e}, group {@code e.group()} of {@code inOrder}): for each atomic step in it
     * and each location it read, the last write to those bytes by a group before it in the pass (at most {@code max}).
     * Empty when the group is not in the pass or nothing before it wrote what its atomics read.
     */
    public static List<Link> follow(HostModel model, List<int[]> inOrder, Execution e, Slice slice, int max) {
        int at = indexOf(inOrder, e.group());
        if (at <= 0) {
            return List.of();
        }
        // the locations the slice's atomics read, once each, with the first atomic step that read them
        Map<String, Object[]> wanted = new LinkedHashMap<>();
        for (Slice.Entry en : slice.entries()) {
            MemoryAccess m = en.step().insn().opcode().memory();
            if (m == null || m.kind() != MemoryAccess.Kind.ATOMIC) {
                continue;
            }
            for (Execution.Target t : e.atomicTargets(en.step().seq())) {
                wanted.putIfAbsent(t.range() + ":" + t.offset() + ":" + t.length(), new Object[] {en.step(), t, -1});
            }
        }
        if (wanted.isEmpty()) {
            return List.of();
        }
        // the last group before it in the pass that wrote each location
        InOrder.Sequence sequence = new InOrder.Sequence(model.kernel(), HostModel.DEFAULT_BUDGET,
                HostModel.Tier.byDefault());
        for (int i = 0; i < at; i++) {
            int[] g = inOrder.get(i);
            int index = i;
            sequence.next(g[0], g[1], g[2], ev -> {
                for (Object[] w : wanted.values()) {
                    if (((Execution.Target) w[1]).hit(ev)) {
                        w[2] = index;
                    }
                }
            });
        }
        List<Link> out = new ArrayList<>();
        for (Object[] w : wanted.values()) {
            int writer = (int) w[2];
            if (writer < 0 || out.size() >= max) {
                continue;
            }
            Execution.Target t = (Execution.Target) w[1];
            int[] g = inOrder.get(writer);
            Execution a = record(model, inOrder, g, t);
            Execution.Store s = a.store();
            if (s == null) {
                continue;
            }
            out.add(new Link((Execution.Step) w[0], t, g, a, Slice.of(a, s.wave(), s.step())));
        }
        return out;
    }

    private static int indexOf(List<int[]> groups, int[] g) {
        for (int i = 0; i < groups.size(); i++) {
            if (Arrays.equals(groups.get(i), g)) {
                return i;
            }
        }
        return -1;
    }

    /** A copy of {@code m}'s bytes (the pass goes on writing the ones it handed out). */
    private static InitialMemory copy(InitialMemory m) {
        List<InitialMemory.Range> out = new ArrayList<>();
        for (InitialMemory.Range r : m.ranges()) {
            out.add(new InitialMemory.Range(r.index(), r.address(), r.size(), bytes(r.initial()), r.name()));
        }
        return new InitialMemory(out);
    }

    private static InitialImages copy(InitialImages images) {
        List<InitialImages.Entry> out = new ArrayList<>();
        for (InitialImages.Entry e : images.images()) {
            out.add(new InitialImages.Entry(e.index(), e.image(), bytes(e.texels())));
        }
        return new InitialImages(out);
    }

    private static ByteBuffer bytes(ByteBuffer b) {
        ByteBuffer d = b.duplicate();
        d.position(0);
        byte[] a = new byte[d.remaining()];
        d.get(a);
        return ByteBuffer.wrap(a).asReadOnlyBuffer().order(ByteOrder.LITTLE_ENDIAN);
    }

    /** The groups of the in-order pass as report.json names them ({@code "(x, y, z)"}), parsed. */
    public static List<int[]> parse(List<String> names) {
        List<int[]> out = new ArrayList<>();
        for (String n : names) {
            String[] p = n.replaceAll("[() ]", "").split(",");
            if (p.length != 3) {
                throw new IllegalArgumentException("not a group: " + n);
            }
            out.add(new int[] {Integer.parseInt(p[0]), Integer.parseInt(p[1]), Integer.parseInt(p[2])});
        }
        return out;
    }
}
