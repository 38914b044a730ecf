/*
 * rt_xlane.h: the vector unit's cross-lane operations, written from the RDNA 2 ISA guide ("DPP", "SDWA",
 * V_PERMLANE16/X16, V_READLANE, V_READFIRSTLANE, V_WRITELANE):
 *
 *   - source-lane selection (pure functions of the lane and the instruction's controls): DPP16 quad_perm,
 *     row_shl/shr/ror, row_mirror/half_mirror, row_share/xmask; DPP8; permlane16/x16;
 *   - reading another lane's VGPR: on the CPU the wave's lanes are an array, on the GPU a shuffle. Every
 *     thread of the warp must call rt_xl_read in the same lane-loop iteration (RT_FOR_LANES, never
 *     RT_FOR_ACTIVE), and the source lane must lie in the same 32-lane half as the reading lane: true of
 *     every gfx10 DPP/permlane pattern (a guest wave64 is one warp whose threads hold lanes l and l + 32);
 *   - rt_xl_readlane: a uniform lane index (readlane, readfirstlane), any half;
 *   - SDWA operand selects and destination merges.
 * The emitter gathers every lane's source first, then writes (a destination that is also a source reads
 * old values). Needs replay_rt.h (the wave layout) included first.
 */
#pragma once
#include "rt_base.h"

/* -------------------------------------------------------------- lane selection */

/* DPP16 (gfx10 controls): the lane `lane` reads, or -1 when the pattern leaves the row (shl/shr). */
RT_FN int rt_dpp16_src(int lane, int ctrl) {
    int row = lane & ~15, in = lane & 15;
    if (ctrl <= 0xff) return (lane & ~3) | (ctrl >> (2 * (lane & 3)) & 3);            /* quad_perm */
    if (ctrl >= 0x101 && ctrl <= 0x10f) { int k = ctrl & 15; return in + k < 16 ? lane + k : -1; } /* row_shl */
    if (ctrl >= 0x111 && ctrl <= 0x11f) { int k = ctrl & 15; return in - k >= 0 ? lane - k : -1; } /* row_shr */
    if (ctrl >= 0x121 && ctrl <= 0x12f) return row | ((in - (ctrl & 15)) & 15);       /* row_ror */
    if (ctrl == 0x140) return row | (15 - in);                                          /* row_mirror */
    if (ctrl == 0x141) return (lane & ~7) | (7 - (lane & 7));                           /* row_half_mirror */
    if (ctrl >= 0x150 && ctrl <= 0x15f) return row | (ctrl & 15);                      /* row_share */
    if (ctrl >= 0x160 && ctrl <= 0x16f) return row | (in ^ (ctrl & 15));               /* row_xmask */
    return -1;
}
/* whether a DPP16 control is one gfx10 has */
RT_FN int rt_dpp16_valid(int ctrl) {
    return ctrl <= 0xff || (ctrl >= 0x101 && ctrl <= 0x10f) || (ctrl >= 0x111 && ctrl <= 0x11f)
        || (ctrl >= 0x121 && ctrl <= 0x12f) || ctrl == 0x140 || ctrl == 0x141 || (ctrl >= 0x150 && ctrl <= 0x16f);
}
/* DPP16 ROW_MASK / BANK_MASK: whether the lane's row (lane / 16) and bank (lane / 4 % 4) are enabled */
RT_FN int rt_dpp16_enabled(int lane, int row_mask, int bank_mask) {
    return (row_mask >> (lane >> 4 & 3) & 1) && (bank_mask >> (lane >> 2 & 3) & 1);
}
/* DPP8: lane selects packed 3 bits each in sel (lane i of each 8 reads lane sel[i] of its 8) */
RT_FN int rt_dpp8_src(int lane, uint32_t sel) { return (lane & ~7) | (int)(sel >> (3 * (lane & 7)) & 7u); }
/* permlane16 / permlanex16: lane i of a row of 16 reads the lane named by 4-bit field i of {s2, s1} in its own
 * row, or in the other row of its 32-lane half */
RT_FN int rt_permlane_src(int lane, uint32_t s1, uint32_t s2, int cross) {
    uint64_t sel = (uint64_t)s1 | ((uint64_t)s2 << 32);
    int row = lane & ~15;
    if (cross) row ^= 16;
    return row | (int)(sel >> (4 * (lane & 15)) & 15u);
}

/* -------------------------------------------------------------- reading other lanes */

#if RT_GPU
/* VGPR r of lane `src` (same 32-lane half as `lane`); every thread of the warp calls this together */
RT_FN uint32_t rt_xl_read(const rt_wave_t *w, int r, int lane, int src) {
    return __shfl_sync(0xffffffffu, w->v[r][lane >> 5], src & 31);
}
/* VGPR r of a uniform lane k */
RT_FN uint32_t rt_xl_readlane(const rt_wave_t *w, int r, uint32_t k) {
    return __shfl_sync(0xffffffffu, w->v[r][(k >> 5) & (RT_LPT - 1)], (int)(k & 31));
}
#else
RT_FN uint32_t rt_xl_read(const rt_wave_t *w, int r, int lane, int src) { (void)lane; return w->v[r][src]; }
RT_FN uint32_t rt_xl_readlane(const rt_wave_t *w, int r, uint32_t k) { return w->v[r][k & (RT_WAVE - 1)]; }
#endif

/* the lowest lane EXEC enables, lane 0 when none */
RT_FN uint32_t rt_first_lane(uint64_t exec) {
    if (exec == 0) return 0;
#if RT_GPU
    return (uint32_t)(__ffsll((long long)exec) - 1);
#else
    return (uint32_t)__builtin_ctzll(exec);
#endif
}

/* -------------------------------------------------------------- SDWA */

/* an operand select: 0-3 a byte, 4-5 a word, 6 the dword; zero-extended, or sign-extended with sext */
RT_FN uint32_t rt_sdwa_sel(uint32_t v, int sel, int sext) {
    if (sel <= 3) { uint32_t b = v >> (8 * sel) & 0xffu; return sext ? (uint32_t)(int32_t)(int8_t)b : b; }
    if (sel <= 5) { uint32_t h = v >> (16 * (sel - 4)) & 0xffffu; return sext ? (uint32_t)(int32_t)(int16_t)h : h; }
    return v;
}
/* the destination select: the result's low byte/word placed in the selected field; the other bits zero
 * (UNUSED_PAD 0), the field's sign extended upward with zeros below (UNUSED_SEXT 1), or kept (PRESERVE 2) */
RT_FN uint32_t rt_sdwa_dst(uint32_t old, uint32_t v, int sel, int unused) {
    if (sel >= 6) return v;
    int width = sel <= 3 ? 8 : 16;
    int shift = sel <= 3 ? 8 * sel : 16 * (sel - 4);
    uint32_t fmask = (width == 8 ? 0xffu : 0xffffu) << shift;
    uint32_t placed = (v << shift) & fmask;
    if (unused == 1) {
        uint32_t top = (v >> (width - 1)) & 1u;
        uint32_t above = shift + width >= 32 ? 0u : (0xffffffffu << (shift + width));
        return placed | (top ? above : 0u);
    }
    if (unused == 2) return (old & ~fmask) | placed;
    return placed;
}
