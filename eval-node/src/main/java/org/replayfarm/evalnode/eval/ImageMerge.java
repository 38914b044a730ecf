package org.replayfarm.evalnode.eval;

import java.util.ArrayList;
import java.util.List;
import org.replayfarm.evalnode.hostmodel.GroupResult;
import org.replayfarm.evalnode.hostmodel.InitialImages;
import org.replayfarm.evalnode.hostmodel.TexelStore;
import org.replayfarm.model.capture.TexelLayout;

/**
 * Merges the groups' texel stores into final images: every image's initial texels, then every group's
 * stores in group order. Two groups storing different values to one texel is a store conflict, reported,
 * never resolved silently (the later group's value stays). Each texel remembers which group stored it
 * last, so differences can be traced back to groups.
 */
public final class ImageMerge {
    /** Two groups stored different values to one texel. */
    public record TexelConflict(int image, long texel, TexelLayout.Texel at, String firstGroup, String secondGroup) {
    }

    private final InitialImages initial;
    private final byte[][] texels;
    private final int[][] storer;
    private final List<TexelConflict> conflicts = new ArrayList<>();
    private long conflictCount;
    private final int groupsX;
    private final int groupsY;

    public ImageMerge(InitialImages initial, org.replayfarm.proto.Dispatch dispatch) {
        this.initial = initial;
        this.groupsX = Math.max(1, dispatch.getGroupCountX());
        this.groupsY = Math.max(1, dispatch.getGroupCountY());
        int n = initial.size();
        this.texels = new byte[n][];
        this.storer = new int[n][];
        for (int i = 0; i < n; i++) {
            InitialImages.Entry e = initial.get(i);
            texels[i] = new byte[e.texels().remaining()];
            e.texels().duplicate().get(texels[i]);
            storer[i] = new int[Math.toIntExact(e.texelCount())];
        }
    }

    /** Adds one group's texel stores (groups must come in the order the output is defined by). */
    public void add(GroupResult g) {
        int key = (int) (g.x() + (long) groupsX * (g.y() + (long) groupsY * g.z())) + 1;
        for (TexelStore t : g.texels()) {
            byte[] target = texels[t.image()];
            int bpt = t.value().length;
            int at = Math.toIntExact(t.texel() * bpt);
            int[] who = storer[t.image()];
            int was = who[(int) t.texel()];
            if (was != 0 && was != key && !java.util.Arrays.equals(target, at, at + bpt, t.value(), 0, bpt)) {
                conflictCount++;
                if (conflicts.size() < 1000) {
                    conflicts.add(new TexelConflict(t.image(), t.texel(),
                            TexelLayout.texelAt(initial.get(t.image()).image(), t.texel()), name(was), name(key)));
                }
            }
            System.arraycopy(t.value(), 0, target, at, bpt);
            who[(int) t.texel()] = key;
        }
    }

    /** A group's name from its key (linear id plus one). */
    public String name(int key) {
        long linear = key - 1L;
        return "(" + linear % groupsX + ", " + linear / groupsX % groupsY + ", " + linear / ((long) groupsX * groupsY) + ")";
    }

    /** Image {@code n}'s final texels, in the capture's texel layout. */
    public byte[] texels(int n) {
        return texels[n];
    }

    /**
     * Which group last stored each texel of image {@code n}: the group's linear id plus one, 0 where no
     * group stored (the array is the merge's own; do not change it).
     */
    public int[] storers(int n) {
        return storer[n];
    }

    public List<TexelConflict> conflicts() {
        return conflicts;
    }

    public long conflictCount() {
        return conflictCount;
    }

    public InitialImages initial() {
        return initial;
    }

    public int imageCount() {
        return texels.length;
    }
}
