// kernel.cu: kernel translated from RDNA 2 (gfx1030) by replay-farm; each #line names the instruction's line in guest.s
#define RT_WAVE 32
#define RT_NVGPR 256
#define RT_NRESUME 0
#include "replay_rt.h"
#include "rt_mem.h"
#include "rt_salu.h"
#include "rt_valu.h"
#include "rt_xlane.h"

RT_WAVE_FUNCTION(rt_program_wave) {
    RT_PROLOGUE();
L_100040000:;
#line 3 "guest.s"
    { /* v_lshlrev_b32_e32 v1, 2, v0 */
        RT_AT(0x100040000ull); RT_TICK();
        RT_FOR_ACTIVE(l) {
          uint32_t t_r = rt_valu_lshlrev_b32(0x2u, V(0, l));
          V(1, l) = t_r;
        }
        RT_CHECK();
    }
#line 4 "guest.s"
    { /* v_add_nc_u32_e64 v2, v0, 5 */
        RT_AT(0x100040004ull); RT_TICK();
        RT_FOR_ACTIVE(l) {
          uint32_t t_r = rt_valu_add_nc_u32(V(0, l), 0x5u, 0);
          V(2, l) = t_r;
        }
        RT_CHECK();
    }
#line 5 "guest.s"
    { /* v_cmp_gt_u32_e32 vcc_lo, 40, v0 */
        RT_AT(0x10004000cull); RT_TICK();
        uint64_t t_mask = 0;
        RT_FOR_ACTIVE(l) {
          if (rt_valu_cmp_u32(4, 0x28u, V(0, l))) t_mask |= 1ull << l;
        }
        t_mask = RT_WAVE_OR(t_mask);
        RT_CHECK();
        RT_SET_VCC(t_mask);
    }
#line 6 "guest.s"
    { /* v_cndmask_b32_e32 v2, 0, v2, vcc_lo */
        RT_AT(0x100040010ull); RT_TICK();
        RT_FOR_ACTIVE(l) {
          uint64_t t_mask = RT_VCC;
          uint32_t t_r = ((t_mask >> l) & 1u) ? V(2, l) : 0x0u;
          V(2, l) = t_r;
        }
        RT_CHECK();
    }
#line 7 "guest.s"
    { /* global_store_dword v1, v2, s[0:1] */
        RT_AT(0x100040014ull); RT_TICK();
        rt_mem_t t_m = rt_mem_of(C);
        int t_rc = 0, t_fl = -1;
        uint64_t t_fa = 0;
        (void)t_fa;
        RT_FOR_ACTIVE(l) {
            uint64_t t_a = rt_pair(S(0), S(1)) + (uint64_t)V(1, l) + 0x0ull;
            uint8_t t_b[16];
            rt_mem_put_dword(t_b, 0, V(2, l));
            t_rc = rt_mem_global_store(&t_m, t_a, 4, t_b, &t_fa);
            if (t_rc) { t_fl = l; break; }
        }
        if (t_rc) rt_fault(C, rt_mem_fault_code(t_rc), 0x100040014ull, t_fl, t_fa);
        RT_SYNC_WAVE();
        RT_CHECK();
    }
#line 8 "guest.s"
    { /* s_endpgm */
        RT_AT(0x10004001cull); RT_TICK();
        RT_END();
    }
    RT_FAULT_NOW(RT_FAULT_BRANCH, 0x100040020ull, -1, 0x100040020ull);
    RT_EPILOGUE();
}
