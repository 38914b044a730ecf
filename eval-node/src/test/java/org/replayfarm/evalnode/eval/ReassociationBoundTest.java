package org.replayfarm.evalnode.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The bound an order-dependent float sum is compared within: every order of the same terms, summed in float or
 * double as a device would, lands within it of every other order (random terms of mixed signs and magnitudes, many
 * orders each), and it is not loose by orders of magnitude (the worst pair found is a fair part of it somewhere).
 */
@Tag("unit")
class ReassociationBoundTest {
    @Test
    void every_order_of_a_float_sum_is_within_the_bound_of_every_other() {
        Random random = new Random(39);
        double tightest = 0;
        for (int trial = 0; trial < 300; trial++) {
            int n = 2 + random.nextInt(300);
            List<Float> terms = new ArrayList<>();
            double abs = 0;
            for (int i = 0; i < n; i++) {
                float t = (float) ((random.nextBoolean() ? 1 : -1) * Math.pow(10, random.nextInt(7) - 3) * random.nextFloat());
                terms.add(t);
                abs += Math.abs(t);
            }
            MemoryMerge.OrderDependent d = new MemoryMerge.OrderDependent(0, 0, "cmpswap", List.of(), 4, n, abs, abs,
                    Set.of());
            double bound = d.reassociationBound(4);
            float lo = Float.POSITIVE_INFINITY;
            float hi = Float.NEGATIVE_INFINITY;
            for (int order = 0; order < 40; order++) {
                Collections.shuffle(terms, random);
                float s = 0;
                for (float t : terms) {
                    s += t;
                }
                lo = Math.min(lo, s);
                hi = Math.max(hi, s);
            }
            assertTrue(hi - lo <= bound, "n=" + n + ": orders apart by " + (hi - lo) + ", bound " + bound);
            tightest = Math.max(tightest, (hi - lo) / bound);
        }
        assertTrue(tightest > 1e-3, "the bound is not loose beyond reason: the worst pair reached " + tightest + " of it");
    }

    @Test
    void a_sum_that_met_an_infinity_or_too_many_terms_bounds_nothing() {
        assertEquals(Double.POSITIVE_INFINITY, new MemoryMerge.OrderDependent(0, 0, "cmpswap", List.of(), 4, 1 << 25, 1,
                1, Set.of()).reassociationBound(4));
        assertEquals(0, new MemoryMerge.OrderDependent(0, 0, "cmpswap", List.of(), 8, 0, 5, 5, Set.of())
                .reassociationBound(8));
    }
}
