/*
 * rt_salu.h: scalar ALU semantics (SOP1, SOP2, SOPC, SOPK) as pure functions over raw bits, written
 * from the RDNA 2 ISA guide ("Scalar ALU Operations"). Functions that also produce SCC return the
 * result and write *scc. Shift counts and field widths are masked as the guide says; signed arithmetic
 * goes through unsigned helpers (no C undefined behaviour).
 */
#pragma once
#include "rt_base.h"

/* ---- add / subtract with carry, borrow and signed overflow */
RT_FN uint32_t rt_salu_add_u32(uint32_t a, uint32_t b, uint32_t cin, uint32_t *scc) {
    uint64_t r = (uint64_t)a + b + cin;
    *scc = (uint32_t)(r >> 32);
    return (uint32_t)r;
}
RT_FN uint32_t rt_salu_sub_u32(uint32_t a, uint32_t b, uint32_t bin, uint32_t *scc) {
    uint64_t r = (uint64_t)a - b - bin;
    *scc = (uint64_t)b + bin > (uint64_t)a;
    return (uint32_t)r;
}
RT_FN uint32_t rt_salu_add_i32(uint32_t a, uint32_t b, uint32_t *scc) {
    uint32_t r = a + b;
    *scc = ((~(a ^ b) & (a ^ r)) >> 31) & 1u; /* operands of one sign, result of the other */
    return r;
}
RT_FN uint32_t rt_salu_sub_i32(uint32_t a, uint32_t b, uint32_t *scc) {
    uint32_t r = a - b;
    *scc = (((a ^ b) & (a ^ r)) >> 31) & 1u;
    return r;
}

/* ---- bit counts and searches */
RT_FN uint32_t rt_salu_popc64(uint64_t v) {
    uint32_t n = 0;
    while (v) { v &= v - 1; n++; }
    return n;
}
/* index of the lowest set bit, or 0xffffffff when none */
RT_FN uint32_t rt_salu_ff1(uint64_t v, int bits) {
    for (int i = 0; i < bits; i++) if ((v >> i) & 1u) return (uint32_t)i;
    return 0xffffffffu;
}
/* bits from the MSB down to the first set bit, or 0xffffffff when none */
RT_FN uint32_t rt_salu_flbit(uint64_t v, int bits) {
    for (int i = bits - 1; i >= 0; i--) if ((v >> i) & 1u) return (uint32_t)(bits - 1 - i);
    return 0xffffffffu;
}
/* bits from the MSB down to the first bit that differs from the sign bit, or 0xffffffff for 0 and -1 */
RT_FN uint32_t rt_salu_flbit_signed(uint64_t v, int bits) {
    uint64_t sign = (v >> (bits - 1)) & 1u;
    for (int i = bits - 2; i >= 0; i--) if (((v >> i) & 1u) != sign) return (uint32_t)(bits - 1 - i);
    return 0xffffffffu;
}
RT_FN uint64_t rt_salu_brev(uint64_t v, int bits) {
    uint64_t r = 0;
    for (int i = 0; i < bits; i++) r |= ((v >> i) & 1u) << (bits - 1 - i);
    return r;
}
/* whole quad mode: every 4-bit group with any bit set becomes all ones */
RT_FN uint64_t rt_salu_wqm(uint64_t v, int bits) {
    uint64_t r = 0;
    for (int q = 0; q < bits; q += 4) if ((v >> q) & 0xfu) r |= 0xfull << q;
    return r;
}
/* quad mask: bit i = any bit of 4-bit group i */
RT_FN uint64_t rt_salu_quadmask(uint64_t v, int bits) {
    uint64_t r = 0;
    for (int q = 0; q < bits / 4; q++) if ((v >> (4 * q)) & 0xfu) r |= 1ull << q;
    return r;
}
/* each bit of a doubled: bit i to bits 2i and 2i+1 */
RT_FN uint64_t rt_salu_bitreplicate(uint32_t a) {
    uint64_t r = 0;
    for (int i = 0; i < 32; i++) if ((a >> i) & 1u) r |= 3ull << (2 * i);
    return r;
}

/* ---- shifts, bit fields */
RT_FN uint32_t rt_salu_ashr32(uint32_t a, uint32_t n) {
    n &= 31u;
    return (uint32_t)((int32_t)a >> n);
}
RT_FN uint64_t rt_salu_ashr64(uint64_t a, uint32_t n) {
    n &= 63u;
    return (uint64_t)((int64_t)a >> n);
}
/* s_bfm: a mask of S0 bits starting at bit S1 */
RT_FN uint32_t rt_salu_bfm32(uint32_t width, uint32_t offset) {
    return (uint32_t)(((1ull << (width & 31u)) - 1u) << (offset & 31u));
}
RT_FN uint64_t rt_salu_bfm64(uint32_t width, uint32_t offset) {
    uint32_t w = width & 63u;
    uint64_t m = w == 0 ? 0 : (~0ull >> (64 - w));
    return m << (offset & 63u);
}
/*
 * s_bfe: offset S1[4:0] (64-bit: [5:0]), width S1[22:16]. The ISA shifts the source as its type (signed
 * forms arithmetically), masks WIDTH bits, and signed forms sign-extend from the field's top bit; a field
 * running past the register's top takes the sign (signed) or zeros (unsigned) from there.
 */
RT_FN uint64_t rt_salu_bfe(uint64_t a, uint32_t spec, int bits, int is_signed) {
    uint32_t offset = spec & (uint32_t)(bits - 1);
    uint32_t width = (spec >> 16) & 0x7fu;
    if (width == 0) return 0;
    uint64_t v;
    if (is_signed) {
        int64_t x = bits == 32 ? (int64_t)(int32_t)(uint32_t)a : (int64_t)a;
        v = (uint64_t)(x >> offset);
    } else {
        v = (bits == 32 ? (a & 0xffffffffull) : a) >> offset;
    }
    if (width < 64) {
        uint64_t field = v & ((1ull << width) - 1u);
        if (is_signed && ((field >> (width - 1)) & 1u)) field |= ~0ull << width;
        v = field;
    }
    if (bits == 32) v &= 0xffffffffull;
    return v;
}

/* ---- multiply */
RT_FN uint32_t rt_salu_mul_hi_u32(uint32_t a, uint32_t b) { return (uint32_t)(((uint64_t)a * b) >> 32); }
RT_FN uint32_t rt_salu_mul_hi_i32(uint32_t a, uint32_t b) {
    return (uint32_t)((uint64_t)((int64_t)(int32_t)a * (int64_t)(int32_t)b) >> 32);
}

/* ---- compares: signed through sign-flipped unsigned */
RT_FN int rt_salu_lt_i32(uint32_t a, uint32_t b) { return (a ^ 0x80000000u) < (b ^ 0x80000000u); }
RT_FN uint32_t rt_salu_sext16(uint32_t a) { return (uint32_t)(int32_t)(int16_t)(uint16_t)a; }
RT_FN uint32_t rt_salu_sext8(uint32_t a) { return (uint32_t)(int32_t)(int8_t)(uint8_t)a; }
RT_FN uint32_t rt_salu_abs_i32(uint32_t a) { return (a >> 31) ? 0u - a : a; }
