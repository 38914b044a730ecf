/*
 * rt_atomic.h: the arithmetic of the memory and image atomics, written once for rt_mem.h (DS, FLAT/GLOBAL/
 * SCRATCH, MUBUF) and rt_image.h (MIMG): the value memory holds after an atomic, as the RDNA 2 ISA defines
 * each operation. How the read-modify-write is made atomic (native atomics, compare-and-swap loops, the
 * single-threaded CPU runner) stays with the header that owns the memory.
 */
#pragma once

#include "rt_base.h"

/* The operations, in the order of org.replayfarm.model.isa.AtomicOp (a gpu-node test keeps the two in step).
 * CONDXCHG32 (ds_condxchg32_rtn_b64) has no arithmetic here: neither the host model nor a replay executes it. */
enum {
  RT_AOP_SWAP, RT_AOP_CMPSWAP, RT_AOP_ADD, RT_AOP_SUB, RT_AOP_RSUB, RT_AOP_CSUB, RT_AOP_SMIN, RT_AOP_UMIN,
  RT_AOP_SMAX, RT_AOP_UMAX, RT_AOP_AND, RT_AOP_OR, RT_AOP_XOR, RT_AOP_INC, RT_AOP_DEC, RT_AOP_FCMPSWAP,
  RT_AOP_FMIN, RT_AOP_FMAX, RT_AOP_FADD, RT_AOP_MSKOR, RT_AOP_WRAP, RT_AOP_CONDXCHG32
};

RT_FN int rt_atomic_is_nan(uint64_t v, int wide) {
  return wide ? (v & 0x7FFFFFFFFFFFFFFFull) > 0x7FF0000000000000ull : (v & 0x7FFFFFFFu) > 0x7F800000u;
}

/* Float order of two raw values, as numbers (no NaN): -1, 0, 1; -0 and +0 equal. */
RT_FN int rt_atomic_fcmp(uint64_t a, uint64_t b, int wide) {
  if (wide) {
    double x = rt_f64(a), y = rt_f64(b);
    return x < y ? -1 : x > y ? 1 : 0;
  }
  float x = rt_f32((uint32_t)a), y = rt_f32((uint32_t)b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/* IEEE 754-2008 minNum / maxNum on raw bits: a NaN operand yields the other, -0 orders below +0. */
RT_FN uint64_t rt_atomic_fminmax(uint64_t a, uint64_t b, int wide, int want_min) {
  if (rt_atomic_is_nan(a, wide)) return b;
  if (rt_atomic_is_nan(b, wide)) return a;
  int c = rt_atomic_fcmp(a, b, wide);
  if (c == 0) { /* equal numbers: only the zeros differ, by sign */
    int a_neg = wide ? (int)(a >> 63) : (int)((a >> 31) & 1);
    return (a_neg == want_min) ? a : b;
  }
  return ((c < 0) == (want_min != 0)) ? a : b;
}

/* The value memory holds after atomic `op` on `old`, all values `bytes` (4 or 8) wide and zero-extended.
 * data is the operand; cmp the comparand of the compare-swaps, the OR value of mskor, the add value of wrap. */
RT_FN uint64_t rt_atomic_op(int op, uint64_t old, uint64_t data, uint64_t cmp, int bytes) {
  int wide = bytes == 8;
  uint64_t mask = wide ? ~0ull : 0xFFFFFFFFull;
  old &= mask; data &= mask; cmp &= mask;
  int64_t so = wide ? (int64_t)old : (int64_t)(int32_t)(uint32_t)old;
  int64_t sd = wide ? (int64_t)data : (int64_t)(int32_t)(uint32_t)data;
  uint64_t r;
  switch (op) {
  case RT_AOP_SWAP: r = data; break;
  case RT_AOP_CMPSWAP: r = old == cmp ? data : old; break;
  case RT_AOP_ADD: r = old + data; break;
  case RT_AOP_SUB: r = old - data; break;
  case RT_AOP_RSUB: r = data - old; break;
  case RT_AOP_CSUB: r = old >= data ? old - data : 0; break;
  case RT_AOP_SMIN: r = (uint64_t)(so < sd ? so : sd); break;
  case RT_AOP_SMAX: r = (uint64_t)(so > sd ? so : sd); break;
  case RT_AOP_UMIN: r = old < data ? old : data; break;
  case RT_AOP_UMAX: r = old > data ? old : data; break;
  case RT_AOP_AND: r = old & data; break;
  case RT_AOP_OR: r = old | data; break;
  case RT_AOP_XOR: r = old ^ data; break;
  case RT_AOP_INC: r = old >= data ? 0 : old + 1; break;
  case RT_AOP_DEC: r = (old == 0 || old > data) ? data : old - 1; break;
  case RT_AOP_MSKOR: r = (old & ~data) | cmp; break;
  case RT_AOP_WRAP: r = old >= data ? old - data : old + cmp; break;
  case RT_AOP_FCMPSWAP:
    r = (!rt_atomic_is_nan(old, wide) && !rt_atomic_is_nan(cmp, wide) && rt_atomic_fcmp(old, cmp, wide) == 0) ? data : old;
    break;
  case RT_AOP_FMIN: r = rt_atomic_fminmax(old, data, wide, 1); break;
  case RT_AOP_FMAX: r = rt_atomic_fminmax(old, data, wide, 0); break;
  case RT_AOP_FADD:
    /* IEEE add, round to nearest even, denormals kept (the runtime never builds with ftz) */
    r = wide ? rt_bits64(rt_f64(old) + rt_f64(data)) : (uint64_t)rt_bits32(rt_f32((uint32_t)old) + rt_f32((uint32_t)data));
    break;
  default: r = old; break;
  }
  return r & mask;
}
