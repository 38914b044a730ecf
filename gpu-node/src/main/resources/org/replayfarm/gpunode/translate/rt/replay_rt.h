/*
 * replay_rt.h: wave and group state, lane loops, faults, budget, barriers: the contract between the
 * generated kernel.cu, the unit headers (rt_salu.h, rt_valu.h, rt_mem.h, rt_image.h, ...) and the two
 * runtimes (nvcc for sm_90, g++ for the CPU runner rt_cpu_main.cpp).
 *
 * ================================ HOW GENERATED C SPELLS THE WAVE ================================
 * kernel.cu #defines, before including this header:
 *   RT_WAVE        32 or 64, the guest wave size
 *   RT_NVGPR       the VGPRs the program allocates (>= 1); a VGPR past it is a fault, never an access
 *   RT_NRESUME     the number of barrier resume points in the program (0 when it has no s_barrier)
 *
 * Each guest wave runs one call of the wave function. Its code sees three pointers and nothing else:
 *   rt_wave_t *W          this wave's registers (on the GPU: this thread's copy and its lanes)
 *   rt_group_t *G         the workgroup: id, LDS, scratch, its fault record
 *   const rt_launch_t *L  the dispatch: shape, range table, budget, images section
 * plus `rt_ctx_t *C` = {W, G, L}, the handle every runtime function that can fault takes.
 *
 * Registers are raw bits:
 *   S(c)        uint32_t lvalue, the scalar register with operand code c (0..127): s0..s105, vcc_lo 106,
 *               vcc_hi 107, ttmp0..15 108..123, m0 124, (null 125: never read or written through S),
 *               exec_lo 126, exec_hi 127. Scalar state is uniform: on the GPU every thread of the warp
 *               holds the same copy and computes it identically.
 *   V(r, l)     uint32_t lvalue, VGPR r (0 <= r < RT_NVGPR) of lane l, where l comes from a lane loop.
 *   RT_EXEC     the EXEC mask as uint64_t (wave32: exec_lo only; exec_hi is then an ordinary SGPR)
 *   RT_SET_EXEC(m)  writes it (wave64: both halves)
 *   RT_VCC, RT_SET_VCC(m)  VCC likewise (wave32: vcc_lo)
 *   RT_MASK(c), RT_SET_MASK(c, m)  a lane mask held at operand code c (one SGPR in wave32, a pair in
 *               wave64); c == 125 (null) reads 0 and drops the write
 *   RT_SCC      uint32_t lvalue, 0 or 1
 *   RT_M0       S(124)
 *   RT_MODE     uint32_t lvalue, the MODE register: FP_ROUND [3:0] (f32 [1:0], f16/f64 [3:2]), FP_DENORM
 *               [7:4] likewise, DX10_CLAMP [8], IEEE [9], FP16_OVFL [23] (the vector unit derives its
 *               float-mode type from it; s_setreg / s_round_mode / s_denorm_mode write it)
 *   W->flat_scratch  uint64_t, FLAT_SCRATCH (the guest address where lane 0 of wave 0's scratch starts)
 *
 * Lane loops (one instruction's per-lane work; the body must not jump out except by RT_CHECK after it):
 *   RT_FOR_LANES(l)   every lane this thread holds, active or not (CPU: 0..RT_WAVE-1; GPU: the lane of
 *                     this thread and, in wave64, lane + 32)
 *   RT_ACTIVE(l)      whether lane l's EXEC bit is set
 *   RT_FOR_ACTIVE(l)  the lanes of RT_FOR_LANES whose EXEC bit is set. EXEC is read per iteration: an
 *                     instruction that writes EXEC computes into temporaries and writes after the loop.
 *   RT_WAVE_OR(m)     ORs a uint64_t lane mask over the wave: each thread sets the bits of its own lanes,
 *                     the result is the whole wave's mask (CPU: identity). Ballots: build m in a lane loop,
 *                     then m = RT_WAVE_OR(m).
 *   RT_WAVE_ANY(b)    whether any thread's b is non-zero (CPU: b).
 *   RT_SYNC_WAVE()    orders memory among the wave's threads (GPU __syncwarp; CPU nothing): after a guest
 *                     store another lane of the same wave may read.
 * Cross-lane reads of another lane's VGPR are the vector unit's (rt_xlane.h): on the CPU V(r, any lane)
 * works, on the GPU it takes shuffles; gather every source before writing any destination.
 *
 * Faults (the host model's shape: group, wave, lane, PC, instruction; the text is filled in by Java from PC):
 *   rt_fault(C, code, pc, lane, addr)  records the group's first fault (first wins) and marks this
 *                     thread stopped; code is an RT_FAULT_* value, lane -1 when no lane, addr 0 when none.
 *   RT_CHECK()        after an instruction that may have called rt_fault: if any thread of the wave
 *                     stopped, the whole wave stops (and on the CPU the scheduler stops the group, as the
 *                     host model does). Put it after the lane loop, never inside it.
 *   RT_FAULT_NOW(code, pc, lane, addr)  rt_fault then stop the wave at once (uniform code only).
 *
 * Control (emitted by the translator, not by unit emitters):
 *   RT_TICK()         one guest instruction executed (first in every instruction's block): counts the
 *                     wave instruction and its active lanes, as the host model counts them
 *   RT_BACKEDGE(pc)   at a branch to an earlier PC: the per-wave instruction budget and the abort flag
 *   RT_BARRIER(k)     s_barrier number k (1..RT_NRESUME): on the GPU a non-aligned block barrier
 *                     (barrier.sync 0, which ended warps do not block); on the CPU a resume point: the wave
 *                     function returns and the scheduler re-enters it at rt_resume_k once every wave of the
 *                     group that has not ended waits. Hence NO C LOCAL LIVES ACROSS A BARRIER: all guest
 *                     state is in *W; temporaries are scoped in braces within one instruction.
 *   RT_END()          s_endpgm: the wave ends (never a per-lane return)
 * Every instruction's code is one brace block `{ ... }` preceded by `#line N "guest.s"`; helpers inside it
 * use names starting with `t_` for temporaries.
 * =================================================================================================
 */
#pragma once

#include "rt_base.h"

#ifndef RT_WAVE
#error "define RT_WAVE (32 or 64) before including replay_rt.h"
#endif
#ifndef RT_NVGPR
#error "define RT_NVGPR before including replay_rt.h"
#endif
#ifndef RT_NRESUME
#define RT_NRESUME 0
#endif

#if RT_GPU
/* a label per guest basic block: not every one is a branch target */
#pragma nv_diag_suppress 177
#define RT_LPT (RT_WAVE / 32) /* lanes each thread holds */
#define RT_SLOT(l) ((l) >> 5)
#else
#define RT_LPT RT_WAVE
#define RT_SLOT(l) (l)
#endif

/* ------------------------------------------------------------------ faults */
enum {
    RT_FAULT_NONE = 0,
    RT_FAULT_MEMORY = 1,      /* an address outside every range (or past a range's end) */
    RT_FAULT_MISALIGNED = 2,  /* an access the ISA requires aligned (atomics) */
    RT_FAULT_BUDGET = 3,      /* the per-wave instruction budget ran out (checked at back-edges) */
    RT_FAULT_BRANCH = 4,      /* s_setpc / s_swappc / s_cbranch to an address that is no instruction */
    RT_FAULT_UNSUPPORTED = 5, /* an instruction (or bytes) the translation cannot execute */
    RT_FAULT_VGPR = 6,        /* a VGPR past the program's allocation */
    RT_FAULT_ABORTED = 7,     /* the launch was aborted */
    RT_FAULT_OTHER = 8        /* anything else; addr carries a unit-specific detail */
};

/* One group's fault: the first one recorded wins. `set` is 0 until a fault is recorded. */
typedef struct rt_fault_rec {
    uint32_t set;
    uint32_t code;
    uint32_t wave;
    int32_t lane;
    uint64_t pc;
    uint64_t addr;
} rt_fault_t;

/* ------------------------------------------------------------------ launch */
enum { RT_RANGE_READ = 1, RT_RANGE_WRITE = 2 };

/* A captured range: guest [lo, lo + size) lives at base (host or device memory). */
typedef struct rt_range {
    uint64_t lo;
    uint64_t size;
    uint8_t *base;
    uint32_t flags;
    uint32_t index; /* the capture's range index n (guest-<n>.bin) */
} rt_range_t;

#define RT_MAX_USER 32
#define RT_MAX_SYS 8

/* System SGPR kinds, as the capture's SystemSgprKind numbers them. */
enum {
    RT_SYS_WORKGROUP_ID_X = 1, RT_SYS_WORKGROUP_ID_Y = 2, RT_SYS_WORKGROUP_ID_Z = 3,
    RT_SYS_WORKGROUP_INFO = 4, RT_SYS_PRIVATE_SEGMENT_WAVE_OFFSET = 5
};

typedef struct rt_launch {
    uint32_t group_count[3];
    uint32_t group_size[3];
    uint32_t waves_per_group;
    uint32_t mode;              /* MODE at wave start */
    uint64_t budget;            /* instructions per wave */
    uint64_t flat_scratch;      /* FLAT_SCRATCH at wave start */
    uint32_t scratch_per_lane;  /* bytes */
    uint32_t lds_bytes;
    uint32_t nuser, nsys, nwi;
    uint32_t user_index[RT_MAX_USER], user_value[RT_MAX_USER];
    uint32_t sys_index[RT_MAX_SYS], sys_kind[RT_MAX_SYS];
    uint32_t wi_index[3], wi_dim[3]; /* dim 1 = x, 2 = y, 3 = z */
    uint32_t nranges;
    const rt_range_t *ranges;
    uint8_t *scratch;           /* scratch backing: per group slot, waves_per_group * RT_WAVE * scratch_per_lane */
    uint8_t *images;            /* the images/BVH section (translate/image/ImageBundle*), opaque here */
    uint64_t images_bytes;
    rt_fault_t *faults;         /* one per group, by linear group id */
    uint64_t *counts;           /* per group: [0] wave instructions, [1] lane instructions */
    volatile uint32_t *abort;   /* non-zero: stop at the next back-edge or barrier */
} rt_launch_t;

typedef struct rt_group {
    uint32_t id[3];
    uint32_t linear;
    uint8_t *lds;
    uint8_t *scratch;           /* this group's scratch: wave w lane l at (w * RT_WAVE + l) * scratch_per_lane */
    rt_fault_t *fault;
    volatile uint32_t stopped;  /* a wave of the group faulted: the others stop too */
} rt_group_t;

/* ------------------------------------------------------------------ wave */
enum { RT_RUNNING = 0, RT_AT_BARRIER = 1, RT_ENDED = 2, RT_STOPPED = 3 };

typedef struct rt_wave {
    uint32_t s[128];
    uint32_t v[RT_NVGPR][RT_LPT];
    uint32_t scc;
    uint32_t mode;
    uint64_t flat_scratch;
    uint32_t index;     /* the wave's number in its group */
    uint32_t state;     /* RT_RUNNING, RT_AT_BARRIER, RT_ENDED, RT_STOPPED */
    uint32_t resume;    /* CPU: the barrier resume point to re-enter at (0: the start) */
    uint32_t stop;      /* this thread recorded (or saw) a fault */
    uint64_t icount;    /* wave instructions executed */
    uint64_t lcount;    /* lane instructions (active lanes summed), counted per basic block */
    uint64_t target;    /* s_setpc / s_swappc destination being dispatched */
    uint64_t from;      /* the PC of the s_setpc / s_swappc that jumps to it (for its fault) */
} rt_wave_t;

typedef struct rt_ctx {
    rt_wave_t *w;
    rt_group_t *g;
    const rt_launch_t *l;
} rt_ctx_t;

/*
 * Lockstep tracing (replay explain --first-divergence): built with -DRT_TRACE, every instruction starts with
 * RT_AT(pc), and the CPU runner records, for the group it is told to trace, each executed instruction's wave, PC,
 * the PC that follows it, and every register it changed (rt_trace.h). Without RT_TRACE, RT_AT is nothing.
 */
#if defined(RT_TRACE)
#if RT_GPU
#error "RT_TRACE: lockstep traces are recorded by the CPU runner (cuda-cpu); the GPU build does not trace"
#endif
RT_FN void rt_trace_at(const struct rt_ctx *c, uint64_t pc);
#define RT_AT(pc) rt_trace_at(C, (pc))
#else
#define RT_AT(pc) ((void)0)
#endif

#define S(c) (W->s[(c)])
#define V(r, l) (W->v[(r)][RT_SLOT(l)])
#define RT_SCC (W->scc)
#define RT_M0 (W->s[124])
#define RT_MODE (W->mode)

#if RT_WAVE == 32
#define RT_EXEC ((uint64_t)W->s[126])
#define RT_SET_EXEC(m) (W->s[126] = (uint32_t)(m))
#define RT_VCC ((uint64_t)W->s[106])
#define RT_SET_VCC(m) (W->s[106] = (uint32_t)(m))
#define RT_FULL_MASK 0xffffffffull
#else
#define RT_EXEC rt_pair(W->s[126], W->s[127])
#define RT_SET_EXEC(m) do { uint64_t rt_m_ = (m); W->s[126] = rt_lo(rt_m_); W->s[127] = rt_hi(rt_m_); } while (0)
#define RT_VCC rt_pair(W->s[106], W->s[107])
#define RT_SET_VCC(m) do { uint64_t rt_m_ = (m); W->s[106] = rt_lo(rt_m_); W->s[107] = rt_hi(rt_m_); } while (0)
#define RT_FULL_MASK 0xffffffffffffffffull
#endif

RT_FN uint64_t rt_mask_read(const rt_wave_t *w, int c) {
    if (c == 125) return 0;
    return RT_WAVE == 32 ? (uint64_t)w->s[c] : rt_pair(w->s[c], w->s[c + 1]);
}
RT_FN void rt_mask_write(rt_wave_t *w, int c, uint64_t m) {
    if (c == 125) return;
    w->s[c] = rt_lo(m);
    if (RT_WAVE == 64) w->s[c + 1] = rt_hi(m);
}
#define RT_MASK(c) rt_mask_read(W, (c))
#define RT_SET_MASK(c, m) rt_mask_write(W, (c), (m))

#if RT_GPU
RT_FN int rt_lane0(void) { return (int)(threadIdx.x & 31); }
#define RT_FOR_LANES(l) for (int l = rt_lane0(); l < RT_WAVE; l += 32)
/* The warp collectives as the PTX instructions __reduce_or_sync and __any_sync compile to (redux.sync, sm_80 and
   later; vote.sync), written as inline PTX: cicc at -O1 (the corpus compile check) calls the CUDA wrappers out of
   line, a call per guest instruction; the GPU build (-O3) inlines them to these same instructions. */
RT_FN uint64_t rt_wave_or(uint64_t m) {
    uint32_t lo, hi;
    asm volatile("redux.sync.or.b32 %0, %1, 0xffffffff;" : "=r"(lo) : "r"((uint32_t)m));
    asm volatile("redux.sync.or.b32 %0, %1, 0xffffffff;" : "=r"(hi) : "r"((uint32_t)(m >> 32)));
    return rt_pair(lo, hi);
}
RT_FN int rt_wave_any(int b) {
    int r;
    asm volatile("{ .reg .pred p, q; setp.ne.s32 p, %1, 0; vote.sync.any.pred q, p, 0xffffffff; selp.s32 %0, 1, 0, q; }"
                 : "=r"(r) : "r"(b));
    return r;
}
#define RT_WAVE_OR(m) rt_wave_or(m)
#define RT_WAVE_ANY(b) rt_wave_any((b) != 0)
#define RT_SYNC_WAVE() __syncwarp()
#else
#define RT_FOR_LANES(l) for (int l = 0; l < RT_WAVE; l++)
#define RT_WAVE_OR(m) (m)
#define RT_WAVE_ANY(b) ((b) != 0)
#define RT_SYNC_WAVE() ((void)0)
#endif
#define RT_ACTIVE(l) ((RT_EXEC >> (l)) & 1u)
#define RT_FOR_ACTIVE(l) RT_FOR_LANES(l) if (!RT_ACTIVE(l)) {} else

/* Records the group's first fault and stops this thread. Out of line on the GPU: a cold path, called from many
   places (every back-edge's budget check, every access check), each of which would otherwise inline its atomics. */
RT_FN_NOINLINE void rt_fault(rt_ctx_t *c, uint32_t code, uint64_t pc, int lane, uint64_t addr) {
    rt_fault_t *f = c->g->fault;
#if RT_GPU
    /* first one wins: claim the record, then fill it (readers look only after the launch) */
    if (atomicCAS((unsigned int *)&f->set, 0u, 2u) == 0u) {
        f->code = code; f->wave = c->w->index; f->lane = lane; f->pc = pc; f->addr = addr;
        __threadfence();
        atomicExch((unsigned int *)&f->set, 1u);
    }
#else
    if (!f->set) {
        f->set = 1; f->code = code; f->wave = c->w->index; f->lane = lane; f->pc = pc; f->addr = addr;
    }
#endif
    c->g->stopped = 1;
    c->w->stop = 1;
}

#if RT_GPU
#define RT_CHECK() do { if (RT_WAVE_ANY(W->stop)) goto rt_stop; } while (0)
#else
/* the same test, spelled as one statement: g++ -O0 spends measurably less on it than on the do/while (a
   translation holds one per vector instruction; safe before an else: the if has its own) */
#define RT_CHECK() if (!W->stop) {} else goto rt_stop
#endif
#define RT_FAULT_NOW(code, pc, lane, addr) do { rt_fault(C, (code), (pc), (lane), (addr)); goto rt_stop; } while (0)

/* Active lanes of this wave (for the lane-instruction count). */
RT_FN uint64_t rt_popc64(uint64_t m) {
#if RT_GPU
    uint32_t r;
    asm("popc.b64 %0, %1;" : "=r"(r) : "l"(m)); /* __popcll's instruction, inline at every -O level */
    return (uint64_t)r;
#else
    return (uint64_t)__builtin_popcountll(m);
#endif
}
/* one call per guest instruction instead of its expansion: g++ compiles a multi-megabyte -O0 translation
   measurably faster (inlined again at -O2 and by nvcc) */
RT_FN void rt_tick(rt_wave_t *w) {
    w->icount++;
    w->lcount += rt_popc64(RT_WAVE == 32 ? (uint64_t)w->s[126] : rt_pair(w->s[126], w->s[127]));
}
#define RT_TICK() rt_tick(W)

#define RT_BACKEDGE(pc) do { \
        if (W->icount >= L->budget) RT_FAULT_NOW(RT_FAULT_BUDGET, (pc), -1, 0); \
        if (*L->abort || G->stopped) goto rt_stop; \
    } while (0)

#if RT_GPU
RT_FN void rt_block_barrier(void) { asm volatile("barrier.sync 0;" ::: "memory"); }
#define RT_BARRIER(k) do { rt_block_barrier(); if (G->stopped || *L->abort) goto rt_stop; } while (0)
#else
#define RT_BARRIER(k) do { W->resume = (k); W->state = RT_AT_BARRIER; return; rt_resume_##k: \
        if (G->stopped || *L->abort) goto rt_stop; } while (0)
#endif

#define RT_END() goto rt_end

/*
 * Shared instruction bodies. Instructions whose C differs only in its literals (register numbers, offsets,
 * PCs) share one RT_SHAPE function the translator emits once, the literals passed as arguments: an -O0
 * kernel's thousands of spills and lane moves compile as a few dozen function bodies and one call each.
 * A shape declares W (and G, L where its body names them), ticks (RT_TICK) first, as the inline block does;
 * its closing RT_CHECK stays in the caller, a check within the body is RT_SHAPE_CHECK (see below).
 * Out of line by default (g++ and nvcc each compile a body once); -DRT_INLINE_SHAPES inlines them again
 * (the GPU build: a PC sample is then attributed to the calling guest line, as for an inline block).
 */
/* Inside a shape: an RT_CHECK within the body returns instead of leaving the wave function, and a scalar load's
   fault exit returns; the caller's RT_CHECK after the call then stops the wave (W->stop is set). */
#if RT_GPU
#define RT_SHAPE_CHECK() do { if (RT_WAVE_ANY(W->stop)) return; } while (0)
#else
#define RT_SHAPE_CHECK() if (!W->stop) {} else return
#endif
#define RT_SHAPE_RETURN() return
#if defined(RT_INLINE_SHAPES)
#define RT_SHAPE(name) RT_FN void name
#elif RT_GPU
#define RT_SHAPE(name) static __device__ __noinline__ void name
#else
#define RT_SHAPE(name) static __attribute__((noinline)) void name
#endif

/*
 * Runs of shared bodies. A straight run of two or more shape calls (no label, nothing but #line between them) is
 * emitted twice, chosen by RT_SHAPE_RUNS:
 *     #if RT_SHAPE_RUNS
 *         RT_RUN(at);                        one call; its instructions' shape numbers and literals are words
 *     #else                                  at rt_runs[at...], which the translation's rt_run executes in order
 *     #line ...                              (each shape called with the same arguments, each caller's RT_CHECK
 *         rt_i3(C, 0x0u, 1, 14, 3); ...      done after it), so the wave function holds a call per run, not per
 *     #endif                                 instruction: nvcc and g++ compile it many times faster
 * RT_SHAPE_RUNS is 1 unless RT_INLINE_SHAPES (the GPU build: every instruction inline with its literals folded and
 * its #line, for PC sampling) or -DRT_SHAPE_RUNS=0 (the calls one by one, as the GPU build makes them).
 */
#ifndef RT_SHAPE_RUNS
#if defined(RT_INLINE_SHAPES) || defined(RT_TRACE)
#define RT_SHAPE_RUNS 0
#else
#define RT_SHAPE_RUNS 1
#endif
#endif
#define RT_RUN_SHAPE 0x3fffffffu
#define RT_RUN_LAST 0x40000000u
#define RT_RUN_CHECK 0x80000000u
#define RT_RUN(at) do { if (rt_run(C, (at))) goto rt_stop; } while (0)
#if RT_GPU
#define RT_RUN_TABLE static __device__ const
#define RT_RUN_FN static __device__ __noinline__
#else
#define RT_RUN_TABLE static const
#define RT_RUN_FN static __attribute__((noinline))
#endif

/*
 * Wave start: user SGPRs, system SGPRs, work-item ids, EXEC (padding lanes clear), MODE, FLAT_SCRATCH,
 * as the capture's register layout says (hsa-abi.md). VGPRs and other SGPRs start at zero.
 */
RT_FN void rt_wave_init(rt_wave_t *w, const rt_launch_t *L, const rt_group_t *g, uint32_t index) {
    memset(w, 0, sizeof(*w));
    w->index = index;
    w->mode = L->mode;
    w->flat_scratch = L->flat_scratch;
    for (uint32_t i = 0; i < L->nuser; i++) w->s[L->user_index[i]] = L->user_value[i];
    uint32_t wave_scratch = L->scratch_per_lane * RT_WAVE;
    for (uint32_t i = 0; i < L->nsys; i++) {
        uint32_t v = 0;
        switch (L->sys_kind[i]) {
        case RT_SYS_WORKGROUP_ID_X: v = g->id[0]; break;
        case RT_SYS_WORKGROUP_ID_Y: v = g->id[1]; break;
        case RT_SYS_WORKGROUP_ID_Z: v = g->id[2]; break;
        case RT_SYS_WORKGROUP_INFO: v = (index == 0 ? 0x80000000u : 0u) | (((unsigned) index & 0x3Fu) << 6) | L->waves_per_group; break;
        case RT_SYS_PRIVATE_SEGMENT_WAVE_OFFSET: v = index * wave_scratch; break;
        default: v = 0; break;
        }
        w->s[L->sys_index[i]] = v;
    }
    uint32_t group_lanes = L->group_size[0] * L->group_size[1] * L->group_size[2];
    uint64_t exec = 0;
    for (int l = 0; l < RT_WAVE; l++) {
        uint32_t linear = index * RT_WAVE + (uint32_t)l;
        if (linear < group_lanes) exec |= 1ull << l;
    }
    w->s[126] = rt_lo(exec);
    if (RT_WAVE == 64) w->s[127] = rt_hi(exec);
    rt_wave_t *W = w;
    RT_FOR_LANES(l) {
        uint32_t linear = index * RT_WAVE + (uint32_t)l;
        if (linear >= group_lanes) continue;
        uint32_t ids[3] = {linear % L->group_size[0], linear / L->group_size[0] % L->group_size[1],
                           linear / (L->group_size[0] * L->group_size[1])};
        for (uint32_t i = 0; i < L->nwi; i++) {
            if (L->wi_index[i] < RT_NVGPR) V(L->wi_index[i], l) = ids[L->wi_dim[i] - 1];
        }
    }
}

/*
 * The wave function the translator emits: RT_WAVE_FUNCTION(name) { RT_PROLOGUE(); ... RT_EPILOGUE(); }
 * RT_PROLOGUE declares W/G/L and (on the CPU) jumps to the resume point; RT_EPILOGUE holds the rt_end
 * and rt_stop labels.
 */
#if RT_GPU
#define RT_WAVE_FUNCTION(name) __device__ __noinline__ void name(rt_ctx_t *C)
#else
#define RT_WAVE_FUNCTION(name) void name(rt_ctx_t *C)
#endif
#define RT_PROLOGUE() rt_wave_t *W = C->w; rt_group_t *G = C->g; const rt_launch_t *L = C->l; \
    (void)W; (void)G; (void)L
#define RT_EPILOGUE() \
    if (0) goto rt_end; \
    if (0) goto rt_stop; \
    rt_end: W->state = RT_ENDED; return; \
    rt_stop: W->state = RT_STOPPED; return

/* The wave function every translation defines (the CPU runner calls it; the GPU entry below too). */
RT_WAVE_FUNCTION(rt_program_wave);

#if RT_GPU
/*
 * The CUDA entry: one block per group, one warp per wave; dynamic shared memory is the LDS.
 * Launch with blockDim.x = waves_per_group * 32 and gridDim = the group counts.
 */
extern "C" __global__ void replay_kernel(rt_launch_t launch) {
    extern __shared__ __align__(16) uint8_t rt_lds[];
    __shared__ rt_group_t group;
    const rt_launch_t *L = &launch;
    if (threadIdx.x == 0) {
        group.id[0] = blockIdx.x; group.id[1] = blockIdx.y; group.id[2] = blockIdx.z;
        group.linear = blockIdx.x + L->group_count[0] * (blockIdx.y + L->group_count[1] * blockIdx.z);
        group.lds = rt_lds;
        group.scratch = L->scratch ? L->scratch + (uint64_t)group.linear * L->waves_per_group * RT_WAVE
                * L->scratch_per_lane : 0;
        group.fault = &L->faults[group.linear];
        group.stopped = 0;
        for (uint32_t i = 0; i < L->lds_bytes; i++) rt_lds[i] = 0;
    }
    __syncthreads();
    rt_wave_t wave;
    rt_wave_init(&wave, L, &group, threadIdx.x >> 5);
    rt_ctx_t ctx = {&wave, &group, L};
    rt_program_wave(&ctx);
    if ((threadIdx.x & 31) == 0) {
        atomicAdd((unsigned long long *)&L->counts[2 * group.linear], (unsigned long long)wave.icount);
        atomicAdd((unsigned long long *)&L->counts[2 * group.linear + 1], (unsigned long long)wave.lcount);
    }
}
#endif
