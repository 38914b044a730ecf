// kernel.cu: kernel translated from RDNA 2 (gfx1030) by replay-farm; each #line names the instruction's line in guest.s
#define RT_WAVE 64
#define RT_NVGPR 256
#define RT_NRESUME 1
#include "replay_rt.h"
#include "rt_salu.h"

RT_WAVE_FUNCTION(rt_program_wave) {
    RT_PROLOGUE();
#if !RT_GPU
    switch (W->resume) {
    case 1: goto rt_resume_1;
    default: break;
    }
#endif
L_100040000:;
#line 3 "guest.s"
    { /* s_mov_b32 s10, 3 */
        RT_AT(0x100040000ull); RT_TICK();
        uint32_t t_a = 0x3u; uint32_t t_scc = RT_SCC; (void)t_scc;
        uint32_t t_d = (uint32_t)t_a;
        S(10) = (uint32_t)(t_d);
        RT_SCC = t_scc;
    }
#line 4 "guest.s"
    { /* s_barrier */
        RT_AT(0x100040004ull); RT_TICK();
        RT_BARRIER(1);
    }
#line 5 "guest.s"
    { /* s_getpc_b64 s[20:21] */
        RT_AT(0x100040008ull); RT_TICK();
        { uint64_t t_w64 = (0x10004000cull); S(20) = rt_lo(t_w64); S(21) = rt_hi(t_w64); }
    }
#line 6 "guest.s"
    { /* s_add_u32 s20, s20, 24 */
        RT_AT(0x10004000cull); RT_TICK();
        uint32_t t_a = S(20); uint32_t t_b = 0x18u; uint32_t t_scc = RT_SCC; (void)t_scc;
        uint32_t t_d = rt_salu_add_u32(t_a, t_b, 0, &t_scc);
        S(20) = (uint32_t)(t_d);
        RT_SCC = t_scc;
    }
#line 7 "guest.s"
    { /* s_addc_u32 s21, s21, 0 */
        RT_AT(0x100040014ull); RT_TICK();
        uint32_t t_a = S(21); uint32_t t_b = 0x0u; uint32_t t_scc = RT_SCC; (void)t_scc;
        uint32_t t_d = rt_salu_add_u32(t_a, t_b, RT_SCC, &t_scc);
        S(21) = (uint32_t)(t_d);
        RT_SCC = t_scc;
    }
#line 8 "guest.s"
    { /* s_swappc_b64 s[30:31], s[20:21] */
        RT_AT(0x100040018ull); RT_TICK();
        W->target = rt_pair(S(20), S(21)); W->from = 0x100040018ull;
        { uint64_t t_w64 = (0x10004001cull); S(30) = rt_lo(t_w64); S(31) = rt_hi(t_w64); }
        goto rt_dispatch;
    }
L_10004001c:;
#line 9 "guest.s"
    { /* s_and_saveexec_b64 s[14:15], s[10:11] */
        RT_AT(0x10004001cull); RT_TICK();
        uint64_t t_a = rt_pair(S(10), S(11)); uint64_t t_x = rt_pair(S(126), S(127));
        uint64_t t_n = (t_a & t_x);
        { uint64_t t_w64 = (t_x); S(14) = rt_lo(t_w64); S(15) = rt_hi(t_w64); }
        S(126) = rt_lo(t_n); S(127) = rt_hi(t_n);
        RT_SCC = t_n != 0;
    }
#line 10 "guest.s"
    { /* s_endpgm */
        RT_AT(0x100040020ull); RT_TICK();
        RT_END();
    }
L_100040024:;
#line 11 "guest.s"
    { /* s_mul_i32 s10, s10, 7 */
        RT_AT(0x100040024ull); RT_TICK();
        uint32_t t_a = S(10); uint32_t t_b = 0x7u; uint32_t t_scc = RT_SCC; (void)t_scc;
        uint32_t t_d = (t_a * t_b);
        S(10) = (uint32_t)(t_d);
        RT_SCC = t_scc;
    }
#line 12 "guest.s"
    { /* s_setpc_b64 s[30:31] */
        RT_AT(0x100040028ull); RT_TICK();
        W->target = rt_pair(S(30), S(31)); W->from = 0x100040028ull; goto rt_dispatch;
    }
    RT_FAULT_NOW(RT_FAULT_BRANCH, 0x10004002cull, -1, 0x10004002cull);
rt_dispatch:
    RT_BACKEDGE(W->from);
    switch (W->target) {
    case 0x100040000ull: goto L_100040000;
    case 0x10004001cull: goto L_10004001c;
    case 0x100040024ull: goto L_100040024;
    default: RT_FAULT_NOW(RT_FAULT_BRANCH, W->target, -1, W->target);
    }
    RT_EPILOGUE();
}
