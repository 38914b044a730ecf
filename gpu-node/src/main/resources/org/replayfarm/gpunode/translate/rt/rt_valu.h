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
