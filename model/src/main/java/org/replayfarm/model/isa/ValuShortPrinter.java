package org.replayfarm.model.isa;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

/**
 * Prints VOP1, VOP2 and VOPC instructions (with their DPP16, DPP8 and SDWA forms) exactly as llvm-objdump-19
 * does for gfx1030. Everything instruction-specific comes from the table row: the operands in printed order
 * with their types, and the flags (e32, dpp, sdwa, literal, fmods, dppsext, dppmodsignored, vgprsrc, vldssrc,
 * fieldszero) documented at
 * the top of VOP1.tsv. Fields llvm would refuse (a modifier the instruction does not take, an SDWA select of
 * 7, a register range past its file) throw {@link IllegalArgumentException}.
 */
public final class ValuShortPrinter {
    private static final String[] SEL = {"BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3", "WORD_0", "WORD_1", "DWORD"};
    private static final String[] UNUSED = {"UNUSED_PAD", "UNUSED_SEXT", "UNUSED_PRESERVE", "UNUSED_PAD"};
    private static final String[] OMOD = {"", " mul:2", " mul:4", " div:2"};

    private ValuShortPrinter() {
    }

    /** The instruction in llvm-objdump-19's spelling for the given wave size. */
    public static String print(Instruction insn, Syntax syntax) {
        Opcode op = insn.opcode();
        Fields f = insn.fields();
        int vdst;
        int src0;
        int vsrc1;
        ValuVariant variant;
        if (f instanceof Fields.Vop1 v) {
            vdst = v.vdst();
            src0 = v.src0();
            vsrc1 = -1;
            variant = v.variant();
        } else if (f instanceof Fields.Vop2 v) {
            vdst = v.vdst();
            src0 = v.src0();
            vsrc1 = v.vsrc1();
            variant = v.variant();
        } else if (f instanceof Fields.Vopc v) {
            vdst = -1;
            src0 = v.src0();
            vsrc1 = v.vsrc1();
            variant = v.variant();
        } else {
            throw new IllegalArgumentException(insn.encoding() + " is not a VOP1, VOP2 or VOPC instruction");
        }
        if (op.operands().isEmpty()) {
            if (op.has(OpcodeFlag.FIELDSZERO) && insn.words().get(0) != 0) {
                throw new IllegalArgumentException(op.mnemonic() + " is only the all-zero word");
            }
            return bare(op, vdst, variant);
        }
        Sources s = new Sources(op, insn, syntax, variant, src0, vsrc1);
        List<String> text = new ArrayList<>();
        for (String operand : op.operands()) {
            int colon = operand.indexOf(':');
            String name = operand.substring(0, colon);
            String type = operand.substring(colon + 1);
            text.add(switch (name) {
                case "vdst" -> ValuShortOperands.vgpr(vdst, Operands.Type.of(type).dwords);
                case "sdst" -> type.equals("lanemask") ? compareDestination(op, syntax, variant) : scalarDestination(vdst, insn);
                case "cond", "carryin", "carryout" -> ValuShortOperands.laneMask(syntax);
                case "src0" -> s.src0();
                case "vsrc1" -> s.vsrc1();
                case "k" -> Operands.hex(literal(insn));
                default -> throw new IllegalStateException(op + ": unknown operand " + operand);
            });
        }
        String mnemonic = op.mnemonic() + suffix(op, variant);
        return mnemonic + " " + String.join(", ", text) + tail(op, insn.encoding(), variant);
    }

    /** An instruction without operands (v_nop, v_pipeflush, v_clrexcp): its destination field must be clear. */
    private static String bare(Opcode op, int vdst, ValuVariant variant) {
        if (vdst > 0) {
            throw new IllegalArgumentException(op.mnemonic() + " takes no destination, but the field holds " + vdst);
        }
        if (variant instanceof ValuVariant.Dpp16 d) {
            return op.mnemonic() + dpp16Tail(d);
        }
        if (variant instanceof ValuVariant.Dpp8 d) {
            return op.mnemonic() + dpp8Tail(d);
        }
        return op.mnemonic();
    }

    private static String suffix(Opcode op, ValuVariant variant) {
        if (variant instanceof ValuVariant.Dpp16 || variant instanceof ValuVariant.Dpp8) {
            return "_dpp";
        }
        if (variant instanceof ValuVariant.Sdwa) {
            return "_sdwa";
        }
        return op.has(OpcodeFlag.E32) ? "_e32" : "";
    }

    private static String tail(Opcode op, Encoding e, ValuVariant variant) {
        if (variant instanceof ValuVariant.Dpp16 d) {
            return dpp16Tail(d);
        }
        if (variant instanceof ValuVariant.Dpp8 d) {
            return dpp8Tail(d);
        }
        if (variant instanceof ValuVariant.Sdwa w) {
            StringBuilder b = new StringBuilder();
            if (e != Encoding.VOPC) {
                if (w.clamp()) {
                    b.append(" clamp");
                }
                if (w.omod() != 0 && !Operands.Type.of(op.operandType("vdst")).floating) {
                    throw new IllegalArgumentException(op.mnemonic() + " takes no output modifier");
                }
                b.append(OMOD[w.omod()]);
                b.append(" dst_sel:").append(sel(w.dstSel())).append(" dst_unused:").append(UNUSED[w.dstUnused()]);
            }
            b.append(" src0_sel:").append(sel(w.src0Sel()));
            if (e != Encoding.VOP1) {
                b.append(" src1_sel:").append(sel(w.src1Sel()));
            }
            return b.toString();
        }
        return "";
    }

    private static String sel(int sel) {
        if (sel >= SEL.length) {
            throw new IllegalArgumentException("SDWA select " + sel + " is reserved");
        }
        return SEL[sel];
    }

    private static String dpp16Tail(ValuVariant.Dpp16 d) {
        return " " + dppControl(d.dppCtrl()) + " row_mask:0x" + Integer.toHexString(d.rowMask()) + " bank_mask:0x"
                + Integer.toHexString(d.bankMask()) + (d.boundCtrl() ? " bound_ctrl:1" : "") + (d.fi() ? " fi:1" : "");
    }

    private static String dpp8Tail(ValuVariant.Dpp8 d) {
        StringBuilder b = new StringBuilder(" dpp8:[");
        for (int i = 0; i < d.selects().size(); i++) {
            b.append(i == 0 ? "" : ",").append(d.selects().get(i));
        }
        return b.append(']').append(d.fi() ? " fi:1" : "").toString();
    }

    /** DPP_CTRL as llvm-objdump-19 prints it for gfx10, including its comments for values gfx10 lacks. */
    static String dppControl(int c) {
        if (c <= 0xFF) {
            return "quad_perm:[" + (c & 3) + "," + (c >> 2 & 3) + "," + (c >> 4 & 3) + "," + (c >> 6 & 3) + "]";
        }
        int low = c & 0xF;
        if (low != 0) {
            switch (c & ~0xF) {
                case 0x100: return "row_shl:" + low;
                case 0x110: return "row_shr:" + low;
                case 0x120: return "row_ror:" + low;
                default: break;
            }
        }
        switch (c & ~0xF) {
            case 0x150: return "row_share:" + low;
            case 0x160: return "row_xmask:" + low;
            default: break;
        }
        return switch (c) {
            case 0x130 -> "/* wave_shl is not supported starting from GFX10 */";
            case 0x134 -> "/* wave_rol is not supported starting from GFX10 */";
            case 0x138 -> "/* wave_shr is not supported starting from GFX10 */";
            case 0x13C -> "/* wave_ror is not supported starting from GFX10 */";
            case 0x140 -> "row_mirror";
            case 0x141 -> "row_half_mirror";
            case 0x142, 0x143 -> "/* row_bcast is not supported starting from GFX10 */";
            default -> "/* Invalid dpp_ctrl value */";
        };
    }

    /** The VOPC destination: VCC, or in SDWA with SD set the SGPR (pair in wave64) in SDST. */
    private static String compareDestination(Opcode op, Syntax syntax, ValuVariant variant) {
        if (variant instanceof ValuVariant.Sdwa w && w.sd()) {
            return ValuShortOperands.scalar(w.sdst(), syntax.laneMaskDwords());
        }
        return ValuShortOperands.laneMask(syntax);
    }

    /** v_readfirstlane's destination: an SGPR-like code; llvm marks constants as invalid immediates. */
    private static String scalarDestination(int code, Instruction insn) {
        if (code <= 127) {
            return ValuShortOperands.scalar(code, 1);
        }
        if (code == 254) {
            return "src_lds_direct/*Invalid register, operand has 'SReg_32' register class*/";
        }
        String value = ValuShortOperands.source(code, Operands.Type.B32, insn.literal());
        return Operands.isInlineConstant(code) || code == Operands.LITERAL ? value + "/*Invalid immediate*/" : value;
    }

    private static int literal(Instruction insn) {
        if (insn.literal().isEmpty()) {
            throw new IllegalArgumentException(insn.mnemonic() + " needs a literal constant, but none follows");
        }
        return insn.literal().getAsInt();
    }

    /** The two sources, spelled for the instruction's form (plain, DPP or SDWA) with their modifiers. */
    private record Sources(Opcode op, Instruction insn, Syntax syntax, ValuVariant variant, int src0Code, int vsrc1Code) {
        String src0() {
            Operands.Type type = ValuShortOperands.type(op, "src0");
            if (variant instanceof ValuVariant.Dpp16 d) {
                return dppMods(ValuShortOperands.vgpr(d.src0(), 1), "src0", d.src0Neg(), d.src0Abs());
            }
            if (variant instanceof ValuVariant.Dpp8 d) {
                return ValuShortOperands.vgpr(d.src0(), 1);
            }
            if (variant instanceof ValuVariant.Sdwa w) {
                if (insn.encoding() == Encoding.VOP1 && (w.src1Sel() != 0 || w.src1Sext() || w.src1Neg() || w.src1Abs()
                        || w.src1Sgpr())) {
                    throw new IllegalArgumentException(op.mnemonic() + " has no src1, but its SDWA src1 fields are set");
                }
                String reg = w.src0Sgpr() ? ValuShortOperands.source(w.src0(), type, OptionalInt.empty())
                        : ValuShortOperands.vgpr(w.src0(), 1);
                boolean immediate = w.src0Sgpr() && Operands.isInlineConstant(w.src0());
                return sdwaMods(reg, "src0", immediate, w.src0Sext(), w.src0Neg(), w.src0Abs());
            }
            if (op.has(OpcodeFlag.VGPRSRC) || op.has(OpcodeFlag.VLDSSRC)) {
                return restricted(src0Code);
            }
            return ValuShortOperands.source(src0Code, type, insn.literal());
        }

        String vsrc1() {
            Operands.Type type = ValuShortOperands.type(op, "vsrc1");
            String reg;
            if (variant instanceof ValuVariant.Dpp16 d) {
                return dppMods(ValuShortOperands.vgpr(vsrc1Code, 1), "vsrc1", d.src1Neg(), d.src1Abs());
            }
            if (variant instanceof ValuVariant.Sdwa w) {
                reg = w.src1Sgpr() ? ValuShortOperands.source(vsrc1Code, type, OptionalInt.empty())
                        : ValuShortOperands.vgpr(vsrc1Code, 1);
                boolean immediate = w.src1Sgpr() && Operands.isInlineConstant(vsrc1Code);
                return sdwaMods(reg, "vsrc1", immediate, w.src1Sext(), w.src1Neg(), w.src1Abs());
            }
            return ValuShortOperands.vgpr(vsrc1Code, type.dwords);
        }

        private boolean takesFloatMods(String name) {
            return op.has(OpcodeFlag.FMODS) || ValuShortOperands.type(op, name).floating;
        }

        private String dppMods(String reg, String name, boolean neg, boolean abs) {
            if (op.has(OpcodeFlag.DPPMODSIGNORED)) {
                return reg;
            }
            if (op.has(OpcodeFlag.DPPSEXT) && !takesFloatMods(name)) {
                return neg ? "sext(" + reg + ")" : reg;
            }
            return floatMods(reg, name, false, neg, abs);
        }

        /**
         * Neg and abs around a source; a negated constant without abs prints as {@code neg(c)}, which llvm
         * prefers to {@code -c} for immediates.
         */
        private String floatMods(String reg, String name, boolean immediate, boolean neg, boolean abs) {
            if ((neg || abs) && !takesFloatMods(name)) {
                throw new IllegalArgumentException(op.mnemonic() + " " + name + " takes no neg/abs modifier");
            }
            if (neg && !abs && immediate) {
                return "neg(" + reg + ")";
            }
            String s = abs ? "|" + reg + "|" : reg;
            return neg ? "-" + s : s;
        }

        private String sdwaMods(String reg, String name, boolean immediate, boolean sext, boolean neg, boolean abs) {
            if (sext) {
                if (takesFloatMods(name)) {
                    throw new IllegalArgumentException(op.mnemonic() + " " + name + " takes no sext modifier");
                }
                return "sext(" + reg + ")";
            }
            return floatMods(reg, name, immediate, neg, abs);
        }

        /** A src0 that must be a VGPR (or lds_direct): llvm prints anything else with a comment. */
        private String restricted(int code) {
            if (code >= Operands.FIRST_VGPR) {
                return ValuShortOperands.vgpr(code - Operands.FIRST_VGPR, 1);
            }
            String cls = op.has(OpcodeFlag.VLDSSRC) ? "VRegOrLds_32" : "VGPR_32";
            String invalidRegister = "/*Invalid register, operand has '" + cls + "' register class*/";
            if (code == Operands.NULL || code >= 235 && code <= 239 || code >= 251 && code <= 253) {
                return ValuShortOperands.scalar(code, 1);
            }
            if (code == 254) {
                return op.has(OpcodeFlag.VLDSSRC) ? "src_lds_direct" : "src_lds_direct" + invalidRegister;
            }
            if (code <= 127) {
                return ValuShortOperands.scalar(code, 1) + invalidRegister;
            }
            if (Operands.isInlineConstant(code) || code == Operands.LITERAL) {
                return ValuShortOperands.source(code, Operands.Type.B32, insn.literal()) + "/*Invalid immediate*/";
            }
            throw new IllegalArgumentException("operand code " + code + " names no source");
        }
    }
}
