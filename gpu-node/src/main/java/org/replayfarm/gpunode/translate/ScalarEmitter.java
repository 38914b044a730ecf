package org.replayfarm.gpunode.translate;

import org.replayfarm.model.isa.Fields;

/**
 * The scalar ALU (SOP1, SOP2, SOPC, SOPK), from the RDNA 2 ISA guide's "Scalar ALU Operations": every
 * source is read into a temporary first (a destination that is also a source reads the old value), the
 * result and SCC written after. Semantics live in rt_salu.h; control transfers (s_setpc, s_swappc,
 * s_call) go through the program's address switch or a block label.
 */
public final class ScalarEmitter implements UnitEmitter {
    @Override
    public String unit() {
        return "scalar";
    }

    @Override
    public void emit(InsnContext cx) throws Refusal {
        cx.include("rt_salu.h");
        switch (cx.encoding()) {
            case SOP2 -> sop2(cx);
            case SOP1 -> sop1(cx);
            case SOPC -> sopc(cx);
            case SOPK -> sopk(cx);
            default -> throw cx.refuse("not a scalar ALU encoding");
        }
    }

    // ---------------------------------------------------------------- SOP2

    private static void sop2(InsnContext cx) throws Refusal {
        Fields.Sop2 f = cx.fields(Fields.Sop2.class);
        String m = cx.mnemonic();
        // the operand widths the row gives (the 64-bit shifts, bfe and bfm take a 32-bit operand beside 64-bit ones)
        boolean wideA = cx.wide("ssrc0");
        boolean wideB = cx.wide("ssrc1");
        boolean wide = cx.wide("sdst");
        String a = wideA ? cx.src64(f.ssrc0(), false) : cx.src32(f.ssrc0());
        String b = wideB ? cx.src64(f.ssrc1(), false) : cx.src32(f.ssrc1());
        String ty = wideA ? "uint64_t" : "uint32_t";
        cx.line(ty + " t_a = " + a + "; " + (wideB ? "uint64_t" : "uint32_t") + " t_b = " + b
                + "; uint32_t t_scc = RT_SCC; (void)t_scc;");
        String dty = wide ? "uint64_t" : "uint32_t";
        String d;
        boolean sccNonZero = false;
        switch (m) {
            case "s_add_u32" -> d = "rt_salu_add_u32(t_a, t_b, 0, &t_scc)";
            case "s_addc_u32" -> d = "rt_salu_add_u32(t_a, t_b, RT_SCC, &t_scc)";
            case "s_sub_u32" -> d = "rt_salu_sub_u32(t_a, t_b, 0, &t_scc)";
            case "s_subb_u32" -> d = "rt_salu_sub_u32(t_a, t_b, RT_SCC, &t_scc)";
            case "s_add_i32" -> d = "rt_salu_add_i32(t_a, t_b, &t_scc)";
            case "s_sub_i32" -> d = "rt_salu_sub_i32(t_a, t_b, &t_scc)";
            case "s_min_i32" -> d = "((t_scc = rt_salu_lt_i32(t_a, t_b)) ? t_a : t_b)";
            case "s_max_i32" -> d = "((t_scc = rt_salu_lt_i32(t_b, t_a)) ? t_a : t_b)";
            case "s_min_u32" -> d = "((t_scc = (t_a < t_b)) ? t_a : t_b)";
            case "s_max_u32" -> d = "((t_scc = (t_a > t_b)) ? t_a : t_b)";
            case "s_cselect_b32", "s_cselect_b64" -> d = "(RT_SCC ? t_a : t_b)";
            case "s_and_b32", "s_and_b64" -> { d = "(t_a & t_b)"; sccNonZero = true; }
            case "s_or_b32", "s_or_b64" -> { d = "(t_a | t_b)"; sccNonZero = true; }
            case "s_xor_b32", "s_xor_b64" -> { d = "(t_a ^ t_b)"; sccNonZero = true; }
            case "s_andn2_b32", "s_andn2_b64" -> { d = "(t_a & ~t_b)"; sccNonZero = true; }
            case "s_orn2_b32", "s_orn2_b64" -> { d = "(t_a | ~t_b)"; sccNonZero = true; }
            case "s_nand_b32", "s_nand_b64" -> { d = "~(t_a & t_b)"; sccNonZero = true; }
            case "s_nor_b32", "s_nor_b64" -> { d = "~(t_a | t_b)"; sccNonZero = true; }
            case "s_xnor_b32", "s_xnor_b64" -> { d = "~(t_a ^ t_b)"; sccNonZero = true; }
            case "s_lshl_b32" -> { d = "(t_a << (t_b & 31u))"; sccNonZero = true; }
            case "s_lshl_b64" -> { d = "(t_a << (t_b & 63u))"; sccNonZero = true; }
            case "s_lshr_b32" -> { d = "(t_a >> (t_b & 31u))"; sccNonZero = true; }
            case "s_lshr_b64" -> { d = "(t_a >> (t_b & 63u))"; sccNonZero = true; }
            case "s_ashr_i32" -> { d = "rt_salu_ashr32(t_a, t_b)"; sccNonZero = true; }
            case "s_ashr_i64" -> { d = "rt_salu_ashr64(t_a, t_b)"; sccNonZero = true; }
            case "s_bfm_b32" -> d = "rt_salu_bfm32(t_a, t_b)";
            case "s_bfm_b64" -> d = "rt_salu_bfm64(t_a, t_b)";
            case "s_mul_i32" -> d = "(t_a * t_b)";
            case "s_mul_hi_u32" -> d = "rt_salu_mul_hi_u32(t_a, t_b)";
            case "s_mul_hi_i32" -> d = "rt_salu_mul_hi_i32(t_a, t_b)";
            case "s_bfe_u32" -> { d = "(uint32_t)rt_salu_bfe(t_a, t_b, 32, 0)"; sccNonZero = true; }
            case "s_bfe_i32" -> { d = "(uint32_t)rt_salu_bfe(t_a, t_b, 32, 1)"; sccNonZero = true; }
            case "s_bfe_u64" -> { d = "rt_salu_bfe(t_a, t_b, 64, 0)"; sccNonZero = true; }
            case "s_bfe_i64" -> { d = "rt_salu_bfe(t_a, t_b, 64, 1)"; sccNonZero = true; }
            case "s_absdiff_i32" -> { d = "rt_salu_abs_i32(t_a - t_b)"; sccNonZero = true; }
            case "s_lshl1_add_u32", "s_lshl2_add_u32", "s_lshl3_add_u32", "s_lshl4_add_u32" -> {
                int n = m.charAt("s_lshl".length()) - '0';
                cx.line("uint64_t t_r = ((uint64_t)t_a << " + n + ") + t_b; t_scc = (t_r >> 32) != 0;");
                d = "(uint32_t)t_r";
            }
            case "s_pack_ll_b32_b16" -> d = "((t_a & 0xffffu) | (t_b << 16))";
            case "s_pack_lh_b32_b16" -> d = "((t_a & 0xffffu) | (t_b & 0xffff0000u))";
            case "s_pack_hh_b32_b16" -> d = "((t_a >> 16) | (t_b & 0xffff0000u))";
            default -> throw cx.refuse("no translation of " + m);
        }
        cx.line(dty + " t_d = " + d + ";");
        if (sccNonZero) {
            cx.line("t_scc = t_d != 0;");
        }
        cx.line(wide ? cx.writeS64(f.sdst(), "t_d") : cx.writeS(f.sdst(), "t_d"));
        cx.line("RT_SCC = t_scc;");
    }

    // ---------------------------------------------------------------- SOP1

    private static void sop1(InsnContext cx) throws Refusal {
        Fields.Sop1 f = cx.fields(Fields.Sop1.class);
        String m = cx.mnemonic();
        switch (m) {
            case "s_getpc_b64" -> {
                cx.line(cx.writeS64(f.sdst(), InsnContext.hex64(cx.nextPc())));
                return;
            }
            case "s_setpc_b64" -> {
                cx.line("W->target = " + cx.src64(f.ssrc0(), false) + "; W->from = " + cx.pcC() + "; goto rt_dispatch;");
                cx.state.dispatch = true;
                return;
            }
            case "s_swappc_b64" -> {
                cx.line("W->target = " + cx.src64(f.ssrc0(), false) + "; W->from = " + cx.pcC() + ";");
                cx.line(cx.writeS64(f.sdst(), InsnContext.hex64(cx.nextPc())));
                cx.line("goto rt_dispatch;");
                cx.state.dispatch = true;
                return;
            }
            case "s_movrels_b32", "s_movrels_b64", "s_movreld_b32", "s_movreld_b64" -> {
                movrel(cx, f, m);
                return;
            }
            case "s_movrelsd_2_b32" -> {
                movrelsd2(cx, f);
                return;
            }
            default -> {
            }
        }
        if (m.contains("saveexec") || m.contains("wrexec")) {
            saveexec(cx, f, m);
            return;
        }
        boolean wideSrc = cx.wide("ssrc0");
        boolean wideDst = cx.wide("sdst");
        String a = wideSrc ? cx.src64(f.ssrc0(), false) : cx.src32(f.ssrc0());
        cx.line((wideSrc ? "uint64_t" : "uint32_t") + " t_a = " + a + "; uint32_t t_scc = RT_SCC; (void)t_scc;");
        int bits = wideSrc ? 64 : 32;
        String d;
        boolean sccNonZero = false;
        switch (m) {
            case "s_mov_b32", "s_mov_b64" -> d = "t_a";
            case "s_cmov_b32", "s_cmov_b64" -> {
                cx.line("if (RT_SCC) { " + (wideDst ? cx.writeS64(f.sdst(), "t_a") : cx.writeS(f.sdst(), "t_a")) + " }");
                return;
            }
            case "s_not_b32", "s_not_b64" -> { d = "~t_a"; sccNonZero = true; }
            case "s_wqm_b32", "s_wqm_b64" -> { d = "rt_salu_wqm(t_a, " + bits + ")"; sccNonZero = true; }
            case "s_brev_b32", "s_brev_b64" -> d = "rt_salu_brev(t_a, " + bits + ")";
            case "s_bcnt0_i32_b32", "s_bcnt0_i32_b64" -> {
                d = "(" + bits + "u - rt_salu_popc64(t_a))";
                sccNonZero = true;
            }
            case "s_bcnt1_i32_b32", "s_bcnt1_i32_b64" -> { d = "rt_salu_popc64(t_a)"; sccNonZero = true; }
            case "s_ff0_i32_b32", "s_ff0_i32_b64" -> d = "rt_salu_ff1(~(uint64_t)t_a, " + bits + ")";
            case "s_ff1_i32_b32", "s_ff1_i32_b64" -> d = "rt_salu_ff1(t_a, " + bits + ")";
            case "s_flbit_i32_b32", "s_flbit_i32_b64" -> d = "rt_salu_flbit(t_a, " + bits + ")";
            case "s_flbit_i32", "s_flbit_i32_i64" -> d = "rt_salu_flbit_signed(t_a, " + bits + ")";
            case "s_sext_i32_i8" -> d = "rt_salu_sext8(t_a)";
            case "s_sext_i32_i16" -> d = "rt_salu_sext16(t_a)";
            case "s_bitset0_b32" -> d = "(" + cx.sreg(f.sdst()) + " & ~(1u << (t_a & 31u)))";
            case "s_bitset1_b32" -> d = "(" + cx.sreg(f.sdst()) + " | (1u << (t_a & 31u)))";
            case "s_bitset0_b64" -> d = "(" + cx.src64(f.sdst(), false) + " & ~(1ull << (t_a & 63u)))";
            case "s_bitset1_b64" -> d = "(" + cx.src64(f.sdst(), false) + " | (1ull << (t_a & 63u)))";
            case "s_quadmask_b32", "s_quadmask_b64" -> {
                d = "rt_salu_quadmask(t_a, " + bits + ")";
                sccNonZero = true;
            }
            case "s_abs_i32" -> { d = "rt_salu_abs_i32(t_a)"; sccNonZero = true; }
            case "s_bitreplicate_b64_b32" -> d = "rt_salu_bitreplicate(t_a)";
            default -> throw cx.refuse("no translation of " + m);
        }
        cx.line((wideDst ? "uint64_t" : "uint32_t") + " t_d = " + (wideDst ? "(uint64_t)" : "(uint32_t)") + d + ";");
        if (sccNonZero) {
            cx.line("t_scc = t_d != 0;");
        }
        cx.line(wideDst ? cx.writeS64(f.sdst(), "t_d") : cx.writeS(f.sdst(), "t_d"));
        cx.line("RT_SCC = t_scc;");
    }

    /** s_*_saveexec / s_*_wrexec: D = old EXEC (saveexec) or new EXEC (wrexec); SCC = new EXEC != 0. */
    private static void saveexec(InsnContext cx, Fields.Sop1 f, String m) throws Refusal {
        boolean wide = cx.wide("sdst");
        String a = wide ? cx.src64(f.ssrc0(), false) : cx.src32(f.ssrc0());
        String exec = wide ? "rt_pair(S(126), S(127))" : "(uint64_t)S(126)";
        cx.line("uint64_t t_a = " + a + "; uint64_t t_x = " + exec + ";");
        String op = m.substring(2, m.indexOf('_', 2));
        String r = switch (op) {
            case "and" -> "t_a & t_x";
            case "or" -> "t_a | t_x";
            case "xor" -> "t_a ^ t_x";
            case "andn2" -> "t_a & ~t_x";
            case "orn2" -> "t_a | ~t_x";
            case "nand" -> "~(t_a & t_x)";
            case "nor" -> "~(t_a | t_x)";
            case "xnor" -> "~(t_a ^ t_x)";
            case "andn1" -> "~t_a & t_x";
            case "orn1" -> "~t_a | t_x";
            default -> throw cx.refuse("no translation of " + m);
        };
        String mask = wide ? "" : " & 0xffffffffull";
        cx.line("uint64_t t_n = (" + r + ")" + mask + ";");
        String d = m.contains("wrexec") ? "t_n" : "t_x";
        cx.line(wide ? cx.writeS64(f.sdst(), d) : cx.writeS(f.sdst(), "(uint32_t)" + d));
        cx.line(wide ? "S(126) = rt_lo(t_n); S(127) = rt_hi(t_n);" : "S(126) = (uint32_t)t_n;");
        cx.line("RT_SCC = t_n != 0;");
    }

    /** s_movrels (D = SGPR[src + M0]) and s_movreld (SGPR[dst + M0] = src); an index past the SGPRs faults. */
    private static void movrel(InsnContext cx, Fields.Sop1 f, String m) throws Refusal {
        boolean wide = cx.wide("sdst");
        int n = wide ? 2 : 1;
        boolean s = m.startsWith("s_movrels");
        int base = s ? f.ssrc0() : f.sdst();
        if (base > 105) {
            throw cx.refuse("relative addressing from operand " + base + " (only SGPRs are translated)");
        }
        cx.line("uint32_t t_i = " + base + "u + RT_M0;");
        cx.line("if (t_i + " + (n - 1) + "u > 105u) RT_FAULT_NOW(RT_FAULT_OTHER, " + cx.pcC() + ", -1, t_i);");
        if (s) {
            cx.line("uint32_t t_v0 = W->s[t_i];" + (wide ? " uint32_t t_v1 = W->s[t_i + 1];" : ""));
            cx.line(cx.writeS(f.sdst(), "t_v0"));
            if (wide) {
                cx.line(cx.writeS(f.sdst() + 1, "t_v1"));
            }
        } else {
            String v = wide ? cx.src64(f.ssrc0(), false) : cx.src32(f.ssrc0());
            cx.line("uint64_t t_v = " + v + ";");
            cx.line("W->s[t_i] = rt_lo(t_v);" + (wide ? " W->s[t_i + 1] = rt_hi(t_v);" : ""));
        }
    }

    /** s_movrelsd_2_b32: SGPR[D + M0[25:16]] = SGPR[S0 + M0[9:0]]; an index past the SGPRs faults (source first). */
    private static void movrelsd2(InsnContext cx, Fields.Sop1 f) throws Refusal {
        if (f.ssrc0() > 105 || f.sdst() > 105) {
            throw cx.refuse("relative addressing from operand " + Math.max(f.ssrc0(), f.sdst())
                    + " (only SGPRs are translated)");
        }
        cx.line("uint32_t t_i = " + f.ssrc0() + "u + (RT_M0 & 0x3ffu);");
        cx.line("uint32_t t_j = " + f.sdst() + "u + ((RT_M0 >> 16) & 0x3ffu);");
        cx.line("if (t_i > 105u) RT_FAULT_NOW(RT_FAULT_OTHER, " + cx.pcC() + ", -1, t_i);");
        cx.line("if (t_j > 105u) RT_FAULT_NOW(RT_FAULT_OTHER, " + cx.pcC() + ", -1, t_j);");
        cx.line("W->s[t_j] = W->s[t_i];");
    }

    // ---------------------------------------------------------------- SOPC

    private static void sopc(InsnContext cx) throws Refusal {
        Fields.Sopc f = cx.fields(Fields.Sopc.class);
        String m = cx.mnemonic();
        boolean wideA = cx.wide("ssrc0");
        boolean wideB = cx.wide("ssrc1");
        cx.line((wideA ? "uint64_t" : "uint32_t") + " t_a = " + (wideA ? cx.src64(f.ssrc0(), false) : cx.src32(f.ssrc0()))
                + "; " + (wideB ? "uint64_t" : "uint32_t") + " t_b = "
                + (wideB ? cx.src64(f.ssrc1(), false) : cx.src32(f.ssrc1())) + ";");
        String c = switch (m) {
            case "s_bitcmp0_b32" -> "((t_a >> (t_b & 31u)) & 1u) == 0";
            case "s_bitcmp1_b32" -> "((t_a >> (t_b & 31u)) & 1u) != 0";
            case "s_bitcmp0_b64" -> "((t_a >> (t_b & 63u)) & 1u) == 0";
            case "s_bitcmp1_b64" -> "((t_a >> (t_b & 63u)) & 1u) != 0";
            case "s_cmp_eq_u64" -> "t_a == t_b";
            case "s_cmp_lg_u64" -> "t_a != t_b";
            default -> compare(cx, m.substring("s_cmp_".length()), "t_a", "t_b");
        };
        cx.line("RT_SCC = (" + c + ") ? 1u : 0u;");
    }

    /** {@code eq_i32}, {@code lt_u32}, ...: the C condition. */
    private static String compare(InsnContext cx, String kind, String a, String b) throws Refusal {
        String op = kind.substring(0, 2);
        boolean signed = kind.endsWith("_i32");
        if (!signed && !kind.endsWith("_u32")) {
            throw cx.refuse("no translation of " + cx.mnemonic());
        }
        if (signed) {
            a = "(" + a + " ^ 0x80000000u)";
            b = "(" + b + " ^ 0x80000000u)";
        }
        String c = switch (op) {
            case "eq" -> "==";
            case "lg" -> "!=";
            case "gt" -> ">";
            case "ge" -> ">=";
            case "lt" -> "<";
            case "le" -> "<=";
            default -> throw cx.refuse("no translation of " + cx.mnemonic());
        };
        return a + " " + c + " " + b;
    }

    // ---------------------------------------------------------------- SOPK

    private static void sopk(InsnContext cx) throws Refusal {
        Fields.Sopk f = cx.fields(Fields.Sopk.class);
        String m = cx.mnemonic();
        int raw = f.simm16() & 0xFFFF;
        String sext = InsnContext.hex32((short) raw);
        String zext = InsnContext.hex32(raw);
        switch (m) {
            case "s_movk_i32" -> cx.line(cx.writeS(f.sdst(), sext));
            case "s_cmovk_i32" -> cx.line("if (RT_SCC) { " + cx.writeS(f.sdst(), sext) + " }");
            case "s_version", "s_waitcnt_vscnt", "s_waitcnt_vmcnt", "s_waitcnt_expcnt", "s_waitcnt_lgkmcnt" ->
                    cx.line("/* no effect */");
            case "s_addk_i32" -> {
                cx.line("uint32_t t_scc; uint32_t t_d = rt_salu_add_i32(" + cx.sreg(f.sdst()) + ", " + sext + ", &t_scc);");
                cx.line(cx.writeS(f.sdst(), "t_d"));
                cx.line("RT_SCC = t_scc;");
            }
            case "s_mulk_i32" -> cx.line(cx.writeS(f.sdst(), cx.sreg(f.sdst()) + " * " + sext));
            case "s_getreg_b32" -> getreg(cx, f.sdst(), raw);
            case "s_setreg_b32" -> setreg(cx, raw, cx.sreg(f.sdst()));
            case "s_setreg_imm32_b32" -> setreg(cx, raw, InsnContext.hex32(cx.literal()));
            case "s_call_b64" -> {
                long target = cx.nextPc() + 4L * (short) raw;
                cx.line(cx.writeS64(f.sdst(), InsnContext.hex64(cx.nextPc())));
                cx.line((target <= cx.pc() ? "RT_BACKEDGE(" + cx.pcC() + "); " : "") + "goto " + cx.label(target) + ";");
            }
            default -> {
                if (m.startsWith("s_cmpk_")) {
                    boolean signed = m.endsWith("_i32");
                    cx.line("uint32_t t_a = " + cx.sreg(f.sdst()) + ";");
                    cx.line("RT_SCC = (" + compare(cx, m.substring("s_cmpk_".length()), "t_a", signed ? sext : zext)
                            + ") ? 1u : 0u;");
                } else {
                    throw cx.refuse("no translation of " + m);
                }
            }
        }
    }

    /**
     * s_getreg: the hardware registers a replay defines, with the project's documented values (a replay
     * has no hardware placement): MODE, STATUS (SCC, EXECZ, VCCZ, IN_TG, VALID), GPR_ALLOC, LDS_ALLOC,
     * SH_MEM_BASES, FLAT_SCR_LO/HI, HW_ID1 (the wave index), zeros for IB_STS, TBA, TMA, POPS_PACKER, HW_ID2.
     */
    private static void getreg(InsnContext cx, int sdst, int spec) throws Refusal {
        int id = spec & 0x3F;
        int offset = spec >>> 6 & 31;
        int size = (spec >>> 11 & 31) + 1;
        String value = switch (id) {
            case 1 -> "RT_MODE";
            case 2 -> "(RT_SCC | (RT_EXEC == 0 ? 1u << 9 : 0u) | (RT_VCC == 0 ? 1u << 10 : 0u)"
                    + " | (L->waves_per_group > 1 ? 1u << 11 : 0u) | (1u << 16))";
            case 5 -> {
                int granule = cx.waveSize() == 32 ? 16 : 8;
                int blocks = Math.max(1, (cx.vgprCount() + granule - 1) / granule);
                yield InsnContext.hex32((long) (blocks - 1) << 8);
            }
            case 6 -> InsnContext.hex32(((cx.ldsBytes() + 511L) / 512 & 0x1FF) << 12);
            case 7, 16, 17, 18, 19, 24, 25 -> "0u";
            case 15 -> InsnContext.hex32(2L << 16 | 1);
            case 20 -> "rt_lo(W->flat_scratch)";
            case 21 -> "rt_hi(W->flat_scratch)";
            case 23 -> "(W->index & 31u)";
            case 29 -> "((uint32_t)W->icount & 0xfffffu)";
            default -> throw cx.refuse("s_getreg of hardware register " + id + " is not translated");
        };
        long mask = size >= 32 ? 0xFFFF_FFFFL : (1L << size) - 1;
        cx.line(cx.writeS(sdst, "((" + value + ") >> " + offset + ") & " + InsnContext.hex32(mask)));
    }

    /** s_setreg: SIZE bits at OFFSET of MODE or FLAT_SCR_LO/HI; other registers are refused. */
    private static void setreg(InsnContext cx, int spec, String value) throws Refusal {
        int id = spec & 0x3F;
        int offset = spec >>> 6 & 31;
        int size = (spec >>> 11 & 31) + 1;
        long mask = (size >= 32 ? 0xFFFF_FFFFL : (1L << size) - 1) << offset & 0xFFFF_FFFFL;
        String bits = "((" + value + ") << " + offset + ") & " + InsnContext.hex32(mask);
        String keep = "& " + InsnContext.hex32(~mask);
        switch (id) {
            case 1 -> cx.line("RT_MODE = (RT_MODE " + keep + ") | (" + bits + ");");
            case 20 -> cx.line("W->flat_scratch = rt_pair((rt_lo(W->flat_scratch) " + keep + ") | (" + bits
                    + "), rt_hi(W->flat_scratch));");
            case 21 -> cx.line("W->flat_scratch = rt_pair(rt_lo(W->flat_scratch), (rt_hi(W->flat_scratch) " + keep
                    + ") | (" + bits + "));");
            default -> throw cx.refuse("s_setreg of hardware register " + id + " is not translated (only MODE and "
                    + "FLAT_SCR_LO/HI are writable)");
        }
    }
}
