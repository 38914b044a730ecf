package org.replayfarm.model.build;

/**
 * Group counts and group size in x, y, z, and how many dimensions the dispatch was given in (the
 * {@code setup} field of the dispatch packet and {@code hidden_grid_dims}).
 */
public record DispatchShape(int groupsX, int groupsY, int groupsZ, int sizeX, int sizeY, int sizeZ, int dimensions) {
    public DispatchShape {
        if (dimensions < 1 || dimensions > 3) {
            throw new IllegalArgumentException("a dispatch has 1 to 3 dimensions, not " + dimensions);
        }
    }

    /** Parses {@code --groups GX[,GY[,GZ]]} and {@code --group-size BX[,BY[,BZ]]}. */
    public static DispatchShape parse(String groups, String groupSize) {
        int[] g = triple("--groups", groups);
        int[] s = triple("--group-size", groupSize);
        int dims = Math.max(groups.split(",").length, groupSize.split(",").length);
        return new DispatchShape(g[0], g[1], g[2], s[0], s[1], s[2], dims);
    }

    private static int[] triple(String option, String text) {
        String[] parts = text.split(",", -1);
        if (parts.length < 1 || parts.length > 3) {
            throw new IllegalArgumentException(option + " takes 1 to 3 comma-separated numbers, got '" + text + "'");
        }
        int[] out = {1, 1, 1};
        for (int i = 0; i < parts.length; i++) {
            try {
                long v = Long.parseLong(parts[i].trim());
                if (v < 1 || v > 0xFFFF_FFFFL) {
                    throw new NumberFormatException();
                }
                out[i] = (int) v;
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(option + ": '" + parts[i] + "' is not a positive 32-bit count");
            }
        }
        return out;
    }

    public long groupCount(int axis) {
        return Integer.toUnsignedLong(switch (axis) {
            case 0 -> groupsX;
            case 1 -> groupsY;
            default -> groupsZ;
        });
    }

    public int groupSize(int axis) {
        return switch (axis) {
            case 0 -> sizeX;
            case 1 -> sizeY;
            default -> sizeZ;
        };
    }
}
