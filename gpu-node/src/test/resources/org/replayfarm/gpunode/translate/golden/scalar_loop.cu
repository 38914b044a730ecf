// kernel.cu: kernel translated from RDNA 2 (gfx1030) by replay-farm; each #line names the instruction's line in guest.s
#define RT_WAVE 32
#define RT_NVGPR 256
#define RT_NRESUME 0
#include "replay_rt.h"
#include "rt_salu.h"
#include "rt_smem.h"

/* instruction bodies shared by several instructions (replay_rt.h, RT_SHAPE) */
RT_SHAPE(rt_i0)(rt_ctx_t *C, unsigned int p0, int p1) {
    rt_wave_t *W = C->w;
    RT_TICK();
    uint32_t t_a = p0; uint32_t t_scc = RT_SCC; (void)t_scc;
    uint32_t t_d = (uint32_t)t_a;
    S(p1) = (uint32_t)(t_d);
    RT_SCC = t_scc;
}

#if RT_SHAPE_RUNS
/* runs of shared bodies (replay_rt.h, RT_RUN): per instruction its shape's number (| RT_RUN_CHECK, | RT_RUN_LAST), then its arguments */
RT_RUN_TABLE uint32_t rt_runs[6] = {
    0, 0, 10, 1073741824, 1, 11,
};
RT_RUN_FN int rt_run(rt_ctx_t *C, uint32_t at) {
    rt_wave_t *W = C->w;
    const uint32_t *p = rt_runs + at;
    for (;;) {
        uint32_t op = *p++;
        switch (op & RT_RUN_SHAPE) {
        case 0: rt_i0(C, p[0], (int)p[1]); p += 2; break;
        default: rt_fault(C, RT_FAULT_OTHER, 0, -1, op); return 1; /* never: the table is ours */
        }
        if ((op & RT_RUN_CHECK) && RT_WAVE_ANY(W->stop)) return 1;
        if (op & RT_RUN_LAST) return 0;
    }
}
#endif

RT_WAVE_FUNCTION(rt_program_wave) {
    RT_PROLOGUE();
L_100040000:;
#line 3 "guest.s"
    { /* s_load_dwordx2 s[4:5], s[0:1], null */
        RT_AT(0x100040000ull); RT_TICK();
        uint32_t t_d[2];
        uint64_t t_a = rt_pair(S(0), S(1)) + 0x0ull + (uint64_t)0u;
        if (rt_smem_load(C, 0x100040000ull, t_a, 2, t_d)) goto rt_stop;
        S(4) = (uint32_t)(t_d[0]); S(5) = (uint32_t)(t_d[1]);
    }
#line 4 "guest.s"
#if RT_SHAPE_RUNS
    RT_RUN(0); /* 2 instructions */
#else
    RT_AT(0x100040008ull); rt_i0(C, 0x0u, 10); /* s_mov_b32 s10, 0 */
#line 5 "guest.s"
    RT_AT(0x10004000cull); rt_i0(C, 0x1u, 11); /* s_mov_b32 s11, 1 */
#endif
L_100040010:;
#line 6 "guest.s"
    { /* s_add_u32 s10, s10, s11 */
        RT_AT(0x100040010ull); RT_TICK();
        uint32_t t_a = S(10); uint32_t t_b = S(11); uint32_t t_scc = RT_SCC; (void)t_scc;
        uint32_t t_d = rt_salu_add_u32(t_a, t_b, 0, &t_scc);
        S(10) = (uint32_t)(t_d);
        RT_SCC = t_scc;
    }
#line 7 "guest.s"
    { /* s_lshl_b32 s11, s11, 1 */
        RT_AT(0x100040014ull); RT_TICK();
        uint32_t t_a = S(11); uint32_t t_b = 0x1u; uint32_t t_scc = RT_SCC; (void)t_scc;
        uint32_t t_d = (t_a << (t_b & 31u));
        t_scc = t_d != 0;
        S(11) = (uint32_t)(t_d);
        RT_SCC = t_scc;
    }
#line 8 "guest.s"
    { /* s_cmp_lt_u32 s11, 0x100 */
        RT_AT(0x100040018ull); RT_TICK();
        uint32_t t_a = S(11); uint32_t t_b = 0x100u;
        RT_SCC = (t_a < t_b) ? 1u : 0u;
    }
#line 9 "guest.s"
    { /* s_cbranch_scc1 65531 */
        RT_AT(0x100040020ull); RT_TICK();
        if (RT_SCC != 0) { RT_BACKEDGE(0x100040020ull); goto L_100040010; }
    }
#line 10 "guest.s"
    { /* s_cselect_b32 s12, s10, s11 */
        RT_AT(0x100040024ull); RT_TICK();
        uint32_t t_a = S(10); uint32_t t_b = S(11); uint32_t t_scc = RT_SCC; (void)t_scc;
        uint32_t t_d = (RT_SCC ? t_a : t_b);
        S(12) = (uint32_t)(t_d);
        RT_SCC = t_scc;
    }
#line 11 "guest.s"
    { /* s_endpgm */
        RT_AT(0x100040028ull); RT_TICK();
        RT_END();
    }
    RT_FAULT_NOW(RT_FAULT_BRANCH, 0x10004002cull, -1, 0x10004002cull);
    RT_EPILOGUE();
}
