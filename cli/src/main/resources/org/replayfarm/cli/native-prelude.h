/* Native x86-64 build of the corpus kernels: the OpenCL C spellings and amdgcn builtins the kernels use,
 * mapped onto C11 and pthreads. One thread per work-item; a group's threads run together (barriers are a
 * pthread barrier) and groups run one after another, so function-scope __local variables (static here)
 * are the group's shared memory. __local kernel parameters lose their qualifier in the copy of the source
 * the harness includes (NativeHarness.nativeSource) and point into a per-group buffer the harness passes. */
#include <pthread.h>
#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#ifndef __cplusplus
/* OpenCL C's spellings (a HIP kernel's native build is C++, where some are keywords: replay-hip.h has its own) */
#define __kernel
#define kernel
#define __global
#define global
#define __constant const
#define constant const
#define __local static
#define local static
#define __private
#define private
#endif
typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong;
typedef _Float16 half;
/* The OpenCL C vector types TYPEn (n = 2, 3, 4, 8, 16): clang's ext_vector_type, whose 3-element vectors take
 * the size and alignment of 4-element ones, as OpenCL C's do. */
#define __REPLAY_VECTORS(T) \
    typedef T T##2 __attribute__((ext_vector_type(2))); typedef T T##3 __attribute__((ext_vector_type(3))); \
    typedef T T##4 __attribute__((ext_vector_type(4))); typedef T T##8 __attribute__((ext_vector_type(8))); \
    typedef T T##16 __attribute__((ext_vector_type(16)));
__REPLAY_VECTORS(char) __REPLAY_VECTORS(uchar) __REPLAY_VECTORS(short) __REPLAY_VECTORS(ushort)
__REPLAY_VECTORS(int) __REPLAY_VECTORS(uint) __REPLAY_VECTORS(long) __REPLAY_VECTORS(ulong)
__REPLAY_VECTORS(half) __REPLAY_VECTORS(float) __REPLAY_VECTORS(double)
#undef __REPLAY_VECTORS

extern __thread unsigned __replay_lid[3];
extern unsigned __replay_gid[3];
extern unsigned __replay_gsize[3];
extern unsigned __replay_groups[3];
extern pthread_barrier_t __replay_barrier;

#define __builtin_amdgcn_workitem_id_x() (__replay_lid[0])
#define __builtin_amdgcn_workitem_id_y() (__replay_lid[1])
#define __builtin_amdgcn_workitem_id_z() (__replay_lid[2])
#define __builtin_amdgcn_workgroup_id_x() (__replay_gid[0])
#define __builtin_amdgcn_workgroup_id_y() (__replay_gid[1])
#define __builtin_amdgcn_workgroup_id_z() (__replay_gid[2])
#define __builtin_amdgcn_workgroup_size_x() ((unsigned short) __replay_gsize[0])
#define __builtin_amdgcn_workgroup_size_y() ((unsigned short) __replay_gsize[1])
#define __builtin_amdgcn_workgroup_size_z() ((unsigned short) __replay_gsize[2])
#define __builtin_amdgcn_grid_size_x() (__replay_gsize[0] * __replay_groups[0])
#define __builtin_amdgcn_s_barrier() pthread_barrier_wait(&__replay_barrier)
#define __builtin_amdgcn_grid_size_y() (__replay_gsize[1] * __replay_groups[1])
#define __builtin_amdgcn_grid_size_z() (__replay_gsize[2] * __replay_groups[2])

/* amdgcn bit-manipulation builtins, written from the RDNA 2 ISA guide's descriptions (section 6.3, VOP3):
 * v_bfe_u32/v_bfe_i32 take offset and width from bits [4:0]; v_alignbit/v_alignbyte shift the 64-bit
 * {S0, S1}; v_perm_b32 picks bytes of {S0, S1} (8..11: a sign byte, 12: 0x00, 13 and up: 0xff). */
static inline uint __builtin_amdgcn_ubfe(uint x, uint offset, uint width) {
    width &= 31;
    return width == 0 ? 0 : (x >> (offset & 31)) & ((1u << width) - 1);
}
static inline int __builtin_amdgcn_sbfe(int x, uint offset, uint width) {
    width &= 31;
    if (width == 0) return 0;
    uint v = (uint) (x >> (offset & 31)) << (32 - width);
    return (int) v >> (32 - width);
}
static inline uint __builtin_amdgcn_alignbit(uint hi, uint lo, uint shift) {
    return (uint) ((((ulong) hi << 32) | lo) >> (shift & 31));
}
static inline uint __builtin_amdgcn_alignbyte(uint hi, uint lo, uint shift) {
    return (uint) ((((ulong) hi << 32) | lo) >> (8 * (shift & 3)));
}
static inline uint __builtin_amdgcn_perm(uint hi, uint lo, uint selector) {
    ulong data = ((ulong) hi << 32) | lo;
    uint d = 0;
    for (int k = 0; k < 4; k++) {
        uint sel = selector >> (8 * k) & 0xff, byte;
        if (sel >= 13) byte = 0xff;
        else if (sel == 12) byte = 0;
        else if (sel >= 8) byte = (data >> (16 * (sel - 8) + 15) & 1) ? 0xff : 0;
        else byte = data >> (8 * sel) & 0xff;
        d |= byte << (8 * k);
    }
    return d;
}

/* v_cvt_pkrtz_f16_f32: two floats to halves rounded toward zero (finite inputs saturate at 65504, infinities
 * stay infinite), packed S0 low, S1 high. */
typedef _Float16 __replay_half2 __attribute__((ext_vector_type(2)));
static inline ushort __replay_f16_rtz(float f) {
    uint bits = __builtin_bit_cast(uint, f);
    ushort sign = bits >> 16 & 0x8000;
    double v = __builtin_fabs((double) f);
    if (v != v) return sign | 0x7e00;
    if (__builtin_isinf(v)) return sign | 0x7c00;
    if (v >= 65504.0) return sign | 0x7bff;
    if (v < 0x1p-14) return sign | (ushort) (v * 0x1p24);
    int e = (int) (bits >> 23 & 0xff) - 127 + 15;
    return sign | (ushort) (e << 10 | (bits & 0x7fffff) >> 13);
}
static inline __replay_half2 __builtin_amdgcn_cvt_pkrtz(float lo, float hi) {
    uint packed = __replay_f16_rtz(lo) | (uint) __replay_f16_rtz(hi) << 16;
    return __builtin_bit_cast(__replay_half2, packed);
}

/* Wrapping atomic increment and decrement (global_atomic_inc/dec, RDNA 2 ISA guide, FLAT atomics):
 * inc stores old >= limit ? 0 : old + 1; dec stores old == 0 || old > limit ? limit : old - 1; both return
 * the old value. The ordering and scope arguments do not matter on one host. */
static inline uint __replay_atomic_wrap(volatile uint *p, uint limit, int inc) {
    uint old = __atomic_load_n(p, __ATOMIC_RELAXED), next;
    do {
        next = inc ? (old >= limit ? 0 : old + 1) : (old == 0 || old > limit ? limit : old - 1);
    } while (!__atomic_compare_exchange_n(p, &old, next, 0, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
    return old;
}
#define __builtin_amdgcn_atomic_inc32(p, limit, order, scope) __replay_atomic_wrap((p), (limit), 1)
#define __builtin_amdgcn_atomic_dec32(p, limit, order, scope) __replay_atomic_wrap((p), (limit), 0)

/* Dot products (RDNA 2 ISA guide, VOP3P v_dot*): the sum of the element products and S2, computed exactly;
 * with clamp, saturated to the result type, else wrapped to 32 bits. */
typedef short __replay_short2 __attribute__((ext_vector_type(2)));
typedef ushort __replay_ushort2 __attribute__((ext_vector_type(2)));
static inline int __replay_sat_i32(long v, int clamp) {
    return clamp ? (int) (v > 2147483647L ? 2147483647L : v < -2147483648L ? -2147483648L : v) : (int) (uint) v;
}
static inline uint __replay_sat_u32(ulong v, int clamp) {
    return clamp && v > 0xffffffffUL ? 0xffffffffu : (uint) v;
}
static inline int __builtin_amdgcn_sdot2(__replay_short2 a, __replay_short2 b, int c, int clamp) {
    return __replay_sat_i32((long) a.x * b.x + (long) a.y * b.y + c, clamp);
}
static inline uint __builtin_amdgcn_udot2(__replay_ushort2 a, __replay_ushort2 b, uint c, int clamp) {
    return __replay_sat_u32((ulong) a.x * b.x + (ulong) a.y * b.y + c, clamp);
}
static inline long __replay_dot_signed(uint a, uint b, int bits) {
    long s = 0;
    for (int k = 0; k < 32; k += bits) {
        int ea = (int) (a << (32 - bits - k)) >> (32 - bits), eb = (int) (b << (32 - bits - k)) >> (32 - bits);
        s += (long) ea * eb;
    }
    return s;
}
static inline ulong __replay_dot_unsigned(uint a, uint b, int bits) {
    ulong s = 0;
    for (int k = 0; k < 32; k += bits) s += (ulong) (a >> k & ((1u << bits) - 1)) * (b >> k & ((1u << bits) - 1));
    return s;
}
#define __builtin_amdgcn_sdot4(a, b, c, clamp) __replay_sat_i32(__replay_dot_signed((a), (b), 8) + (c), (clamp))
#define __builtin_amdgcn_sdot8(a, b, c, clamp) __replay_sat_i32(__replay_dot_signed((a), (b), 4) + (c), (clamp))
#define __builtin_amdgcn_udot4(a, b, c, clamp) __replay_sat_u32(__replay_dot_unsigned((a), (b), 8) + (c), (clamp))
#define __builtin_amdgcn_udot8(a, b, c, clamp) __replay_sat_u32(__replay_dot_unsigned((a), (b), 4) + (c), (clamp))
static inline float __builtin_amdgcn_fdot2(__replay_half2 a, __replay_half2 b, float c, int clamp) {
    float r = (float) a.x * (float) b.x + (float) a.y * (float) b.y + c;
    return clamp ? (r < 0.0f ? 0.0f : r > 1.0f ? 1.0f : r) : r;
}

/* Cross-lane operations. The kernel must call them with every work-item of the group (uniform control
 * flow, whole waves): each call publishes the caller's value, waits for the group, and reads the lane it
 * needs from its own wave (waves are __REPLAY_WAVE_SIZE consecutive flat work-item ids; the harness is
 * compiled with -D__REPLAY_WAVE_SIZE=64 for wave64 builds). Lane selection as the RDNA 2 ISA guide
 * describes it: DPP (section 6.2.1: quad_perm, row_shl/shr/ror, row_mirror, row_half_mirror, row_share,
 * row_xmask; a source outside the row reads 0 with bound_ctrl, else the lane keeps `old`), ds_swizzle
 * (bitmask mode within 32 lanes, quad mode), ds_bpermute (lane = addr[6:2] within the caller's 32-lane half:
 * gfx10 wave64 permutes do not cross halves), permlane16 /
 * permlanex16 (nibble selects within the row / from the other row of the pair), v_mbcnt. Like barriers, they
 * need the threaded harness. */
#ifndef __REPLAY_WAVE_SIZE
#define __REPLAY_WAVE_SIZE 32
#endif
#define __AMDGCN_WAVEFRONT_SIZE __REPLAY_WAVE_SIZE
static uint __replay_xlane[1024];
static inline unsigned __replay_flat_id(void) {
    return (__replay_lid[2] * __replay_gsize[1] + __replay_lid[1]) * __replay_gsize[0] + __replay_lid[0];
}
static inline unsigned __replay_lane(void) { return __replay_flat_id() % __REPLAY_WAVE_SIZE; }
/* Every lane publishes `value`; returns the value of lane `from` of the caller's wave, or `fallback` when
 * `from` is negative (no source lane). */
static inline uint __replay_exchange(uint value, int from, uint fallback) {
    unsigned me = __replay_flat_id();
    __replay_xlane[me] = value;
    pthread_barrier_wait(&__replay_barrier);
    uint r = from < 0 ? fallback : __replay_xlane[me - me % __REPLAY_WAVE_SIZE + (unsigned) from];
    pthread_barrier_wait(&__replay_barrier);
    return r;
}
#define __builtin_amdgcn_readfirstlane(x) __replay_exchange((uint) (x), 0, 0)
#define __builtin_amdgcn_readlane(x, k) __replay_exchange((uint) (x), (int) ((uint) (k) % __REPLAY_WAVE_SIZE), 0)
#define __builtin_amdgcn_ds_bpermute(addr, x) \
    ((int) __replay_exchange((uint) (x), (int) ((((uint) (addr) >> 2) & 31u) | (__replay_lane() & 32u)), 0))
static inline ulong __replay_ballot(int cond) {
    unsigned me = __replay_flat_id(), base = me - me % __REPLAY_WAVE_SIZE;
    __replay_xlane[me] = cond != 0;
    pthread_barrier_wait(&__replay_barrier);
    ulong mask = 0;
    for (unsigned k = 0; k < __REPLAY_WAVE_SIZE; k++) mask |= (ulong) __replay_xlane[base + k] << k;
    pthread_barrier_wait(&__replay_barrier);
    return mask;
}
#define __builtin_amdgcn_ballot_w32(c) ((uint) __replay_ballot(c))
#define __builtin_amdgcn_ballot_w64(c) __replay_ballot(c)
static inline uint __builtin_amdgcn_mbcnt_lo(uint mask, uint acc) {
    unsigned lane = __replay_lane();
    return acc + __builtin_popcount(lane >= 32 ? mask : mask & ((1u << lane) - 1));
}
static inline uint __builtin_amdgcn_mbcnt_hi(uint mask, uint acc) {
    unsigned lane = __replay_lane();
    return acc + (lane < 32 ? 0 : __builtin_popcount(mask & ((1u << (lane - 32)) - 1)));
}
static inline int __replay_swizzle_source(unsigned lane, int pattern) {
    if (pattern & 0x8000) return (int) ((lane & ~3u) + (pattern >> (2 * (lane & 3)) & 3));
    unsigned and_mask = pattern & 31, or_mask = pattern >> 5 & 31, xor_mask = pattern >> 10 & 31;
    return (int) ((lane & ~31u) + (((lane & 31 & and_mask) | or_mask) ^ xor_mask));
}
#define __builtin_amdgcn_ds_swizzle(x, pattern) \
    ((int) __replay_exchange((uint) (x), __replay_swizzle_source(__replay_lane(), (pattern)), 0))
static inline int __replay_dpp_source(unsigned lane, int ctrl) {
    unsigned row = lane & ~15u, i = lane & 15;
    int src;
    if (ctrl <= 0xff) return (int) ((lane & ~3u) + (ctrl >> (2 * (lane & 3)) & 3));
    if (ctrl >= 0x101 && ctrl <= 0x10f) src = (int) i + (ctrl & 15);          /* row_shl */
    else if (ctrl >= 0x111 && ctrl <= 0x11f) src = (int) i - (ctrl & 15);     /* row_shr */
    else if (ctrl >= 0x121 && ctrl <= 0x12f) src = (int) ((i - (ctrl & 15)) & 15); /* row_ror */
    else if (ctrl == 0x140) src = 15 - (int) i;                                 /* row_mirror */
    else if (ctrl == 0x141) src = (int) ((i & 8) + 7 - (i & 7));                /* row_half_mirror */
    else if (ctrl >= 0x150 && ctrl <= 0x15f) src = ctrl & 15;                   /* row_share */
    else if (ctrl >= 0x160 && ctrl <= 0x16f) src = (int) (i ^ (ctrl & 15));     /* row_xmask */
    else return -2;
    return src < 0 || src > 15 ? -1 : (int) row + src;
}
static inline int __replay_dpp(int old, int x, int ctrl, int bound_ctrl) {
    int from = __replay_dpp_source(__replay_lane(), ctrl);
    if (from == -2) __builtin_trap();
    return (int) __replay_exchange((uint) x, from, bound_ctrl ? 0 : (uint) old);
}
#define __builtin_amdgcn_update_dpp(old, x, ctrl, row_mask, bank_mask, bound_ctrl) __replay_dpp((old), (x), (ctrl), (bound_ctrl))
#define __builtin_amdgcn_mov_dpp(x, ctrl, row_mask, bank_mask, bound_ctrl) __replay_dpp(0, (x), (ctrl), (bound_ctrl))
static inline uint __replay_permlane(uint x, uint sel_lo, uint sel_hi, int cross) {
    unsigned lane = __replay_lane(), i = lane & 15;
    unsigned nibble = (unsigned) ((((ulong) sel_hi << 32 | sel_lo) >> (4 * i)) & 15);
    unsigned row = cross ? (lane & ~15u) ^ 16 : lane & ~15u;
    return __replay_exchange(x, (int) (row + nibble), 0);
}
#define __builtin_amdgcn_permlane16(old, x, lo, hi, fi, bc) __replay_permlane((x), (lo), (hi), 0)
#define __builtin_amdgcn_permlanex16(old, x, lo, hi, fi, bc) __replay_permlane((x), (lo), (hi), 1)

/* ldexp on half: x86 has no ldexpf16; scaling a half in float is exact, then one rounding to half. */
#define __builtin_ldexpf16(x, n) ((_Float16) __builtin_ldexpf((float) (x), (n)))

/* Graphics-era VALU builtins, from the RDNA 2 ISA guide's VOP3 descriptions: med3 (the middle value of
 * three; no NaN in the corpus), the class test (mask bits: 0 sNaN, 1 qNaN, 2 -inf, 3 -normal, 4 -denormal,
 * 5 -0, 6 +0, 7 +denormal, 8 +normal, 9 +inf), the cube-map face selection (major axis |z| >= |y|, |x|
 * in that order; cubema is twice the major axis), frexp parts, fract (x - floor(x), below 1), saturating
 * 16-bit packs, byte lerp (rounding bit from S2's byte) and the SAD family (masked: reference byte 0
 * skipped). */
typedef short __replay_short2_t __attribute__((ext_vector_type(2)));
typedef ushort __replay_ushort2_t __attribute__((ext_vector_type(2)));
static inline float __builtin_amdgcn_fmed3f(float a, float b, float c) {
    return __builtin_fmaxf(__builtin_fminf(a, b), __builtin_fminf(__builtin_fmaxf(a, b), c));
}
static inline bool __builtin_amdgcn_classf(float x, int mask) {
    uint bits = __builtin_bit_cast(uint, x);
    int neg = bits >> 31, k;
    if (x != x) k = (bits & 0x400000) ? 1 : 0;
    else if (__builtin_isinf(x)) k = neg ? 2 : 9;
    else if (x == 0.0f) k = neg ? 5 : 6;
    else if (__builtin_fabsf(x) < 0x1p-126f) k = neg ? 4 : 7;
    else k = neg ? 3 : 8;
    return (mask >> k & 1) != 0;
}
static inline void __replay_cube(float x, float y, float z, float *id, float *sc, float *tc, float *ma) {
    float ax = __builtin_fabsf(x), ay = __builtin_fabsf(y), az = __builtin_fabsf(z);
    if (az >= ax && az >= ay) {
        *id = z < 0.0f ? 5.0f : 4.0f; *sc = z < 0.0f ? -x : x; *tc = -y; *ma = 2.0f * z;
    } else if (ay >= ax) {
        *id = y < 0.0f ? 3.0f : 2.0f; *sc = x; *tc = y < 0.0f ? -z : z; *ma = 2.0f * y;
    } else {
        *id = x < 0.0f ? 1.0f : 0.0f; *sc = x < 0.0f ? z : -z; *tc = -y; *ma = 2.0f * x;
    }
}
static inline float __builtin_amdgcn_cubeid(float x, float y, float z) { float r[4]; __replay_cube(x, y, z, &r[0], &r[1], &r[2], &r[3]); return r[0]; }
static inline float __builtin_amdgcn_cubesc(float x, float y, float z) { float r[4]; __replay_cube(x, y, z, &r[0], &r[1], &r[2], &r[3]); return r[1]; }
static inline float __builtin_amdgcn_cubetc(float x, float y, float z) { float r[4]; __replay_cube(x, y, z, &r[0], &r[1], &r[2], &r[3]); return r[2]; }
static inline float __builtin_amdgcn_cubema(float x, float y, float z) { float r[4]; __replay_cube(x, y, z, &r[0], &r[1], &r[2], &r[3]); return r[3]; }
static inline float __builtin_amdgcn_frexp_mantf(float x) { int e; return __builtin_frexpf(x, &e); }
static inline int __builtin_amdgcn_frexp_expf(float x) { int e = 0; __builtin_frexpf(x, &e); return e; }
static inline float __builtin_amdgcn_fractf(float x) { return __builtin_fminf(x - __builtin_floorf(x), 0x1.fffffep-1f); }
#define __builtin_amdgcn_ldexpf(x, n) __builtin_ldexpf((x), (n))
static inline short __replay_sat16(int v) { return (short) (v > 32767 ? 32767 : v < -32768 ? -32768 : v); }
static inline __replay_short2_t __builtin_amdgcn_cvt_pk_i16(int a, int b) {
    __replay_short2_t r; r.x = __replay_sat16(a); r.y = __replay_sat16(b); return r;
}
static inline __replay_ushort2_t __builtin_amdgcn_cvt_pk_u16(uint a, uint b) {
    __replay_ushort2_t r; r.x = (ushort) (a > 65535 ? 65535 : a); r.y = (ushort) (b > 65535 ? 65535 : b); return r;
}
static inline uint __builtin_amdgcn_lerp(uint a, uint b, uint c) {
    uint d = 0;
    for (int k = 0; k < 32; k += 8) d |= (((a >> k & 0xff) + (b >> k & 0xff) + (c >> k & 1)) >> 1) << k;
    return d;
}
static inline uint __replay_sad(uint a, uint b, int width, int masked) {
    uint s = 0, m = (1u << width) - 1;
    for (int k = 0; k < 32; k += width) {
        uint x = a >> k & m, y = b >> k & m;
        if (!masked || y != 0) s += x > y ? x - y : y - x;
    }
    return s;
}
#define __builtin_amdgcn_sad_u8(a, b, c) (__replay_sad((a), (b), 8, 0) + (c))
#define __builtin_amdgcn_msad_u8(a, b, c) (__replay_sad((a), (b), 8, 1) + (c))
#define __builtin_amdgcn_sad_hi_u8(a, b, c) ((__replay_sad((a), (b), 8, 0) << 16) + (c))
#define __builtin_amdgcn_sad_u16(a, b, c) (__replay_sad((a), (b), 16, 0) + (c))
