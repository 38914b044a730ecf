package org.replayfarm.evalnode.hostmodel;

/**
 * The fast tier's lane loops for the vector ALU operations real kernels execute most: one plain counted
 * loop per operation over the whole wave (no call per lane, so the JIT inlines the arithmetic and may
 * vectorise the loop), chosen once per decoded instruction by its {@link LaneLoop}. A {@link LaneKernel} called
 * per lane is a megamorphic call (the loop is shared by every operation of its shape); the profile of
 * {@code replay bench} put most of the ALU kernel's time there.
 *
 * <p>Each case restates the expression of the operation's {@link LaneKernel} (registered in {@link
 * ValuIntegerUnit}, {@link ValuLaneUnit}); {@code TierDifferentialTest} runs every kind here against the
 * reference tier (which calls the lane kernel) bit for bit. Operations without a kind keep the lane-kernel
 * call ({@link LaneLoop} names the operations). The loops compute every lane of the wave: the caller passes the destination row for a full EXEC and
 * a scratch row otherwise (and copies the active lanes), which is safe because these operations have no
 * side effects and cannot fault.
 */
final class FastLanes {
    private FastLanes() {
    }

    /** A one-source loop over the wave: lanes {@code 0..n-1} of the sources into {@code o} from {@code d}. */
    interface Loop1 {
        void run(int[] o, int d, int[] x, int xo, int n);
    }

    /** The one-source loop of {@code kind} (a class of its own per operation, compiled as it turns hot). */
    static Loop1 loop1(LaneLoop kind) {
        return switch (kind) {
            case MOV -> (o, d, x, xo, n) -> System.arraycopy(x, xo, o, d, n);
            case NOT -> (o, d, x, xo, n) -> {
                for (int l = 0; l < n; l++) {
                    o[d + l] = ~x[xo + l];
                }
            };
            default -> throw new IllegalArgumentException("one-source kind " + kind);
        };
    }

    /** A two-source loop over the wave: lanes {@code 0..n-1} of the sources into {@code o} from {@code d}. */
    interface Loop2 {
        void run(int[] o, int d, int[] x, int xo, int[] y, int yo, int n);
    }

    /** The two-source loop of {@code kind} (a class of its own per operation, compiled as it turns hot). */
    static Loop2 loop2(LaneLoop kind) {
        return switch (kind) {
            case AND -> (o, d, x, xo, y, yo, n) -> {
                for (int l = 0; l < n; l++) {
                    o[d + l] = x[xo + l] & y[yo + l];
                }
            };
            case OR -> (o, d, x, xo, y, yo, n) -> {
                for (int l = 0; l < n; l++) {
                    o[d + l] = x[xo + l] | y[yo + l];
                }
            };
            case XOR -> (o, d, x, xo, y, yo, n) -> {
                for (int l = 0; l < n; l++) {
                    o[d + l] = x[xo + l] ^ y[yo + l];
                }
            };
            case XNOR -> (o, d, x, xo, y, yo, n) -> {
                for (int l = 0; l < n; l++) {
                    o[d + l] = ~(x[xo + l] ^ y[yo + l]);
                }
            };
            case LSHLREV -> (o, d, x, xo, y, yo, n) -> {
                for (int l = 0; l < n; l++) {
                    o[d + l] = y[yo + l] << (x[xo + l] & 31);
                }
            };
            case LSHRREV -> (o, d, x, xo, y, yo, n) -> {
                for (int l = 0; l < n; l++) {
                    o[d + l] = y[yo + l] >>> (x[xo + l] & 31);
                }
            };
            case ASHRREV -> (o, d, x, xo, y, yo, n) -> {
                for (int l = 0; l < n; l++) {
                    o[d + l] = y[yo + l] >> (x[xo + l] & 31);
                }
            };
            case MIN_I32 -> (o, d, x, xo, y, yo, n) -> {
                for (int l = 0; l < n; l++) {
                    o[d + l] = Math.min(x[xo + l], y[yo + l]);
                }
            };
            case MAX_I32 -> (o, d, x, xo, y, yo, n) -> {
                for (int l = 0; l < n; l++) {
                    o[d + l] = Math.max(x[xo + l], y[yo + l]);
                }
            };
            case MIN_U32 -> (o, d, x, xo, y, yo, n) -> {
                for (int l = 0; l < n; l++) {
                    int a = x[xo + l];
                    int b = y[yo + l];
                    o[d + l] = Integer.compareUnsigned(a, b) <= 0 ? a : b;
                }
            };
            case MAX_U32 -> (o, d, x, xo, y, yo, n) -> {
                for (int l = 0; l < n; l++) {
                    int a = x[xo + l];
                    int b = y[yo + l];
                    o[d + l] = Integer.compareUnsigned(a, b) >= 0 ? a : b;
                }
            };
            case MUL_LO -> (o, d, x, xo, y, yo, n) -> {
                for (int l = 0; l < n; l++) {
                    o[d + l] = x[xo + l] * y[yo + l];
                }
            };
            case ADD -> (o, d, x, xo, y, yo, n) -> {
                for (int l = 0; l < n; l++) {
                    o[d + l] = x[xo + l] + y[yo + l];
                }
            };
            case SUB -> (o, d, x, xo, y, yo, n) -> {
                for (int l = 0; l < n; l++) {
                    o[d + l] = x[xo + l] - y[yo + l];
                }
            };
            case SUBREV -> (o, d, x, xo, y, yo, n) -> {
                for (int l = 0; l < n; l++) {
                    o[d + l] = y[yo + l] - x[xo + l];
                }
            };
            case MUL_HI_U32 -> (o, d, x, xo, y, yo, n) -> {
                for (int l = 0; l < n; l++) {
                    o[d + l] = (int) (Integer.toUnsignedLong(x[xo + l]) * Integer.toUnsignedLong(y[yo + l]) >>> 32);
                }
            };
            case BCNT -> (o, d, x, xo, y, yo, n) -> {
                for (int l = 0; l < n; l++) {
                    o[d + l] = Integer.bitCount(x[xo + l]) + y[yo + l];
                }
            };
            default -> throw new IllegalArgumentException("two-source kind " + kind);
        };
    }

    /** A three-source loop over the wave: lanes {@code 0..n-1} of the sources into {@code o} from {@code d}. */
    interface Loop3 {
        void run(int[] o, int d, int[] x, int xo, int[] y, int yo, int[] z, int zo, int n);
    }

    /** The three-source loop of {@code kind} (a class of its own per operation, compiled as it turns hot). */
    static Loop3 loop3(LaneLoop kind) {
        return switch (kind) {
            case XAD -> (o, d, x, xo, y, yo, z, zo, n) -> {
                for (int l = 0; l < n; l++) {
                    o[d + l] = (x[xo + l] ^ y[yo + l]) + z[zo + l];
                }
            };
            case LSHL_ADD -> (o, d, x, xo, y, yo, z, zo, n) -> {
                for (int l = 0; l < n; l++) {
                    o[d + l] = (x[xo + l] << (y[yo + l] & 31)) + z[zo + l];
                }
            };
            case AND_OR -> (o, d, x, xo, y, yo, z, zo, n) -> {
                for (int l = 0; l < n; l++) {
                    o[d + l] = (x[xo + l] & y[yo + l]) | z[zo + l];
                }
            };
            case LSHL_OR -> (o, d, x, xo, y, yo, z, zo, n) -> {
                for (int l = 0; l < n; l++) {
                    o[d + l] = (x[xo + l] << (y[yo + l] & 31)) | z[zo + l];
                }
            };
            case ADD3 -> (o, d, x, xo, y, yo, z, zo, n) -> {
                for (int l = 0; l < n; l++) {
                    o[d + l] = x[xo + l] + y[yo + l] + z[zo + l];
                }
            };
            case XOR3 -> (o, d, x, xo, y, yo, z, zo, n) -> {
                for (int l = 0; l < n; l++) {
                    o[d + l] = x[xo + l] ^ y[yo + l] ^ z[zo + l];
                }
            };
            case OR3 -> (o, d, x, xo, y, yo, z, zo, n) -> {
                for (int l = 0; l < n; l++) {
                    o[d + l] = x[xo + l] | y[yo + l] | z[zo + l];
                }
            };
            case ADD_LSHL -> (o, d, x, xo, y, yo, z, zo, n) -> {
                for (int l = 0; l < n; l++) {
                    o[d + l] = (x[xo + l] + y[yo + l]) << (z[zo + l] & 31);
                }
            };
            case BFE_U32 -> (o, d, x, xo, y, yo, z, zo, n) -> {
                for (int l = 0; l < n; l++) {
                    int width = z[zo + l] & 31;
                    o[d + l] = width == 0 ? 0
                            : (int) (Integer.toUnsignedLong(x[xo + l]) >>> (y[yo + l] & 31) & ((1L << width) - 1));
                }
            };
            case BFI -> (o, d, x, xo, y, yo, z, zo, n) -> {
                for (int l = 0; l < n; l++) {
                    int m = x[xo + l];
                    o[d + l] = (m & y[yo + l]) | (~m & z[zo + l]);
                }
            };
            default -> throw new IllegalArgumentException("three-source kind " + kind);
        };
    }

    /** Copies the active lanes of a computed scratch row into the destination row. */
    static void merge(int[] v, int d, int[] t, long exec) {
        for (long m = exec; m != 0; m &= m - 1) {
            int l = Long.numberOfTrailingZeros(m);
            v[d + l] = t[l];
        }
    }

    // ---------------------------------------------------------------- f32 arithmetic

    /**
     * Whether an f32 value needs the lane kernel: a denormal (flushed or not by MODE), an infinity or a NaN
     * (quieted, or the default NaN). Zeros and normal numbers go through Java's float arithmetic, which is
     * IEEE 754 round-to-nearest-even as the lane kernel's own fast path computes it.
     */
    static boolean special(int bits) {
        int e = bits & 0x7F80_0000;
        return (e == 0 || e == 0x7F80_0000) && (bits & 0x7FFF_FFFF) != 0;
    }

    /**
     * 1 when {@link #special} holds for an f32 value, else 0, computed without branches (a pre-check over
     * the wave).
     */
    static int edge(int bits) {
        int e = bits >>> 23 & 0xFF;
        return ((e + 1 & 0xFE) == 0 & (bits & 0x7FFF_FFFF) != 0) ? 1 : 0;
    }
}
