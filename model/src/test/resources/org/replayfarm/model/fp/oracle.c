/*
 * Independent oracle for org.replayfarm.model.fp: the host C library's IEEE arithmetic under fesetround,
 * x86-64 SSE (no flush-to-zero). Prints one case per line:
 *   op round a b c result      (hex bit patterns; round 0 nearest even, 1 +inf, 2 -inf, 3 toward zero)
 * f16 results come from a single rounding of an exact double (sums and products of halves are exact in
 * double) or from the C conversion to _Float16. Regenerate with:
 *   gcc -O0 -frounding-math oracle.c -o oracle -lm && ./oracle > oracle.txt
 */
#include <fenv.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#pragma STDC FENV_ACCESS ON

static uint64_t state = 0x9E3779B97F4A7C15ull;
static uint64_t next(void) {
    state ^= state << 13; state ^= state >> 7; state ^= state << 17; return state;
}
static float f32(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static uint32_t b32(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static double f64(uint64_t u) { double f; memcpy(&f, &u, 8); return f; }
static uint64_t b64(double f) { uint64_t u; memcpy(&u, &f, 8); return u; }
static uint16_t b16(_Float16 h) { uint16_t u; memcpy(&u, &h, 2); return u; }
static _Float16 f16(uint16_t u) { _Float16 h; memcpy(&h, &u, 2); return h; }

/* a random float: mostly near a shared exponent so that sums round, sometimes special */
static uint32_t rnd32(int e) {
    uint64_t r = next();
    switch (r % 16) {
        case 0: return (uint32_t)(r >> 8) & 0x807FFFFF; /* denormal or zero */
        case 1: return ((uint32_t)(r >> 8) & 0x80000000) | 0x7F800000; /* infinity */
        case 2: return (uint32_t)(r >> 20) % 3 == 0 ? 0x7FC00000 : (uint32_t)(r >> 8) | 0x7F800000; /* NaN-ish */
        case 3: return ((uint32_t)(r >> 8) & 0x80000000) | 0x7F7FFFFF; /* max */
        default: {
            int ex = e + (int)((r >> 40) % 30) - 15;
            if (ex < 1) ex = 1; if (ex > 254) ex = 254;
            return ((uint32_t)(r >> 8) & 0x807FFFFF) | (uint32_t)ex << 23;
        }
    }
}
static uint64_t rnd64(int e) {
    uint64_t r = next();
    switch (r % 16) {
        case 0: return r & 0x800FFFFFFFFFFFFFull;
        case 1: return (r & 0x8000000000000000ull) | 0x7FF0000000000000ull;
        case 3: return (r & 0x8000000000000000ull) | 0x7FEFFFFFFFFFFFFFull;
        default: {
            int ex = e + (int)((next() >> 40) % 70) - 35;
            if (ex < 1) ex = 1; if (ex > 2046) ex = 2046;
            return (r & 0x800FFFFFFFFFFFFFull) | (uint64_t)ex << 52;
        }
    }
}
static uint16_t rnd16(int e) {
    uint64_t r = next();
    switch (r % 12) {
        case 0: return (uint16_t)(r >> 8) & 0x83FF;
        case 1: return ((uint16_t)(r >> 8) & 0x8000) | 0x7C00;
        case 2: return ((uint16_t)(r >> 8) & 0x8000) | 0x7BFF;
        default: {
            int ex = e + (int)((r >> 40) % 14) - 7;
            if (ex < 1) ex = 1; if (ex > 30) ex = 30;
            return ((uint16_t)(r >> 8) & 0x83FF) | (uint16_t)(ex << 10);
        }
    }
}

int main(void) {
    const int modes[4] = {FE_TONEAREST, FE_UPWARD, FE_DOWNWARD, FE_TOWARDZERO};
    for (int m = 0; m < 4; m++) {
        for (int i = 0; i < 600; i++) {
            int e = 1 + (int)(next() % 253);
            uint32_t a = rnd32(e), b = rnd32(e), c = rnd32(e + (int)(next() % 40) - 20);
            fesetround(modes[m]);
            volatile float x = f32(a), y = f32(b), z = f32(c);
            volatile float s = x + y, p = x * y, f = fmaf(x, y, z);
            fesetround(FE_TONEAREST);
            printf("add32 %d %08x %08x 0 %08x\n", m, a, b, b32(s));
            printf("mul32 %d %08x %08x 0 %08x\n", m, a, b, b32(p));
            printf("fma32 %d %08x %08x %08x %08x\n", m, a, b, c, b32(f));
        }
        for (int i = 0; i < 350; i++) {
            int e = 1 + (int)(next() % 2045);
            uint64_t a = rnd64(e), b = rnd64(e), c = rnd64(e + (int)(next() % 120) - 60);
            fesetround(modes[m]);
            volatile double x = f64(a), y = f64(b), z = f64(c);
            volatile double s = x + y, p = x * y, f = fma(x, y, z);
            volatile float n = (float)x;
            fesetround(FE_TONEAREST);
            printf("add64 %d %016llx %016llx 0 %016llx\n", m, (unsigned long long)a, (unsigned long long)b, (unsigned long long)b64(s));
            printf("mul64 %d %016llx %016llx 0 %016llx\n", m, (unsigned long long)a, (unsigned long long)b, (unsigned long long)b64(p));
            printf("fma64 %d %016llx %016llx %016llx %016llx\n", m, (unsigned long long)a, (unsigned long long)b, (unsigned long long)c, (unsigned long long)b64(f));
            printf("cvt64to32 %d %016llx 0 0 %08x\n", m, (unsigned long long)a, b32(n));
        }
        for (int i = 0; i < 600; i++) {
            int e = 1 + (int)(next() % 30);
            uint16_t a = rnd16(e), b = rnd16(e);
            uint32_t w = rnd32(112 + (int)(next() % 34));
            int32_t k = (int32_t)next() >> (next() % 31);
            double x = (double)f16(a), y = (double)f16(b);
            fesetround(modes[m]);
            volatile _Float16 s = (_Float16)(x + y), p = (_Float16)(x * y), n = (_Float16)f32(w);
            volatile float ki = (float)k;
            fesetround(FE_TONEAREST);
            printf("add16 %d %04x %04x 0 %04x\n", m, a, b, b16(s));
            printf("mul16 %d %04x %04x 0 %04x\n", m, a, b, b16(p));
            printf("cvt32to16 %d %08x 0 0 %04x\n", m, w, b16(n));
            printf("cvti32to32 %d %08x 0 0 %08x\n", m, (uint32_t)k, b32(ki));
        }
    }
    return 0;
}
