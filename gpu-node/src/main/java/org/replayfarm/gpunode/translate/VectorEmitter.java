package org.replayfarm.gpunode.translate;

import java.util.ArrayList;
import java.util.List;
import org.replayfarm.gpunode.translate.vector.ValuOps;
import org.replayfarm.gpunode.translate.vector.ValuOps.Op;
import org.replayfarm.model.isa.Encoding;
import org.replayfarm.model.isa.Fields;
import org.replayfarm.model.isa.ValuVariant;

/**
 * The vector unit: VOP1, VOP2, VOPC, VOP3, VOP3P (with the DPP16, DPP8 and SDWA variants) into C against
 * rt_valu.h (per-lane semantics), rt_float.h (the float mode, omod/clamp) and rt_xlane.h (cross-lane
 * reads, DPP/permlane lane selection, SDWA selects). Every instruction becomes one lane loop under EXEC:
 * sources fetched (DPP's source 0 gathered from every lane first), input modifiers applied (abs then neg
 * on float operands; SDWA select and sign extension; VOP3 op_sel halves), the rt_valu_* function, output
 * modifiers (omod then clamp on float results), the destination written (SDWA field merge, 16-bit halves,
 * register pairs). Lane masks (compares, carries) are ballots: bits built per lane, OR-ed over the wave,
 * written after the loop. What is not in {@link ValuOps}, or uses a modifier this unit does not give the
 * meaning the host model gives it, is refused naming the reason. VINTRP is refused (the host model does not
 * execute it either).
 */
public final class VectorEmitter implements UnitEmitter {
    @Override
    public String unit() {
        return "vector";
    }

    @Override
    public void emit(InsnContext cx) throws Refusal {
        if (cx.encoding() == Encoding.VINTRP) {
            throw cx.refuse("VINTRP (parameter interpolation) is not used by compute programs and not translated");
        }
        Op op = ValuOps.lookup(cx.opcode());
        if (op == null) {
            throw cx.refuse("no translation of this vector ALU instruction yet");
        }
        new Emission(cx, op).emit();
    }

    /** One instruction's emission: its fields, normalised over the encodings. */
    private static final class Emission {
        private final InsnContext cx;
        private final Op op;
        private final Fields f;
        private final ValuVariant variant;
        private final int[] code = {-1, -1, -1};
        private int vdst = -1;
        private int sdst = -1;
        private int absBits;
        private int negBits;
        private int opsel;
        private boolean clamp;
        private int omod;

        Emission(InsnContext cx, Op op) throws Refusal {
            this.cx = cx;
            this.op = op;
            this.f = cx.insn().fields();
            if (f instanceof Fields.Vop1 v) {
                variant = v.variant();
                vdst = v.vdst();
                code[0] = v.src0();
            } else if (f instanceof Fields.Vop2 v) {
                variant = v.variant();
                vdst = v.vdst();
                code[0] = v.src0();
                code[1] = 256 + v.vsrc1();
            } else if (f instanceof Fields.Vopc v) {
                variant = v.variant();
                code[0] = v.src0();
                code[1] = 256 + v.vsrc1();
            } else if (f instanceof Fields.Vop3 v) {
                variant = new ValuVariant.None();
                vdst = v.vdst();
                sdst = v.sdst();
                code[0] = v.src0();
                code[1] = v.src1();
                code[2] = v.src2();
                absBits = cx.opcode().operandType("sdst") != null ? 0 : v.abs();
                negBits = v.neg();
                opsel = v.opsel();
                clamp = v.clamp();
                omod = v.omod();
            } else if (f instanceof Fields.Vop3p v) {
                variant = new ValuVariant.None();
                vdst = v.vdst();
                code[0] = v.src0();
                code[1] = v.src1();
                code[2] = v.src2();
                clamp = v.clamp();
            } else {
                throw cx.refuse("not a vector ALU encoding");
            }
            if (variant instanceof ValuVariant.Dpp16 d) {
                code[0] = 256 + d.src0();
                absBits = (d.src0Abs() ? 1 : 0) | (d.src1Abs() ? 2 : 0);
                negBits = (d.src0Neg() ? 1 : 0) | (d.src1Neg() ? 2 : 0);
            } else if (variant instanceof ValuVariant.Dpp8 d) {
                code[0] = 256 + d.src0();
            } else if (variant instanceof ValuVariant.Sdwa s) {
                code[0] = s.src0Sgpr() ? s.src0() : 256 + s.src0();
                if (code[1] >= 0 && s.src1Sgpr()) {
                    code[1] -= 256;
                }
                absBits = (s.src0Abs() ? 1 : 0) | (s.src1Abs() ? 2 : 0);
                negBits = (s.src0Neg() ? 1 : 0) | (s.src1Neg() ? 2 : 0);
                if (!(f instanceof Fields.Vopc)) {
                    clamp = s.clamp();
                    omod = s.omod();
                }
            }
        }

        private boolean isVop3() {
            return f instanceof Fields.Vop3;
        }

        private boolean isSdwa() {
            return variant instanceof ValuVariant.Sdwa;
        }

        private boolean isDpp() {
            return variant instanceof ValuVariant.Dpp16 || variant instanceof ValuVariant.Dpp8;
        }

        void emit() throws Refusal {
            cx.include("rt_valu.h");
            cx.include("rt_xlane.h");
            switch (op.kind()) {
                case "NOP" -> cx.line("/* %s: no effect on the state the translation keeps */", cx.mnemonic());
                case "RFL" -> readFirstLane();
                case "RL" -> readLane();
                case "WL" -> writeLane();
                case "PERM" -> permlane();
                case "MOVREL" -> movrel();
                case "SWAP" -> swap();
                case "SWAPREL" -> swapRel();
                case "DIVS" -> divScale();
                case "MQSAD" -> mqsad();
                case "MIX" -> mix();
                case "DOTF" -> dotF16();
                case "DOTC" -> accumulating();
                case "CMP", "CLASS" -> compare();
                case "PK", "PKM", "PKC", "DOT" -> packed();
                default -> lanewise();
            }
        }

        // ------------------------------------------------------------ operands

        private static boolean floating(String t) {
            return t.startsWith("f");
        }

        private static int width(String t) {
            return t.endsWith("16") ? 16 : t.endsWith("64") ? 64 : 32;
        }

        private static String ctype(String t) {
            return width(t) == 64 ? "uint64_t" : "uint32_t";
        }

        /** The raw source n of the lane {@code l} (DPP source 0 from the gather), SDWA select applied, 16-bit halves chosen. */
        private String source(int n, String type) throws Refusal {
            int c = code[n];
            if (c < 0) {
                throw cx.refuse("source " + n + " missing");
            }
            int w = width(type);
            String raw;
            if (n == 0 && isDpp()) {
                raw = "t_dpp[RT_SLOT(l)]";
            } else if (w == 64) {
                raw = cx.vsrc64(c, "l", floating(type));
            } else if (w == 16) {
                raw = cx.vsrc16(c, "l");
            } else {
                raw = cx.vsrc32(c, "l");
            }
            if (w == 64) {
                return applyMods(raw, n, type);
            }
            if (variant instanceof ValuVariant.Sdwa s && n <= 1) {
                int sel = n == 0 ? s.src0Sel() : s.src1Sel();
                boolean sext = n == 0 ? s.src0Sext() : s.src1Sext();
                if (sel != 6 || sext) {
                    raw = "rt_sdwa_sel(" + raw + ", " + sel + ", " + (sext ? 1 : 0) + ")";
                }
            }
            if (w == 16) {
                if (isVop3() && (opsel >>> n & 1) != 0) {
                    raw = "((" + raw + ") >> 16)";
                } else {
                    raw = "((" + raw + ") & 0xffffu)";
                }
            }
            return applyMods(raw, n, type);
        }

        private String applyMods(String raw, int n, String type) {
            if (!floating(type)) {
                return raw;
            }
            int w = width(type);
            String sign = w == 64 ? "0x8000000000000000ull" : w == 32 ? "0x80000000u" : "0x8000u";
            String e = raw;
            if ((absBits >>> n & 1) != 0) {
                e = "((" + e + ") & ~" + sign + ")";
            }
            if ((negBits >>> n & 1) != 0) {
                e = "((" + e + ") ^ " + sign + ")";
            }
            return e;
        }

        /** Refuses modifiers an integer or mask result cannot take. */
        private void noOutputModifiers(boolean clampAllowed) throws Refusal {
            if (omod != 0) {
                throw cx.refuse("omod on an instruction without a float result");
            }
            if (clamp && !clampAllowed) {
                throw cx.refuse("clamp on an instruction whose clamp this unit does not translate");
            }
        }

        private void mode() {
            cx.line("rt_mode_t t_m = rt_mode_make(RT_MODE); (void)t_m;");
        }

        /** The DPP gather of source 0 (every lane's value read before any is written), then the write-enable per lane. */
        private void dppGather() throws Refusal {
            int r = code[0] - 256;
            String reg = cx.vreg(r, "l");
            cx.line("uint32_t t_dpp[RT_LPT]; int t_dppok[RT_LPT];");
            if (variant instanceof ValuVariant.Dpp16 d) {
                if (!validDpp16(d.dppCtrl())) {
                    throw cx.refuse(String.format("DPP control 0x%x is not valid on gfx10", d.dppCtrl()));
                }
                cx.line("RT_FOR_LANES(l) {");
                cx.line("  int t_src = rt_dpp16_src(l, %d);", d.dppCtrl());
                cx.line("  int t_ok = t_src >= 0 && t_src < RT_WAVE && (%d || RT_ACTIVE(t_src));", d.fi() ? 1 : 0);
                cx.line("  uint32_t t_v = rt_xl_read(W, %d, l, t_ok ? t_src : l);", checkedVgpr(r));
                cx.line("  t_dpp[RT_SLOT(l)] = t_ok ? t_v : %s;", d.boundCtrl() ? "0u" : reg);
                cx.line("  t_dppok[RT_SLOT(l)] = (t_ok || %d) && rt_dpp16_enabled(l, %d, %d);", d.boundCtrl() ? 1 : 0,
                        d.rowMask(), d.bankMask());
                cx.line("}");
            } else if (variant instanceof ValuVariant.Dpp8 d) {
                int sel = 0;
                for (int i = 0; i < 8; i++) {
                    sel |= d.selects().get(i) << (3 * i);
                }
                cx.line("RT_FOR_LANES(l) {");
                cx.line("  int t_src = rt_dpp8_src(l, 0x%xu);", sel);
                cx.line("  int t_ok = %d || RT_ACTIVE(t_src);", d.fi() ? 1 : 0);
                cx.line("  uint32_t t_v = rt_xl_read(W, %d, l, t_src);", checkedVgpr(r));
                cx.line("  t_dpp[RT_SLOT(l)] = t_ok ? t_v : 0u;");
                cx.line("  t_dppok[RT_SLOT(l)] = 1;");
                cx.line("}");
            }
        }

        private int checkedVgpr(int r) {
            cx.vreg(r, "l"); // records the fault when r is past the allocation
            return r < cx.vgprCount() ? r : 0;
        }

        private static boolean validDpp16(int c) {
            return c <= 0xff || c >= 0x101 && c <= 0x10f || c >= 0x111 && c <= 0x11f || c >= 0x121 && c <= 0x12f
                    || c == 0x140 || c == 0x141 || c >= 0x150 && c <= 0x16f;
        }

        private void laneLoopOpen() {
            cx.line("RT_FOR_ACTIVE(l) {");
            if (isDpp()) {
                cx.line("  if (!t_dppok[RT_SLOT(l)]) continue;");
            }
        }

        // ------------------------------------------------------------ result writes

        /** The statement writing a lane's result of the given type to vdst. */
        private String write(String type, String value) throws Refusal {
            int w = width(type);
            if (w == 64) {
                return cx.writeV64(vdst, "l", value);
            }
            String reg = cx.vreg(vdst, "l");
            if (variant instanceof ValuVariant.Sdwa s) {
                return reg + " = rt_sdwa_dst(" + reg + ", " + value + ", " + s.dstSel() + ", " + s.dstUnused() + ");";
            }
            if (w == 16) {
                if (isVop3() && (opsel & 8) != 0) {
                    return reg + " = (" + reg + " & 0xffffu) | ((" + value + ") << 16);";
                }
                return reg + " = (" + reg + " & 0xffff0000u) | ((" + value + ") & 0xffffu);";
            }
            return reg + " = " + value + ";";
        }

        /** omod then clamp on a float result (t_r). */
        private void outputModifiers(String type) {
            if (!floating(type)) {
                return;
            }
            String w = String.valueOf(width(type));
            if (omod != 0) {
                cx.line("  t_r = rt_omod%s(t_r, %d, &t_m);", w, omod);
            }
            if (clamp) {
                cx.line("  t_r = rt_clamp%s(t_r, &t_m);", w);
            }
        }

        private String function() {
            return op.function().equals("-") ? "rt_valu_" + cx.mnemonic().substring(2) : op.function();
        }

        // ------------------------------------------------------------ the per-lane forms

        private void lanewise() throws Refusal {
            String kind = op.kind();
            String res = op.result();
            boolean floatResult = floating(res);
            boolean needsMode = kind.equals("M") || kind.equals("FN") || kind.startsWith("FMA") || floatResult;
            boolean intClamp = kind.equals("C") || kind.equals("CO") || kind.equals("CI") || kind.equals("MAD64");
            if (!floatResult) {
                noOutputModifiers(intClamp);
            }
            if (kind.equals("CO") || kind.equals("CI") || kind.equals("MAD64")) {
                carries();
                return;
            }
            if (needsMode) {
                mode();
            }
            if (isDpp()) {
                dppGather();
            }
            if (kind.equals("FMAS")) {
                cx.line("uint64_t t_vcc = RT_VCC;");
            }
            laneLoopOpen();
            List<String> args = new ArrayList<>();
            String expr;
            switch (kind) {
                case "MOV" -> expr = source(0, "u32");
                case "CND" -> {
                    String mask = isVop3() ? maskRead(code[2]) : "RT_VCC";
                    cx.line("  uint64_t t_mask = %s;", mask);
                    expr = "((t_mask >> l) & 1u) ? " + source(1, "f32") + " : " + source(0, "f32");
                }
                case "FMAC" -> {
                    String acc = width(res) == 16 ? "(" + cx.vreg(vdst, "l") + " & 0xffffu)" : cx.vreg(vdst, "l");
                    if (width(res) == 16 && isVop3() && (opsel & 8) != 0) {
                        acc = "(" + cx.vreg(vdst, "l") + " >> 16)";
                    }
                    if (isVop3() && ((negBits | absBits) & 4) != 0) {
                        // the row has two sources: llvm-mc cannot spell NEG[2]/ABS[2] and the ISA does not
                        // say whether they reach the accumulator (the host model ignores them)
                        throw cx.refuse("NEG/ABS bit 2 on a two-source multiply-accumulate");
                    }
                    expr = function() + "(" + source(0, res) + ", " + source(1, res) + ", " + acc + ", &t_m)";
                }
                case "FMAMK", "FMAAK" -> {
                    String k = InsnContext.hex32(width(res) == 16 ? cx.literal() & 0xffff : cx.literal());
                    expr = kind.equals("FMAMK")
                            ? function() + "(" + source(0, res) + ", " + k + ", " + source(1, res) + ", &t_m)"
                            : function() + "(" + source(0, res) + ", " + source(1, res) + ", " + k + ", &t_m)";
                }
                case "BYTE" -> expr = "rt_valu_cvt_f32_ubyte(" + source(0, "u32") + ", " + cx.opcode().valu().byteIndex()
                        + ")";
                case "FN" -> expr = "rt_valu_fn_" + res + "(" + op.function() + ", " + source(0, res) + ", &t_m)";
                case "FMAS" -> expr = function() + "(" + source(0, res) + ", " + source(1, res) + ", " + source(2, res)
                        + ", (int)((t_vcc >> l) & 1u), &t_m)";
                default -> {
                    for (int n = 0; n < op.count(); n++) {
                        args.add(source(n, op.source(n)));
                    }
                    switch (kind) {
                        case "M" -> args.add("&t_m");
                        case "C" -> args.add(clamp ? "1" : "0");
                        case "L" -> args.add("l");
                        case "P" -> { }
                        default -> throw cx.refuse("unknown kind " + kind);
                    }
                    expr = function() + "(" + String.join(", ", args) + ")";
                }
            }
            String t = floatResult || width(res) != 64 ? ctype(res) : "uint64_t";
            cx.line("  %s t_r = %s;", t, expr);
            if (floatResult) {
                outputModifiers(res);
            }
            cx.line("  " + write(res, "t_r"));
            cx.line("}");
            cx.line(cx.check());
        }

        private String maskRead(int c) throws Refusal {
            if (c < 0 || c > 127) {
                throw cx.refuse("lane mask operand " + c + " is not a scalar register");
            }
            return "RT_MASK(" + c + ")";
        }

        /** Carry-out (and carry-in) forms: results per lane, the carry mask OR-ed over the wave, written after. */
        private void carries() throws Refusal {
            String kind = op.kind();
            if (omod != 0) {
                throw cx.refuse("omod on a carry instruction");
            }
            if (isDpp()) {
                dppGather();
            }
            String cin = isVop3() ? (kind.equals("CI") ? maskRead(code[2]) : "0ull") : "RT_VCC";
            int out = isVop3() ? sdst : 106;
            if (out < 0) {
                throw cx.refuse("carry-out instruction without a scalar destination");
            }
            cx.line("uint64_t t_cin = %s, t_cout = 0;", cin);
            laneLoopOpen();
            cx.line("  int t_c = 0;");
            String a = source(0, op.source(0));
            String b = source(1, op.source(1));
            String expr = switch (kind) {
                case "CO" -> function() + "(" + a + ", " + b + ", &t_c)";
                case "CI" -> function() + "(" + a + ", " + b + ", (int)((t_cin >> l) & 1u), &t_c)";
                default -> function() + "(" + a + ", " + b + ", " + source(2, "u64") + ", &t_c)";
            };
            String t = ctype(op.result());
            cx.line("  %s t_r = %s;", t, expr);
            if (clamp) {
                // CLAMP saturates: all ones on a carry, 0 on a borrow; the signed 64-bit mad to its bound
                String sat = switch (cx.mnemonic()) {
                    case "v_mad_u64_u32" -> "0xffffffffffffffffull";
                    case "v_mad_i64_i32" -> "((int64_t)" + source(2, "u64") + " < 0 ? 0x8000000000000000ull : "
                            + "0x7fffffffffffffffull)";
                    default -> cx.mnemonic().contains("sub") ? "0u" : "0xffffffffu";
                };
                cx.line("  if (t_c) t_r = %s;", sat);
            }
            cx.line("  " + write(op.result(), "t_r"));
            cx.line("  if (t_c) t_cout |= 1ull << l;");
            cx.line("}");
            cx.line("t_cout = RT_WAVE_OR(t_cout);");
            cx.line(cx.check());
            if (out == 106 && !isVop3()) {
                cx.line("RT_SET_VCC(t_cout);");
            } else {
                cx.line("RT_SET_MASK(%d, t_cout);", out);
            }
        }

        // ------------------------------------------------------------ compares

        private void compare() throws Refusal {
            if (omod != 0) {
                throw cx.refuse("omod on a compare is not translated");
            }
            // CLAMP on a compare only asks for exceptions on NaN (no effect on the mask): ignored
            boolean toExec = cx.opcode().valu().compare().toExec();
            String t0 = op.source(0);
            String t1 = op.source(1);
            boolean fp = floating(t0) && op.kind().equals("CMP");
            if (fp) {
                mode();
            }
            cx.line("uint64_t t_mask = 0;");
            laneLoopOpen();
            String a = source(0, t0);
            String b = source(1, t1);
            String test;
            if (op.kind().equals("CLASS")) {
                test = op.function() + "(" + a + ", " + b + ")";
            } else {
                ValuOps.Compare c = ValuOps.compare(cx.opcode());
                test = op.function() + "(" + c.condition() + ", " + a + ", " + b + (fp ? ", &t_m" : "") + ")";
            }
            cx.line("  if (%s) t_mask |= 1ull << l;", test);
            cx.line("}");
            cx.line("t_mask = RT_WAVE_OR(t_mask);");
            cx.line(cx.check());
            if (toExec) {
                cx.line("RT_SET_EXEC(t_mask);");
            } else if (isVop3()) {
                cx.line("RT_SET_MASK(%d, t_mask);", vdst);
            } else if (variant instanceof ValuVariant.Sdwa s && s.sd()) {
                cx.line("RT_SET_MASK(%d, t_mask);", s.sdst());
            } else {
                cx.line("RT_SET_VCC(t_mask);");
            }
        }

        // ------------------------------------------------------------ cross-lane and moves

        private int scalarDest() throws Refusal {
            int d = vdst;
            if (d < 0 || d > 127) {
                throw cx.refuse("scalar destination " + d + " is not an SGPR");
            }
            return d;
        }

        private void readFirstLane() throws Refusal {
            noOutputModifiers(false);
            int d = scalarDest();
            int c = code[0];
            if (c >= 256) {
                cx.line("uint32_t t_v = rt_xl_readlane(W, %d, rt_first_lane(RT_EXEC));", checkedVgpr(c - 256));
            } else {
                cx.line("uint32_t t_v = %s;", cx.src32(c));
            }
            cx.line(cx.writeS(d, "t_v"));
        }

        private void readLane() throws Refusal {
            noOutputModifiers(false);
            int d = scalarDest();
            int c = code[0];
            cx.line("uint32_t t_k = (%s) & (RT_WAVE - 1);", cx.src32(code[1]));
            if (c >= 256) {
                cx.line("uint32_t t_v = rt_xl_readlane(W, %d, t_k);", checkedVgpr(c - 256));
            } else {
                cx.line("uint32_t t_v = %s; (void)t_k;", cx.src32(c));
            }
            cx.line(cx.writeS(d, "t_v"));
        }

        private void writeLane() throws Refusal {
            noOutputModifiers(false);
            cx.line("uint32_t t_k = (%s) & (RT_WAVE - 1);", cx.src32(code[1]));
            cx.line("uint32_t t_v = %s;", cx.src32(code[0]));
            cx.line("RT_FOR_LANES(l) { if ((uint32_t)l == t_k) %s = t_v; }", cx.vreg(vdst, "l"));
        }

        private void permlane() throws Refusal {
            if (clamp || omod != 0) {
                throw cx.refuse("clamp/omod on a permlane are not translated");
            }
            boolean cross = cx.mnemonic().equals("v_permlanex16_b32");
            boolean fi = (opsel & 1) != 0;
            boolean boundCtrl = (opsel & 2) != 0;
            if (code[0] < 256) {
                throw cx.refuse("permlane source 0 must be a VGPR");
            }
            int r = checkedVgpr(code[0] - 256);
            cx.line("uint32_t t_s1 = %s, t_s2 = %s;", cx.src32(code[1]), cx.src32(code[2]));
            cx.line("uint32_t t_g[RT_LPT]; int t_w[RT_LPT];");
            cx.line("RT_FOR_LANES(l) {");
            cx.line("  int t_src = rt_permlane_src(l, t_s1, t_s2, %d);", cross ? 1 : 0);
            cx.line("  int t_ok = %d || RT_ACTIVE(t_src);", fi ? 1 : 0);
            cx.line("  uint32_t t_v = rt_xl_read(W, %d, l, t_src);", r);
            cx.line("  t_g[RT_SLOT(l)] = t_ok ? t_v : 0u;");
            cx.line("  t_w[RT_SLOT(l)] = t_ok || %d;", boundCtrl ? 1 : 0);
            cx.line("}");
            cx.line("RT_FOR_ACTIVE(l) { if (t_w[RT_SLOT(l)]) %s = t_g[RT_SLOT(l)]; }", cx.vreg(vdst, "l"));
        }

        /** M0-relative moves: the register number is dynamic; past the allocation is a VGPR fault. */
        private void movrel() throws Refusal {
            noOutputModifiers(false);
            if (isDpp() || isSdwa()) {
                throw cx.refuse("DPP/SDWA on an M0-relative move is not translated");
            }
            String m = cx.mnemonic();
            boolean relSrc = !m.equals("v_movreld_b32");
            boolean relDst = !m.equals("v_movrels_b32");
            String srcOff = m.equals("v_movrelsd_2_b32") ? "(RT_M0 & 0x3ffu)" : "RT_M0";
            String dstOff = m.equals("v_movrelsd_2_b32") ? "((RT_M0 >> 16) & 0x3ffu)" : "RT_M0";
            if (relSrc && code[0] < 256) {
                throw cx.refuse(m + " needs a VGPR source");
            }
            cx.line("uint32_t t_sr = %s;", relSrc ? (code[0] - 256) + "u + " + srcOff : "0u");
            cx.line("uint32_t t_dr = %s;", vdst + "u" + (relDst ? " + " + dstOff : ""));
            cx.line("if ((%d && t_sr >= RT_NVGPR) || t_dr >= RT_NVGPR) { if (RT_EXEC != 0) "
                    + "RT_FAULT_NOW(RT_FAULT_VGPR, %s, -1, 0); }", relSrc ? 1 : 0, cx.pcC());
            cx.line("else {");
            cx.line("  uint32_t t_g[RT_LPT];");
            cx.line("  RT_FOR_ACTIVE(l) t_g[RT_SLOT(l)] = %s;", relSrc ? "W->v[t_sr][RT_SLOT(l)]" : cx.vsrc32(code[0], "l"));
            cx.line("  RT_FOR_ACTIVE(l) W->v[t_dr][RT_SLOT(l)] = t_g[RT_SLOT(l)];");
            cx.line("}");
        }

        private void swap() throws Refusal {
            noOutputModifiers(false);
            if (code[0] < 256) {
                throw cx.refuse("v_swap_b32 needs a VGPR source");
            }
            String a = cx.vreg(vdst, "l");
            String b = cx.vreg(code[0] - 256, "l");
            cx.line("RT_FOR_ACTIVE(l) { uint32_t t_x = %s; %s = %s; %s = t_x; }", a, a, b, b);
        }

        /** v_swaprel_b32: swaps v[vdst + M0[25:16]] and v[src0 + M0[9:0]] per lane; past the allocation a VGPR fault. */
        private void swapRel() throws Refusal {
            noOutputModifiers(false);
            if (isDpp() || isSdwa()) {
                throw cx.refuse("DPP/SDWA on v_swaprel_b32 is not translated");
            }
            if (code[0] < 256) {
                throw cx.refuse("v_swaprel_b32 needs a VGPR source");
            }
            cx.line("uint32_t t_sr = %du + (RT_M0 & 0x3ffu), t_dr = %du + ((RT_M0 >> 16) & 0x3ffu);", code[0] - 256, vdst);
            cx.line("if (t_sr >= RT_NVGPR || t_dr >= RT_NVGPR) { if (RT_EXEC != 0) RT_FAULT_NOW(RT_FAULT_VGPR, %s, -1, 0); }",
                    cx.pcC());
            cx.line("else {");
            cx.line("  RT_FOR_ACTIVE(l) { uint32_t t_x = W->v[t_dr][RT_SLOT(l)]; W->v[t_dr][RT_SLOT(l)] = "
                    + "W->v[t_sr][RT_SLOT(l)]; W->v[t_sr][RT_SLOT(l)] = t_x; }");
            cx.line("}");
        }

        /** v_div_scale_f32/f64 (VOP3b): the scaled value per lane, the lanes' flags OR-ed into SDST after the loop. */
        private void divScale() throws Refusal {
            if (sdst < 0) {
                throw cx.refuse("v_div_scale without a scalar destination");
            }
            String t = op.result();
            mode();
            cx.line("uint64_t t_cout = 0;");
            laneLoopOpen();
            cx.line("  int t_c = 0;");
            cx.line("  %s t_r = %s(%s, %s, %s, &t_c, &t_m);", ctype(t), function(), source(0, t), source(1, t),
                    source(2, t));
            outputModifiers(t);
            cx.line("  " + write(t, "t_r"));
            cx.line("  if (t_c) t_cout |= 1ull << l;");
            cx.line("}");
            cx.line("t_cout = RT_WAVE_OR(t_cout);");
            cx.line(cx.check());
            cx.line("RT_SET_MASK(%d, t_cout);", sdst);
        }

        /** v_mqsad_u32_u8: four 32-bit accumulators (a VGPR quad) into four result VGPRs, all read before any is written. */
        private void mqsad() throws Refusal {
            noOutputModifiers(false);
            if (code[2] < 256) {
                throw cx.refuse("v_mqsad_u32_u8 with a scalar or constant 128-bit accumulator is not translated");
            }
            int c = code[2] - 256;
            laneLoopOpen();
            cx.line("  uint64_t t_a = %s; uint32_t t_b = %s;", source(0, "u64"), source(1, "u32"));
            for (int j = 0; j < 4; j++) {
                cx.line("  uint32_t t_r%d = %s(t_a, t_b, %s, %d);", j, function(), cx.vreg(c + j, "l"), j);
            }
            for (int j = 0; j < 4; j++) {
                cx.line("  %s = t_r%d;", cx.vreg(vdst + j, "l"), j);
            }
            cx.line("}");
            cx.line(cx.check());
        }

        /** An inline constant (not a register or the literal) as a 9-bit source code. */
        private static boolean inlineConstant(int c) {
            return c >= 128 && c < 256 && c != 255;
        }

        /**
         * v_fma_mix_f32 / mixlo / mixhi: each source an f16 (OP_SEL_HI bit set; OP_SEL picks its half) or an f32,
         * converted exactly with its format's input flushing, NEG_HI its absolute value, NEG_LO its negation; one
         * fma rounded to f32, or to f16 into the low (mixlo) or high (mixhi) half keeping the other.
         */
        private void mix() throws Refusal {
            Fields.Vop3p p = (Fields.Vop3p) f;
            String m = cx.mnemonic();
            mode();
            laneLoopOpen();
            String[] x = new String[3];
            for (int n = 0; n < 3; n++) {
                boolean f16 = (p.opselHi() >>> n & 1) != 0;
                boolean hi = (p.opsel() >>> n & 1) != 0;
                String v;
                if (f16) {
                    if (hi && inlineConstant(code[n])) {
                        throw cx.refuse("the high half of an inline constant as an f16 mix source: the host model "
                                + "repeats the constant in both halves, llvm-mc-19 puts it in the low half only");
                    }
                    String raw = cx.vsrc16(code[n], "l");
                    v = "rt_mix_f16(rt_in16(&t_m, " + (hi ? "(" + raw + ") >> 16" : "(" + raw + ") & 0xffffu") + "))";
                } else {
                    v = "rt_mix_f32(rt_in32(&t_m, " + cx.vsrc32(code[n], "l") + "))";
                }
                if ((p.negHi() >>> n & 1) != 0) {
                    v = "fabs(" + v + ")";
                }
                if ((p.negLo() >>> n & 1) != 0) {
                    v = "(-" + v + ")";
                }
                cx.line("  double t_x%d = %s;", n, v);
                x[n] = "t_x" + n;
            }
            boolean toF16 = !m.equals("v_fma_mix_f32");
            cx.line("  uint32_t t_r = %s(%s, %s, %s, &t_m);", function(), x[0], x[1], x[2]);
            if (clamp) {
                cx.line("  t_r = rt_clamp%s(t_r, &t_m);", toF16 ? "16" : "32");
            }
            String reg = cx.vreg(vdst, "l");
            if (!toF16) {
                cx.line("  %s = t_r;", reg);
            } else if (m.equals("v_fma_mixlo_f16")) {
                cx.line("  %s = (%s & 0xffff0000u) | (t_r & 0xffffu);", reg, reg);
            } else {
                cx.line("  %s = (%s & 0xffffu) | (t_r << 16);", reg, reg);
            }
            cx.line("}");
            cx.line(cx.check());
        }

        /** v_dot2_f32_f16 (VOP3P): both halves of sources 0 and 1, source 2 an f32; no op_sel or neg. */
        private void dotF16() throws Refusal {
            Fields.Vop3p p = (Fields.Vop3p) f;
            if (p.negLo() != 0 || p.negHi() != 0 || p.opsel() != 0 || (p.opselHi() & 3) != 3) {
                throw cx.refuse("op_sel/neg on v_dot2_f32_f16 are not translated");
            }
            for (int n = 0; n < 2; n++) {
                if (inlineConstant(code[n])) {
                    throw cx.refuse("an inline constant as a packed f16 pair: the host model repeats it in both halves, "
                            + "llvm-mc-19 puts it in the low half only");
                }
            }
            mode();
            laneLoopOpen();
            cx.line("  uint32_t t_r = rt_valu_dot2_f32_f16(%s, %s, %s, &t_m);", cx.vsrc32(code[0], "l"),
                    cx.vsrc32(code[1], "l"), cx.vsrc32(code[2], "l"));
            if (clamp) {
                cx.line("  t_r = rt_clamp32(t_r, &t_m);");
            }
            cx.line("  %s = t_r;", cx.vreg(vdst, "l"));
            cx.line("}");
            cx.line(cx.check());
        }

        /** VOP2 forms accumulating into their destination: v_dot2c_f32_f16, v_dot4c_i32_i8, v_pk_fmac_f16. */
        private void accumulating() throws Refusal {
            noOutputModifiers(false);
            if (isSdwa()) {
                throw cx.refuse("SDWA on " + cx.mnemonic() + " is not translated");
            }
            boolean halves = !cx.mnemonic().equals("v_dot4c_i32_i8");
            if (halves && (absBits | negBits) != 0) {
                throw cx.refuse("abs/neg on the packed sources of " + cx.mnemonic() + " are not translated");
            }
            if (halves && inlineConstant(code[0])) {
                throw cx.refuse("an inline constant as a packed f16 pair: the host model repeats it in both halves, "
                        + "llvm-mc-19 puts it in the low half only");
            }
            boolean fp = halves;
            if (fp) {
                mode();
            }
            if (isDpp()) {
                dppGather();
            }
            laneLoopOpen();
            String reg = cx.vreg(vdst, "l");
            cx.line("  uint32_t t_r = %s(%s, %s, %s%s);", function(), source(0, "u32"), source(1, "u32"), reg,
                    fp ? ", &t_m" : "");
            cx.line("  %s = t_r;", reg);
            cx.line("}");
            cx.line(cx.check());
        }

        // ------------------------------------------------------------ VOP3P

        private void packed() throws Refusal {
            Fields.Vop3p p = (Fields.Vop3p) f;
            boolean floatPacked = op.kind().equals("PKM");
            for (int n = 0; n < op.count(); n++) {
                if (!floatPacked && code[n] >= 240 && code[n] <= 248) {
                    // llvm-mc-19 encodes 0x3f800000 as the inline 1.0 of v_pk_add_u16 and 0xc0800000 as the -4.0
                    // of v_dot2_i32_i16 (f32 bits; 0x3c00 is a literal); the host model reads f16 bits
                    throw cx.refuse("a float inline constant in an integer packed operand: llvm-mc-19 gives it f32 "
                            + "bits, the host model f16 bits in the low half");
                }
                boolean readsHigh = ((p.opsel() | p.opselHi()) >>> n & 1) != 0;
                if (floatPacked && inlineConstant(code[n]) && readsHigh) {
                    // llvm-mc-19 encodes 0x00003c00 as the inline 1.0 of v_pk_add_f16 and 0x3c003c00 as a literal:
                    // the constant is the low half only; the host model's packed f16 unit repeats it in both halves
                    throw cx.refuse("the high half of an inline constant in a packed f16 operand: the host model "
                            + "repeats the constant in both halves, llvm-mc-19 puts it in the low half only");
                }
            }
            if (op.kind().equals("DOT")) {
                if (p.negLo() != 0 || p.negHi() != 0 || p.opsel() != 0 || (p.opselHi() & 3) != 3) {
                    throw cx.refuse("op_sel/neg on an integer dot product are not translated");
                }
                cx.line("RT_FOR_ACTIVE(l) {");
                cx.line("  uint32_t t_r = %s(%s, %s, %s, %d);", function(), cx.vsrc32(code[0], "l"),
                        cx.vsrc32(code[1], "l"), cx.vsrc32(code[2], "l"), clamp ? 1 : 0);
                cx.line("  %s = t_r;", cx.vreg(vdst, "l"));
                cx.line("}");
                return;
            }
            boolean fp = op.kind().equals("PKM");
            if (!fp && (p.negLo() != 0 || p.negHi() != 0)) {
                throw cx.refuse("neg on an integer packed instruction is not translated");
            }
            if (op.kind().equals("PK") && clamp) {
                throw cx.refuse("clamp on this packed instruction is not translated");
            }
            if (fp) {
                mode();
            }
            cx.line("RT_FOR_ACTIVE(l) {");
            for (int n = 0; n < op.count(); n++) {
                // an integer inline constant: its 32 bits, the high half its sign (llvm-mc-19: 0x0001 is the
                // inline 1, 0x00010001 a literal, -1 is 0xffffffff and 0xffff a literal)
                // (a float packed operand: the f16 bits of a float constant, which is read only as its low half)
                cx.line("  uint32_t t_p%d = %s;", n, fp ? cx.vsrc16(code[n], "l") : cx.vsrc32(code[n], "l"));
            }
            String[] halves = new String[2];
            for (int h = 0; h < 2; h++) {
                int sel = h == 0 ? p.opsel() : p.opselHi();
                int neg = h == 0 ? p.negLo() : p.negHi();
                List<String> args = new ArrayList<>();
                for (int n = 0; n < op.count(); n++) {
                    String e = (sel >>> n & 1) != 0 ? "(t_p" + n + " >> 16)" : "(t_p" + n + " & 0xffffu)";
                    if (fp && (neg >>> n & 1) != 0) {
                        e = "(" + e + " ^ 0x8000u)";
                    }
                    args.add(e);
                }
                switch (op.kind()) {
                    case "PKM" -> args.add("&t_m");
                    case "PKC" -> args.add(clamp ? "1" : "0");
                    default -> { }
                }
                cx.line("  uint32_t t_h%d = %s(%s);", h, op.function(), String.join(", ", args));
                if (fp && clamp) {
                    cx.line("  t_h%d = rt_clamp16(t_h%d, &t_m);", h, h);
                }
                halves[h] = "t_h" + h;
            }
            cx.line("  %s = (%s & 0xffffu) | (%s << 16);", cx.vreg(vdst, "l"), halves[0], halves[1]);
            cx.line("}");
        }
    }
}
