/* The OpenCL C built-in library for the native x86-64 build (replay capture native-run and the kernel corpus):
 * the functions AMD's device libraries give the device build, written over glibc's libm (math) and the
 * compiler's __atomic builtins, as OpenCL C 2.0 defines them (scalars and the vector types where OpenCL does;
 * elementwise for vectors). Each approximate function of the device side is compared with its result here
 * within the ulps docs/captures.md states (its table of functions). Names C already has (abs, select, the
 * math.h classification macros) are replaced by the OpenCL ones. The conversions (convert_T[_sat][_rMODE]) and
 * as_T reinterpretations follow, generated (NativeHarness.conversions()). */
#include <math.h>
#include <fenv.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <stdio.h>
#include <time.h>

#define __OCL static inline __attribute__((overloadable, unused))
#define __OCL_EACH(M, ...) M(2, __VA_ARGS__) M(3, __VA_ARGS__) M(4, __VA_ARGS__) M(8, __VA_ARGS__) M(16, __VA_ARGS__)
#define __OCL_V1(N, NAME, R, T) __OCL R##N NAME(T##N x) { R##N r; for (int i = 0; i < N; i++) r[i] = NAME(x[i]); return r; }
#define __OCL_V2(N, NAME, R, T) \
    __OCL R##N NAME(T##N x, T##N y) { R##N r; for (int i = 0; i < N; i++) r[i] = NAME(x[i], y[i]); return r; }
#define __OCL_V3(N, NAME, R, T) \
    __OCL R##N NAME(T##N x, T##N y, T##N z) { R##N r; for (int i = 0; i < N; i++) r[i] = NAME(x[i], y[i], z[i]); return r; }
/* a vector with a scalar second (and third) argument, as fmin(float4, float) and clamp(float4, float, float) */
#define __OCL_V2S(N, NAME, R, T) \
    __OCL R##N NAME(T##N x, T y) { R##N r; for (int i = 0; i < N; i++) r[i] = NAME(x[i], y); return r; }
#define __OCL_V3S(N, NAME, R, T) \
    __OCL R##N NAME(T##N x, T y, T z) { R##N r; for (int i = 0; i < N; i++) r[i] = NAME(x[i], y, z); return r; }

/* ---- math: float from libm's NAMEf, double from libm, half through float (one rounding to half) ---- */
#define __OCL_MATH1(NAME, FEXPR, DEXPR) \
    __OCL float NAME(float x) { return FEXPR; } \
    __OCL double NAME(double x) { return DEXPR; } \
    __OCL half NAME(half x) { return (half) NAME((float) x); } \
    __OCL_EACH(__OCL_V1, NAME, float, float) __OCL_EACH(__OCL_V1, NAME, double, double) __OCL_EACH(__OCL_V1, NAME, half, half)
#define __OCL_MATH2(NAME, FEXPR, DEXPR) \
    __OCL float NAME(float x, float y) { return FEXPR; } \
    __OCL double NAME(double x, double y) { return DEXPR; } \
    __OCL half NAME(half x, half y) { return (half) NAME((float) x, (float) y); } \
    __OCL_EACH(__OCL_V2, NAME, float, float) __OCL_EACH(__OCL_V2, NAME, double, double) __OCL_EACH(__OCL_V2, NAME, half, half)
#define __OCL_MATH3(NAME, FEXPR, DEXPR) \
    __OCL float NAME(float x, float y, float z) { return FEXPR; } \
    __OCL double NAME(double x, double y, double z) { return DEXPR; } \
    __OCL half NAME(half x, half y, half z) { return (half) NAME((float) x, (float) y, (float) z); } \
    __OCL_EACH(__OCL_V3, NAME, float, float) __OCL_EACH(__OCL_V3, NAME, double, double) __OCL_EACH(__OCL_V3, NAME, half, half)

/* every OpenCL name is defined as __ocl_NAME, so nothing of C's (math.h's double functions, stdlib's abs,
 * select(2)) is redeclared; the macros make the kernel's calls reach them */
#define __OCL_LIB1(NAME) __OCL_MATH1(__ocl_##NAME, NAME##f(x), NAME(x))
#define __OCL_LIB2(NAME) __OCL_MATH2(__ocl_##NAME, NAME##f(x, y), NAME(x, y))
__OCL_LIB1(acos) __OCL_LIB1(acosh) __OCL_LIB1(asin) __OCL_LIB1(asinh) __OCL_LIB1(atan) __OCL_LIB1(atanh)
__OCL_LIB1(cbrt) __OCL_LIB1(ceil) __OCL_LIB1(cos) __OCL_LIB1(cosh) __OCL_LIB1(erf) __OCL_LIB1(erfc) __OCL_LIB1(exp)
__OCL_LIB1(exp2) __OCL_LIB1(expm1) __OCL_LIB1(fabs) __OCL_LIB1(floor) __OCL_LIB1(lgamma) __OCL_LIB1(log)
__OCL_LIB1(log2) __OCL_LIB1(log10) __OCL_LIB1(log1p) __OCL_LIB1(logb) __OCL_LIB1(rint) __OCL_LIB1(round)
__OCL_LIB1(sin) __OCL_LIB1(sinh) __OCL_LIB1(sqrt) __OCL_LIB1(tan) __OCL_LIB1(tanh) __OCL_LIB1(tgamma) __OCL_LIB1(trunc)
__OCL_LIB2(atan2) __OCL_LIB2(copysign) __OCL_LIB2(fdim) __OCL_LIB2(fmod) __OCL_LIB2(hypot) __OCL_LIB2(nextafter)
__OCL_LIB2(pow) __OCL_LIB2(remainder)
__OCL_MATH2(__ocl_fmax, fmaxf(x, y), fmax(x, y)) __OCL_MATH2(__ocl_fmin, fminf(x, y), fmin(x, y))
__OCL_MATH3(__ocl_fma, fmaf(x, y, z), fma(x, y, z))
/* mad: ocml's is a fused multiply-add (v_fma_f32) whatever the contraction setting, so here too */
__OCL_MATH3(__ocl_mad, fmaf(x, y, z), fma(x, y, z))
__OCL_MATH1(__ocl_exp10, (float) pow(10.0, (double) x), pow(10.0, x))
__OCL_MATH1(__ocl_rsqrt, (float) (1.0 / sqrt((double) x)), 1.0 / sqrt(x))
__OCL_MATH1(__ocl_sinpi, (float) sin(M_PI * (double) x), sin(M_PI * x))
__OCL_MATH1(__ocl_cospi, (float) cos(M_PI * (double) x), cos(M_PI * x))
__OCL_MATH1(__ocl_tanpi, (float) tan(M_PI * (double) x), tan(M_PI * x))
__OCL_MATH1(__ocl_acospi, (float) (acos((double) x) / M_PI), acos(x) / M_PI)
__OCL_MATH1(__ocl_asinpi, (float) (asin((double) x) / M_PI), asin(x) / M_PI)
__OCL_MATH1(__ocl_atanpi, (float) (atan((double) x) / M_PI), atan(x) / M_PI)
__OCL_MATH2(__ocl_atan2pi, (float) (atan2((double) x, (double) y) / M_PI), atan2(x, y) / M_PI)
__OCL_MATH2(__ocl_powr, powf(x, y), pow(x, y))
__OCL_MATH2(__ocl_maxmag, fabsf(x) > fabsf(y) ? x : fabsf(y) > fabsf(x) ? y : fmaxf(x, y),
            fabs(x) > fabs(y) ? x : fabs(y) > fabs(x) ? y : fmax(x, y))
__OCL_MATH2(__ocl_minmag, fabsf(x) < fabsf(y) ? x : fabsf(y) < fabsf(x) ? y : fminf(x, y),
            fabs(x) < fabs(y) ? x : fabs(y) < fabs(x) ? y : fmin(x, y))
/* native_* and half_*: the device's hardware approximations (v_sqrt_f32, v_exp_f32...) or ocml's; compared within
 * the ulps docs/captures.md states */
#define __OCL_FAST1(PREFIX, NAME) __OCL_MATH1(__ocl_##PREFIX##NAME, __ocl_##NAME(x), __ocl_##NAME(x))
#define __OCL_FAST_ALL(PREFIX) __OCL_FAST1(PREFIX, cos) __OCL_FAST1(PREFIX, exp) __OCL_FAST1(PREFIX, exp2) \
    __OCL_FAST1(PREFIX, exp10) __OCL_FAST1(PREFIX, log) __OCL_FAST1(PREFIX, log2) __OCL_FAST1(PREFIX, log10) \
    __OCL_FAST1(PREFIX, rsqrt) __OCL_FAST1(PREFIX, sin) __OCL_FAST1(PREFIX, sqrt) __OCL_FAST1(PREFIX, tan) \
    __OCL_MATH1(__ocl_##PREFIX##recip, 1.0f / x, 1.0 / x) __OCL_MATH2(__ocl_##PREFIX##divide, x / y, x / y) \
    __OCL_MATH2(__ocl_##PREFIX##powr, __ocl_powr(x, y), __ocl_powr(x, y))
__OCL_FAST_ALL(native_) __OCL_FAST_ALL(half_)

/* with an integer or pointer argument */
__OCL float __ocl_pown(float x, int n) { return (float) pow((double) x, (double) n); }
__OCL double __ocl_pown(double x, int n) { return pow(x, (double) n); }
__OCL float __ocl_rootn(float x, int n) {
    double v = (double) x;
    if (v < 0 && (n & 1)) return (float) -pow(-v, 1.0 / n);
    return (float) pow(v, 1.0 / n);
}
__OCL double __ocl_rootn(double x, int n) { return x < 0 && (n & 1) ? -pow(-x, 1.0 / n) : pow(x, 1.0 / n); }
__OCL float __ocl_ldexp(float x, int n) { return ldexpf(x, n); }
__OCL double __ocl_ldexp(double x, int n) { return ldexp(x, n); }
__OCL int __ocl_ilogb(float x) { return ilogbf(x); }
__OCL int __ocl_ilogb(double x) { return ilogb(x); }
__OCL float __ocl_frexp(float x, int *e) { return frexpf(x, e); }
__OCL double __ocl_frexp(double x, int *e) { return frexp(x, e); }
__OCL float __ocl_modf(float x, float *i) { return modff(x, i); }
__OCL double __ocl_modf(double x, double *i) { return modf(x, i); }
__OCL float __ocl_fract(float x, float *i) { float f = floorf(x); *i = f; return fminf(x - f, 0x1.fffffep-1f); }
__OCL double __ocl_fract(double x, double *i) { double f = floor(x); *i = f; return fmin(x - f, 0x1.fffffffffffffp-1); }
__OCL float __ocl_sincos(float x, float *c) { *c = cosf(x); return sinf(x); }
__OCL double __ocl_sincos(double x, double *c) { *c = cos(x); return sin(x); }
__OCL float __ocl_remquo(float x, float y, int *q) { return remquof(x, y, q); }
__OCL double __ocl_remquo(double x, double y, int *q) { return remquo(x, y, q); }
__OCL float __ocl_lgamma_r(float x, int *s) { return lgammaf_r(x, s); }
__OCL double __ocl_lgamma_r(double x, int *s) { return lgamma_r(x, s); }
__OCL float __ocl_nan(uint code) { return __builtin_bit_cast(float, 0x7fc00000u | (code & 0x3fffffu)); }
__OCL double __ocl_nan(ulong code) { return __builtin_bit_cast(double, 0x7ff8000000000000ul | (code & 0x7fffffffffffful)); }
#define __OCL_VPTR(N, NAME, T, P) \
    __OCL T##N NAME(T##N x, P##N *p) { T##N r; P##N o; for (int i = 0; i < N; i++) { P e; r[i] = NAME(x[i], &e); o[i] = e; } *p = o; return r; }
__OCL_EACH(__OCL_VPTR, __ocl_fract, float, float) __OCL_EACH(__OCL_VPTR, __ocl_modf, float, float)
__OCL_EACH(__OCL_VPTR, __ocl_sincos, float, float) __OCL_EACH(__OCL_VPTR, __ocl_frexp, float, int)
__OCL_EACH(__OCL_VPTR, __ocl_fract, double, double) __OCL_EACH(__OCL_VPTR, __ocl_sincos, double, double)
#define __OCL_VINT(N, NAME, T) \
    __OCL T##N NAME(T##N x, int##N n) { T##N r; for (int i = 0; i < N; i++) r[i] = NAME(x[i], n[i]); return r; } \
    __OCL T##N NAME(T##N x, int n) { T##N r; for (int i = 0; i < N; i++) r[i] = NAME(x[i], n); return r; }
__OCL_EACH(__OCL_VINT, __ocl_ldexp, float) __OCL_EACH(__OCL_VINT, __ocl_pown, float) __OCL_EACH(__OCL_VINT, __ocl_rootn, float)
__OCL_EACH(__OCL_VINT, __ocl_ldexp, double) __OCL_EACH(__OCL_VINT, __ocl_pown, double)
__OCL_EACH(__OCL_V2S, __ocl_fmax, float, float) __OCL_EACH(__OCL_V2S, __ocl_fmin, float, float)
__OCL_EACH(__OCL_V2S, __ocl_fmax, double, double) __OCL_EACH(__OCL_V2S, __ocl_fmin, double, double)

/* ---- common ---- */
#define __OCL_COMMON(T) \
    __OCL T __ocl_clamp(T x, T lo, T hi) { return __ocl_fmin(__ocl_fmax(x, lo), hi); } \
    __OCL T __ocl_degrees(T r) { return (T) (180 / M_PI) * r; } \
    __OCL T __ocl_radians(T d) { return (T) (M_PI / 180) * d; } \
    __OCL T __ocl_mix(T x, T y, T a) { return x + (y - x) * a; } \
    __OCL T __ocl_step(T edge, T x) { return x < edge ? (T) 0 : (T) 1; } \
    __OCL T __ocl_smoothstep(T e0, T e1, T x) { T t = __ocl_clamp((x - e0) / (e1 - e0), (T) 0, (T) 1); return t * t * ((T) 3 - (T) 2 * t); } \
    __OCL T __ocl_sign(T x) { return x != x ? (T) 0 : x > 0 ? (T) 1 : x < 0 ? (T) -1 : x; } \
    __OCL_EACH(__OCL_V3, __ocl_clamp, T, T) __OCL_EACH(__OCL_V3S, __ocl_clamp, T, T) __OCL_EACH(__OCL_V1, __ocl_degrees, T, T) \
    __OCL_EACH(__OCL_V1, __ocl_radians, T, T) __OCL_EACH(__OCL_V3, __ocl_mix, T, T) __OCL_EACH(__OCL_V2, __ocl_step, T, T) \
    __OCL_EACH(__OCL_V3, __ocl_smoothstep, T, T) __OCL_EACH(__OCL_V1, __ocl_sign, T, T) \
    __OCL_EACH(__OCL_MIXS, T) __OCL_EACH(__OCL_STEPS, T)
#define __OCL_MIXS(N, T) __OCL T##N __ocl_mix(T##N x, T##N y, T a) { return x + (y - x) * a; }
#define __OCL_STEPS(N, T) \
    __OCL T##N __ocl_step(T edge, T##N x) { T##N r; for (int i = 0; i < N; i++) r[i] = __ocl_step(edge, x[i]); return r; } \
    __OCL T##N __ocl_smoothstep(T e0, T e1, T##N x) { T##N r; for (int i = 0; i < N; i++) r[i] = __ocl_smoothstep(e0, e1, x[i]); return r; }
__OCL_COMMON(float) __OCL_COMMON(double) __OCL_COMMON(half)

/* ---- integer (every integer type; max/min/clamp of floats are fmax/fmin/clamp) ---- */
#define __OCL_INT(T, U, BITS, WIDE) \
    __OCL U __ocl_abs(T x) { return x < 0 ? (U) 0 - (U) x : (U) x; } \
    __OCL U __ocl_abs_diff(T x, T y) { return x > y ? (U) x - (U) y : (U) y - (U) x; } \
    __OCL T __ocl_add_sat(T x, T y) { T r; return __builtin_add_overflow(x, y, &r) ? (y > 0 ? __OCL_MAX(T) : __OCL_MIN(T)) : r; } \
    __OCL T __ocl_sub_sat(T x, T y) { T r; return __builtin_sub_overflow(x, y, &r) ? ((T) -1 < 0 && y < 0 ? __OCL_MAX(T) : __OCL_MIN(T)) : r; } \
    __OCL T __ocl_hadd(T x, T y) { return (x >> 1) + (y >> 1) + (x & y & 1); } \
    __OCL T __ocl_rhadd(T x, T y) { return (x >> 1) + (y >> 1) + ((x | y) & 1); } \
    __OCL T __ocl_clamp(T x, T lo, T hi) { return x < lo ? lo : x > hi ? hi : x; } \
    __OCL T __ocl_clz(T x) { return x == 0 ? BITS : (T) (__builtin_clzll((unsigned long long) (U) x) - (64 - BITS)); } \
    __OCL T __ocl_ctz(T x) { return x == 0 ? BITS : (T) __builtin_ctzll((unsigned long long) (U) x); } \
    __OCL T __ocl_mul_hi(T x, T y) { return (T) (((WIDE) x * (WIDE) y) >> BITS); } \
    __OCL T __ocl_mad_hi(T x, T y, T z) { return __ocl_mul_hi(x, y) + z; } \
    __OCL T __ocl_mad_sat(T x, T y, T z) { WIDE v = (WIDE) x * (WIDE) y + (WIDE) z; \
        return v > (WIDE) __OCL_MAX(T) ? __OCL_MAX(T) : v < (WIDE) __OCL_MIN(T) ? __OCL_MIN(T) : (T) v; } \
    __OCL T __ocl_max(T x, T y) { return x > y ? x : y; } \
    __OCL T __ocl_min(T x, T y) { return x < y ? x : y; } \
    __OCL T __ocl_rotate(T x, T n) { unsigned s = (unsigned) ((U) n % BITS); return s == 0 ? x : (T) (((U) x << s) | ((U) x >> (BITS - s))); } \
    __OCL T __ocl_popcount(T x) { return (T) __builtin_popcountll((unsigned long long) (U) x); } \
    __OCL_EACH(__OCL_V1, __ocl_abs, U, T) __OCL_EACH(__OCL_V2, __ocl_abs_diff, U, T) __OCL_EACH(__OCL_V2, __ocl_add_sat, T, T) \
    __OCL_EACH(__OCL_V2, __ocl_sub_sat, T, T) __OCL_EACH(__OCL_V2, __ocl_hadd, T, T) __OCL_EACH(__OCL_V2, __ocl_rhadd, T, T) \
    __OCL_EACH(__OCL_V3, __ocl_clamp, T, T) __OCL_EACH(__OCL_V3S, __ocl_clamp, T, T) __OCL_EACH(__OCL_V1, __ocl_clz, T, T) \
    __OCL_EACH(__OCL_V1, __ocl_ctz, T, T) __OCL_EACH(__OCL_V2, __ocl_mul_hi, T, T) __OCL_EACH(__OCL_V3, __ocl_mad_hi, T, T) \
    __OCL_EACH(__OCL_V3, __ocl_mad_sat, T, T) __OCL_EACH(__OCL_V2, __ocl_max, T, T) __OCL_EACH(__OCL_V2, __ocl_min, T, T) \
    __OCL_EACH(__OCL_V2S, __ocl_max, T, T) __OCL_EACH(__OCL_V2S, __ocl_min, T, T) __OCL_EACH(__OCL_V2, __ocl_rotate, T, T) \
    __OCL_EACH(__OCL_V1, __ocl_popcount, T, T)
#define __OCL_MAX(T) ((T) -1 < 0 ? (T) (((unsigned long) 1 << (8 * sizeof(T) - 1)) - 1) : (T) ~(T) 0)
#define __OCL_MIN(T) ((T) -1 < 0 ? (T) (-(long) (((unsigned long) 1 << (8 * sizeof(T) - 1)) - 1) - 1) : (T) 0)
__OCL_INT(char, uchar, 8, long) __OCL_INT(uchar, uchar, 8, long) __OCL_INT(short, ushort, 16, long)
__OCL_INT(ushort, ushort, 16, long) __OCL_INT(int, uint, 32, long) __OCL_INT(uint, uint, 32, long)
__OCL_INT(long, ulong, 64, __int128) __OCL_INT(ulong, ulong, 64, unsigned __int128)
/* max/min of floats: fmax/fmin */
#define __OCL_FMAXMIN(T) __OCL T __ocl_max(T x, T y) { return __ocl_fmax(x, y); } __OCL T __ocl_min(T x, T y) { return __ocl_fmin(x, y); } \
    __OCL_EACH(__OCL_V2, __ocl_max, T, T) __OCL_EACH(__OCL_V2, __ocl_min, T, T) __OCL_EACH(__OCL_V2S, __ocl_max, T, T) \
    __OCL_EACH(__OCL_V2S, __ocl_min, T, T)
__OCL_FMAXMIN(float) __OCL_FMAXMIN(double) __OCL_FMAXMIN(half)
__OCL int __ocl_mad24(int x, int y, int z) { return ((x << 8) >> 8) * ((y << 8) >> 8) + z; }
__OCL uint __ocl_mad24(uint x, uint y, uint z) { return (x & 0xffffffu) * (y & 0xffffffu) + z; }
__OCL int __ocl_mul24(int x, int y) { return ((x << 8) >> 8) * ((y << 8) >> 8); }
__OCL uint __ocl_mul24(uint x, uint y) { return (x & 0xffffffu) * (y & 0xffffffu); }
__OCL_EACH(__OCL_V3, __ocl_mad24, int, int) __OCL_EACH(__OCL_V3, __ocl_mad24, uint, uint)
__OCL_EACH(__OCL_V2, __ocl_mul24, int, int) __OCL_EACH(__OCL_V2, __ocl_mul24, uint, uint)
#define __OCL_UPSAMPLE(H, L, R, BITS) \
    __OCL R __ocl_upsample(H hi, L lo) { return (R) (((unsigned long) (L) lo) | ((unsigned long) hi << BITS)); } \
    __OCL_EACH(__OCL_UPV, H, L, R)
#define __OCL_UPV(N, H, L, R) __OCL R##N __ocl_upsample(H##N hi, L##N lo) { R##N r; for (int i = 0; i < N; i++) r[i] = __ocl_upsample(hi[i], lo[i]); return r; }
__OCL_UPSAMPLE(char, uchar, short, 8) __OCL_UPSAMPLE(uchar, uchar, ushort, 8) __OCL_UPSAMPLE(short, ushort, int, 16)
__OCL_UPSAMPLE(ushort, ushort, uint, 16) __OCL_UPSAMPLE(int, uint, long, 32) __OCL_UPSAMPLE(uint, uint, ulong, 32)

/* ---- geometric (float, double; 1 to 4 components) ---- */
#define __OCL_GEO(T) \
    __OCL T __ocl_dot(T a, T b) { return a * b; } \
    __OCL T __ocl_dot(T##2 a, T##2 b) { return a.x * b.x + a.y * b.y; } \
    __OCL T __ocl_dot(T##3 a, T##3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; } \
    __OCL T __ocl_dot(T##4 a, T##4 b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; } \
    __OCL T##3 __ocl_cross(T##3 a, T##3 b) { T##3 r; r.x = a.y * b.z - a.z * b.y; r.y = a.z * b.x - a.x * b.z; r.z = a.x * b.y - a.y * b.x; return r; } \
    __OCL T##4 __ocl_cross(T##4 a, T##4 b) { T##4 r; r.xyz = __ocl_cross(a.xyz, b.xyz); r.w = 0; return r; } \
    __OCL_GEON(T, ) __OCL_GEON(T, 2) __OCL_GEON(T, 3) __OCL_GEON(T, 4)
#define __OCL_GEON(T, N) \
    __OCL T __ocl_length(T##N p) { return __ocl_sqrt(__ocl_dot(p, p)); } \
    __OCL T __ocl_distance(T##N a, T##N b) { return __ocl_length(a - b); } \
    __OCL T##N __ocl_normalize(T##N p) { T l = __ocl_length(p); return l == 0 ? p : p / l; } \
    __OCL T __ocl_fast_length(T##N p) { return __ocl_length(p); } \
    __OCL T __ocl_fast_distance(T##N a, T##N b) { return __ocl_distance(a, b); } \
    __OCL T##N __ocl_fast_normalize(T##N p) { return __ocl_normalize(p); }
__OCL_GEO(float) __OCL_GEO(double)

/* ---- relational: scalars give 0 or 1, vectors 0 or -1 in the integer type of the element's width ---- */
#undef isnan
#undef isinf
#undef isfinite
#undef isnormal
#undef signbit
#undef isgreater
#undef isgreaterequal
#undef isless
#undef islessequal
#undef islessgreater
#undef isunordered
#define __OCL_REL1(NAME, EXPR) \
    __OCL int __ocl_##NAME(float x) { return EXPR; } __OCL int __ocl_##NAME(double x) { return EXPR; } \
    __OCL int __ocl_##NAME(half x) { return __ocl_##NAME((float) x); } \
    __OCL_EACH(__OCL_RELV1, NAME, int, float) __OCL_EACH(__OCL_RELV1, NAME, long, double) __OCL_EACH(__OCL_RELV1, NAME, short, half)
#define __OCL_RELV1(N, NAME, R, T) __OCL R##N __ocl_##NAME(T##N x) { R##N r; for (int i = 0; i < N; i++) r[i] = __ocl_##NAME(x[i]) ? -1 : 0; return r; }
#define __OCL_REL2(NAME, EXPR) \
    __OCL int __ocl_##NAME(float x, float y) { return EXPR; } __OCL int __ocl_##NAME(double x, double y) { return EXPR; } \
    __OCL int __ocl_##NAME(half x, half y) { return __ocl_##NAME((float) x, (float) y); } \
    __OCL_EACH(__OCL_RELV2, NAME, int, float) __OCL_EACH(__OCL_RELV2, NAME, long, double) __OCL_EACH(__OCL_RELV2, NAME, short, half)
#define __OCL_RELV2(N, NAME, R, T) __OCL R##N __ocl_##NAME(T##N x, T##N y) { R##N r; for (int i = 0; i < N; i++) r[i] = __ocl_##NAME(x[i], y[i]) ? -1 : 0; return r; }
__OCL_REL1(isnan, __builtin_isnan(x)) __OCL_REL1(isinf, __builtin_isinf(x)) __OCL_REL1(isfinite, __builtin_isfinite(x))
__OCL_REL1(isnormal, __builtin_isnormal(x)) __OCL_REL1(signbit, __builtin_signbit(x) != 0)
__OCL_REL2(isequal, x == y) __OCL_REL2(isnotequal, x != y) __OCL_REL2(isgreater, __builtin_isgreater(x, y))
__OCL_REL2(isgreaterequal, __builtin_isgreaterequal(x, y)) __OCL_REL2(isless, __builtin_isless(x, y))
__OCL_REL2(islessequal, __builtin_islessequal(x, y)) __OCL_REL2(islessgreater, __builtin_islessgreater(x, y))
__OCL_REL2(isordered, !__builtin_isunordered(x, y)) __OCL_REL2(isunordered, __builtin_isunordered(x, y))
/* any/all: the most significant bit of the components; select: c ? b : a (vectors: the MSB of each c) */
#define __OCL_ANYALL(T) \
    __OCL int __ocl_any(T x) { return x < 0; } __OCL int __ocl_all(T x) { return x < 0; } __OCL_EACH(__OCL_ANYALLV, T)
#define __OCL_ANYALLV(N, T) \
    __OCL int __ocl_any(T##N x) { for (int i = 0; i < N; i++) if (x[i] < 0) return 1; return 0; } \
    __OCL int __ocl_all(T##N x) { for (int i = 0; i < N; i++) if (x[i] >= 0) return 0; return 1; }
__OCL_ANYALL(char) __OCL_ANYALL(short) __OCL_ANYALL(int) __OCL_ANYALL(long)
#define __OCL_SELECT(T, I, U) \
    __OCL T __ocl_select(T a, T b, I c) { return c ? b : a; } __OCL T __ocl_select(T a, T b, U c) { return c ? b : a; } \
    __OCL T __ocl_bitselect(T a, T b, T c) { U x = __builtin_bit_cast(U, a), y = __builtin_bit_cast(U, b), m = __builtin_bit_cast(U, c); \
        return __builtin_bit_cast(T, (U) ((x & ~m) | (y & m))); } \
    __OCL_EACH(__OCL_SELECTV, T, I, U)
#define __OCL_SELECTV(N, T, I, U) \
    __OCL T##N __ocl_select(T##N a, T##N b, I##N c) { T##N r; for (int i = 0; i < N; i++) r[i] = c[i] < 0 ? b[i] : a[i]; return r; } \
    __OCL T##N __ocl_select(T##N a, T##N b, U##N c) { T##N r; for (int i = 0; i < N; i++) r[i] = (I) c[i] < 0 ? b[i] : a[i]; return r; } \
    __OCL T##N __ocl_bitselect(T##N a, T##N b, T##N c) { T##N r; for (int i = 0; i < N; i++) r[i] = __ocl_bitselect(a[i], b[i], c[i]); return r; }
__OCL_SELECT(char, char, uchar) __OCL_SELECT(uchar, char, uchar) __OCL_SELECT(short, short, ushort)
__OCL_SELECT(ushort, short, ushort) __OCL_SELECT(int, int, uint) __OCL_SELECT(uint, int, uint)
__OCL_SELECT(long, long, ulong) __OCL_SELECT(ulong, long, ulong) __OCL_SELECT(float, int, uint)
__OCL_SELECT(double, long, ulong) __OCL_SELECT(half, short, ushort)

/* ---- vload/vstore (any alignment of the element), half loads and stores ---- */
#define __OCL_VLOAD(N, p, off) ({ typedef __typeof_unqual__(*(p)) __E; typedef __E __V __attribute__((ext_vector_type(N))); \
        __V __r; __builtin_memcpy(&__r, (p) + (size_t) (off) * N, sizeof(__E) * N); __r; })
#define __OCL_VSTORE(N, v, off, p) do { typedef __typeof_unqual__(*(p)) __E; typedef __E __V __attribute__((ext_vector_type(N))); \
        __V __v = (v); __builtin_memcpy((p) + (size_t) (off) * N, &__v, sizeof(__E) * N); } while (0)
#define vload2(off, p) __OCL_VLOAD(2, p, off)
#define vload3(off, p) __OCL_VLOAD(3, p, off)
#define vload4(off, p) __OCL_VLOAD(4, p, off)
#define vload8(off, p) __OCL_VLOAD(8, p, off)
#define vload16(off, p) __OCL_VLOAD(16, p, off)
#define vstore2(v, off, p) __OCL_VSTORE(2, v, off, p)
#define vstore3(v, off, p) __OCL_VSTORE(3, v, off, p)
#define vstore4(v, off, p) __OCL_VSTORE(4, v, off, p)
#define vstore8(v, off, p) __OCL_VSTORE(8, v, off, p)
#define vstore16(v, off, p) __OCL_VSTORE(16, v, off, p)
#define vload_half(off, p) ((float) (p)[off])
#define __OCL_VLOAD_HALF(N, off, p) __builtin_convertvector(__OCL_VLOAD(N, (p), (off)), float##N)
#define vload_half2(off, p) __OCL_VLOAD_HALF(2, off, p)
#define vload_half3(off, p) __OCL_VLOAD_HALF(3, off, p)
#define vload_half4(off, p) __OCL_VLOAD_HALF(4, off, p)
#define vload_half8(off, p) __OCL_VLOAD_HALF(8, off, p)
#define vload_half16(off, p) __OCL_VLOAD_HALF(16, off, p)
#define vloada_half2 vload_half2
#define vloada_half4 vload_half4
#define vloada_half8 vload_half8
#define vloada_half16 vload_half16
/* a float to half with a rounding mode (0 nearest even, 1 toward zero, 2 up, 3 down) */
static inline __attribute__((unused)) half __ocl_to_half(float f, int mode) {
    if (mode == 0) return (half) f;
    int saved = fegetround();
    fesetround(mode == 1 ? FE_TOWARDZERO : mode == 2 ? FE_UPWARD : FE_DOWNWARD);
    volatile float in = f;
    volatile half out = (half) in;
    fesetround(saved);
    return out;
}
#define __OCL_VSTORE_HALF(N, MODE, v, off, p) do { float##N __f = (v); half##N __h; \
        for (int __i = 0; __i < N; __i++) __h[__i] = __ocl_to_half(__f[__i], MODE); \
        __builtin_memcpy((p) + (size_t) (off) * N, &__h, 2 * N); } while (0)
#define __OCL_VSTORE_HALF1(MODE, v, off, p) ((p)[off] = __ocl_to_half((v), MODE))
#define vstore_half(v, off, p) __OCL_VSTORE_HALF1(0, v, off, p)
#define vstore_half_rte(v, off, p) __OCL_VSTORE_HALF1(0, v, off, p)
#define vstore_half_rtz(v, off, p) __OCL_VSTORE_HALF1(1, v, off, p)
#define vstore_half_rtp(v, off, p) __OCL_VSTORE_HALF1(2, v, off, p)
#define vstore_half_rtn(v, off, p) __OCL_VSTORE_HALF1(3, v, off, p)
#define vstore_half2(v, off, p) __OCL_VSTORE_HALF(2, 0, v, off, p)
#define vstore_half3(v, off, p) __OCL_VSTORE_HALF(3, 0, v, off, p)
#define vstore_half4(v, off, p) __OCL_VSTORE_HALF(4, 0, v, off, p)
#define vstore_half8(v, off, p) __OCL_VSTORE_HALF(8, 0, v, off, p)
#define vstore_half16(v, off, p) __OCL_VSTORE_HALF(16, 0, v, off, p)
#define vstore_half4_rtz(v, off, p) __OCL_VSTORE_HALF(4, 1, v, off, p)
#define vstore_half4_rte(v, off, p) __OCL_VSTORE_HALF(4, 0, v, off, p)
#define vstorea_half2 vstore_half2
#define vstorea_half4 vstore_half4

/* ---- atomics: OpenCL 1.x atomic_* and atom_* (32 and 64 bits; each returns the old value) and the OpenCL 2.0
 * C11-style atomic_* over atomic_int and kin, memory orders as given (scopes do not matter on one host) ---- */
#define atomic_add(p, v) __atomic_fetch_add((p), (v), __ATOMIC_SEQ_CST)
#define atomic_sub(p, v) __atomic_fetch_sub((p), (v), __ATOMIC_SEQ_CST)
#define atomic_inc(p) __atomic_fetch_add((p), 1, __ATOMIC_SEQ_CST)
#define atomic_dec(p) __atomic_fetch_sub((p), 1, __ATOMIC_SEQ_CST)
#define atomic_min(p, v) __atomic_fetch_min((p), (v), __ATOMIC_SEQ_CST)
#define atomic_max(p, v) __atomic_fetch_max((p), (v), __ATOMIC_SEQ_CST)
#define atomic_and(p, v) __atomic_fetch_and((p), (v), __ATOMIC_SEQ_CST)
#define atomic_or(p, v) __atomic_fetch_or((p), (v), __ATOMIC_SEQ_CST)
#define atomic_xor(p, v) __atomic_fetch_xor((p), (v), __ATOMIC_SEQ_CST)
#define atomic_xchg(p, v) ({ __typeof_unqual__(*(p)) __n = (v), __o; __atomic_exchange((p), &__n, &__o, __ATOMIC_SEQ_CST); __o; })
#define atomic_cmpxchg(p, cmp, v) ({ __typeof_unqual__(*(p)) __c = (cmp), __n = (v); \
        __atomic_compare_exchange((p), &__c, &__n, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); __c; })
#define atom_add atomic_add
#define atom_sub atomic_sub
#define atom_inc atomic_inc
#define atom_dec atomic_dec
#define atom_min atomic_min
#define atom_max atomic_max
#define atom_and atomic_and
#define atom_or atomic_or
#define atom_xor atomic_xor
#define atom_xchg atomic_xchg
#define atom_cmpxchg atomic_cmpxchg
typedef _Atomic(int) atomic_int;
typedef _Atomic(uint) atomic_uint;
typedef _Atomic(long) atomic_long;
typedef _Atomic(ulong) atomic_ulong;
typedef _Atomic(float) atomic_float;
typedef _Atomic(double) atomic_double;
typedef _Atomic(int) atomic_flag;
typedef enum { memory_order_relaxed = __ATOMIC_RELAXED, memory_order_acquire = __ATOMIC_ACQUIRE,
               memory_order_release = __ATOMIC_RELEASE, memory_order_acq_rel = __ATOMIC_ACQ_REL,
               memory_order_seq_cst = __ATOMIC_SEQ_CST } memory_order;
typedef enum { memory_scope_work_item, memory_scope_work_group, memory_scope_device, memory_scope_all_svm_devices,
               memory_scope_sub_group } memory_scope;
#define ATOMIC_VAR_INIT(v) (v)
#define atomic_init(p, v) __c11_atomic_init((p), (v))
#define atomic_load(p) __c11_atomic_load((p), __ATOMIC_SEQ_CST)
#define atomic_load_explicit(p, o, ...) __c11_atomic_load((p), (o))
#define atomic_store(p, v) __c11_atomic_store((p), (v), __ATOMIC_SEQ_CST)
#define atomic_store_explicit(p, v, o, ...) __c11_atomic_store((p), (v), (o))
#define atomic_exchange(p, v) __c11_atomic_exchange((p), (v), __ATOMIC_SEQ_CST)
#define atomic_exchange_explicit(p, v, o, ...) __c11_atomic_exchange((p), (v), (o))
#define atomic_compare_exchange_strong(p, e, v) __c11_atomic_compare_exchange_strong((p), (e), (v), __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)
#define atomic_compare_exchange_strong_explicit(p, e, v, s, f, ...) __c11_atomic_compare_exchange_strong((p), (e), (v), (s), (f))
#define atomic_compare_exchange_weak(p, e, v) __c11_atomic_compare_exchange_strong((p), (e), (v), __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)
#define atomic_compare_exchange_weak_explicit(p, e, v, s, f, ...) __c11_atomic_compare_exchange_strong((p), (e), (v), (s), (f))
#define atomic_fetch_add(p, v) __c11_atomic_fetch_add((p), (v), __ATOMIC_SEQ_CST)
#define atomic_fetch_sub(p, v) __c11_atomic_fetch_sub((p), (v), __ATOMIC_SEQ_CST)
#define atomic_fetch_or(p, v) __c11_atomic_fetch_or((p), (v), __ATOMIC_SEQ_CST)
#define atomic_fetch_xor(p, v) __c11_atomic_fetch_xor((p), (v), __ATOMIC_SEQ_CST)
#define atomic_fetch_and(p, v) __c11_atomic_fetch_and((p), (v), __ATOMIC_SEQ_CST)
#define atomic_fetch_min(p, v) __c11_atomic_fetch_min((p), (v), __ATOMIC_SEQ_CST)
#define atomic_fetch_max(p, v) __c11_atomic_fetch_max((p), (v), __ATOMIC_SEQ_CST)
#define atomic_fetch_add_explicit(p, v, o, ...) __c11_atomic_fetch_add((p), (v), (o))
#define atomic_fetch_sub_explicit(p, v, o, ...) __c11_atomic_fetch_sub((p), (v), (o))
#define atomic_fetch_or_explicit(p, v, o, ...) __c11_atomic_fetch_or((p), (v), (o))
#define atomic_fetch_xor_explicit(p, v, o, ...) __c11_atomic_fetch_xor((p), (v), (o))
#define atomic_fetch_and_explicit(p, v, o, ...) __c11_atomic_fetch_and((p), (v), (o))
#define atomic_fetch_min_explicit(p, v, o, ...) __c11_atomic_fetch_min((p), (v), (o))
#define atomic_fetch_max_explicit(p, v, o, ...) __c11_atomic_fetch_max((p), (v), (o))
#define atomic_work_item_fence(flags, o, ...) __atomic_thread_fence(__ATOMIC_SEQ_CST)


/* ---- conversions: __ocl_cvt_D(x, sat, mode) per element (mode 0 default, 1 rte, 2 rtz, 3 rtp, 4 rtn). Floats to
 * integers round toward zero unless a mode says otherwise and saturate (NaN gives 0); integers to integers wrap
 * unless _sat; to floating types, the default is round to nearest even, other modes through fesetround. ---- */
#define __OCL_CVT_FN_1(D, S, SF) \
    __OCL D __ocl_cvt_##D(S x, int sat, int mode) { \
        if (mode <= 1) return (D) x; \
        int saved = fegetround(); \
        fesetround(mode == 2 ? FE_TOWARDZERO : mode == 3 ? FE_UPWARD : FE_DOWNWARD); \
        volatile S in = x; \
        volatile D out = (D) in; \
        fesetround(saved); \
        return out; \
    }
#define __OCL_CVT_FN_0(D, S, SF) \
    __OCL D __ocl_cvt_##D(S x, int sat, int mode) { \
        if (SF) { \
            long double v = (long double) (double) x; \
            if (v != v) return 0; \
            v = mode == 1 ? rintl(v) : mode == 3 ? ceill(v) : mode == 4 ? floorl(v) : truncl(v); \
            if (v < (long double) __OCL_MIN(D)) return __OCL_MIN(D); \
            if (v > (long double) __OCL_MAX(D)) return __OCL_MAX(D); \
            return (D) v; \
        } \
        if (sat) { \
            long double v = (long double) x; \
            if (v < (long double) __OCL_MIN(D)) return __OCL_MIN(D); \
            if (v > (long double) __OCL_MAX(D)) return __OCL_MAX(D); \
        } \
        return (D) x; \
    }
#define __OCL_CVT_FN(D, DF, S, SF) __OCL_CVT_FN_##DF(D, S, SF)
#define __OCL_CVT_FROM(D, DF) __OCL_CVT_FN(D, DF, char, 0) __OCL_CVT_FN(D, DF, uchar, 0) __OCL_CVT_FN(D, DF, short, 0) \
    __OCL_CVT_FN(D, DF, ushort, 0) __OCL_CVT_FN(D, DF, int, 0) __OCL_CVT_FN(D, DF, uint, 0) __OCL_CVT_FN(D, DF, long, 0) \
    __OCL_CVT_FN(D, DF, ulong, 0) __OCL_CVT_FN(D, DF, float, 1) __OCL_CVT_FN(D, DF, double, 1) __OCL_CVT_FN(D, DF, half, 1) \
    __OCL_CVT_FN(D, DF, bool, 0)
__OCL_CVT_FROM(char, 0) __OCL_CVT_FROM(uchar, 0) __OCL_CVT_FROM(short, 0) __OCL_CVT_FROM(ushort, 0)
__OCL_CVT_FROM(int, 0) __OCL_CVT_FROM(uint, 0) __OCL_CVT_FROM(long, 0) __OCL_CVT_FROM(ulong, 0)
__OCL_CVT_FROM(float, 1) __OCL_CVT_FROM(double, 1) __OCL_CVT_FROM(half, 1)
#define __OCL_CVTV(D, N, SAT, MODE, x) ({ __typeof__(x) __s = (x); D##N __r; \
        for (int __i = 0; __i < N; __i++) __r[__i] = __ocl_cvt_##D(__s[__i], SAT, MODE); __r; })
/* (T)(a, b, ...): an OpenCL vector literal, which C would read as a comma expression. NativeHarness.nativeSource
 * rewrites it to __OCL_VEC(T, N, E, a, b, ...): the components, scalars or vectors, laid end to end. */
#define __OCL_PUT(E, N) , E##N: __ocl_put_##E##N
#define __OCL_PUTFN(N, E) \
    __OCL void __ocl_put(E *b, int *k, E##N v) { for (int i = 0; i < N; i++) b[(*k)++] = v[i]; }
#define __OCL_PUTS(E) __OCL void __ocl_put(E *b, int *k, long double v) { b[(*k)++] = (E) v; } __OCL_EACH(__OCL_PUTFN, E)
__OCL_PUTS(char) __OCL_PUTS(uchar) __OCL_PUTS(short) __OCL_PUTS(ushort) __OCL_PUTS(int) __OCL_PUTS(uint)
__OCL_PUTS(float) __OCL_PUTS(double) __OCL_PUTS(half)
__OCL void __ocl_put(long *b, int *k, long v) { b[(*k)++] = v; }
__OCL void __ocl_put(ulong *b, int *k, ulong v) { b[(*k)++] = v; }
__OCL_EACH(__OCL_PUTFN, long) __OCL_EACH(__OCL_PUTFN, ulong)
#define __OCL_VEC_1(b, k, x) __ocl_put(b, &k, x);
#define __OCL_VEC_2(b, k, x, ...) __ocl_put(b, &k, x); __OCL_VEC_1(b, k, __VA_ARGS__)
#define __OCL_VEC_3(b, k, x, ...) __ocl_put(b, &k, x); __OCL_VEC_2(b, k, __VA_ARGS__)
#define __OCL_VEC_4(b, k, x, ...) __ocl_put(b, &k, x); __OCL_VEC_3(b, k, __VA_ARGS__)
#define __OCL_VEC_5(b, k, x, ...) __ocl_put(b, &k, x); __OCL_VEC_4(b, k, __VA_ARGS__)
#define __OCL_VEC_6(b, k, x, ...) __ocl_put(b, &k, x); __OCL_VEC_5(b, k, __VA_ARGS__)
#define __OCL_VEC_7(b, k, x, ...) __ocl_put(b, &k, x); __OCL_VEC_6(b, k, __VA_ARGS__)
#define __OCL_VEC_8(b, k, x, ...) __ocl_put(b, &k, x); __OCL_VEC_7(b, k, __VA_ARGS__)
#define __OCL_VEC_9(b, k, x, ...) __ocl_put(b, &k, x); __OCL_VEC_8(b, k, __VA_ARGS__)
#define __OCL_VEC_10(b, k, x, ...) __ocl_put(b, &k, x); __OCL_VEC_9(b, k, __VA_ARGS__)
#define __OCL_VEC_11(b, k, x, ...) __ocl_put(b, &k, x); __OCL_VEC_10(b, k, __VA_ARGS__)
#define __OCL_VEC_12(b, k, x, ...) __ocl_put(b, &k, x); __OCL_VEC_11(b, k, __VA_ARGS__)
#define __OCL_VEC_13(b, k, x, ...) __ocl_put(b, &k, x); __OCL_VEC_12(b, k, __VA_ARGS__)
#define __OCL_VEC_14(b, k, x, ...) __ocl_put(b, &k, x); __OCL_VEC_13(b, k, __VA_ARGS__)
#define __OCL_VEC_15(b, k, x, ...) __ocl_put(b, &k, x); __OCL_VEC_14(b, k, __VA_ARGS__)
#define __OCL_VEC_16(b, k, x, ...) __ocl_put(b, &k, x); __OCL_VEC_15(b, k, __VA_ARGS__)
#define __OCL_VEC(E, N, COUNT, ...) ({ E __b[16] = {0}; int __k = 0; __OCL_VEC_##COUNT(__b, __k, __VA_ARGS__) \
        E##N __r; __builtin_memcpy(&__r, __b, sizeof(E) * N); __r; })
