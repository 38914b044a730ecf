package org.replayfarm.cli.vulkan;

import java.util.ArrayList;
import java.util.List;
import org.replayfarm.model.amber.BufferDecl;
import org.replayfarm.model.amber.ValueSlot;
import org.replayfarm.model.compare.Ulps;

/**
 * Where the host model and lavapipe differ in an Amber buffer, classified by what SPIR-V allows: a float value
 * within a number of units in the last place (transcendentals, contraction, conversions the environment lets
 * differ), or a denormal one side flushed to zero (SPIR-V allows flushing unless the shader asks for
 * DenormPreserve), against anything else: an integer, padding, or a float further off — a difference no
 * precision rule allows. Never widened: the limit is the caller's and the ulps measured are reported.
 */
public final class LavapipeDifferences {
    /** What one buffer's comparison found. */
    public record Found(int floats, long maxUlps, int flushed, List<String> exact) {
        public boolean approximateOnly(long limit) {
            return exact.isEmpty() && maxUlps <= limit;
        }
    }

    private LavapipeDifferences() {
    }

    public static Found classify(BufferDecl decl, byte[] host, byte[] lavapipe) {
        int floats = 0;
        long maxUlps = 0;
        int flushed = 0;
        List<String> exact = new ArrayList<>();
        int n = Math.min(host.length, lavapipe.length);
        if (host.length != lavapipe.length) {
            exact.add("sizes differ: host " + host.length + " bytes, lavapipe " + lavapipe.length);
        }
        int stride = Math.max(1, decl.stride());
        List<ValueSlot> slots = decl.slots();
        boolean[] covered = new boolean[stride];
        for (ValueSlot s : slots) {
            for (int b = s.offset(); b < Math.min(stride, s.offset() + (s.bitShift() + s.bits() + 7) / 8); b++) {
                covered[b] = true;
            }
        }
        for (int base = 0; base < n; base += stride) {
            for (ValueSlot s : slots) {
                int end = base + s.offset() + (s.bitShift() + s.bits() + 7) / 8;
                if (end > n) {
                    continue;
                }
                long a = s.rawBits(host, base);
                long b = s.rawBits(lavapipe, base);
                if (a == b) {
                    continue;
                }
                String where = "byte " + (base + s.offset());
                if (s.kind() != ValueSlot.Kind.FLOAT) {
                    exact.add(where + ": " + s.kind() + " " + a + " vs " + b);
                    continue;
                }
                int bits = s.bits();
                if (isZero(a, bits) && isDenormal(b, bits) || isZero(b, bits) && isDenormal(a, bits)) {
                    flushed++;
                    continue;
                }
                long ulps = ulps(a, b, bits);
                if (ulps < 0) {
                    exact.add(where + ": NaN on one side only");
                    continue;
                }
                floats++;
                maxUlps = Math.max(maxUlps, ulps);
            }
            // bytes outside every slot (padding) compare exactly
            for (int k = 0; k < stride && base + k < n; k++) {
                if (!covered[k] && host[base + k] != lavapipe[base + k]) {
                    exact.add("byte " + (base + k) + " (padding)");
                }
            }
        }
        return new Found(floats, maxUlps, flushed, exact);
    }

    private static boolean isZero(long v, int bits) {
        long mag = v & ((1L << (bits - 1)) - 1);
        return mag == 0;
    }

    private static boolean isDenormal(long v, int bits) {
        int expBits = bits == 16 ? 5 : bits == 32 ? 8 : 11;
        int mantBits = bits - 1 - expBits;
        long exp = v >>> mantBits & ((1L << expBits) - 1);
        long mant = v & ((1L << mantBits) - 1);
        return exp == 0 && mant != 0;
    }

    /**
     * Units in the last place between two floats of the same width ({@link Ulps#distance}: the largest finite
     * value is one from infinity); 0 for two NaNs, -1 when exactly one is a NaN.
     */
    static long ulps(long a, long b, int bits) {
        boolean nanA = Ulps.nan(bits, a);
        boolean nanB = Ulps.nan(bits, b);
        if (nanA || nanB) {
            return nanA && nanB ? 0 : -1;
        }
        return Ulps.distance(bits, a, b);
    }
}
