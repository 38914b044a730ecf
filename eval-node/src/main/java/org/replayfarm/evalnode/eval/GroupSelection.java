package org.replayfarm.evalnode.eval;

import java.util.ArrayList;
import java.util.List;
import org.replayfarm.proto.Dispatch;

/**
 * Which groups to evaluate: every group of the dispatch, or a list given as {@code X,Y[,Z]}. A group named
 * more than once is refused (it would be evaluated and its atomics merged once per mention).
 */
public record GroupSelection(boolean every, List<int[]> groups) {
    public GroupSelection {
        groups = List.copyOf(groups);
        java.util.Map<java.util.List<Integer>, Integer> seen = new java.util.LinkedHashMap<>();
        for (int[] g : groups) {
            seen.merge(List.of(g[0], g[1], g[2]), 1, Integer::sum);
        }
        List<String> repeated = new ArrayList<>();
        seen.forEach((g, n) -> {
            if (n > 1) {
                repeated.add(String.format("(%d, %d, %d) %d times", g.get(0), g.get(1), g.get(2), n));
            }
        });
        if (!repeated.isEmpty()) {
            throw new IllegalArgumentException("group" + (repeated.size() > 1 ? "s " : " ") + String.join(", ", repeated)
                    + ": name each group once (a repeated group would be evaluated, and its atomics merged, again)");
        }
    }

    public static GroupSelection everyGroup() {
        return new GroupSelection(true, List.of());
    }

    /** Parses {@code X,Y[,Z]} group ids (Y and Z default to 0). */
    public static GroupSelection of(List<String> ids) {
        List<int[]> groups = new ArrayList<>();
        for (String id : ids) {
            String[] parts = id.split(",", -1);
            if (parts.length < 1 || parts.length > 3) {
                throw new IllegalArgumentException("--group takes X,Y[,Z], not '" + id + "'");
            }
            int[] g = new int[3];
            for (int i = 0; i < parts.length; i++) {
                try {
                    g[i] = Integer.parseInt(parts[i].trim());
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("--group " + id + ": '" + parts[i] + "' is not a group id");
                }
                if (g[i] < 0) {
                    throw new IllegalArgumentException("--group " + id + ": ids are not negative");
                }
            }
            groups.add(g);
        }
        return new GroupSelection(false, List.copyOf(groups));
    }

    /** The groups in evaluation order (x fastest), each checked against the dispatch. */
    public List<int[]> resolve(Dispatch d) {
        if (!every) {
            for (int[] g : groups) {
                if (Integer.compareUnsigned(g[0], d.getGroupCountX()) >= 0
                        || Integer.compareUnsigned(g[1], d.getGroupCountY()) >= 0
                        || Integer.compareUnsigned(g[2], d.getGroupCountZ()) >= 0) {
                    throw new IllegalArgumentException(String.format("group (%d, %d, %d) is outside the dispatch of "
                            + "%d x %d x %d groups", g[0], g[1], g[2], d.getGroupCountX(), d.getGroupCountY(),
                            d.getGroupCountZ()));
                }
            }
            return groups;
        }
        long total = (long) d.getGroupCountX() * d.getGroupCountY() * d.getGroupCountZ();
        if (total > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("a dispatch of " + total + " groups is too large to evaluate in one process");
        }
        List<int[]> all = new ArrayList<>((int) total);
        for (int z = 0; z < d.getGroupCountZ(); z++) {
            for (int y = 0; y < d.getGroupCountY(); y++) {
                for (int x = 0; x < d.getGroupCountX(); x++) {
                    all.add(new int[] {x, y, z});
                }
            }
        }
        return all;
    }
}
