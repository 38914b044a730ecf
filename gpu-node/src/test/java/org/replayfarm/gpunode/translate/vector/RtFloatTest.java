package org.replayfarm.gpunode.translate.vector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.gpunode.translate.Translator;
import org.replayfarm.model.fp.FloatOps;
import org.replayfarm.model.fp.Format;
import org.replayfarm.model.fp.FpMode;

/**
 * rt_float.h / rt_valu.h float arithmetic under every MODE (the four round modes of f32 and of f16/f64, the
 * four denormal modes of each, IEEE on and off, DX10_CLAMP) against the model's exact float library
 * (org.replayfarm.model.fp, BigDecimal-exact rounding: the host model's arithmetic, a differential check
 * of a second implementation that rounds through the platform's directed modes and round-to-odd): add,
 * mul, fma in f16/f32/f64, min/max/med3, ldexp, the f32->f16 and f64->f32 conversions, omod and clamp.
 * The C side is built with g++ -O2 and the project's CPU flags; 20,000 vectors with special values
 * (signed zeros, infinities, NaNs with payloads, denormals, values next to overflow).
 */
@Tag("unit")
class RtFloatTest {
    @TempDir
    Path dir;

    private static final String[] OPS = {"add32", "mul32", "fma32", "add64", "mul64", "fma64", "add16", "mul16",
        "fma16", "min32", "max32", "med3_32", "ldexp32", "cvt16_32", "cvt32_64", "omodclamp32", "min16", "max64"};

    private static final String DRIVER = """
            #include "rt_valu.h"
            #include <stdio.h>
            int main(void) {
                char op[32]; unsigned mode; unsigned long long a, b, c;
                while (scanf("%31s %x %llx %llx %llx", op, &mode, &a, &b, &c) == 5) {
                    rt_mode_t m = rt_mode_make(mode);
                    unsigned long long r = 0;
                    uint32_t A = (uint32_t)a, B = (uint32_t)b, C = (uint32_t)c;
                    if (!strcmp(op, "add32")) r = rt_valu_add_f32(A, B, &m);
                    else if (!strcmp(op, "mul32")) r = rt_valu_mul_f32(A, B, &m);
                    else if (!strcmp(op, "fma32")) r = rt_valu_fma_f32(A, B, C, &m);
                    else if (!strcmp(op, "add64")) r = rt_valu_add_f64(a, b, &m);
                    else if (!strcmp(op, "mul64")) r = rt_valu_mul_f64(a, b, &m);
                    else if (!strcmp(op, "fma64")) r = rt_valu_fma_f64(a, b, c, &m);
                    else if (!strcmp(op, "add16")) r = rt_valu_add_f16(A, B, &m);
                    else if (!strcmp(op, "mul16")) r = rt_valu_mul_f16(A, B, &m);
                    else if (!strcmp(op, "fma16")) r = rt_valu_fma_f16(A, B, C, &m);
                    else if (!strcmp(op, "min32")) r = rt_valu_min_f32(A, B, &m);
                    else if (!strcmp(op, "max32")) r = rt_valu_max_f32(A, B, &m);
                    else if (!strcmp(op, "med3_32")) r = rt_valu_med3_f32(A, B, C, &m);
                    else if (!strcmp(op, "ldexp32")) r = rt_valu_ldexp_f32(A, B, &m);
                    else if (!strcmp(op, "cvt16_32")) r = rt_valu_cvt_f16_f32(A, &m);
                    else if (!strcmp(op, "cvt32_64")) r = rt_valu_cvt_f32_f64(a, &m);
                    else if (!strcmp(op, "omodclamp32")) r = rt_clamp32(rt_omod32(A, (int)(C & 3), &m), &m);
                    else if (!strcmp(op, "min16")) r = rt_valu_min_f16(A, B, &m);
                    else if (!strcmp(op, "max64")) r = rt_valu_max_f64(a, b, &m);
                    printf("%llx\\n", r);
                }
                return 0;
            }
            """;

    private static long special(Random r, Format f) {
        int bits = f == Format.F16 ? 16 : f == Format.F32 ? 32 : 64;
        long sign = r.nextBoolean() ? 1L << (bits - 1) : 0;
        long expMask = f.exponentMask();
        long mant = f.mantissaMask();
        return switch (r.nextInt(10)) {
            case 0 -> sign;                                        // zero
            case 1 -> sign | expMask;                              // infinity
            case 2 -> sign | expMask | (r.nextLong() & mant | 1);  // NaN (quiet or signalling)
            case 3 -> sign | (r.nextLong() & mant | 1);            // denormal
            case 4 -> sign | (expMask - (1L << f.mantissaBits)) | (r.nextLong() & mant); // next to overflow
            case 5 -> sign | (1L << f.mantissaBits) | (r.nextLong() & mant);            // smallest normals
            default -> r.nextLong() & (bits == 64 ? -1L : (1L << bits) - 1);
        };
    }

    @Test
    void float_operations_match_the_exact_library_in_every_mode() throws Exception {
        for (String h : new String[] {"rt_base.h", "rt_float.h", "rt_valu.h"}) {
            Files.writeString(dir.resolve(h), Translator.resource(h));
        }
        Files.writeString(dir.resolve("d.cpp"), DRIVER);
        Process cc = new ProcessBuilder("g++", "-std=c++17", "-O2", "-ffp-contract=off", "-fno-strict-aliasing",
                "-frounding-math", "-o", "d", "d.cpp").directory(dir.toFile()).redirectErrorStream(true).start();
        String log = new String(cc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(cc.waitFor(120, TimeUnit.SECONDS) && cc.exitValue() == 0, log);

        Random r = new Random(0xF10A7L);
        List<String> in = new ArrayList<>();
        List<Long> expected = new ArrayList<>();
        for (int i = 0; i < 20_000; i++) {
            String op = OPS[i % OPS.length];
            int mode = r.nextInt(16) | r.nextInt(16) << 4 | (r.nextBoolean() ? FpMode.DX10_CLAMP : 0)
                    | (r.nextBoolean() ? FpMode.IEEE : 0);
            FpMode m = new FpMode(mode);
            Format f = op.endsWith("64") && !op.startsWith("cvt") ? Format.F64 : op.endsWith("16") ? Format.F16
                    : op.equals("cvt32_64") ? Format.F64 : Format.F32;
            long a = special(r, f);
            long b = special(r, f);
            long c = special(r, f);
            if (op.equals("ldexp32")) {
                b = r.nextInt(600) - 300;
            }
            if (op.equals("omodclamp32")) {
                c = r.nextInt(4);
            }
            long e = switch (op) {
                case "add32", "add64", "add16" -> FloatOps.add(f, m, a, b);
                case "mul32", "mul64", "mul16" -> FloatOps.mul(f, m, a, b);
                case "fma32", "fma64", "fma16" -> FloatOps.fma(f, m, a, b, c);
                case "min32", "min16" -> FloatOps.min(f, m, a, b);
                case "max32", "max64" -> FloatOps.max(f, m, a, b);
                case "med3_32" -> FloatOps.med3(f, m, a, b, c);
                case "ldexp32" -> FloatOps.ldexp(f, m, a, (int) b);
                case "cvt16_32" -> FloatOps.convert(Format.F32, Format.F16, m, a);
                case "cvt32_64" -> FloatOps.convert(Format.F64, Format.F32, m, a);
                case "omodclamp32" -> FloatOps.clamp(f, m, FloatOps.omod(f, m, (int) c, a));
                default -> throw new IllegalStateException(op);
            };
            in.add(String.format("%s %x %x %x %x", op, mode, a, b & (op.equals("ldexp32") ? 0xFFFFFFFFL : -1L), c));
            expected.add(e);
        }
        Files.write(dir.resolve("in.txt"), in);
        Process p = new ProcessBuilder(dir.resolve("d").toString()).redirectInput(dir.resolve("in.txt").toFile())
                .redirectErrorStream(true).start();
        String[] out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).split("\n");
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        List<String> bad = new ArrayList<>();
        for (int i = 0; i < in.size(); i++) {
            long got = Long.parseUnsignedLong(out[i].trim(), 16);
            if (got != expected.get(i)) {
                bad.add(in.get(i) + ": library 0x" + Long.toHexString(expected.get(i)) + ", rt 0x"
                        + Long.toHexString(got));
            }
        }
        System.out.println("rt_float: " + in.size() + " vectors, " + bad.size() + " differ");
        assertEquals(List.of(), bad.subList(0, Math.min(bad.size(), 25)));
    }
}
