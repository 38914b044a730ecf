package org.replayfarm.gpunode.translate;

import org.replayfarm.model.isa.Fields;
import org.replayfarm.model.isa.MemoryAccess;

/**
 * SMEM (RDNA 2 ISA guide, "Scalar Memory Operations"): s_load_dword* from SGPR[SBASE:+1] + OFFSET
 * (signed 21 bits) + SGPR[SOFFSET], s_buffer_load_dword* through the V# at SBASE, cache controls and
 * probes as nothing, s_memtime / s_memrealtime as the wave's instruction count (a replay has no clock;
 * the project's convention, approximate). Loads land in temporaries first, then in the SGPRs.
 */
public final class SmemEmitter implements UnitEmitter {
    @Override
    public String unit() {
        return "smem";
    }

    @Override
    public void emit(InsnContext cx) throws Refusal {
        cx.include("rt_smem.h");
        Fields.Smem f = cx.fields(Fields.Smem.class);
        String m = cx.mnemonic();
        switch (m) {
            case "s_gl1_inv", "s_dcache_inv", "s_atc_probe", "s_atc_probe_buffer" -> {
                cx.line("/* no effect */");
                return;
            }
            case "s_memtime", "s_memrealtime" -> {
                cx.line(cx.writeS64(f.sdata(), "W->icount"));
                return;
            }
            default -> {
            }
        }
        MemoryAccess a = cx.opcode().memory();
        if (!a.isLoad()) {
            throw cx.refuse("no translation of " + m);
        }
        // the row's SBASE operand: a 64-bit address (s_load_*) or a 128-bit buffer descriptor (s_buffer_load_*)
        boolean buffer = cx.opcode().operandType("sbase").equals("base128");
        int n = a.dwords();
        String soffset = f.soffset() == 125 ? "0u" : cx.src32(f.soffset());
        cx.line("uint32_t t_d[" + n + "];");
        if (buffer) {
            cx.line("uint32_t t_desc[4] = {" + cx.sreg(f.sbase()) + ", " + cx.sreg(f.sbase() + 1) + ", "
                    + cx.sreg(f.sbase() + 2) + ", " + cx.sreg(f.sbase() + 3) + "};");
            cx.line("if (rt_smem_buffer_load(C, " + cx.pcC() + ", t_desc, " + InsnContext.hex32(f.offset()) + " + "
                    + soffset + ", " + n + ", t_d)) goto rt_stop;");
        } else {
            cx.line("uint64_t t_a = " + cx.src64(f.sbase(), false) + " + " + InsnContext.hex64(f.offset())
                    + " + (uint64_t)" + soffset + ";");
            cx.line("if (rt_smem_load(C, " + cx.pcC() + ", t_a, " + n + ", t_d)) goto rt_stop;");
        }
        StringBuilder w = new StringBuilder();
        for (int i = 0; i < n; i++) {
            w.append(cx.writeS(f.sdata() + i, "t_d[" + i + "]")).append(' ');
        }
        cx.line(w.toString().trim());
    }
}
