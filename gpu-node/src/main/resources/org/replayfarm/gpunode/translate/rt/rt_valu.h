/*
 * rt_valu.h: the per-lane semantics of the vector ALU (VOP1, VOP2, VOP3, VOP3P, VOPC), written from the
 * RDNA 2 ISA guide's opcode descriptions. Each function is pure: raw source bits in (after the emitter has
 * applied operand selection, abs/neg input modifiers and op_sel), raw result bits out (the emitter then
 * applies omod/clamp through rt_float.h and writes the destination under EXEC). 16-bit values travel in the
 * low half of a uint32_t. Shift counts, signed overflow and INT_MIN / -1 go through unsigned arithmetic.
 *
 * Names: rt_valu_<mnemonic without v_>, e.g. rt_valu_add_f32(a, b, m).
 */
#pragma once
#include "rt_base.h"
#include "rt_float.h"

/* ------------------------------------------------------------------ integer helpers */

RT_FN uint32_t rt_sext24(uint32_t x) { return (uint32_t)((int32_t)(x << 8) >> 8); }
RT_FN uint32_t rt_sext16(uint32_t x) { return (uint32_t)(int32_t)(int16_t)(uint16_t)x; }
RT_FN uint32_t rt_sext8(uint32_t x) { return (uint32_t)(int32_t)(int8_t)(uint8_t)x; }
RT_FN int rt_popc32(uint32_t x) {
#if RT_GPU
    return __popc(x);
#else
    return __builtin_popcount(x);
#endif
}
RT_FN int rt_clz32(uint32_t x) { /* x != 0 */
#if RT_GPU
    return __clz((int)x);
#else
    return __builtin_clz(x);
#endif
}
RT_FN int rt_ctz32(uint32_t x) { /* x != 0 */
#if RT_GPU
    return __ffs((int)x) - 1;
#else
    return __builtin_ctz(x);
#endif
}
RT_FN uint32_t rt_brev32(uint32_t x) {
#if RT_GPU
    return __brev(x);
#else
    x = (x >> 1 & 0x55555555u) | (x & 0x55555555u) << 1;
    x = (x >> 2 & 0x33333333u) | (x & 0x33333333u) << 2;
    x = (x >> 4 & 0x0f0f0f0fu) | (x & 0x0f0f0f0fu) << 4;
    x = (x >> 8 & 0x00ff00ffu) | (x & 0x00ff00ffu) << 8;
    return x >> 16 | x << 16;
#endif
}
RT_FN uint32_t rt_sat_u32(uint64_t v) { return v > 0xffffffffull ? 0xffffffffu : (uint32_t)v; }
RT_FN uint32_t rt_sat_i32(int64_t v) { return v > 2147483647ll ? 0x7fffffffu : v < -2147483648ll ? 0x80000000u : (uint32_t)v; }
RT_FN uint32_t rt_sat_u16(int64_t v) { return v > 65535 ? 0xffffu : v < 0 ? 0u : (uint32_t)v; }
RT_FN uint32_t rt_sat_i16(int64_t v) { return (uint32_t)(v > 32767 ? 32767 : v < -32768 ? -32768 : v) & 0xffffu; }
RT_FN uint32_t rt_umin(uint32_t a, uint32_t b) { return a < b ? a : b; }
RT_FN uint32_t rt_umax(uint32_t a, uint32_t b) { return a > b ? a : b; }
RT_FN uint32_t rt_imin(uint32_t a, uint32_t b) { return (int32_t)a < (int32_t)b ? a : b; }
RT_FN uint32_t rt_imax(uint32_t a, uint32_t b) { return (int32_t)a > (int32_t)b ? a : b; }

/* ------------------------------------------------------------------ 32-bit integer arithmetic */

/* clamp: the integer CLAMP bit saturates */
RT_FN uint32_t rt_valu_add_nc_u32(uint32_t a, uint32_t b, int clamp) { uint64_t s = (uint64_t)a + b; return clamp ? rt_sat_u32(s) : (uint32_t)s; }
RT_FN uint32_t rt_valu_sub_nc_u32(uint32_t a, uint32_t b, int clamp) { return clamp && b > a ? 0u : a - b; }
RT_FN uint32_t rt_valu_subrev_nc_u32(uint32_t a, uint32_t b, int clamp) { return rt_valu_sub_nc_u32(b, a, clamp); }
RT_FN uint32_t rt_valu_add_nc_i32(uint32_t a, uint32_t b, int clamp) {
    int64_t s = (int64_t)(int32_t)a + (int32_t)b; return clamp ? rt_sat_i32(s) : (uint32_t)s;
}
RT_FN uint32_t rt_valu_sub_nc_i32(uint32_t a, uint32_t b, int clamp) {
    int64_t s = (int64_t)(int32_t)a - (int32_t)b; return clamp ? rt_sat_i32(s) : (uint32_t)s;
}
/* carries: *cout gets the carry (add) or borrow (sub) out */
RT_FN uint32_t rt_valu_add_co_u32(uint32_t a, uint32_t b, int *cout) { uint64_t s = (uint64_t)a + b; *cout = (int)(s >> 32); return (uint32_t)s; }
RT_FN uint32_t rt_valu_sub_co_u32(uint32_t a, uint32_t b, int *cout) { *cout = b > a; return a - b; }
RT_FN uint32_t rt_valu_subrev_co_u32(uint32_t a, uint32_t b, int *cout) { return rt_valu_sub_co_u32(b, a, cout); }
RT_FN uint32_t rt_valu_add_co_ci_u32(uint32_t a, uint32_t b, int cin, int *cout) {
    uint64_t s = (uint64_t)a + b + (uint32_t)(cin & 1); *cout = (int)(s >> 32); return (uint32_t)s;
}
RT_FN uint32_t rt_valu_sub_co_ci_u32(uint32_t a, uint32_t b, int cin, int *cout) {
    uint64_t t = (uint64_t)b + (uint32_t)(cin & 1); *cout = t > a; return (uint32_t)((uint64_t)a - t);
}
RT_FN uint32_t rt_valu_subrev_co_ci_u32(uint32_t a, uint32_t b, int cin, int *cout) { return rt_valu_sub_co_ci_u32(b, a, cin, cout); }

RT_FN uint32_t rt_valu_mul_lo_u32(uint32_t a, uint32_t b) { return a * b; }
RT_FN uint32_t rt_valu_mul_hi_u32(uint32_t a, uint32_t b) { return (uint32_t)(((uint64_t)a * b) >> 32); }
RT_FN uint32_t rt_valu_mul_hi_i32(uint32_t a, uint32_t b) { return (uint32_t)((uint64_t)((int64_t)(int32_t)a * (int32_t)b) >> 32); }
RT_FN uint32_t rt_valu_mul_i32_i24(uint32_t a, uint32_t b) { return rt_sext24(a) * rt_sext24(b); }
RT_FN uint32_t rt_valu_mul_hi_i32_i24(uint32_t a, uint32_t b) {
    return (uint32_t)((uint64_t)((int64_t)(int32_t)rt_sext24(a) * (int32_t)rt_sext24(b)) >> 32);
}
RT_FN uint32_t rt_valu_mul_u32_u24(uint32_t a, uint32_t b) { return (a & 0xffffffu) * (b & 0xffffffu); }
RT_FN uint32_t rt_valu_mul_hi_u32_u24(uint32_t a, uint32_t b) { return (uint32_t)(((uint64_t)(a & 0xffffffu) * (b & 0xffffffu)) >> 32); }
RT_FN uint32_t rt_valu_mad_i32_i24(uint32_t a, uint32_t b, uint32_t c) { return rt_sext24(a) * rt_sext24(b) + c; }
RT_FN uint32_t rt_valu_mad_u32_u24(uint32_t a, uint32_t b, uint32_t c) { return (a & 0xffffffu) * (b & 0xffffffu) + c; }
RT_FN uint32_t rt_valu_mad_u32_u16(uint32_t a, uint32_t b, uint32_t c) { return (a & 0xffffu) * (b & 0xffffu) + c; }
RT_FN uint32_t rt_valu_mad_i32_i16(uint32_t a, uint32_t b, uint32_t c) { return rt_sext16(a) * rt_sext16(b) + c; }
/* 64-bit multiply-add with a carry out (VOP3b): the carry is the unsigned (or signed) overflow of the sum */
RT_FN uint64_t rt_valu_mad_u64_u32(uint32_t a, uint32_t b, uint64_t c, int *cout) {
    uint64_t p = (uint64_t)a * b, s = p + c; *cout = s < p; return s;
}
RT_FN uint64_t rt_valu_mad_i64_i32(uint32_t a, uint32_t b, uint64_t c, int *cout) {
    int64_t p = (int64_t)(int32_t)a * (int32_t)b;
    uint64_t s = (uint64_t)p + c;
    /* signed overflow: both addends of one sign, the sum of the other */
    *cout = (int)(((~((uint64_t)p ^ c)) & ((uint64_t)p ^ s)) >> 63);
    return s;
}

RT_FN uint32_t rt_valu_min_i32(uint32_t a, uint32_t b) { return rt_imin(a, b); }
RT_FN uint32_t rt_valu_max_i32(uint32_t a, uint32_t b) { return rt_imax(a, b); }
RT_FN uint32_t rt_valu_min_u32(uint32_t a, uint32_t b) { return rt_umin(a, b); }
RT_FN uint32_t rt_valu_max_u32(uint32_t a, uint32_t b) { return rt_umax(a, b); }
RT_FN uint32_t rt_valu_min3_i32(uint32_t a, uint32_t b, uint32_t c) { return rt_imin(rt_imin(a, b), c); }
RT_FN uint32_t rt_valu_max3_i32(uint32_t a, uint32_t b, uint32_t c) { return rt_imax(rt_imax(a, b), c); }
RT_FN uint32_t rt_valu_min3_u32(uint32_t a, uint32_t b, uint32_t c) { return rt_umin(rt_umin(a, b), c); }
RT_FN uint32_t rt_valu_max3_u32(uint32_t a, uint32_t b, uint32_t c) { return rt_umax(rt_umax(a, b), c); }
RT_FN uint32_t rt_valu_med3_i32(uint32_t a, uint32_t b, uint32_t c) { return rt_imax(rt_imin(a, b), rt_imin(rt_imax(a, b), c)); }
RT_FN uint32_t rt_valu_med3_u32(uint32_t a, uint32_t b, uint32_t c) { return rt_umax(rt_umin(a, b), rt_umin(rt_umax(a, b), c)); }

/* ------------------------------------------------------------------ bits */

RT_FN uint32_t rt_valu_lshlrev_b32(uint32_t a, uint32_t b) { return b << (a & 31); }
RT_FN uint32_t rt_valu_lshrrev_b32(uint32_t a, uint32_t b) { return b >> (a & 31); }
RT_FN uint32_t rt_valu_ashrrev_i32(uint32_t a, uint32_t b) { return (uint32_t)((int32_t)b >> (a & 31)); }
RT_FN uint64_t rt_valu_lshlrev_b64(uint32_t a, uint64_t b) { return b << (a & 63); }
RT_FN uint64_t rt_valu_lshrrev_b64(uint32_t a, uint64_t b) { return b >> (a & 63); }
RT_FN uint64_t rt_valu_ashrrev_i64(uint32_t a, uint64_t b) { return (uint64_t)((int64_t)b >> (a & 63)); }
RT_FN uint32_t rt_valu_and_b32(uint32_t a, uint32_t b) { return a & b; }
RT_FN uint32_t rt_valu_or_b32(uint32_t a, uint32_t b) { return a | b; }
RT_FN uint32_t rt_valu_xor_b32(uint32_t a, uint32_t b) { return a ^ b; }
RT_FN uint32_t rt_valu_xnor_b32(uint32_t a, uint32_t b) { return ~(a ^ b); }
RT_FN uint32_t rt_valu_not_b32(uint32_t a) { return ~a; }
RT_FN uint32_t rt_valu_xor3_b32(uint32_t a, uint32_t b, uint32_t c) { return a ^ b ^ c; }
RT_FN uint32_t rt_valu_or3_b32(uint32_t a, uint32_t b, uint32_t c) { return a | b | c; }
RT_FN uint32_t rt_valu_and_or_b32(uint32_t a, uint32_t b, uint32_t c) { return (a & b) | c; }
RT_FN uint32_t rt_valu_lshl_or_b32(uint32_t a, uint32_t b, uint32_t c) { return (a << (b & 31)) | c; }
RT_FN uint32_t rt_valu_lshl_add_u32(uint32_t a, uint32_t b, uint32_t c) { return (a << (b & 31)) + c; }
RT_FN uint32_t rt_valu_add_lshl_u32(uint32_t a, uint32_t b, uint32_t c) { return (a + b) << (c & 31); }
RT_FN uint32_t rt_valu_add3_u32(uint32_t a, uint32_t b, uint32_t c) { return a + b + c; }
RT_FN uint32_t rt_valu_xad_u32(uint32_t a, uint32_t b, uint32_t c) { return (a ^ b) + c; }
RT_FN uint32_t rt_valu_bfe_u32(uint32_t a, uint32_t b, uint32_t c) {
    uint32_t off = b & 31, w = c & 31;
    return w == 0 ? 0u : (a >> off) & ((1u << w) - 1);
}
RT_FN uint32_t rt_valu_bfe_i32(uint32_t a, uint32_t b, uint32_t c) {
    uint32_t off = b & 31, w = c & 31;
    if (w == 0) return 0u;
    /* S0.i >> offset is an arithmetic shift: a field reaching past bit 31 takes the sign bits */
    uint32_t f = (uint32_t)((int32_t)a >> off) & ((1u << w) - 1);
    return (uint32_t)((int32_t)(f << (32 - w)) >> (32 - w));
}
RT_FN uint32_t rt_valu_bfi_b32(uint32_t a, uint32_t b, uint32_t c) { return (a & b) | (~a & c); }
RT_FN uint32_t rt_valu_bfm_b32(uint32_t a, uint32_t b) { return (uint32_t)(((1ull << (a & 31)) - 1) << (b & 31)); }
RT_FN uint32_t rt_valu_alignbit_b32(uint32_t a, uint32_t b, uint32_t c) { return (uint32_t)((((uint64_t)a << 32) | b) >> (c & 31)); }
RT_FN uint32_t rt_valu_alignbyte_b32(uint32_t a, uint32_t b, uint32_t c) { return (uint32_t)((((uint64_t)a << 32) | b) >> (8 * (c & 3))); }
RT_FN uint32_t rt_valu_bfrev_b32(uint32_t a) { return rt_brev32(a); }
/* find first bit: the count from the MSB (ffbh) or LSB (ffbl) of the first one, -1 when none */
RT_FN uint32_t rt_valu_ffbh_u32(uint32_t a) { return a == 0 ? 0xffffffffu : (uint32_t)rt_clz32(a); }
RT_FN uint32_t rt_valu_ffbl_b32(uint32_t a) { return a == 0 ? 0xffffffffu : (uint32_t)rt_ctz32(a); }
/* the first bit (from the MSB, after bit 31) that differs from the sign bit; -1 for 0 and -1 */
RT_FN uint32_t rt_valu_ffbh_i32(uint32_t a) {
    uint32_t x = (a >> 31) ? ~a : a;
    return x == 0 ? 0xffffffffu : (uint32_t)rt_clz32(x);
}
RT_FN uint32_t rt_valu_bcnt_u32_b32(uint32_t a, uint32_t b) { return (uint32_t)rt_popc32(a) + b; }
/* mbcnt: the ones of a among the lanes below this one (lo: lanes 0..31, hi: lanes 32..63), plus b */
RT_FN uint32_t rt_valu_mbcnt_lo_u32_b32(uint32_t a, uint32_t b, int lane) {
    int n = lane < 32 ? lane : 32;
    uint32_t mask = n >= 32 ? 0xffffffffu : ((1u << n) - 1);
    return (uint32_t)rt_popc32(a & mask) + b;
}
RT_FN uint32_t rt_valu_mbcnt_hi_u32_b32(uint32_t a, uint32_t b, int lane) {
    int n = lane < 32 ? 0 : lane - 32;
    uint32_t mask = (1u << n) - 1;
    return (uint32_t)rt_popc32(a & mask) + b;
}
/* v_perm_b32: each selector byte of c picks a byte of {a, b} (0-3 of b, 4-7 of a), the sign of byte 1/3/5/7
 * (8-11), zero (12) or 0xff (13-15 and above) */
RT_FN uint32_t rt_valu_perm_b32(uint32_t a, uint32_t b, uint32_t c) {
    uint64_t in = ((uint64_t)a << 32) | b;
    uint32_t r = 0;
    for (int i = 0; i < 4; i++) {
        uint32_t s = (c >> (8 * i)) & 0xffu, v;
        if (s <= 7) v = (uint32_t)(in >> (8 * s)) & 0xffu;
        else if (s <= 11) v = ((in >> (16 * (s - 8) + 15)) & 1) ? 0xffu : 0u;
        else if (s == 12) v = 0;
        else v = 0xffu;
        r |= v << (8 * i);
    }
    return r;
}
RT_FN uint32_t rt_absdiff(uint32_t a, uint32_t b) { return a > b ? a - b : b - a; }
RT_FN uint32_t rt_valu_sad_u8(uint32_t a, uint32_t b, uint32_t c) {
    uint32_t s = 0;
    for (int i = 0; i < 4; i++) s += rt_absdiff(a >> (8 * i) & 0xffu, b >> (8 * i) & 0xffu);
    return s + c;
}
RT_FN uint32_t rt_valu_sad_hi_u8(uint32_t a, uint32_t b, uint32_t c) {
    uint32_t s = 0;
    for (int i = 0; i < 4; i++) s += rt_absdiff(a >> (8 * i) & 0xffu, b >> (8 * i) & 0xffu);
    return (s << 16) + c;
}
RT_FN uint32_t rt_valu_sad_u16(uint32_t a, uint32_t b, uint32_t c) {
    return rt_absdiff(a & 0xffffu, b & 0xffffu) + rt_absdiff(a >> 16, b >> 16) + c;
}
RT_FN uint32_t rt_valu_sad_u32(uint32_t a, uint32_t b, uint32_t c) { return rt_absdiff(a, b) + c; }
/* v_lerp_u8: per byte (a + b + (c & 1)) >> 1, the rounding bit from bit 0 of each byte of c */
RT_FN uint32_t rt_valu_lerp_u8(uint32_t a, uint32_t b, uint32_t c) {
    uint32_t r = 0;
    for (int i = 0; i < 4; i++) {
        uint32_t x = (a >> (8 * i) & 0xffu) + (b >> (8 * i) & 0xffu) + (c >> (8 * i) & 1u);
        r |= (x >> 1 & 0xffu) << (8 * i);
    }
    return r;
}
RT_FN uint32_t rt_valu_cvt_pk_u16_u32(uint32_t a, uint32_t b) { return (rt_umin(a, 0xffffu)) | (rt_umin(b, 0xffffu) << 16); }
RT_FN uint32_t rt_valu_cvt_pk_i16_i32(uint32_t a, uint32_t b) {
    return rt_sat_i16((int32_t)a) | (rt_sat_i16((int32_t)b) << 16);
}
RT_FN uint32_t rt_valu_cvt_f32_ubyte(uint32_t a, int n) { return rt_bits32((float)(a >> (8 * n) & 0xffu)); }
/* signed 4-bit integer a[3:0] / 16 */
RT_FN uint32_t rt_valu_cvt_off_f32_i4(uint32_t a) { return rt_bits32((float)((int32_t)(a << 28) >> 28) * 0.0625f); }

/* ------------------------------------------------------------------ 16-bit integer */

RT_FN uint32_t rt_valu_add_nc_u16(uint32_t a, uint32_t b, int clamp) { uint32_t s = (a & 0xffffu) + (b & 0xffffu); return clamp ? rt_umin(s, 0xffffu) : s & 0xffffu; }
RT_FN uint32_t rt_valu_sub_nc_u16(uint32_t a, uint32_t b, int clamp) {
    a &= 0xffffu; b &= 0xffffu; return clamp && b > a ? 0u : (a - b) & 0xffffu;
}
RT_FN uint32_t rt_valu_add_nc_i16(uint32_t a, uint32_t b, int clamp) {
    int32_t s = (int32_t)rt_sext16(a) + (int32_t)rt_sext16(b); return clamp ? rt_sat_i16(s) : (uint32_t)s & 0xffffu;
}
RT_FN uint32_t rt_valu_sub_nc_i16(uint32_t a, uint32_t b, int clamp) {
    int32_t s = (int32_t)rt_sext16(a) - (int32_t)rt_sext16(b); return clamp ? rt_sat_i16(s) : (uint32_t)s & 0xffffu;
}
RT_FN uint32_t rt_valu_mul_lo_u16(uint32_t a, uint32_t b) { return ((a & 0xffffu) * (b & 0xffffu)) & 0xffffu; }
RT_FN uint32_t rt_valu_mad_u16(uint32_t a, uint32_t b, uint32_t c, int clamp) {
    uint32_t s = (a & 0xffffu) * (b & 0xffffu) + (c & 0xffffu); return clamp ? rt_umin(s, 0xffffu) : s & 0xffffu;
}
RT_FN uint32_t rt_valu_mad_i16(uint32_t a, uint32_t b, uint32_t c, int clamp) {
    int32_t s = (int32_t)rt_sext16(a) * (int32_t)rt_sext16(b) + (int32_t)rt_sext16(c);
    return clamp ? rt_sat_i16(s) : (uint32_t)s & 0xffffu;
}
RT_FN uint32_t rt_valu_lshlrev_b16(uint32_t a, uint32_t b) { return ((b & 0xffffu) << (a & 15)) & 0xffffu; }
RT_FN uint32_t rt_valu_lshrrev_b16(uint32_t a, uint32_t b) { return (b & 0xffffu) >> (a & 15); }
RT_FN uint32_t rt_valu_ashrrev_i16(uint32_t a, uint32_t b) { return (uint32_t)((int32_t)rt_sext16(b) >> (a & 15)) & 0xffffu; }
RT_FN uint32_t rt_valu_min_u16(uint32_t a, uint32_t b) { return rt_umin(a & 0xffffu, b & 0xffffu); }
RT_FN uint32_t rt_valu_max_u16(uint32_t a, uint32_t b) { return rt_umax(a & 0xffffu, b & 0xffffu); }
RT_FN uint32_t rt_valu_min_i16(uint32_t a, uint32_t b) { return rt_imin(rt_sext16(a), rt_sext16(b)) & 0xffffu; }
RT_FN uint32_t rt_valu_max_i16(uint32_t a, uint32_t b) { return rt_imax(rt_sext16(a), rt_sext16(b)) & 0xffffu; }
RT_FN uint32_t rt_valu_min3_u16(uint32_t a, uint32_t b, uint32_t c) { return rt_valu_min3_u32(a & 0xffffu, b & 0xffffu, c & 0xffffu); }
RT_FN uint32_t rt_valu_max3_u16(uint32_t a, uint32_t b, uint32_t c) { return rt_valu_max3_u32(a & 0xffffu, b & 0xffffu, c & 0xffffu); }
RT_FN uint32_t rt_valu_med3_u16(uint32_t a, uint32_t b, uint32_t c) { return rt_valu_med3_u32(a & 0xffffu, b & 0xffffu, c & 0xffffu); }
RT_FN uint32_t rt_valu_min3_i16(uint32_t a, uint32_t b, uint32_t c) { return rt_valu_min3_i32(rt_sext16(a), rt_sext16(b), rt_sext16(c)) & 0xffffu; }
RT_FN uint32_t rt_valu_max3_i16(uint32_t a, uint32_t b, uint32_t c) { return rt_valu_max3_i32(rt_sext16(a), rt_sext16(b), rt_sext16(c)) & 0xffffu; }
RT_FN uint32_t rt_valu_med3_i16(uint32_t a, uint32_t b, uint32_t c) { return rt_valu_med3_i32(rt_sext16(a), rt_sext16(b), rt_sext16(c)) & 0xffffu; }

/* ------------------------------------------------------------------ f32 / f64 / f16 arithmetic */

RT_FN uint32_t rt_fneg32(uint32_t a) { return a ^ 0x80000000u; }
RT_FN uint64_t rt_fneg64(uint64_t a) { return a ^ 0x8000000000000000ull; }
RT_FN uint32_t rt_fneg16(uint32_t a) { return (a ^ 0x8000u) & 0xffffu; }

RT_FN uint32_t rt_valu_add_f32(uint32_t a, uint32_t b, const rt_mode_t *m) { return rt_fadd32(a, b, m); }
RT_FN uint32_t rt_valu_sub_f32(uint32_t a, uint32_t b, const rt_mode_t *m) { return rt_fadd32(a, rt_fneg32(b), m); }
RT_FN uint32_t rt_valu_subrev_f32(uint32_t a, uint32_t b, const rt_mode_t *m) { return rt_fadd32(b, rt_fneg32(a), m); }
RT_FN uint32_t rt_valu_mul_f32(uint32_t a, uint32_t b, const rt_mode_t *m) { return rt_fmul32(a, b, m); }
RT_FN uint32_t rt_valu_fma_f32(uint32_t a, uint32_t b, uint32_t c, const rt_mode_t *m) { return rt_ffma32(a, b, c, m); }
/* DX9 legacy multiply: a zero factor (after flushing) gives +0 whatever the other one is */
RT_FN uint32_t rt_valu_mul_legacy_f32(uint32_t a, uint32_t b, const rt_mode_t *m) {
    if (rt_iszero32(rt_in32(m, a)) || rt_iszero32(rt_in32(m, b))) return 0u;
    return rt_fmul32(a, b, m);
}
RT_FN uint32_t rt_valu_fma_legacy_f32(uint32_t a, uint32_t b, uint32_t c, const rt_mode_t *m) {
    if (rt_iszero32(rt_in32(m, a)) || rt_iszero32(rt_in32(m, b))) return rt_fadd32(0u, c, m);
    return rt_ffma32(a, b, c, m);
}
RT_FN uint64_t rt_valu_add_f64(uint64_t a, uint64_t b, const rt_mode_t *m) { return rt_fadd64(a, b, m); }
RT_FN uint64_t rt_valu_mul_f64(uint64_t a, uint64_t b, const rt_mode_t *m) { return rt_fmul64(a, b, m); }
RT_FN uint64_t rt_valu_fma_f64(uint64_t a, uint64_t b, uint64_t c, const rt_mode_t *m) { return rt_ffma64(a, b, c, m); }
RT_FN uint32_t rt_valu_add_f16(uint32_t a, uint32_t b, const rt_mode_t *m) { return rt_fadd16(a, b, m); }
RT_FN uint32_t rt_valu_sub_f16(uint32_t a, uint32_t b, const rt_mode_t *m) { return rt_fadd16(a, rt_fneg16(b), m); }
RT_FN uint32_t rt_valu_subrev_f16(uint32_t a, uint32_t b, const rt_mode_t *m) { return rt_fadd16(b, rt_fneg16(a), m); }
RT_FN uint32_t rt_valu_mul_f16(uint32_t a, uint32_t b, const rt_mode_t *m) { return rt_fmul16(a, b, m); }
RT_FN uint32_t rt_valu_fma_f16(uint32_t a, uint32_t b, uint32_t c, const rt_mode_t *m) { return rt_ffma16(a, b, c, m); }

/*
 * min/max (ISA pseudocode of V_MAX_F32): in IEEE mode a signalling NaN source is returned quieted (source 0
 * first); otherwise a NaN source yields the other source; +0 is above -0; ties keep source 0 in IEEE mode
 * (>=) and source 1 otherwise (>). Inputs flushed per the mode.
 */
#define RT_MINMAX(NAME, T, W, ISNAN, ISSNAN, QUIET, INF, TOD) \
    RT_FN T NAME(T a, T b, int max, const rt_mode_t *m) { \
        a = INF(m, a); b = INF(m, b); \
        int ieee = rt_mode_ieee(m); \
        if (ieee && ISSNAN(a)) return QUIET(a); \
        if (ieee && ISSNAN(b)) return QUIET(b); \
        if (ISNAN(a)) return b; \
        if (ISNAN(b)) return a; \
        T mag = (T)(((T)1 << (W - 1)) - 1); \
        if ((a & mag) == 0 && (b & mag) == 0) { int an = (int)(a >> (W - 1) & 1); return (an == max) ? b : a; } \
        double x = TOD(a), y = TOD(b); \
        int keep_a = max ? (ieee ? x >= y : x > y) : (ieee ? x <= y : x < y); \
        return keep_a ? a : b; \
    }
RT_FN double rt_tod32(uint32_t a) { return (double)rt_f32(a); }
RT_FN double rt_tod16(uint32_t a) { return rt_f16_to_f64(a); }
RT_FN uint32_t rt_in16w(const rt_mode_t *m, uint32_t a) { return rt_in16(m, a); }
RT_MINMAX(rt_minmax32, uint32_t, 32, rt_isnan32, rt_issnan32, rt_quiet32, rt_in32, rt_tod32)
RT_MINMAX(rt_minmax64, uint64_t, 64, rt_isnan64, rt_issnan64, rt_quiet64, rt_in64, rt_f64)
RT_MINMAX(rt_minmax16, uint32_t, 16, rt_isnan16, rt_issnan16, rt_quiet16, rt_in16w, rt_tod16)

RT_FN uint32_t rt_valu_max_f32(uint32_t a, uint32_t b, const rt_mode_t *m) { return rt_minmax32(a, b, 1, m); }
RT_FN uint32_t rt_valu_min_f32(uint32_t a, uint32_t b, const rt_mode_t *m) { return rt_minmax32(a, b, 0, m); }
RT_FN uint64_t rt_valu_max_f64(uint64_t a, uint64_t b, const rt_mode_t *m) { return rt_minmax64(a, b, 1, m); }
RT_FN uint64_t rt_valu_min_f64(uint64_t a, uint64_t b, const rt_mode_t *m) { return rt_minmax64(a, b, 0, m); }
RT_FN uint32_t rt_valu_max_f16(uint32_t a, uint32_t b, const rt_mode_t *m) { return rt_minmax16(a & 0xffffu, b & 0xffffu, 1, m); }
RT_FN uint32_t rt_valu_min_f16(uint32_t a, uint32_t b, const rt_mode_t *m) { return rt_minmax16(a & 0xffffu, b & 0xffffu, 0, m); }
RT_FN uint32_t rt_valu_max3_f32(uint32_t a, uint32_t b, uint32_t c, const rt_mode_t *m) { return rt_minmax32(rt_minmax32(a, b, 1, m), c, 1, m); }
RT_FN uint32_t rt_valu_min3_f32(uint32_t a, uint32_t b, uint32_t c, const rt_mode_t *m) { return rt_minmax32(rt_minmax32(a, b, 0, m), c, 0, m); }
RT_FN uint32_t rt_valu_max3_f16(uint32_t a, uint32_t b, uint32_t c, const rt_mode_t *m) {
    return rt_minmax16(rt_minmax16(a & 0xffffu, b & 0xffffu, 1, m), c & 0xffffu, 1, m);
}
RT_FN uint32_t rt_valu_min3_f16(uint32_t a, uint32_t b, uint32_t c, const rt_mode_t *m) {
    return rt_minmax16(rt_minmax16(a & 0xffffu, b & 0xffffu, 0, m), c & 0xffffu, 0, m);
}
/* med3 (ISA): with a NaN source, min3; otherwise the middle value: max of the two that max3 did not pick */
RT_FN uint32_t rt_valu_med3_f32(uint32_t a, uint32_t b, uint32_t c, const rt_mode_t *m) {
    a = rt_in32(m, a); b = rt_in32(m, b); c = rt_in32(m, c);
    if (rt_isnan32(a) || rt_isnan32(b) || rt_isnan32(c)) return rt_valu_min3_f32(a, b, c, m);
    uint32_t hi = rt_valu_max3_f32(a, b, c, m);
    if (hi == a) return rt_minmax32(b, c, 1, m);
    if (hi == b) return rt_minmax32(a, c, 1, m);
    return rt_minmax32(a, b, 1, m);
}
RT_FN uint32_t rt_valu_med3_f16(uint32_t a, uint32_t b, uint32_t c, const rt_mode_t *m) {
    a = rt_in16(m, a); b = rt_in16(m, b); c = rt_in16(m, c);
    if (rt_isnan16(a) || rt_isnan16(b) || rt_isnan16(c)) return rt_valu_min3_f16(a, b, c, m);
    uint32_t hi = rt_valu_max3_f16(a, b, c, m);
    if (hi == a) return rt_minmax16(b, c, 1, m);
    if (hi == b) return rt_minmax16(a, c, 1, m);
    return rt_minmax16(a, b, 1, m);
}

/* ldexp: a * 2^e rounded once per the mode. For f32/f16 the product is exact in double (e clamped to where
 * every result is already zero or infinity), then rounded once. */
RT_FN uint32_t rt_valu_ldexp_f32(uint32_t a, uint32_t e, const rt_mode_t *m) {
    a = rt_in32(m, a);
    if (rt_isnan32(a)) return rt_quiet32(a);
    if (rt_isinf32(a) || rt_iszero32(a)) return a;
    int32_t k = (int32_t)e;
    if (k > 400) k = 400;
    if (k < -400) k = -400;
    double x = (double)rt_f32(a) * ldexp(1.0, k); /* exact: |x| within 2^(-149-400) .. 2^(128+400) */
    return rt_out32(m, rt_bits32(rt_f64_to_f32_rm(x, rt_mode_round32(m))));
}
RT_FN uint32_t rt_valu_ldexp_f16(uint32_t a, uint32_t e, const rt_mode_t *m) {
    a = rt_in16(m, a);
    if (rt_isnan16(a)) return rt_quiet16(a);
    if (rt_isinf16(a) || rt_iszero16(a)) return a;
    int32_t k = (int32_t)rt_sext16(e);
    if (k > 100) k = 100;
    if (k < -100) k = -100;
    return rt_out16(m, rt_f16_round(rt_f16_to_f64(a) * ldexp(1.0, k), rt_mode_round64(m)));
}
RT_FN uint64_t rt_valu_ldexp_f64(uint64_t a, uint32_t e, const rt_mode_t *m) {
    a = rt_in64(m, a);
    if (rt_isnan64(a)) return rt_quiet64(a);
    if (rt_isinf64(a) || rt_iszero64(a)) return a;
    int32_t k = (int32_t)e;
    double x = rt_f64(a);
    int rm = rt_mode_round64(m);
    /* normalise x to [1, 2) exactly, then one rounded multiply by a power of two that is itself a normal double */
    int ex;
    double n = 2.0 * frexp(x, &ex); /* exact, denormals included: x = n * 2^(ex-1), n in [1, 2) */
    ex -= 1;
    int64_t t = (int64_t)k + ex;     /* the exponent of the result */
    if (t > 1100) t = 1100;
    if (t < -1200) t = -1200;
    if (t > 1023) return rt_out64(m, rt_bits64(rt_mul_f64_rm(n * 0x1p1023, ldexp(1.0, (int)(t - 1023)), rm)));
    if (t >= -1022) return rt_out64(m, rt_bits64(n * ldexp(1.0, (int)t)));
    return rt_out64(m, rt_bits64(rt_mul_f64_rm(n * 0x1p-600, ldexp(1.0, (int)(t + 600)), rm)));
}

/* ------------------------------------------------------------------ integer-valued rounding */

RT_FN uint32_t rt_round32(uint32_t a, int how, const rt_mode_t *m) { /* how: 0 trunc, 1 ceil, 2 floor, 3 rndne */
    a = rt_in32(m, a);
    if (rt_isnan32(a)) return rt_quiet32(a);
    float x = rt_f32(a), r;
    switch (how) { case 0: r = truncf(x); break; case 1: r = ceilf(x); break; case 2: r = floorf(x); break; default: r = rintf(x); break; }
    return rt_out32(m, rt_bits32(r));
}
RT_FN uint64_t rt_round64(uint64_t a, int how, const rt_mode_t *m) {
    a = rt_in64(m, a);
    if (rt_isnan64(a)) return rt_quiet64(a);
    double x = rt_f64(a), r;
    switch (how) { case 0: r = trunc(x); break; case 1: r = ceil(x); break; case 2: r = floor(x); break; default: r = rint(x); break; }
    return rt_out64(m, rt_bits64(r));
}
RT_FN uint32_t rt_round16(uint32_t a, int how, const rt_mode_t *m) {
    a = rt_in16(m, a);
    if (rt_isnan16(a)) return rt_quiet16(a);
    double x = rt_f16_to_f64(a), r;
    switch (how) { case 0: r = trunc(x); break; case 1: r = ceil(x); break; case 2: r = floor(x); break; default: r = rint(x); break; }
    return rt_out16(m, rt_f16_round(r, RT_RND_NE));
}
RT_FN uint32_t rt_valu_trunc_f32(uint32_t a, const rt_mode_t *m) { return rt_round32(a, 0, m); }
RT_FN uint32_t rt_valu_ceil_f32(uint32_t a, const rt_mode_t *m) { return rt_round32(a, 1, m); }
RT_FN uint32_t rt_valu_floor_f32(uint32_t a, const rt_mode_t *m) { return rt_round32(a, 2, m); }
RT_FN uint32_t rt_valu_rndne_f32(uint32_t a, const rt_mode_t *m) { return rt_round32(a, 3, m); }
RT_FN uint64_t rt_valu_trunc_f64(uint64_t a, const rt_mode_t *m) { return rt_round64(a, 0, m); }
RT_FN uint64_t rt_valu_ceil_f64(uint64_t a, const rt_mode_t *m) { return rt_round64(a, 1, m); }
RT_FN uint64_t rt_valu_floor_f64(uint64_t a, const rt_mode_t *m) { return rt_round64(a, 2, m); }
RT_FN uint64_t rt_valu_rndne_f64(uint64_t a, const rt_mode_t *m) { return rt_round64(a, 3, m); }
RT_FN uint32_t rt_valu_trunc_f16(uint32_t a, const rt_mode_t *m) { return rt_round16(a, 0, m); }
RT_FN uint32_t rt_valu_ceil_f16(uint32_t a, const rt_mode_t *m) { return rt_round16(a, 1, m); }
RT_FN uint32_t rt_valu_floor_f16(uint32_t a, const rt_mode_t *m) { return rt_round16(a, 2, m); }
RT_FN uint32_t rt_valu_rndne_f16(uint32_t a, const rt_mode_t *m) { return rt_round16(a, 3, m); }
/* fract: a - floor(a) rounded per the mode, at most the largest value below 1; infinity gives the default NaN */
RT_FN uint32_t rt_valu_fract_f32(uint32_t a, const rt_mode_t *m) {
    a = rt_in32(m, a);
    if (rt_isnan32(a)) return rt_quiet32(a);
    if (rt_isinf32(a)) return RT_NAN32;
    uint32_t r = rt_fadd32(a, rt_fneg32(rt_bits32(floorf(rt_f32(a)))), m);
    return (!(r >> 31) && r > 0x3f7fffffu) ? 0x3f7fffffu : r;
}
RT_FN uint64_t rt_valu_fract_f64(uint64_t a, const rt_mode_t *m) {
    a = rt_in64(m, a);
    if (rt_isnan64(a)) return rt_quiet64(a);
    if (rt_isinf64(a)) return RT_NAN64;
    uint64_t r = rt_fadd64(a, rt_fneg64(rt_bits64(floor(rt_f64(a)))), m);
    return (!(r >> 63) && r > 0x3fefffffffffffffull) ? 0x3fefffffffffffffull : r;
}
RT_FN uint32_t rt_valu_fract_f16(uint32_t a, const rt_mode_t *m) {
    a = rt_in16(m, a);
    if (rt_isnan16(a)) return rt_quiet16(a);
    if (rt_isinf16(a)) return RT_NAN16;
    uint32_t fl = rt_f64_to_f16_bits(floor(rt_f16_to_f64(a)), RT_RND_NE);
    uint32_t r = rt_fadd16(a, rt_fneg16(fl), m);
    return (!(r >> 15) && r > 0x3bffu) ? 0x3bffu : r;
}
/* frexp: mantissa in [0.5, 1) with the sign, and the exponent; NaN/inf: the (quieted) input / 0; zero: 0 */
RT_FN uint32_t rt_valu_frexp_mant_f32(uint32_t a, const rt_mode_t *m) {
    a = rt_in32(m, a);
    if (rt_isnan32(a)) return rt_quiet32(a);
    if (rt_isinf32(a) || rt_iszero32(a)) return a;
    int e; float r = frexpf(rt_f32(a), &e); return rt_bits32(r);
}
RT_FN uint32_t rt_valu_frexp_exp_i32_f32(uint32_t a, const rt_mode_t *m) {
    a = rt_in32(m, a);
    if (rt_isnan32(a) || rt_isinf32(a) || rt_iszero32(a)) return 0u;
    int e; frexpf(rt_f32(a), &e); return (uint32_t)e;
}
RT_FN uint64_t rt_valu_frexp_mant_f64(uint64_t a, const rt_mode_t *m) {
    a = rt_in64(m, a);
    if (rt_isnan64(a)) return rt_quiet64(a);
    if (rt_isinf64(a) || rt_iszero64(a)) return a;
    int e; double r = frexp(rt_f64(a), &e); return rt_bits64(r);
}
RT_FN uint32_t rt_valu_frexp_exp_i32_f64(uint64_t a, const rt_mode_t *m) {
    a = rt_in64(m, a);
    if (rt_isnan64(a) || rt_isinf64(a) || rt_iszero64(a)) return 0u;
    int e; frexp(rt_f64(a), &e); return (uint32_t)e;
}
RT_FN uint32_t rt_valu_frexp_mant_f16(uint32_t a, const rt_mode_t *m) {
    a = rt_in16(m, a);
    if (rt_isnan16(a)) return rt_quiet16(a);
    if (rt_isinf16(a) || rt_iszero16(a)) return a;
    int e; double r = frexp(rt_f16_to_f64(a), &e); return rt_f64_to_f16_bits(r, RT_RND_NE);
}
RT_FN uint32_t rt_valu_frexp_exp_i16_f16(uint32_t a, const rt_mode_t *m) {
    a = rt_in16(m, a);
    if (rt_isnan16(a) || rt_isinf16(a) || rt_iszero16(a)) return 0u;
    int e; frexp(rt_f16_to_f64(a), &e); return (uint32_t)e & 0xffffu;
}

/* ------------------------------------------------------------------ conversions */

/* float to integer: toward zero (or floor / floor(x + 0.5)), saturating, NaN gives 0 */
RT_FN int64_t rt_sat_d(double v, double lo, double hi) { return v != v ? 0 : v <= lo ? (int64_t)lo : v >= hi ? (int64_t)hi : (int64_t)v; }
RT_FN uint32_t rt_valu_cvt_i32_f32(uint32_t a, const rt_mode_t *m) { return (uint32_t)rt_sat_d(trunc((double)rt_f32(rt_in32(m, a))), -2147483648.0, 2147483647.0); }
RT_FN uint32_t rt_valu_cvt_u32_f32(uint32_t a, const rt_mode_t *m) { return (uint32_t)rt_sat_d(trunc((double)rt_f32(rt_in32(m, a))), 0.0, 4294967295.0); }
RT_FN uint32_t rt_valu_cvt_flr_i32_f32(uint32_t a, const rt_mode_t *m) { return (uint32_t)rt_sat_d(floor((double)rt_f32(rt_in32(m, a))), -2147483648.0, 2147483647.0); }
RT_FN uint32_t rt_valu_cvt_rpi_i32_f32(uint32_t a, const rt_mode_t *m) { return (uint32_t)rt_sat_d(floor((double)rt_f32(rt_in32(m, a)) + 0.5), -2147483648.0, 2147483647.0); }
RT_FN uint32_t rt_valu_cvt_i32_f64(uint64_t a, const rt_mode_t *m) { return (uint32_t)rt_sat_d(trunc(rt_f64(rt_in64(m, a))), -2147483648.0, 2147483647.0); }
RT_FN uint32_t rt_valu_cvt_u32_f64(uint64_t a, const rt_mode_t *m) { return (uint32_t)rt_sat_d(trunc(rt_f64(rt_in64(m, a))), 0.0, 4294967295.0); }
RT_FN uint32_t rt_valu_cvt_i16_f16(uint32_t a, const rt_mode_t *m) { return (uint32_t)rt_sat_d(trunc(rt_f16_to_f64(rt_in16(m, a))), -32768.0, 32767.0) & 0xffffu; }
RT_FN uint32_t rt_valu_cvt_u16_f16(uint32_t a, const rt_mode_t *m) { return (uint32_t)rt_sat_d(trunc(rt_f16_to_f64(rt_in16(m, a))), 0.0, 65535.0) & 0xffffu; }
RT_FN uint32_t rt_valu_cvt_f32_i32(uint32_t a, const rt_mode_t *m) { return rt_out32(m, rt_bits32(rt_i32_to_f32_rm((int32_t)a, rt_mode_round32(m)))); }
RT_FN uint32_t rt_valu_cvt_f32_u32(uint32_t a, const rt_mode_t *m) { return rt_out32(m, rt_bits32(rt_u32_to_f32_rm(a, rt_mode_round32(m)))); }
RT_FN uint64_t rt_valu_cvt_f64_i32(uint32_t a) { return rt_bits64((double)(int32_t)a); }
RT_FN uint64_t rt_valu_cvt_f64_u32(uint32_t a) { return rt_bits64((double)a); }
RT_FN uint32_t rt_valu_cvt_f16_u16(uint32_t a, const rt_mode_t *m) { return rt_out16(m, rt_f16_round((double)(a & 0xffffu), rt_mode_round64(m))); }
RT_FN uint32_t rt_valu_cvt_f16_i16(uint32_t a, const rt_mode_t *m) { return rt_out16(m, rt_f16_round((double)(int32_t)rt_sext16(a), rt_mode_round64(m))); }
/* NaN between float formats: sign and the payload's top bits kept, quieted */
RT_FN uint32_t rt_valu_cvt_f32_f64(uint64_t a, const rt_mode_t *m) {
    a = rt_in64(m, a);
    if (rt_isnan64(a)) return (uint32_t)(a >> 63 << 31) | 0x7fc00000u | (uint32_t)((a & 0x000fffffffffffffull) >> 29);
    return rt_out32(m, rt_bits32(rt_f64_to_f32_rm(rt_f64(a), rt_mode_round32(m))));
}
RT_FN uint64_t rt_valu_cvt_f64_f32(uint32_t a, const rt_mode_t *m) {
    a = rt_in32(m, a);
    if (rt_isnan32(a)) return ((uint64_t)(a >> 31) << 63) | 0x7ff8000000000000ull | ((uint64_t)(a & 0x7fffffu) << 29);
    return rt_out64(m, rt_bits64((double)rt_f32(a)));
}
RT_FN uint32_t rt_valu_cvt_f16_f32(uint32_t a, const rt_mode_t *m) {
    a = rt_in32(m, a);
    if (rt_isnan32(a)) return ((a >> 31) << 15) | 0x7e00u | ((a & 0x7fffffu) >> 13);
    return rt_out16(m, rt_f16_round((double)rt_f32(a), rt_mode_round64(m)));
}
RT_FN uint32_t rt_valu_cvt_f32_f16(uint32_t a, const rt_mode_t *m) {
    a = rt_in16(m, a);
    if (rt_isnan16(a)) return ((a >> 15 & 1u) << 31) | 0x7fc00000u | ((a & 0x3ffu) << 13);
    return rt_out32(m, rt_bits32((float)rt_f16_to_f64(a)));
}
/* two f32 to f16 rounded toward zero, packed (a low, b high) */
RT_FN uint32_t rt_cvt_f16_f32_rz(uint32_t a, const rt_mode_t *m) {
    a = rt_in32(m, a);
    if (rt_isnan32(a)) return ((a >> 31) << 15) | 0x7e00u | ((a & 0x7fffffu) >> 13);
    return rt_out16(m, rt_f16_round((double)rt_f32(a), RT_RND_RZ));
}
RT_FN uint32_t rt_valu_cvt_pkrtz_f16_f32(uint32_t a, uint32_t b, const rt_mode_t *m) { return rt_cvt_f16_f32_rz(a, m) | (rt_cvt_f16_f32_rz(b, m) << 16); }
RT_FN uint32_t rt_valu_pack_b32_f16(uint32_t a, uint32_t b) { return (a & 0xffffu) | (b << 16); }

/* ------------------------------------------------------------------ compares and class */

/* the condition codes of the float compares in opcode order: f lt eq le gt lg ge o u nge nlg ngt nle neq nlt tru */
RT_FN int rt_fcmp(int cond, int lt, int eq, int gt, int un) {
    switch (cond & 15) {
    case 0: return 0;
    case 1: return lt;
    case 2: return eq;
    case 3: return lt || eq;
    case 4: return gt;
    case 5: return lt || gt;
    case 6: return gt || eq;
    case 7: return !un;
    case 8: return un;
    case 9: return !(gt || eq);
    case 10: return !(lt || gt);
    case 11: return !gt;
    case 12: return !(lt || eq);
    case 13: return !eq;
    case 14: return !lt;
    default: return 1;
    }
}
RT_FN int rt_valu_cmp_f32(int cond, uint32_t a, uint32_t b, const rt_mode_t *m) {
    a = rt_in32(m, a); b = rt_in32(m, b);
    int un = rt_isnan32(a) || rt_isnan32(b);
    float x = rt_f32(a), y = rt_f32(b);
    return rt_fcmp(cond, !un && x < y, !un && x == y, !un && x > y, un);
}
RT_FN int rt_valu_cmp_f64(int cond, uint64_t a, uint64_t b, const rt_mode_t *m) {
    a = rt_in64(m, a); b = rt_in64(m, b);
    int un = rt_isnan64(a) || rt_isnan64(b);
    double x = rt_f64(a), y = rt_f64(b);
    return rt_fcmp(cond, !un && x < y, !un && x == y, !un && x > y, un);
}
RT_FN int rt_valu_cmp_f16(int cond, uint32_t a, uint32_t b, const rt_mode_t *m) {
    a = rt_in16(m, a); b = rt_in16(m, b);
    int un = rt_isnan16(a) || rt_isnan16(b);
    double x = rt_f16_to_f64(a), y = rt_f16_to_f64(b);
    return rt_fcmp(cond, !un && x < y, !un && x == y, !un && x > y, un);
}
/* integer compares in opcode order: f lt eq le gt ne ge t */
RT_FN int rt_icmp(int cond, int lt, int eq) {
    switch (cond & 7) {
    case 0: return 0;
    case 1: return lt;
    case 2: return eq;
    case 3: return lt || eq;
    case 4: return !lt && !eq;
    case 5: return !eq;
    case 6: return !lt;
    default: return 1;
    }
}
RT_FN int rt_valu_cmp_i32(int cond, uint32_t a, uint32_t b) { return rt_icmp(cond, (int32_t)a < (int32_t)b, a == b); }
RT_FN int rt_valu_cmp_u32(int cond, uint32_t a, uint32_t b) { return rt_icmp(cond, a < b, a == b); }
RT_FN int rt_valu_cmp_i64(int cond, uint64_t a, uint64_t b) { return rt_icmp(cond, (int64_t)a < (int64_t)b, a == b); }
RT_FN int rt_valu_cmp_u64(int cond, uint64_t a, uint64_t b) { return rt_icmp(cond, a < b, a == b); }
RT_FN int rt_valu_cmp_i16(int cond, uint32_t a, uint32_t b) { return rt_icmp(cond, (int32_t)rt_sext16(a) < (int32_t)rt_sext16(b), (a & 0xffffu) == (b & 0xffffu)); }
RT_FN int rt_valu_cmp_u16(int cond, uint32_t a, uint32_t b) { return rt_icmp(cond, (a & 0xffffu) < (b & 0xffffu), (a & 0xffffu) == (b & 0xffffu)); }
/* class bits: 0 sNaN, 1 qNaN, 2 -inf, 3 -normal, 4 -denormal, 5 -0, 6 +0, 7 +denormal, 8 +normal, 9 +inf */
RT_FN int rt_class_bit(int neg, uint64_t exp, uint64_t expmax, uint64_t mant, uint64_t qbit) {
    if (exp == expmax) return mant == 0 ? (neg ? 2 : 9) : ((mant & qbit) ? 1 : 0);
    if (exp == 0) return mant == 0 ? (neg ? 5 : 6) : (neg ? 4 : 7);
    return neg ? 3 : 8;
}
RT_FN int rt_valu_cmp_class_f32(uint32_t a, uint32_t mask) {
    return (int)(mask >> rt_class_bit((int)(a >> 31), a >> 23 & 0xffu, 0xffu, a & 0x7fffffu, 0x400000u) & 1u);
}
RT_FN int rt_valu_cmp_class_f64(uint64_t a, uint32_t mask) {
    return (int)(mask >> rt_class_bit((int)(a >> 63), a >> 52 & 0x7ffu, 0x7ffu, a & 0x000fffffffffffffull, 0x0008000000000000ull) & 1u);
}
RT_FN int rt_valu_cmp_class_f16(uint32_t a, uint32_t mask) {
    return (int)(mask >> rt_class_bit((int)(a >> 15 & 1u), a >> 10 & 0x1fu, 0x1fu, a & 0x3ffu, 0x200u) & 1u);
}

/* ------------------------------------------------------------------ transcendentals (APPROXIMATE) */

/*
 * The host model's stated bound is 1 ulp of the format (RDNA 2 ISA: 1 ulp for f32/f16; v_sin/v_cos about
 * 2^-21 absolute; the f64 rcp/rsq/sqrt hardware seeds are far coarser). Here: the function in double
 * (sqrt and the divisions correctly rounded, exp2/log2/sin/cos from the platform's libm, sin/cos of 2*pi*x
 * after subtracting the nearest integer), rounded once to nearest even; denormal sources and results
 * flushed per the mode; NaN sources quieted; special values as IEEE says.
 */
#define RT_TWO_PI 6.283185307179586
RT_FN double rt_apply_fn(int fn, double v) {
    switch (fn) {
    case 0: return 1.0 / v;                       /* rcp */
    case 1: return 1.0 / sqrt(v);                 /* rsq */
    case 2: return sqrt(v);                       /* sqrt */
    case 3: return exp2(v);                       /* exp */
    case 4: return v == 0 ? -INFINITY : log2(v);  /* log */
    case 5: return isinf(v) ? NAN : sin(RT_TWO_PI * (v - rint(v)));
    default: return isinf(v) ? NAN : cos(RT_TWO_PI * (v - rint(v)));
    }
}
RT_FN uint32_t rt_valu_fn_f32(int fn, uint32_t a, const rt_mode_t *m) {
    a = rt_in32(m, a);
    if (rt_isnan32(a)) return rt_quiet32(a);
    double r = rt_apply_fn(fn, (double)rt_f32(a));
    if (r != r) return RT_NAN32;
    return rt_out32(m, rt_bits32(rt_f64_to_f32_rm(r, RT_RND_NE)));
}
RT_FN uint32_t rt_valu_fn_f16(int fn, uint32_t a, const rt_mode_t *m) {
    a = rt_in16(m, a);
    if (rt_isnan16(a)) return rt_quiet16(a);
    double r = rt_apply_fn(fn, rt_f16_to_f64(a));
    if (r != r) return RT_NAN16;
    return rt_out16(m, rt_f16_round(r, RT_RND_NE));
}
RT_FN uint64_t rt_valu_fn_f64(int fn, uint64_t a, const rt_mode_t *m) {
    a = rt_in64(m, a);
    if (rt_isnan64(a)) return rt_quiet64(a);
    double r = rt_apply_fn(fn, rt_f64(a));
    if (r != r) return RT_NAN64;
    return rt_out64(m, rt_bits64(r));
}

/* ------------------------------------------------------------------ packed 16-bit (VOP3P) */

/* lanes of a packed pair: the emitter passes the halves op_sel / op_sel_hi chose, neg / neg_hi applied */
RT_FN uint32_t rt_pk(uint32_t lo, uint32_t hi) { return (lo & 0xffffu) | (hi << 16); }

/* dot products: sums of products of packed elements plus c (integer: wrapping, clamp saturates) */
RT_FN uint32_t rt_valu_dot2_i32_i16(uint32_t a, uint32_t b, uint32_t c, int clamp) {
    int64_t s = (int64_t)(int32_t)rt_sext16(a) * (int32_t)rt_sext16(b) + (int64_t)(int32_t)rt_sext16(a >> 16) * (int32_t)rt_sext16(b >> 16) + (int32_t)c;
    return clamp ? rt_sat_i32(s) : (uint32_t)s;
}
RT_FN uint32_t rt_valu_dot2_u32_u16(uint32_t a, uint32_t b, uint32_t c, int clamp) {
    uint64_t s = (uint64_t)(a & 0xffffu) * (b & 0xffffu) + (uint64_t)(a >> 16) * (b >> 16) + c;
    return clamp ? rt_sat_u32(s) : (uint32_t)s;
}
RT_FN uint32_t rt_valu_dot4_i32_i8(uint32_t a, uint32_t b, uint32_t c, int clamp) {
    int64_t s = (int32_t)c;
    for (int i = 0; i < 4; i++) s += (int64_t)(int32_t)rt_sext8(a >> (8 * i)) * (int32_t)rt_sext8(b >> (8 * i));
    return clamp ? rt_sat_i32(s) : (uint32_t)s;
}
RT_FN uint32_t rt_valu_dot4_u32_u8(uint32_t a, uint32_t b, uint32_t c, int clamp) {
    uint64_t s = c;
    for (int i = 0; i < 4; i++) s += (uint64_t)(a >> (8 * i) & 0xffu) * (b >> (8 * i) & 0xffu);
    return clamp ? rt_sat_u32(s) : (uint32_t)s;
}
RT_FN uint32_t rt_valu_dot8_i32_i4(uint32_t a, uint32_t b, uint32_t c, int clamp) {
    int64_t s = (int32_t)c;
    for (int i = 0; i < 8; i++) s += (int64_t)((int32_t)(a << (28 - 4 * i)) >> 28) * ((int32_t)(b << (28 - 4 * i)) >> 28);
    return clamp ? rt_sat_i32(s) : (uint32_t)s;
}
RT_FN uint32_t rt_valu_dot8_u32_u4(uint32_t a, uint32_t b, uint32_t c, int clamp) {
    uint64_t s = c;
    for (int i = 0; i < 8; i++) s += (uint64_t)(a >> (4 * i) & 0xfu) * (b >> (4 * i) & 0xfu);
    return clamp ? rt_sat_u32(s) : (uint32_t)s;
}

/* ------------------------------------------------------------------ cube map (VOP3) */

/*
 * The major axis of (x, y, z) = (a, b, c): z if |z| >= |x| and |z| >= |y|, else y if |y| >= |x|, else x.
 * cubeid: face 0..5 (+x -x +y -y +z -z) as a float; cubema: 2 * the major coordinate; cubesc / cubetc the
 * face coordinates (ISA "V_CUBE*_F32").
 */
RT_FN int rt_cube_axis(float x, float y, float z) {
    float ax = fabsf(x), ay = fabsf(y), az = fabsf(z);
    if (az >= ax && az >= ay) return 2;
    if (ay >= ax) return 1;
    return 0;
}
RT_FN uint32_t rt_valu_cubeid_f32(uint32_t a, uint32_t b, uint32_t c, const rt_mode_t *m) {
    float x = rt_f32(rt_in32(m, a)), y = rt_f32(rt_in32(m, b)), z = rt_f32(rt_in32(m, c));
    int ax = rt_cube_axis(x, y, z);
    float id = ax == 2 ? (z < 0 ? 5.0f : 4.0f) : ax == 1 ? (y < 0 ? 3.0f : 2.0f) : (x < 0 ? 1.0f : 0.0f);
    return rt_bits32(id);
}
RT_FN uint32_t rt_valu_cubema_f32(uint32_t a, uint32_t b, uint32_t c, const rt_mode_t *m) {
    float x = rt_f32(rt_in32(m, a)), y = rt_f32(rt_in32(m, b)), z = rt_f32(rt_in32(m, c));
    int ax = rt_cube_axis(x, y, z);
    float v = ax == 2 ? z : ax == 1 ? y : x;
    return rt_out32(m, rt_bits32(2.0f * v));
}
RT_FN uint32_t rt_valu_cubesc_f32(uint32_t a, uint32_t b, uint32_t c, const rt_mode_t *m) {
    uint32_t ia = rt_in32(m, a), ib = rt_in32(m, b), ic = rt_in32(m, c);
    float x = rt_f32(ia), y = rt_f32(ib), z = rt_f32(ic);
    int ax = rt_cube_axis(x, y, z);
    uint32_t r = ax == 2 ? (z < 0 ? rt_fneg32(ia) : ia) : ax == 1 ? ia : (x < 0 ? ic : rt_fneg32(ic));
    return r;
}
RT_FN uint32_t rt_valu_cubetc_f32(uint32_t a, uint32_t b, uint32_t c, const rt_mode_t *m) {
    uint32_t ia = rt_in32(m, a), ib = rt_in32(m, b), ic = rt_in32(m, c);
    float x = rt_f32(ia), y = rt_f32(ib), z = rt_f32(ic);
    int ax = rt_cube_axis(x, y, z);
    uint32_t r = ax == 1 ? (y < 0 ? rt_fneg32(ic) : ic) : rt_fneg32(ib);
    return r;
}

/* ------------------------------------------------------------------ exact rounding helpers (division, trig_preop) */

/*
 * Rounds the exact value (-1)^sign * R * 2^e (R < 2^126; 'sticky' says nonzero bits lie below R's last bit)
 * once to a binary format of p significant bits (the implicit one included) and ebits exponent bits under
 * an ISA round mode, denormals kept, overflow to infinity or max finite as the mode says. Returns the
 * format's bits. Written for the scaled fma of v_div_fmas (one rounding of (a*b+c)*2^k) and for
 * v_trig_preop (a 53-bit segment of 2/pi times a power of two, rounded toward zero).
 */
typedef unsigned __int128 rt_u128;
RT_FN int rt_msb128(rt_u128 x) { /* x != 0 */
    int n = 127;
    for (int w = 3; w >= 0; w--) {
        uint32_t part = (uint32_t)(x >> (32 * w));
        if (part) return 32 * w + 31 - rt_clz32(part);
    }
    return n;
}
RT_FN uint64_t rt_round_exact(int sign, rt_u128 R, int e, int sticky, int p, int ebits, int rm) {
    uint64_t sbit = (uint64_t)(sign & 1) << (p - 1 + ebits);
    int emax = (1 << (ebits - 1)) - 1;
    int emin = 1 - emax;
    uint64_t infb = ((uint64_t)((1 << ebits) - 1)) << (p - 1);
    if (R == 0) {
        if (!sticky) return sbit;
        R = 1; sticky = 0; e -= 1; /* only ever far below the quantum */
    }
    int lead = rt_msb128(R) + e;
    if (lead > emax + 2) lead = emax + 2; /* overflows whatever the rounding: keep the shifts small */
    int q = (lead < emin ? emin : lead) - (p - 1); /* exponent of the result's last bit */
    int shift = q - e;
    rt_u128 n;
    int above, tie, inexact;
    if (shift <= 0) {
        n = shift < -126 ? ((rt_u128)1 << 127) : R << (-shift);
        above = 0; tie = 0; inexact = sticky;
    } else if (shift >= 127) {
        n = 0; above = 0; tie = 0; inexact = 1; /* R < 2^126 is below half the quantum */
    } else {
        n = R >> shift;
        rt_u128 rest = R & (((rt_u128)1 << shift) - 1);
        rt_u128 half = (rt_u128)1 << (shift - 1);
        above = rest > half || (rest == half && sticky);
        tie = rest == half && !sticky;
        inexact = rest != 0 || sticky;
    }
    if (inexact) {
        int up;
        switch (rm & 3) {
        case RT_RND_NE: up = above || (tie && (int)(n & 1)); break;
        case RT_RND_UP: up = !sign; break;
        case RT_RND_DN: up = sign & 1; break;
        default: up = 0; break;
        }
        n += (rt_u128)up;
    }
    if (n >> p) { n >>= 1; q++; }
    if (n == 0) return sbit;
    if (n >> (p - 1)) { /* normal */
        if (q + p - 1 > emax) {
            int toinf = (rm & 3) == RT_RND_NE || ((rm & 3) == RT_RND_UP && !sign) || ((rm & 3) == RT_RND_DN && sign);
            return sbit | (toinf ? infb : infb - 1);
        }
        return sbit | ((uint64_t)(q + p - 1 + emax) << (p - 1)) | ((uint64_t)n & ((1ull << (p - 1)) - 1));
    }
    return sbit | (uint64_t)n; /* denormal: q == emin - (p - 1) */
}

/* a finite double as m * 2^e, m < 2^53 */
RT_FN void rt_dec64(double v, uint64_t *m, int *e, int *s) {
    uint64_t x = rt_bits64(v);
    int ex = (int)(x >> 52 & 0x7ffu);
    uint64_t f = x & 0x000fffffffffffffull;
    *s = (int)(x >> 63);
    if (ex == 0) { *m = f; *e = -1074; } else { *m = f | 0x0010000000000000ull; *e = ex - 1075; }
}

/* (a * b + c) * 2^k rounded once into (p, ebits) under rm; a, b, c finite doubles (f32 values exactly so) */
RT_FN uint64_t rt_fma_scaled(double a, double b, double c, int k, int p, int ebits, int rm) {
    uint64_t ma, mb, mc; int ea, eb, ec, sa, sb, sc;
    rt_dec64(a, &ma, &ea, &sa); rt_dec64(b, &mb, &eb, &sb); rt_dec64(c, &mc, &ec, &sc);
    rt_u128 P = (rt_u128)ma * mb, C = mc;
    int ep = ea + eb, sp = sa ^ sb;
    if (P == 0 && C == 0) { /* exact zero: IEEE's sign of a sum of zeros */
        int s = sp == sc ? sp : (rm & 3) == RT_RND_DN;
        return (uint64_t)s << (p - 1 + ebits);
    }
    /* both operands with their leading bit at 123 */
    if (P) { int sh = 123 - rt_msb128(P); P <<= sh; ep -= sh; }
    if (C) { int sh = 123 - rt_msb128(C); C <<= sh; ec -= sh; }
    rt_u128 R;
    int e, sign;
    if (P == 0 || C == 0) {
        R = P ? P : C; e = P ? ep : ec; sign = P ? sp : sc;
    } else {
        /* align the smaller exponent's operand, its lost bits jammed into a reserved last bit */
        int d = ep - ec;
        rt_u128 big = d >= 0 ? P : C, small = d >= 0 ? C : P;
        int dd = d >= 0 ? d : -d, sticky = 0;
        e = d >= 0 ? ep : ec;
        if (dd >= 124) { sticky = small != 0; small = 0; }
        else if (dd > 0) { sticky = (small & (((rt_u128)1 << dd) - 1)) != 0; small >>= dd; }
        big <<= 1; small = (small << 1) | (rt_u128)sticky; e -= 1;
        int bsign = d >= 0 ? sp : sc, ssign = d >= 0 ? sc : sp;
        if (bsign == ssign) { R = big + small; sign = bsign; }
        else if (big >= small) { R = big - small; sign = bsign; }
        else { R = small - big; sign = ssign; }
        if (R == 0) return (uint64_t)((rm & 3) == RT_RND_DN) << (p - 1 + ebits);
    }
    return rt_round_exact(sign, R, e + k, 0, p, ebits, rm);
}

/* ------------------------------------------------------------------ the division helpers (VOP3) */

/*
 * Written from the RDNA 2 ISA guide's V_DIV_SCALE / V_DIV_FMAS / V_DIV_FIXUP descriptions (clang's f32 and
 * f64 division: scale numerator and denominator, Newton steps, a final fma scaled back, the fixup of the
 * special cases).
 */

/* the ISA's "x == DENORM" of a computed quotient: nonzero and below the format's smallest normal */
RT_FN int rt_denorm_d(double q) { return rt_isdenorm64(rt_bits64(q)); }
RT_FN int rt_denorm_f(float q) { return rt_isdenorm32(rt_bits32(q)); }

/*
 * div_scale (S0 the value to scale, S1 the denominator, S2 the numerator), in the ISA's order: NaN for a
 * zero numerator or denominator; a quotient near overflow (exponent(S2) - exponent(S1) >= 96 / 768): VCC,
 * and S0 scaled by 2^64 / 2^128 when it is the denominator; a denormal denominator: S0 scaled up; both
 * 1/S1 and S2/S1 denormal: VCC, the denominator scaled up; 1/S1 denormal: S0 scaled down; S2/S1 denormal:
 * VCC, the numerator scaled up; a tiny numerator (exponent <= 23 / 53): S0 scaled up; else S0.
 * The ISA computes "1 / S1" in f64 for both formats ("1.0 / 64'F(S1.f32) == DENORM.f64": never true for an
 * f32) and "S2 / S1" in the operands' format, each rounded to nearest and then tested for a denormal.
 * The scaling keeps denormals and rounds to nearest (an internal step, not the program's rounding).
 */
RT_FN uint32_t rt_valu_div_scale_f32(uint32_t s0, uint32_t s1, uint32_t s2, int *vcc, const rt_mode_t *m) {
    s0 = rt_in32(m, s0); s1 = rt_in32(m, s1); s2 = rt_in32(m, s2);
    *vcc = 0;
    if (rt_isnan32(s0) || rt_isnan32(s1) || rt_isnan32(s2)) return rt_nan3_32(s0, s1, s2);
    if (rt_iszero32(s1) || rt_iszero32(s2)) return RT_NAN32;
    rt_mode_t keep = rt_mode_make(0xf0u);
    double x0 = rt_f32(s0), x1 = rt_f32(s1), x2 = rt_f32(s2);
    int e1 = (int)(s1 >> 23 & 0xffu), e2 = (int)(s2 >> 23 & 0xffu);
    int rcpDenorm = rt_denorm_d(1.0 / x1);
    int quoDenorm = rt_denorm_f((float)(x2 / x1)); /* double then float: the correctly rounded f32 quotient */
    uint32_t d = s0;
    if (e2 - e1 >= 96) { *vcc = 1; if (x0 == x1) d = rt_valu_ldexp_f32(s0, 64u, &keep); }
    else if (rt_isdenorm32(s1)) d = rt_valu_ldexp_f32(s0, 64u, &keep);
    else if (rcpDenorm && quoDenorm) { *vcc = 1; if (x0 == x1) d = rt_valu_ldexp_f32(s0, 64u, &keep); }
    else if (rcpDenorm) d = rt_valu_ldexp_f32(s0, (uint32_t)-64, &keep);
    else if (quoDenorm) { *vcc = 1; if (x0 == x2) d = rt_valu_ldexp_f32(s0, 64u, &keep); }
    else if (e2 <= 23) d = rt_valu_ldexp_f32(s0, 64u, &keep);
    return rt_out32(m, d);
}
RT_FN uint64_t rt_valu_div_scale_f64(uint64_t s0, uint64_t s1, uint64_t s2, int *vcc, const rt_mode_t *m) {
    s0 = rt_in64(m, s0); s1 = rt_in64(m, s1); s2 = rt_in64(m, s2);
    *vcc = 0;
    if (rt_isnan64(s0) || rt_isnan64(s1) || rt_isnan64(s2)) return rt_nan3_64(s0, s1, s2);
    if (rt_iszero64(s1) || rt_iszero64(s2)) return RT_NAN64;
    rt_mode_t keep = rt_mode_make(0xf0u);
    double x0 = rt_f64(s0), x1 = rt_f64(s1), x2 = rt_f64(s2);
    int e1 = (int)(s1 >> 52 & 0x7ffu), e2 = (int)(s2 >> 52 & 0x7ffu);
    int rcpDenorm = rt_denorm_d(1.0 / x1);
    int quoDenorm = rt_denorm_d(x2 / x1);
    uint64_t d = s0;
    if (e2 - e1 >= 768) { *vcc = 1; if (x0 == x1) d = rt_valu_ldexp_f64(s0, 128u, &keep); }
    else if (rt_isdenorm64(s1)) d = rt_valu_ldexp_f64(s0, 128u, &keep);
    else if (rcpDenorm && quoDenorm) { *vcc = 1; if (x0 == x1) d = rt_valu_ldexp_f64(s0, 128u, &keep); }
    else if (rcpDenorm) d = rt_valu_ldexp_f64(s0, (uint32_t)-128, &keep);
    else if (quoDenorm) { *vcc = 1; if (x0 == x2) d = rt_valu_ldexp_f64(s0, 128u, &keep); }
    else if (e2 <= 53) d = rt_valu_ldexp_f64(s0, 128u, &keep);
    return rt_out64(m, d);
}

/*
 * div_fmas: fma(S0, S1, S2); with the lane's VCC bit set the exact result is scaled by 2^64 (f64: 2^128)
 * when S2's exponent field is above the bias (the quotient was computed with a scaled-up denominator),
 * else by 2^-64 (2^-128), and rounded once. The ISA text ("D = 2.0F ** 32 * fma(S0, S1, S2)", "2.0 ** 64"
 * for f64, "a fixed factor") cannot be meant: v_div_scale scales by 2^64 / 2^128, up for a quotient near
 * overflow and down for a denormal one, so the post-scale must undo either; the quotient estimate S2 tells
 * which. A plain fma that is NaN, infinite or zero is the result as it is (2^k times it changes nothing).
 */
RT_FN uint32_t rt_valu_div_fmas_f32(uint32_t a, uint32_t b, uint32_t c, int vcc, const rt_mode_t *m) {
    if (!vcc) return rt_ffma32(a, b, c, m);
    a = rt_in32(m, a); b = rt_in32(m, b); c = rt_in32(m, c);
    if (rt_isnan32(a) || rt_isnan32(b) || rt_isnan32(c) || rt_isinf32(a) || rt_isinf32(b) || rt_isinf32(c)) {
        return rt_ffma32(a, b, c, m);
    }
    uint32_t plain = rt_ffma32(a, b, c, m);
    if (rt_isnan32(plain) || rt_isinf32(plain) || rt_iszero32(plain)) return plain;
    int k = (c >> 23 & 0xffu) > 127u ? 64 : -64;
    return rt_out32(m, (uint32_t)rt_fma_scaled(rt_f32(a), rt_f32(b), rt_f32(c), k, 24, 8, rt_mode_round32(m)));
}
RT_FN uint64_t rt_valu_div_fmas_f64(uint64_t a, uint64_t b, uint64_t c, int vcc, const rt_mode_t *m) {
    if (!vcc) return rt_ffma64(a, b, c, m);
    a = rt_in64(m, a); b = rt_in64(m, b); c = rt_in64(m, c);
    if (rt_isnan64(a) || rt_isnan64(b) || rt_isnan64(c) || rt_isinf64(a) || rt_isinf64(b) || rt_isinf64(c)) {
        return rt_ffma64(a, b, c, m);
    }
    uint64_t plain = rt_ffma64(a, b, c, m);
    if (rt_isnan64(plain) || rt_isinf64(plain) || rt_iszero64(plain)) return plain;
    int k = (c >> 52 & 0x7ffu) > 1023u ? 128 : -128;
    return rt_out64(m, rt_fma_scaled(rt_f64(a), rt_f64(b), rt_f64(c), k, 53, 11, rt_mode_round64(m)));
}

/*
 * div_fixup (S0 the quotient, S1 the denominator, S2 the numerator): a NaN numerator, then denominator,
 * quieted; 0/0 and inf/inf the negative default NaN (0xffc00000); x/0 and inf/y infinity, x/inf and 0/y
 * zero, signed sign(S1)^sign(S2); a quotient that underflows (exponent(S2) - exponent(S1) < -150 / -1075 /
 * -25) a signed zero; a NaN quotient of finite nonzero operands (the scaled Newton steps overflowed) the
 * signed infinity; else |S0| with that sign.
 */
#define RT_DIV_FIXUP(NAME, T, BITS, SIGN, EXPSHIFT, EXPMASK, UNDER, NEGNAN, INF, ISNAN, ISZERO, ISINF, QUIET, IN) \
    RT_FN T NAME(T s0, T s1, T s2, const rt_mode_t *m) { \
        s0 = IN(m, s0); s1 = IN(m, s1); s2 = IN(m, s2); \
        T sign = ((s1 ^ s2) & SIGN); \
        if (ISNAN(s2)) return QUIET(s2); \
        if (ISNAN(s1)) return QUIET(s1); \
        if ((ISZERO(s1) && ISZERO(s2)) || (ISINF(s1) && ISINF(s2))) return NEGNAN; \
        if (ISZERO(s1) || ISINF(s2)) return sign | INF; \
        if (ISINF(s1) || ISZERO(s2)) return sign; \
        if ((int)(s2 >> EXPSHIFT & EXPMASK) - (int)(s1 >> EXPSHIFT & EXPMASK) < UNDER) return sign; \
        if (ISNAN(s0)) return sign | INF; \
        return sign | (s0 & (T)~SIGN); \
    }
RT_DIV_FIXUP(rt_valu_div_fixup_f32, uint32_t, 32, 0x80000000u, 23, 0xffu, -150, 0xffc00000u, 0x7f800000u,
             rt_isnan32, rt_iszero32, rt_isinf32, rt_quiet32, rt_in32)
RT_DIV_FIXUP(rt_valu_div_fixup_f64, uint64_t, 64, 0x8000000000000000ull, 52, 0x7ffu, -1075, 0xfff8000000000000ull,
             0x7ff0000000000000ull, rt_isnan64, rt_iszero64, rt_isinf64, rt_quiet64, rt_in64)
RT_FN uint32_t rt_in16m(const rt_mode_t *m, uint32_t x) { return rt_in16(m, x & 0xffffu); }
RT_DIV_FIXUP(rt_valu_div_fixup_f16_, uint32_t, 16, 0x8000u, 10, 0x1fu, -25, 0xfe00u, 0x7c00u,
             rt_isnan16, rt_iszero16, rt_isinf16, rt_quiet16, rt_in16m)
RT_FN uint32_t rt_valu_div_fixup_f16(uint32_t s0, uint32_t s1, uint32_t s2, const rt_mode_t *m) {
    return rt_valu_div_fixup_f16_(s0 & 0xffffu, s1 & 0xffffu, s2 & 0xffffu, m) & 0xffffu;
}

/*
 * trig_preop_f64: a 53-bit segment of 2/pi for Payne-Hanek range reduction. With 2/pi = 0.b1200 b1199 ...
 * b0 (1201 fraction bits; bits past them are zero), shift = S1[4:0] * 53, plus exponent(S0) - 1077 when
 * S0's exponent field is above 1077; the segment is the 53 fraction bits from position 'shift' on, times
 * 2^(-53 - shift), times 2^128 more when exponent(S0) >= 1968; rounded toward zero (ISA: "rounding is
 * always round-to-zero"). The table: 2/pi's first 1216 fraction bits (from bc -l, 420 digits).
 */
#if RT_GPU
__device__ static const uint32_t rt_two_over_pi[38] = {
#else
static const uint32_t rt_two_over_pi[38] = {
#endif
    0xa2f9836eu, 0x4e441529u, 0xfc2757d1u, 0xf534ddc0u, 0xdb629599u, 0x3c439041u,
    0xfe5163abu, 0xdebbc561u, 0xb7246e3au, 0x424dd2e0u, 0x06492eeau, 0x09d1921cu,
    0xfe1deb1cu, 0xb129a73eu, 0xe88235f5u, 0x2ebb4484u, 0xe99c7026u, 0xb45f7e41u,
    0x3991d639u, 0x835339f4u, 0x9c845f8bu, 0xbdf9283bu, 0x1ff897ffu, 0xde05980fu,
    0xef2f118bu, 0x5a0a6d1fu, 0x6d367ecfu, 0x27cb09b7u, 0x4f463f66u, 0x9e5fea2du,
    0x7527bac7u, 0xebe5f17bu, 0x3d0739f7u, 0x8a5292eau, 0x6bfb5fb1u, 0x1f8d5d08u,
    0x56033046u, 0xfc7b6babu,
};
RT_FN int rt_two_over_pi_bit(int i) { /* fraction bit i, 0 the first (b1200) */
    return i <= 1200 ? (int)(rt_two_over_pi[i >> 5] >> (31 - (i & 31)) & 1u) : 0;
}
RT_FN uint64_t rt_valu_trig_preop_f64(uint64_t s0, uint32_t s1, const rt_mode_t *m) {
    int ex = (int)(s0 >> 52 & 0x7ffu);
    int shift = (int)(s1 & 31u) * 53 + (ex > 1077 ? ex - 1077 : 0);
    uint64_t seg = 0;
    for (int i = 0; i < 53; i++) seg = (seg << 1) | (uint64_t)rt_two_over_pi_bit(shift + i);
    int scale = -53 - shift + (ex >= 1968 ? 128 : 0);
    return rt_out64(m, rt_round_exact(0, (rt_u128)seg, scale, 0, 53, 11, RT_RND_RZ));
}

/* ------------------------------------------------------------------ masked and quad SADs (VOP3) */

/*
 * ISA "V_MSAD_U8: masked byte SAD": the sum over bytes i of |S0.b[i] - S1.b[i]|, a byte whose reference
 * S1.b[i] is zero not counted, plus S2 (32-bit, wrapping). QSAD / MQSAD: the SAD (masked SAD) of the
 * four-byte windows S0.u64 bytes [j, j+3], j = 0..3, against S1: 16-bit packed accumulators S2.u16[j]
 * (wrapping at 16 bits) for qsad_pk / mqsad_pk, 32-bit S2.u32[j] for mqsad_u32_u8.
 */
RT_FN uint32_t rt_sad4(uint32_t a, uint32_t b, int masked) {
    uint32_t s = 0;
    for (int i = 0; i < 4; i++) {
        uint32_t x = a >> (8 * i) & 0xffu, y = b >> (8 * i) & 0xffu;
        if (!masked || y != 0) s += x > y ? x - y : y - x;
    }
    return s;
}
RT_FN uint32_t rt_valu_msad_u8(uint32_t a, uint32_t b, uint32_t c) { return rt_sad4(a, b, 1) + c; }
RT_FN uint32_t rt_sad_window(uint64_t a, int j) { return (uint32_t)(a >> (8 * j)); }
RT_FN uint64_t rt_qsad_pk(uint64_t a, uint32_t b, uint64_t c, int masked) {
    uint64_t r = 0;
    for (int j = 0; j < 4; j++) {
        uint32_t acc = (uint32_t)(c >> (16 * j)) & 0xffffu;
        r |= (uint64_t)((rt_sad4(rt_sad_window(a, j), b, masked) + acc) & 0xffffu) << (16 * j);
    }
    return r;
}
RT_FN uint64_t rt_valu_qsad_pk_u16_u8(uint64_t a, uint32_t b, uint64_t c) { return rt_qsad_pk(a, b, c, 0); }
RT_FN uint64_t rt_valu_mqsad_pk_u16_u8(uint64_t a, uint32_t b, uint64_t c) { return rt_qsad_pk(a, b, c, 1); }
RT_FN uint32_t rt_valu_mqsad_u32_u8(uint64_t a, uint32_t b, uint32_t c, int j) { return rt_sad4(rt_sad_window(a, j), b, 1) + c; }

/* ------------------------------------------------------------------ packing conversions */

/* an f32 rounded to an integer under an ISA round mode (a double holds every f32 exactly) */
RT_FN double rt_rint_mode(double v, int rm) {
    switch (rm & 3) { case RT_RND_UP: return ceil(v); case RT_RND_DN: return floor(v); case RT_RND_RZ: return trunc(v); default: return rint(v); }
}
/* cvt_pk_u8_f32: S2 with byte S1[1:0] replaced by S0 rounded per the f32 mode, saturated to [0, 255], NaN 0 */
RT_FN uint32_t rt_valu_cvt_pk_u8_f32(uint32_t a, uint32_t b, uint32_t c, const rt_mode_t *m) {
    a = rt_in32(m, a);
    uint32_t sh = 8u * (b & 3u);
    double v = rt_isnan32(a) ? 0.0 : rt_rint_mode((double)rt_f32(a), rt_mode_round32(m));
    uint32_t u = v <= 0 ? 0u : v >= 255 ? 255u : (uint32_t)v;
    return (c & ~(0xffu << sh)) | (u << sh);
}
/* norm16: the value limited to [-1, 1] (signed) or [0, 1], times 32767 / 65535, rounded to nearest even; NaN 0 */
RT_FN uint32_t rt_norm16(double v, int sgn) {
    if (v != v) return 0u;
    if (sgn) { v = v < -1 ? -1 : v > 1 ? 1 : v; return (uint32_t)(int32_t)rint(v * 32767.0) & 0xffffu; }
    v = v < 0 ? 0 : v > 1 ? 1 : v;
    return (uint32_t)rint(v * 65535.0);
}
RT_FN uint32_t rt_valu_cvt_pknorm_i16_f32(uint32_t a, uint32_t b, const rt_mode_t *m) {
    return rt_norm16(rt_tod32(rt_in32(m, a)), 1) | rt_norm16(rt_tod32(rt_in32(m, b)), 1) << 16;
}
RT_FN uint32_t rt_valu_cvt_pknorm_u16_f32(uint32_t a, uint32_t b, const rt_mode_t *m) {
    return rt_norm16(rt_tod32(rt_in32(m, a)), 0) | rt_norm16(rt_tod32(rt_in32(m, b)), 0) << 16;
}
RT_FN uint32_t rt_valu_cvt_pknorm_i16_f16(uint32_t a, uint32_t b, const rt_mode_t *m) {
    return rt_norm16(rt_tod16(rt_in16(m, a)), 1) | rt_norm16(rt_tod16(rt_in16(m, b)), 1) << 16;
}
RT_FN uint32_t rt_valu_cvt_pknorm_u16_f16(uint32_t a, uint32_t b, const rt_mode_t *m) {
    return rt_norm16(rt_tod16(rt_in16(m, a)), 0) | rt_norm16(rt_tod16(rt_in16(m, b)), 0) << 16;
}
RT_FN uint32_t rt_valu_cvt_norm_i16_f16(uint32_t a, const rt_mode_t *m) { return rt_norm16(rt_tod16(rt_in16(m, a)), 1); }
RT_FN uint32_t rt_valu_cvt_norm_u16_f16(uint32_t a, const rt_mode_t *m) { return rt_norm16(rt_tod16(rt_in16(m, a)), 0); }
/* sat_pk_u8_i16: the two signed 16-bit halves of S0 saturated to unsigned bytes, packed in 16 bits */
RT_FN uint32_t rt_sat_u8(uint32_t h) { int32_t v = (int32_t)rt_sext16(h); return v < 0 ? 0u : v > 255 ? 255u : (uint32_t)v; }
RT_FN uint32_t rt_valu_sat_pk_u8_i16(uint32_t a) { return rt_sat_u8(a) | rt_sat_u8(a >> 16) << 8; }

/* ------------------------------------------------------------------ mixed precision and f16 dots */

/*
 * fma_mix: one fma over sources that are each an f32 or an f16 (converted exactly), rounded once: to f32
 * (fma_mix_f32) or to f16 (mixlo / mixhi). The emitter passes each source as a double already converted
 * with its format's input flushing and its modifiers applied. NaN sources: the first, quieted, in the
 * result's format (sign and top payload bits kept).
 */
RT_FN uint32_t rt_mix_nan32(double v) { uint64_t b = rt_bits64(v); return (uint32_t)(b >> 63 << 31) | 0x7fc00000u | (uint32_t)((b & 0x000fffffffffffffull) >> 29); }
RT_FN uint32_t rt_mix_nan16(double v) { uint64_t b = rt_bits64(v); return (uint32_t)(b >> 63 << 15) | 0x7e00u | (uint32_t)((b & 0x000fffffffffffffull) >> 42); }
RT_FN double rt_mix_f32(uint32_t bits) { if (rt_isnan32(bits)) return rt_f64(((uint64_t)(bits >> 31) << 63) | 0x7ff8000000000000ull | ((uint64_t)(bits & 0x7fffffu) << 29)); return (double)rt_f32(bits); }
RT_FN double rt_mix_f16(uint32_t bits) { bits &= 0xffffu; if (rt_isnan16(bits)) return rt_f64(((uint64_t)(bits >> 15) << 63) | 0x7ff8000000000000ull | ((uint64_t)(bits & 0x3ffu) << 42)); return rt_f16_to_f64(bits); }
RT_FN int rt_mix_special(double a, double b, double c, double *out) {
    if (a != a) { *out = a; return 1; }
    if (b != b) { *out = b; return 1; }
    if (c != c) { *out = c; return 1; }
    if (isinf(a) || isinf(b) || isinf(c)) {
        double p = a * b; /* inf * 0 is NaN: the default NaN */
        double s = p + c;
        *out = s != s ? rt_f64(0x7ff8000000000000ull) : s;
        return 2;
    }
    return 0;
}
RT_FN uint32_t rt_valu_fma_mix_f32(double a, double b, double c, const rt_mode_t *m) {
    double sp;
    int k = rt_mix_special(a, b, c, &sp);
    if (k == 1) return rt_mix_nan32(sp);
    if (k == 2) return sp != sp ? RT_NAN32 : rt_bits32((float)sp);
    return rt_out32(m, (uint32_t)rt_fma_scaled(a, b, c, 0, 24, 8, rt_mode_round32(m)));
}
RT_FN uint32_t rt_valu_fma_mix_f16(double a, double b, double c, const rt_mode_t *m) {
    double sp;
    int k = rt_mix_special(a, b, c, &sp);
    if (k == 1) return rt_mix_nan16(sp);
    if (k == 2) return sp != sp ? RT_NAN16 : (sp < 0 ? 0xfc00u : 0x7c00u);
    return rt_out16(m, (uint32_t)rt_fma_scaled(a, b, c, 0, 11, 5, rt_mode_round64(m)));
}

/*
 * dot2_f32_f16 (APPROXIMATE in the host model: the hardware's intermediate rounding is not documented):
 * a.lo*b.lo + a.hi*b.hi + c, the products exact, the sum rounded to odd in double and then once to f32
 * per the mode (within an ulp of the exact sum). dot2c: c is the destination. dot4c_i32_i8: the signed
 * byte dot plus the destination, wrapping.
 */
RT_FN uint32_t rt_valu_dot2_f32_f16(uint32_t a, uint32_t b, uint32_t c, const rt_mode_t *m) {
    uint32_t a0 = rt_in16(m, a & 0xffffu), a1 = rt_in16(m, a >> 16), b0 = rt_in16(m, b & 0xffffu), b1 = rt_in16(m, b >> 16);
    c = rt_in32(m, c);
    if (rt_isnan16(a0) || rt_isnan16(b0) || rt_isnan16(a1) || rt_isnan16(b1)) {
        uint32_t n = rt_isnan16(a0) ? a0 : rt_isnan16(b0) ? b0 : rt_isnan16(a1) ? a1 : b1;
        return rt_valu_cvt_f32_f16(rt_quiet16(n), m);
    }
    if (rt_isnan32(c)) return rt_quiet32(c);
    double p0 = rt_f16_to_f64(a0) * rt_f16_to_f64(b0), p1 = rt_f16_to_f64(a1) * rt_f16_to_f64(b1), z = rt_f32(c);
    if (isinf(p0) || isinf(p1) || isinf(z) || p0 != p0 || p1 != p1) {
        double s = p0 + p1 + z;
        return s != s ? RT_NAN32 : rt_bits32((float)s);
    }
    double s = rt_odd_sum64(rt_odd_sum64(p0, p1), z);
    if (s == 0) s = rt_zero_sum(rt_zero_sum(p0, p1, p0 + p1, rt_mode_round32(m)), z, 0.0, rt_mode_round32(m));
    return rt_out32(m, rt_bits32(rt_f64_to_f32_rm(s, rt_mode_round32(m))));
}
RT_FN uint32_t rt_valu_dot4c_i32_i8(uint32_t a, uint32_t b, uint32_t d) { return rt_valu_dot4_i32_i8(a, b, d, 0); }

/* pk_fmac_f16: both halves fma(S0.h, S1.h, D.h) under the f16 mode */
RT_FN uint32_t rt_valu_pk_fmac_f16(uint32_t a, uint32_t b, uint32_t d, const rt_mode_t *m) {
    return (rt_ffma16(a & 0xffffu, b & 0xffffu, d & 0xffffu, m) & 0xffffu) | (rt_ffma16(a >> 16, b >> 16, d >> 16, m) << 16);
}
