/*
 * rt_smem.h: scalar memory (SMEM) reads through the launch's range table (RDNA 2 ISA guide, "Scalar
 * Memory Operations"): dword loads, every dword checked against the ranges; a dword outside every range
 * is a fault. The vector memory unit has its own accessors (rt_mem.h).
 */
#pragma once
#include "rt_base.h"
#include "replay_rt.h"

/* The host pointer of the n bytes at guest address a, or 0 when they are not inside one range. */
RT_FN uint8_t *rt_smem_at(const rt_launch_t *L, uint64_t a, uint64_t n) {
    for (uint32_t i = 0; i < L->nranges; i++) {
        const rt_range_t *r = &L->ranges[i];
        if (a >= r->lo && a - r->lo <= r->size && r->size - (a - r->lo) >= n) return r->base + (a - r->lo);
    }
    return 0;
}

/* Loads n dwords from a (low two bits ignored) into dst; returns 0, or 1 after recording the fault. */
RT_FN int rt_smem_load(rt_ctx_t *C, uint64_t pc, uint64_t a, int n, uint32_t *dst) {
    a &= ~3ull;
    for (int i = 0; i < n; i++) {
        uint8_t *p = rt_smem_at(C->l, a + 4ull * (uint64_t)i, 4);
        if (!p) { rt_fault(C, RT_FAULT_MEMORY, pc, -1, a + 4ull * (uint64_t)i); return 1; }
        memcpy(&dst[i], p, 4);
    }
    return 0;
}

/*
 * s_buffer_load through a V# at desc[0..3]: base = word 0 | word 1 [15:0] << 32, STRIDE = word 1 [29:16],
 * NUM_RECORDS = word 2 (bytes; times STRIDE when STRIDE is not 0); a dword at or past that size reads 0.
 */
RT_FN int rt_smem_buffer_load(rt_ctx_t *C, uint64_t pc, const uint32_t *desc, uint32_t offset, int n, uint32_t *dst) {
    uint64_t base = (uint64_t)desc[0] | ((uint64_t)(desc[1] & 0xffffu) << 32);
    uint32_t stride = (desc[1] >> 16) & 0x3fffu;
    uint64_t size = stride == 0 ? (uint64_t)desc[2] : (uint64_t)desc[2] * stride;
    offset &= ~3u;
    for (int i = 0; i < n; i++) {
        uint64_t at = (uint64_t)offset + 4ull * (uint64_t)i;
        if (at >= size) { dst[i] = 0; continue; }
        uint8_t *p = rt_smem_at(C->l, base + at, 4);
        if (!p) { rt_fault(C, RT_FAULT_MEMORY, pc, -1, base + at); return 1; }
        memcpy(&dst[i], p, 4);
    }
    return 0;
}
