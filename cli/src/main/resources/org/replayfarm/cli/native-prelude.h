/* Native x86-64 build of the corpus kernels: the OpenCL C spellings and amdgcn builtins the kernels use,
 * mapped onto C11 and pthreads. One thread per work-item; a group's threads run together (barriers are a
 * pthread barrier) and groups run one after another, so function-scope __local variables (static here)
 * are the group's shared memory. */
#include <pthread.h>
#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
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
typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong;
typedef _Float16 half;
typedef float float2 __attribute__((ext_vector_type(2)));
typedef float float4 __attribute__((ext_vector_type(4)));
typedef int int2 __attribute__((ext_vector_type(2)));
typedef int int4 __attribute__((ext_vector_type(4)));
typedef uint uint4 __attribute__((ext_vector_type(4)));

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
