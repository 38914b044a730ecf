package org.replayfarm.model.image;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.model.testing.Toolchain;
import org.replayfarm.proto.DataFormat;
import org.replayfarm.proto.NumericFormat;

/**
 * Texel conversions against oracles from outside the codec: a C program compiled by clang-19 for x86-64
 * (the compiler's own float-to-_Float16 conversion, a nearest-pattern search over every 11- and 10-bit
 * float, the UNORM/SNORM/sRGB rules written from the Vulkan spec's formulas in C), and format numbers
 * as llvm-mc-19 encodes them in MTBUF's FORMAT field.
 */
@Tag("unit")
class TexelConversionOracleTest {
    @TempDir
    Path dir;

    private static final String ORACLE = """
            #include <math.h>
            #include <stdio.h>
            #include <stdint.h>
            #include <string.h>
            static uint32_t bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
            static float flt(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
            /* value of an unsigned 5-bit-exponent float with m mantissa bits */
            static double small_value(unsigned p, int m) {
              unsigned e = p >> m, f = p & ((1u << m) - 1);
              if (e == 0) return ldexp((double) f, -14 - m);
              return ldexp(1.0 + ldexp((double) f, -m), (int) e - 15);
            }
            /* nearest finite pattern, ties to the even pattern; past max + half an ulp: infinity */
            static unsigned small_encode(float x, int m) {
              unsigned inf = 31u << m;
              if (isnan(x)) return 0xFFFFFFFFu;
              if (x <= 0) return 0;
              unsigned maxp = inf - 1;
              double maxv = small_value(maxp, m), ulp = maxv - small_value(maxp - 1, m);
              if (isinf(x) || (double) x >= maxv + ulp / 2) return inf;
              unsigned best = 0; double bestd = INFINITY;
              for (unsigned p = 0; p <= maxp; p++) {
                double d = fabs(small_value(p, m) - (double) x);
                if (d < bestd || (d == bestd && (p & 1) == 0)) { best = p; bestd = d; }
              }
              return best;
            }
            int main(void) {
              for (unsigned u = 0; u < 256; u++) {
                float un = (float) u / 255.0f;             /* exactly rounded division in float */
                float sn = (int8_t) u / 127.0f; if (sn < -1.0f) sn = -1.0f;
                double c = u / 255.0;
                float srgb = (float) (c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4));
                printf("d8 %u %08x %08x %08x\\n", u, bits(un), bits(sn), bits(srgb));
              }
              unsigned in;
              while (scanf("%x", &in) == 1) {
                float x = flt(in);
                _Float16 h = (_Float16) x; uint16_t hb; memcpy(&hb, &h, 2);
                float cl = isnan(x) ? 0.0f : fminf(fmaxf(x, 0.0f), 1.0f);
                float cs = isnan(x) ? 0.0f : fminf(fmaxf(x, -1.0f), 1.0f);
                long u8 = lrint(cl * 255.0), u16 = lrint(cl * 65535.0), s8 = lrint(cs * 127.0), s16 = lrint(cs * 32767.0);
                printf("e %08x %04x %03x %03x %02lx %04lx %02lx %04lx\\n", in, hb, small_encode(x, 6) & 0x7FF,
                       small_encode(x, 5) & 0x3FF, u8, u16, s8 & 0xFF, s16 & 0xFFFF);
              }
              return 0;
            }
            """;

    private static List<Integer> inputs() {
        List<Integer> v = new ArrayList<>();
        float[] edges = {0f, -0f, 1f, -1f, 0.5f, 1.5f, 2f, 65504f, 65520f, 65519.99f, 1e-8f, 6.1e-5f, 5.96e-8f, 3e-8f,
                0.1f, 0.333333f, 1.0f / 255, 0.5f / 255, 1.5f / 255, 0.25f, 64512f, 65024f, 64000f, 4e5f, -3f,
                Float.MIN_VALUE, 1e-5f, 1.1f, 63.5f, 127.5f / 255f, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY};
        for (float f : edges) {
            v.add(Float.floatToRawIntBits(f));
        }
        v.add(0x7FC00000);
        Random r = new Random(5);
        for (int i = 0; i < 3000; i++) {
            float f = i % 3 == 0 ? r.nextFloat() * 2 - 0.5f : (float) Math.scalb(r.nextFloat() + 0.5, r.nextInt(44) - 28);
            v.add(Float.floatToRawIntBits(f));
        }
        return v;
    }

    @Test
    void reads_and_writes_of_8_16_11_and_10_bit_channels_match_the_c_oracle() throws Exception {
        Path c = dir.resolve("oracle.c");
        Files.writeString(c, ORACLE);
        Toolchain.run(dir, "clang-19", "-O1", "-o", "oracle", "oracle.c", "-lm");
        StringBuilder in = new StringBuilder();
        List<Integer> xs = inputs();
        for (int x : xs) {
            in.append(Integer.toHexString(x)).append('\n');
        }
        Files.writeString(dir.resolve("in.txt"), in);
        String out = Toolchain.run(dir, "sh", "-c", "./oracle < in.txt");
        ImageFormat unorm8 = new ImageFormat(DataFormat.FMT_8, NumericFormat.NUM_UNORM);
        ImageFormat snorm8 = new ImageFormat(DataFormat.FMT_8, NumericFormat.NUM_SNORM);
        ImageFormat srgb8 = new ImageFormat(DataFormat.FMT_8, NumericFormat.NUM_SRGB);
        ImageFormat half = new ImageFormat(DataFormat.FMT_16, NumericFormat.NUM_FLOAT);
        ImageFormat unorm16 = new ImageFormat(DataFormat.FMT_16, NumericFormat.NUM_UNORM);
        ImageFormat snorm16 = new ImageFormat(DataFormat.FMT_16, NumericFormat.NUM_SNORM);
        ImageFormat r11g11b10 = new ImageFormat(DataFormat.FMT_10_11_11, NumericFormat.NUM_FLOAT);
        int reads = 0;
        int writes = 0;
        List<String> bad = new ArrayList<>();
        for (String line : out.split("\n")) {
            String[] p = line.trim().split(" ");
            if (p[0].equals("d8")) {
                byte[] b = {(byte) Integer.parseInt(p[1])};
                check(bad, line, "unorm8", Integer.parseUnsignedInt(p[2], 16), TexelCodec.decode(unorm8, b, 0)[0]);
                check(bad, line, "snorm8", Integer.parseUnsignedInt(p[3], 16), TexelCodec.decode(snorm8, b, 0)[0]);
                check(bad, line, "srgb8", Integer.parseUnsignedInt(p[4], 16), TexelCodec.decode(srgb8, b, 0)[0]);
                reads++;
            } else if (p[0].equals("e")) {
                int x = Integer.parseUnsignedInt(p[1], 16);
                int[] reg = {x, x, x, x};
                boolean nan = Float.isNaN(Float.intBitsToFloat(x));
                if (!nan) {
                    check(bad, line, "half", Integer.parseInt(p[2], 16), (int) TexelCodec.unpack(half,
                            TexelCodec.encode(half, reg), 0)[0]);
                }
                long[] packed = TexelCodec.unpack(r11g11b10, TexelCodec.encode(r11g11b10, reg), 0);
                if (nan) {
                    assertTrue(packed[0] > 0x7C0 && packed[2] > 0x3E0, "a NaN stays NaN in 11/10-bit channels");
                } else {
                    check(bad, line, "f11", Integer.parseInt(p[3], 16), (int) packed[0]);
                    check(bad, line, "f10", Integer.parseInt(p[4], 16), (int) packed[2]);
                }
                check(bad, line, "unorm8", Integer.parseInt(p[5], 16), (int) TexelCodec.unpack(unorm8,
                        TexelCodec.encode(unorm8, reg), 0)[0]);
                check(bad, line, "unorm16", Integer.parseInt(p[6], 16), (int) TexelCodec.unpack(unorm16,
                        TexelCodec.encode(unorm16, reg), 0)[0]);
                check(bad, line, "snorm8", Integer.parseInt(p[7], 16), (int) TexelCodec.unpack(snorm8,
                        TexelCodec.encode(snorm8, reg), 0)[0]);
                check(bad, line, "snorm16", Integer.parseInt(p[8], 16), (int) TexelCodec.unpack(snorm16,
                        TexelCodec.encode(snorm16, reg), 0)[0]);
                writes++;
            }
        }
        assertEquals(256, reads);
        assertEquals(xs.size(), writes);
        assertTrue(bad.isEmpty(), bad.size() + " mismatches, first: " + bad.subList(0, Math.min(10, bad.size())));
    }

    private static void check(List<String> bad, String line, String what, int want, int got) {
        if (want != got) {
            bad.add(what + ": want " + Integer.toHexString(want) + " got " + Integer.toHexString(got) + " (" + line + ")");
        }
    }

    @Test
    void every_half_and_small_float_pattern_widens_to_what_the_oracle_values_say() {
        // 11/10-bit floats are halves with the mantissa cut (same exponent bias): widen through Half.
        for (int p = 0; p < 0x7C0; p++) {
            float viaHalf = Float.intBitsToFloat(org.replayfarm.model.fp.Half.toFloatBits(p << 4));
            assertEquals(viaHalf, TexelCodec.fromSmallFloat(p, 6), "f11 pattern " + p);
            assertEquals(p, TexelCodec.toSmallFloat(viaHalf, 6), "f11 round trip " + p);
        }
        for (int p = 0; p < 0x3E0; p++) {
            float viaHalf = Float.intBitsToFloat(org.replayfarm.model.fp.Half.toFloatBits(p << 5));
            assertEquals(viaHalf, TexelCodec.fromSmallFloat(p, 5), "f10 pattern " + p);
        }
    }

    @Test
    void format_numbers_are_the_ones_llvm_mc_encodes_for_the_buffer_formats() throws Exception {
        StringBuilder s = new StringBuilder();
        List<ImageFormat> formats = new ArrayList<>();
        for (String name : ImageFormat.names()) {
            ImageFormat f = ImageFormat.parse(name);
            if (f.numeric() == NumericFormat.NUM_SRGB) {
                continue; // not a buffer format; 128..130 come from the T# FORMAT list
            }
            formats.add(f);
            s.append("tbuffer_load_format_x v1, v0, s[0:3], 0 format:[BUF_FMT_").append(name).append("] offen\n");
        }
        Path src = dir.resolve("f.s");
        Files.writeString(src, s);
        String out = Toolchain.run(dir, "llvm-mc-19", "-arch=amdgcn", "-mcpu=gfx1030", "-show-encoding", "f.s");
        int i = 0;
        for (String line : out.split("\n")) {
            int at = line.indexOf("encoding: [");
            if (at < 0) {
                continue;
            }
            String[] bytes = line.substring(at + 11, line.indexOf(']', at)).split(",");
            long dword0 = 0;
            for (int b = 0; b < 4; b++) {
                dword0 |= Long.parseLong(bytes[b].trim().substring(2), 16) << (8 * b);
            }
            int number = (int) (dword0 >>> 19 & 0x7F);
            assertEquals(formats.get(i).number(), number, formats.get(i).name());
            assertEquals(formats.get(i), ImageFormat.ofNumber(number));
            i++;
        }
        assertEquals(formats.size(), i);
    }
}
