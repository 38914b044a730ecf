/*
 * rt_float.h: the float mode (rt_mode_t) and the rounding, denormal and NaN rules every float operation of
 * rt_valu.h goes through. Written from the RDNA 2 ISA guide ("MODE", "Vector ALU Operations"):
 *
 *   MODE  FP_ROUND [3:0]   f32 [1:0], f16/f64 [3:2]; 0 nearest even, 1 toward +inf, 2 toward -inf, 3 toward 0
 *         FP_DENORM [7:4]  f32 [5:4], f16/f64 [7:6]; 0 flush inputs and outputs, 1 flush outputs only,
 *                          2 flush inputs only, 3 keep denormals
 *         DX10_CLAMP [8]   the clamp modifier turns a NaN into +0
 *         IEEE [9]         min/max quiet a signalling NaN and return it; OMOD is ignored
 *         FP16_OVFL [23]   an f16 result that overflows becomes +-max finite
 *
 * The same results on both builds: the GPU uses the sm_90 round-mode intrinsics (add.rz.f32 ...), the CPU
 * fesetround around a single operation (the build uses -frounding-math; the operands and the result pass
 * through volatile so the operation stays between the two calls). f16 arithmetic is done in double, where
 * its sums and products are exact and its fma is rounded to odd (53 >= 2*11+2 bits), then rounded once to
 * f16 in software. Denormals are flushed in software (inputs and outputs, sign kept), never through a
 * compiler flag. NaN results are computed explicitly: a NaN source gives the first NaN source in operand
 * order, quieted; an invalid operation gives the default NaN (positive, quiet bit only) - neither PTX (which
 * gives 0x7fffffff) nor x86 decides it.
 */
#pragma once
#include "rt_base.h"
#if !RT_GPU
#include <fenv.h>
#endif

typedef struct rt_mode {
    uint32_t bits; /* the MODE register */
} rt_mode_t;

#define RT_RND_NE 0
#define RT_RND_UP 1
#define RT_RND_DN 2
#define RT_RND_RZ 3

#define RT_MODE_DX10_CLAMP (1u << 8)
#define RT_MODE_IEEE (1u << 9)
#define RT_MODE_FP16_OVFL (1u << 23)

RT_FN rt_mode_t rt_mode_make(uint32_t bits) { rt_mode_t m; m.bits = bits; return m; }
RT_FN int rt_mode_round32(const rt_mode_t *m) { return (int)(m->bits & 3u); }
RT_FN int rt_mode_round64(const rt_mode_t *m) { return (int)(m->bits >> 2 & 3u); } /* f64 and f16 */
RT_FN int rt_mode_denorm32(const rt_mode_t *m) { return (int)(m->bits >> 4 & 3u); }
RT_FN int rt_mode_denorm64(const rt_mode_t *m) { return (int)(m->bits >> 6 & 3u); } /* f64 and f16 */
RT_FN int rt_mode_ieee(const rt_mode_t *m) { return (m->bits & RT_MODE_IEEE) != 0; }
RT_FN int rt_mode_dx10(const rt_mode_t *m) { return (m->bits & RT_MODE_DX10_CLAMP) != 0; }
/* denorm codes 0 and 2 flush inputs, 0 and 1 flush outputs */
RT_FN int rt_flush_in32(const rt_mode_t *m) { return (rt_mode_denorm32(m) & 1) == 0; }
RT_FN int rt_flush_out32(const rt_mode_t *m) { return (rt_mode_denorm32(m) & 2) == 0; }
RT_FN int rt_flush_in64(const rt_mode_t *m) { return (rt_mode_denorm64(m) & 1) == 0; }
RT_FN int rt_flush_out64(const rt_mode_t *m) { return (rt_mode_denorm64(m) & 2) == 0; }

/* ------------------------------------------------------------------ classification on bits */

RT_FN int rt_isnan32(uint32_t x) { return (x & 0x7fffffffu) > 0x7f800000u; }
RT_FN int rt_issnan32(uint32_t x) { return rt_isnan32(x) && (x & 0x00400000u) == 0; }
RT_FN int rt_isinf32(uint32_t x) { return (x & 0x7fffffffu) == 0x7f800000u; }
RT_FN int rt_iszero32(uint32_t x) { return (x & 0x7fffffffu) == 0; }
RT_FN int rt_isdenorm32(uint32_t x) { return (x & 0x7f800000u) == 0 && (x & 0x007fffffu) != 0; }
RT_FN uint32_t rt_quiet32(uint32_t x) { return rt_isnan32(x) ? x | 0x00400000u : x; }
#define RT_NAN32 0x7fc00000u

RT_FN int rt_isnan64(uint64_t x) { return (x & 0x7fffffffffffffffull) > 0x7ff0000000000000ull; }
RT_FN int rt_issnan64(uint64_t x) { return rt_isnan64(x) && (x & 0x0008000000000000ull) == 0; }
RT_FN int rt_isinf64(uint64_t x) { return (x & 0x7fffffffffffffffull) == 0x7ff0000000000000ull; }
RT_FN int rt_iszero64(uint64_t x) { return (x & 0x7fffffffffffffffull) == 0; }
RT_FN int rt_isdenorm64(uint64_t x) { return (x & 0x7ff0000000000000ull) == 0 && (x & 0x000fffffffffffffull) != 0; }
RT_FN uint64_t rt_quiet64(uint64_t x) { return rt_isnan64(x) ? x | 0x0008000000000000ull : x; }
#define RT_NAN64 0x7ff8000000000000ull

RT_FN int rt_isnan16(uint32_t x) { return (x & 0x7fffu) > 0x7c00u; }
RT_FN int rt_issnan16(uint32_t x) { return rt_isnan16(x) && (x & 0x0200u) == 0; }
RT_FN int rt_isinf16(uint32_t x) { return (x & 0x7fffu) == 0x7c00u; }
RT_FN int rt_iszero16(uint32_t x) { return (x & 0x7fffu) == 0; }
RT_FN int rt_isdenorm16(uint32_t x) { return (x & 0x7c00u) == 0 && (x & 0x03ffu) != 0; }
RT_FN uint32_t rt_quiet16(uint32_t x) { x &= 0xffffu; return rt_isnan16(x) ? x | 0x0200u : x; }
#define RT_NAN16 0x7e00u

/* ------------------------------------------------------------------ denormal flushing (sign kept) */

RT_FN uint32_t rt_in32(const rt_mode_t *m, uint32_t x) { return rt_flush_in32(m) && rt_isdenorm32(x) ? x & 0x80000000u : x; }
RT_FN uint32_t rt_out32(const rt_mode_t *m, uint32_t x) { return rt_flush_out32(m) && rt_isdenorm32(x) ? x & 0x80000000u : x; }
RT_FN uint64_t rt_in64(const rt_mode_t *m, uint64_t x) {
    return rt_flush_in64(m) && rt_isdenorm64(x) ? x & 0x8000000000000000ull : x;
}
RT_FN uint64_t rt_out64(const rt_mode_t *m, uint64_t x) {
    return rt_flush_out64(m) && rt_isdenorm64(x) ? x & 0x8000000000000000ull : x;
}
RT_FN uint32_t rt_in16(const rt_mode_t *m, uint32_t x) { x &= 0xffffu; return rt_flush_in64(m) && rt_isdenorm16(x) ? x & 0x8000u : x; }
/* an f16 result: flushed per the f16/f64 denorm mode, and FP16_OVFL turns an infinity into +-max finite */
RT_FN uint32_t rt_out16(const rt_mode_t *m, uint32_t x) {
    x &= 0xffffu;
    if (rt_flush_out64(m) && rt_isdenorm16(x)) return x & 0x8000u;
    if ((m->bits & RT_MODE_FP16_OVFL) && rt_isinf16(x)) return (x & 0x8000u) | 0x7bffu;
    return x;
}

/* ------------------------------------------------------------------ f16 <-> double */

/* every f16 is exactly a double */
RT_FN double rt_f16_to_f64(uint32_t h) {
    h &= 0xffffu;
    uint32_t s = h >> 15, e = h >> 10 & 0x1fu, f = h & 0x3ffu;
    uint64_t bits;
    if (e == 0x1f) {
        bits = ((uint64_t)s << 63) | 0x7ff0000000000000ull | ((uint64_t)f << 42);
    } else if (e == 0) {
        double v = (double)f * (1.0 / 16777216.0); /* f * 2^-24, exact */
        return s ? -v : v;
    } else {
        bits = ((uint64_t)s << 63) | ((uint64_t)(e - 15 + 1023) << 52) | ((uint64_t)f << 42);
    }
    return rt_f64(bits);
}

/*
 * Rounds a double to a binary format with p mantissa bits (without the implicit one), exponent range
 * [emin, emax] (of normal numbers) under an ISA round mode; denormals kept, overflow to infinity or max
 * finite as the mode says. Returns the bits of the format (sign at bit 1+ebits+p). The double must not be
 * NaN. Used for f16 (p 10) and, on the CPU, as a check of the native path.
 */
RT_FN uint64_t rt_round_bits(double v, int p, int ebits, int rm) {
    uint64_t d = rt_bits64(v);
    uint64_t sign = d >> 63;
    int emax = (1 << (ebits - 1)) - 1;
    int emin = 1 - emax;
    uint64_t sbit = sign << (ebits + p);
    uint64_t infb = ((uint64_t)((1 << ebits) - 1)) << p;
    if (rt_isinf64(d)) return sbit | infb;
    if (rt_iszero64(d)) return sbit;
    int de = (int)(d >> 52 & 0x7ffu);
    uint64_t mant = d & 0x000fffffffffffffull;
    int e; /* unbiased exponent of the leading bit */
    if (de == 0) { /* a double denormal, mant * 2^-1074: normalise */
        int k = 51;
        while (!(mant >> k & 1)) k--;
        e = k - 1074;
        mant = (mant << (52 - k)) & 0x000fffffffffffffull;
    } else {
        e = de - 1023;
    }
    uint64_t sig = mant | 0x0010000000000000ull; /* 53 bits, value = sig * 2^(e-52) */
    /* the quantum of the result: 2^(max(e, emin) - p) */
    int qe = (e < emin ? emin : e) - p;
    int shift = qe - (e - 52); /* bits of sig below the quantum */
    uint64_t n, rest, half;
    int inexact;
    if (shift >= 64) {
        n = 0; rest = sig; inexact = 1;
        half = 0; /* rest < half always: below half a quantum */
    } else if (shift <= 0) {
        n = sig << (-shift); rest = 0; inexact = 0; half = 1;
    } else {
        n = sig >> shift;
        rest = sig & ((1ull << shift) - 1);
        half = 1ull << (shift - 1);
        inexact = rest != 0;
    }
    if (inexact) {
        int up;
        switch (rm & 3) {
        case RT_RND_NE: up = shift < 64 && (rest > half || (rest == half && (n & 1))); break;
        case RT_RND_UP: up = !sign; break;
        case RT_RND_DN: up = (int)sign; break;
        default: up = 0; break;
        }
        if (up) n++;
    }
    /* n * 2^qe; n < 2^(p+2) */
    if (n == 0) return sbit;
    int rexp = qe + p; /* exponent of value n*2^qe when n has p+1 bits */
    if (n >> (p + 1)) { n >>= 1; rexp++; } /* rounding carried into a new bit */
    if (rexp > emax) {
        int toinf = (rm & 3) == RT_RND_NE || ((rm & 3) == RT_RND_UP && !sign) || ((rm & 3) == RT_RND_DN && sign);
        return sbit | (toinf ? infb : infb - 1);
    }
    if (!(n >> p)) return sbit | n; /* a denormal: exponent field 0 */
    return sbit | ((uint64_t)(rexp + emax) << p) | (n & ((1ull << p) - 1));
}

RT_FN uint32_t rt_f64_to_f16_bits(double v, int rm) {
    if (v != v) return RT_NAN16;
    return (uint32_t)rt_round_bits(v, 10, 5, rm);
}

/* ------------------------------------------------------------------ directed rounding, f32 and f64 */

#if !RT_GPU
RT_FN int rt_fe(int rm) {
    switch (rm & 3) {
    case RT_RND_UP: return FE_UPWARD;
    case RT_RND_DN: return FE_DOWNWARD;
    case RT_RND_RZ: return FE_TOWARDZERO;
    default: return FE_TONEAREST;
    }
}
#define RT_CPU_DIRECTED(T, rm, expr) do { \
        fesetround(rt_fe(rm)); \
        volatile T rt_r_ = (expr); \
        fesetround(FE_TONEAREST); \
        return rt_r_; \
    } while (0)
#endif

RT_FN float rt_add_f32_rm(float a, float b, int rm) {
#if RT_GPU
    switch (rm & 3) { case 1: return __fadd_ru(a, b); case 2: return __fadd_rd(a, b); case 3: return __fadd_rz(a, b); default: return __fadd_rn(a, b); }
#else
    if ((rm & 3) == 0) return a + b;
    volatile float x = a, y = b;
    RT_CPU_DIRECTED(float, rm, x + y);
#endif
}
RT_FN float rt_mul_f32_rm(float a, float b, int rm) {
#if RT_GPU
    switch (rm & 3) { case 1: return __fmul_ru(a, b); case 2: return __fmul_rd(a, b); case 3: return __fmul_rz(a, b); default: return __fmul_rn(a, b); }
#else
    if ((rm & 3) == 0) return a * b;
    volatile float x = a, y = b;
    RT_CPU_DIRECTED(float, rm, x * y);
#endif
}
RT_FN float rt_fma_f32_rm(float a, float b, float c, int rm) {
#if RT_GPU
    switch (rm & 3) { case 1: return __fmaf_ru(a, b, c); case 2: return __fmaf_rd(a, b, c); case 3: return __fmaf_rz(a, b, c); default: return __fmaf_rn(a, b, c); }
#else
    if ((rm & 3) == 0) return fmaf(a, b, c);
    volatile float x = a, y = b, z = c;
    RT_CPU_DIRECTED(float, rm, fmaf(x, y, z));
#endif
}
RT_FN double rt_add_f64_rm(double a, double b, int rm) {
#if RT_GPU
    switch (rm & 3) { case 1: return __dadd_ru(a, b); case 2: return __dadd_rd(a, b); case 3: return __dadd_rz(a, b); default: return __dadd_rn(a, b); }
#else
    if ((rm & 3) == 0) return a + b;
    volatile double x = a, y = b;
    RT_CPU_DIRECTED(double, rm, x + y);
#endif
}
RT_FN double rt_mul_f64_rm(double a, double b, int rm) {
#if RT_GPU
    switch (rm & 3) { case 1: return __dmul_ru(a, b); case 2: return __dmul_rd(a, b); case 3: return __dmul_rz(a, b); default: return __dmul_rn(a, b); }
#else
    if ((rm & 3) == 0) return a * b;
    volatile double x = a, y = b;
    RT_CPU_DIRECTED(double, rm, x * y);
#endif
}
RT_FN double rt_fma_f64_rm(double a, double b, double c, int rm) {
#if RT_GPU
    switch (rm & 3) { case 1: return __fma_ru(a, b, c); case 2: return __fma_rd(a, b, c); case 3: return __fma_rz(a, b, c); default: return __fma_rn(a, b, c); }
#else
    if ((rm & 3) == 0) return fma(a, b, c);
    volatile double x = a, y = b, z = c;
    RT_CPU_DIRECTED(double, rm, fma(x, y, z));
#endif
}
/* double -> float, one rounding in the mode */
RT_FN float rt_f64_to_f32_rm(double a, int rm) {
#if RT_GPU
    switch (rm & 3) { case 1: return __double2float_ru(a); case 2: return __double2float_rd(a); case 3: return __double2float_rz(a); default: return __double2float_rn(a); }
#else
    if ((rm & 3) == 0) return (float)a;
    volatile double x = a;
    RT_CPU_DIRECTED(float, rm, (float)x);
#endif
}
RT_FN float rt_i32_to_f32_rm(int32_t a, int rm) {
#if RT_GPU
    switch (rm & 3) { case 1: return __int2float_ru(a); case 2: return __int2float_rd(a); case 3: return __int2float_rz(a); default: return __int2float_rn(a); }
#else
    if ((rm & 3) == 0) return (float)a;
    volatile int32_t x = a;
    RT_CPU_DIRECTED(float, rm, (float)x);
#endif
}
RT_FN float rt_u32_to_f32_rm(uint32_t a, int rm) {
#if RT_GPU
    switch (rm & 3) { case 1: return __uint2float_ru(a); case 2: return __uint2float_rd(a); case 3: return __uint2float_rz(a); default: return __uint2float_rn(a); }
#else
    if ((rm & 3) == 0) return (float)a;
    volatile uint32_t x = a;
    RT_CPU_DIRECTED(float, rm, (float)x);
#endif
}

/*
 * An exact sum rounded to odd in double: s = a + b when exact, else the double next to the exact value
 * toward zero with its last bit set. Exact TwoSum (round to nearest, which both builds run in outside the
 * directed helpers); a, b finite.
 */
RT_FN double rt_odd_sum64(double a, double b) {
    double s = a + b;
    double bb = s - a;
    double err = (a - (s - bb)) + (b - bb);
    if (err == 0 || s != s || rt_isinf64(rt_bits64(s))) return s;
    uint64_t sb = rt_bits64(s);
    /* |exact| < |s| when err has the other sign: step toward zero */
    if ((err < 0) != (s < 0)) sb -= 1;
    return rt_f64(sb | 1u);
}

/* ------------------------------------------------------------------ NaN selection */

RT_FN uint32_t rt_nan2_32(uint32_t a, uint32_t b) { return rt_isnan32(a) ? rt_quiet32(a) : rt_quiet32(b); }
RT_FN uint32_t rt_nan3_32(uint32_t a, uint32_t b, uint32_t c) {
    return rt_isnan32(a) ? rt_quiet32(a) : rt_isnan32(b) ? rt_quiet32(b) : rt_quiet32(c);
}
RT_FN uint64_t rt_nan2_64(uint64_t a, uint64_t b) { return rt_isnan64(a) ? rt_quiet64(a) : rt_quiet64(b); }
RT_FN uint64_t rt_nan3_64(uint64_t a, uint64_t b, uint64_t c) {
    return rt_isnan64(a) ? rt_quiet64(a) : rt_isnan64(b) ? rt_quiet64(b) : rt_quiet64(c);
}
RT_FN uint32_t rt_nan2_16(uint32_t a, uint32_t b) { return rt_isnan16(a) ? rt_quiet16(a) : rt_quiet16(b); }
RT_FN uint32_t rt_nan3_16(uint32_t a, uint32_t b, uint32_t c) {
    return rt_isnan16(a) ? rt_quiet16(a) : rt_isnan16(b) ? rt_quiet16(b) : rt_quiet16(c);
}

/* ------------------------------------------------------------------ the basic operations under a mode */

/* a NaN result the hardware computes from non-NaN sources (inf - inf, 0 * inf): the default NaN */
RT_FN uint32_t rt_fix_nan32(float r) { uint32_t b = rt_bits32(r); return rt_isnan32(b) ? RT_NAN32 : b; }
RT_FN uint64_t rt_fix_nan64(double r) { uint64_t b = rt_bits64(r); return rt_isnan64(b) ? RT_NAN64 : b; }

/* An exact zero sum of nonzero or mixed-sign terms: +0, or -0 rounding toward -inf (IEEE 754 6.3).
 * The native operations do this already in their rounding mode. */

RT_FN uint32_t rt_fadd32(uint32_t a, uint32_t b, const rt_mode_t *m) {
    a = rt_in32(m, a); b = rt_in32(m, b);
    if (rt_isnan32(a) || rt_isnan32(b)) return rt_nan2_32(a, b);
    return rt_out32(m, rt_fix_nan32(rt_add_f32_rm(rt_f32(a), rt_f32(b), rt_mode_round32(m))));
}
RT_FN uint32_t rt_fmul32(uint32_t a, uint32_t b, const rt_mode_t *m) {
    a = rt_in32(m, a); b = rt_in32(m, b);
    if (rt_isnan32(a) || rt_isnan32(b)) return rt_nan2_32(a, b);
    return rt_out32(m, rt_fix_nan32(rt_mul_f32_rm(rt_f32(a), rt_f32(b), rt_mode_round32(m))));
}
RT_FN uint32_t rt_ffma32(uint32_t a, uint32_t b, uint32_t c, const rt_mode_t *m) {
    a = rt_in32(m, a); b = rt_in32(m, b); c = rt_in32(m, c);
    if (rt_isnan32(a) || rt_isnan32(b) || rt_isnan32(c)) return rt_nan3_32(a, b, c);
    return rt_out32(m, rt_fix_nan32(rt_fma_f32_rm(rt_f32(a), rt_f32(b), rt_f32(c), rt_mode_round32(m))));
}
RT_FN uint64_t rt_fadd64(uint64_t a, uint64_t b, const rt_mode_t *m) {
    a = rt_in64(m, a); b = rt_in64(m, b);
    if (rt_isnan64(a) || rt_isnan64(b)) return rt_nan2_64(a, b);
    return rt_out64(m, rt_fix_nan64(rt_add_f64_rm(rt_f64(a), rt_f64(b), rt_mode_round64(m))));
}
RT_FN uint64_t rt_fmul64(uint64_t a, uint64_t b, const rt_mode_t *m) {
    a = rt_in64(m, a); b = rt_in64(m, b);
    if (rt_isnan64(a) || rt_isnan64(b)) return rt_nan2_64(a, b);
    return rt_out64(m, rt_fix_nan64(rt_mul_f64_rm(rt_f64(a), rt_f64(b), rt_mode_round64(m))));
}
RT_FN uint64_t rt_ffma64(uint64_t a, uint64_t b, uint64_t c, const rt_mode_t *m) {
    a = rt_in64(m, a); b = rt_in64(m, b); c = rt_in64(m, c);
    if (rt_isnan64(a) || rt_isnan64(b) || rt_isnan64(c)) return rt_nan3_64(a, b, c);
    return rt_out64(m, rt_fix_nan64(rt_fma_f64_rm(rt_f64(a), rt_f64(b), rt_f64(c), rt_mode_round64(m))));
}

/* f16: exact in double (sum, product), rounded once; sign of an exact zero sum as IEEE says */
RT_FN uint32_t rt_f16_round(double exact, int rm) { return rt_f64_to_f16_bits(exact, rm); }
RT_FN double rt_zero_sum(double x, double y, double s, int rm) {
    if (s != 0) return s;
    if (x == 0 && y == 0 && (rt_bits64(x) >> 63) == (rt_bits64(y) >> 63)) return x;
    return (rm & 3) == RT_RND_DN ? -0.0 : 0.0;
}
RT_FN uint32_t rt_fadd16(uint32_t a, uint32_t b, const rt_mode_t *m) {
    a = rt_in16(m, a); b = rt_in16(m, b);
    if (rt_isnan16(a) || rt_isnan16(b)) return rt_nan2_16(a, b);
    double x = rt_f16_to_f64(a), y = rt_f16_to_f64(b);
    double s = x + y; /* exact: both are multiples of 2^-24 below 2^17 */
    if (s != s) return RT_NAN16;
    int rm = rt_mode_round64(m);
    return rt_out16(m, rt_f16_round(rt_zero_sum(x, y, s, rm), rm));
}
RT_FN uint32_t rt_fmul16(uint32_t a, uint32_t b, const rt_mode_t *m) {
    a = rt_in16(m, a); b = rt_in16(m, b);
    if (rt_isnan16(a) || rt_isnan16(b)) return rt_nan2_16(a, b);
    double p = rt_f16_to_f64(a) * rt_f16_to_f64(b); /* exact: 22 bits */
    if (p != p) return RT_NAN16;
    return rt_out16(m, rt_f16_round(p, rt_mode_round64(m)));
}
RT_FN uint32_t rt_ffma16(uint32_t a, uint32_t b, uint32_t c, const rt_mode_t *m) {
    a = rt_in16(m, a); b = rt_in16(m, b); c = rt_in16(m, c);
    if (rt_isnan16(a) || rt_isnan16(b) || rt_isnan16(c)) return rt_nan3_16(a, b, c);
    double p = rt_f16_to_f64(a) * rt_f16_to_f64(b), z = rt_f16_to_f64(c);
    int rm = rt_mode_round64(m);
    double s;
    if (p != p) return RT_NAN16;
    if (rt_isinf64(rt_bits64(p)) || rt_isinf64(rt_bits64(z))) {
        s = p + z;
        if (s != s) return RT_NAN16;
    } else {
        s = rt_odd_sum64(p, z);
        s = rt_zero_sum(p, z, s, rm);
    }
    return rt_out16(m, rt_f16_round(s, rm));
}

/* ------------------------------------------------------------------ output modifiers */

/*
 * OMOD (1: x2, 2: x4, 3: /2), rounded per the mode, ignored in IEEE mode and for NaN results; then CLAMP to
 * [0, 1] (-0 and negatives to +0; NaN to +0 under DX10_CLAMP, else passed through).
 */
RT_FN uint32_t rt_omod32(uint32_t r, int omod, const rt_mode_t *m) {
    if (omod == 0 || rt_mode_ieee(m) || rt_isnan32(r)) return r;
    float k = omod == 1 ? 2.0f : omod == 2 ? 4.0f : 0.5f;
    return rt_out32(m, rt_bits32(rt_mul_f32_rm(rt_f32(r), k, rt_mode_round32(m))));
}
RT_FN uint64_t rt_omod64(uint64_t r, int omod, const rt_mode_t *m) {
    if (omod == 0 || rt_mode_ieee(m) || rt_isnan64(r)) return r;
    double k = omod == 1 ? 2.0 : omod == 2 ? 4.0 : 0.5;
    return rt_out64(m, rt_bits64(rt_mul_f64_rm(rt_f64(r), k, rt_mode_round64(m))));
}
RT_FN uint32_t rt_omod16(uint32_t r, int omod, const rt_mode_t *m) {
    if (omod == 0 || rt_mode_ieee(m) || rt_isnan16(r)) return r & 0xffffu;
    double k = omod == 1 ? 2.0 : omod == 2 ? 4.0 : 0.5;
    return rt_out16(m, rt_f16_round(rt_f16_to_f64(r) * k, rt_mode_round64(m)));
}
RT_FN uint32_t rt_clamp32(uint32_t r, const rt_mode_t *m) {
    if (rt_isnan32(r)) return rt_mode_dx10(m) ? 0u : r;
    if (r >> 31) return 0u;
    return rt_f32(r) > 1.0f ? 0x3f800000u : r;
}
RT_FN uint64_t rt_clamp64(uint64_t r, const rt_mode_t *m) {
    if (rt_isnan64(r)) return rt_mode_dx10(m) ? 0ull : r;
    if (r >> 63) return 0ull;
    return rt_f64(r) > 1.0 ? 0x3ff0000000000000ull : r;
}
RT_FN uint32_t rt_clamp16(uint32_t r, const rt_mode_t *m) {
    r &= 0xffffu;
    if (rt_isnan16(r)) return rt_mode_dx10(m) ? 0u : r;
    if (r >> 15) return 0u;
    return r > 0x3c00u ? 0x3c00u : r;
}
