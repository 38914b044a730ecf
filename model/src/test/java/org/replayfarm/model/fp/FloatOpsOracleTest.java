package org.replayfarm.model.fp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * FloatOps and Rounding against an independent oracle: oracle.txt, produced by oracle.c (the C library's
 * IEEE arithmetic under fesetround on x86-64, denormals kept). Each of the four round modes is checked for
 * f32/f64 add, multiply and fma, f16 add and multiply, f64-to-f32, f32-to-f16 and i32-to-f32 conversion.
 * A NaN result is compared as NaN-ness only (x86's NaN payloads are not the GPU's).
 */
@Tag("unit")
class FloatOpsOracleTest {
    @Test
    void every_oracle_case_matches_in_every_round_mode() throws Exception {
        List<String> failures = new ArrayList<>();
        int cases = 0;
        try (var in = new BufferedReader(new InputStreamReader(
                getClass().getResourceAsStream("oracle.txt"), StandardCharsets.US_ASCII))) {
            String line;
            while ((line = in.readLine()) != null) {
                String[] p = line.split(" ");
                int round = Integer.parseInt(p[1]);
                long a = Long.parseUnsignedLong(p[2], 16);
                long b = Long.parseUnsignedLong(p[3], 16);
                long c = Long.parseUnsignedLong(p[4], 16);
                long want = Long.parseUnsignedLong(p[5], 16);
                FpMode m = new FpMode(FpMode.encode(round, round, 3, 3, true, true));
                Format f;
                long got;
                switch (p[0]) {
                    case "add32" -> { f = Format.F32; got = FloatOps.add(f, m, a, b); }
                    case "mul32" -> { f = Format.F32; got = FloatOps.mul(f, m, a, b); }
                    case "fma32" -> { f = Format.F32; got = FloatOps.fma(f, m, a, b, c); }
                    case "add64" -> { f = Format.F64; got = FloatOps.add(f, m, a, b); }
                    case "mul64" -> { f = Format.F64; got = FloatOps.mul(f, m, a, b); }
                    case "fma64" -> { f = Format.F64; got = FloatOps.fma(f, m, a, b, c); }
                    case "add16" -> { f = Format.F16; got = FloatOps.add(f, m, a, b); }
                    case "mul16" -> { f = Format.F16; got = FloatOps.mul(f, m, a, b); }
                    case "cvt64to32" -> { f = Format.F32; got = FloatOps.convert(Format.F64, f, m, a); }
                    case "cvt32to16" -> { f = Format.F16; got = FloatOps.convert(Format.F32, f, m, a); }
                    case "cvti32to32" -> { f = Format.F32; got = FloatOps.fromDouble(f, m, (int) a); }
                    default -> throw new AssertionError(line);
                }
                cases++;
                boolean ok = f.isNaN(want) ? f.isNaN(got) : got == want;
                if (!ok && failures.size() < 20) {
                    failures.add(line + " -> got " + Long.toHexString(got));
                }
            }
        }
        assertTrue(cases > 20_000, "oracle cases: " + cases);
        assertEquals(List.of(), failures);
    }

    @Test
    void half_conversion_is_exact_both_ways_for_every_half() {
        for (int h = 0; h < 0x10000; h++) {
            if ((h & 0x7C00) == 0x7C00 && (h & 0x3FF) != 0) {
                continue;
            }
            int f = Half.toFloatBits(h);
            assertEquals(h, Half.fromFloatBits(f, Rounding.NEAREST_EVEN), Integer.toHexString(h));
        }
    }
}
