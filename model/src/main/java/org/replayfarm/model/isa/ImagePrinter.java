package org.replayfarm.model.isa;

import java.util.ArrayList;
import java.util.List;

/**
 * Prints MIMG, EXP and VINTRP instructions as llvm-objdump-19 does for gfx1030. The operands and their
 * order come from the instruction's table row; the widths of the MIMG data and address registers follow
 * the row's facts (see the header of {@code MIMG.tsv}), including the forms llvm falls back to when a
 * computed width has none. Fields that no form can print (a register range past v255 or s105, a modifier
 * the row does not take) throw {@link IllegalArgumentException}.
 */
final class ImagePrinter {
    private static final String[] DIM_NAMES = {"1D", "2D", "3D", "CUBE", "1D_ARRAY", "2D_ARRAY", "2D_MSAA",
            "2D_MSAA_ARRAY"};
    private static final String[] CHANNELS = {"x", "y", "z", "w"};
    private static final String[] INTERP_PARAMS = {"p10", "p20", "p0"};

    private ImagePrinter() {
    }

    static String print(Instruction insn, Syntax syntax) {
        Fields f = insn.fields();
        if (f instanceof Fields.Mimg m) {
            return mimg(insn.opcode(), m);
        } else if (f instanceof Fields.Exp e) {
            return exp(insn.opcode(), e);
        } else if (f instanceof Fields.Vintrp v) {
            return vintrp(insn.opcode(), v);
        }
        throw new IllegalArgumentException(insn.encoding() + " is not an image, export or interpolation encoding");
    }

    // ---------------------------------------------------------------- MIMG

    private static String mimg(Opcode op, Fields.Mimg m) {
        MimgForm form = MimgForm.of(op);
        if (!form.sampler() && m.ssamp() != 0) {
            throw invalid(op, "the SSAMP field is " + (m.ssamp() >> 2) + " but the instruction takes no sampler");
        }
        for (String name : List.of("d16", "glc", "slc", "dlc", "unorm", "r128", "tfe", "lwe", "a16")) {
            if (bit(m, name) && op.operandType(name) == null && !form.bvh()) {
                throw invalid(op, name + " is set but the instruction does not take it");
            }
        }
        Choice c = form.bvh() ? bvh(op, form, m) : choose(op, form, m);
        StringBuilder s = new StringBuilder(op.mnemonic());
        s.append(m.nsaDwords() > 0 && form.nsaTwoSpaces() ? "  " : " ");
        boolean first = true;
        for (String operand : op.operands()) {
            int colon = operand.indexOf(':');
            String name = operand.substring(0, colon);
            String type = operand.substring(colon + 1);
            String text = switch (type) {
                case "vdata" -> Operands.vgpr(m.vdata(), c.dataRegs());
                case "vaddr" -> c.address();
                case "rsrc8" -> sgprs(op, "srsrc", m.srsrc(), 8);
                case "rsrc4" -> sgprs(op, "srsrc", m.srsrc(), 4);
                case "samp4" -> sgprs(op, "ssamp", m.ssamp(), 4);
                case "dmask" -> m.dmask() == 0 ? null : "dmask:0x" + Integer.toHexString(m.dmask());
                case "dim" -> "dim:SQ_RSRC_IMG_" + DIM_NAMES[m.dim()];
                case "bit" -> bit(m, name) ? name : null;
                default -> throw new IllegalStateException("MIMG table: unknown operand type " + operand + " of " + op);
            };
            if (text == null) {
                continue;
            }
            boolean modifier = type.equals("dmask") || type.equals("dim") || type.equals("bit");
            if (!first) {
                s.append(modifier ? " " : ", ");
            }
            s.append(text);
            first = false;
        }
        return s.toString();
    }

    /** The data register count and the address text an instruction prints with. */
    private record Choice(int dataRegs, String address) {
    }

    private static Choice bvh(Opcode op, MimgForm form, Fields.Mimg m) {
        if (m.dim() != 0 || m.dmask() != 0xF || !m.unorm() || !m.r128() || m.glc() || m.slc() || m.dlc() || m.tfe()
                || m.lwe() || m.d16()) {
            throw invalid(op, "a ray intersection takes dim 1D, dmask 0xf, unorm and r128 and no other modifier than a16");
        }
        int count = m.a16() ? form.bvhAddressesA16() : form.bvhAddresses();
        int dataRegs = form.data().get(0)[1];
        checkVgprs(op, "vdata", m.vdata(), dataRegs);
        if (m.nsaDwords() == 0) {
            checkVgprs(op, "vaddr", m.vaddr(), count);
            return new Choice(dataRegs, Operands.vgpr(m.vaddr(), count));
        }
        if (nsaDwordsFor(count) != m.nsaDwords()) {
            throw invalid(op, count + " NSA addresses need " + nsaDwordsFor(count) + " NSA dwords, not " + m.nsaDwords());
        }
        return new Choice(dataRegs, nsaList(m, count));
    }

    /** Picks the data and address widths as llvm-objdump does: the computed ones when a form has them, else the default. */
    private static Choice choose(Opcode op, MimgForm form, Fields.Mimg m) {
        int[] defaultData = form.data().get(0);
        int dataWidth = form.gather4() ? 4 : Math.max(Integer.bitCount(m.dmask()), 1);
        if (m.d16()) {
            dataWidth = (dataWidth + 1) / 2;
        }
        if (m.tfe()) {
            dataWidth++;
        }
        int[] data = null;
        for (int[] d : form.data()) {
            if (d[0] == dataWidth) {
                data = d;
            }
        }
        int addresses = form.addresses(m.dim(), m.a16());
        boolean nsa = m.nsaDwords() > 0;
        int defaultAddresses;
        boolean addressForm;
        if (!nsa) {
            if (addresses > 12) {
                addresses = 16;
            }
            defaultAddresses = form.plainAddresses().get(0);
            addressForm = form.plainAddresses().contains(addresses);
        } else {
            defaultAddresses = -1;
            for (int n : form.nsaAddresses()) {
                if (nsaDwordsFor(n) == m.nsaDwords()) {
                    defaultAddresses = Math.max(defaultAddresses, n);
                }
            }
            if (defaultAddresses < 0) {
                throw invalid(op, "no NSA form with " + m.nsaDwords() + " address dwords");
            }
            addressForm = addresses <= defaultAddresses && form.nsaAddresses().contains(addresses);
        }
        checkVgprs(op, "vdata", m.vdata(), defaultData[1]);
        if (!nsa) {
            checkVgprs(op, "vaddr", m.vaddr(), defaultAddresses);
        }
        boolean fits = data != null && addressForm && m.vdata() + data[1] <= 256 && (nsa || m.vaddr() + addresses <= 256);
        int dataRegs = fits ? data[1] : defaultData[1];
        int count = fits ? addresses : defaultAddresses;
        return new Choice(dataRegs, nsa ? nsaList(m, count) : Operands.vgpr(m.vaddr(), count));
    }

    /** NSA dwords that hold the bytes of all addresses but the first. */
    static int nsaDwordsFor(int addresses) {
        return (addresses - 1 + 3) / 4;
    }

    private static String nsaList(Fields.Mimg m, int count) {
        List<String> regs = new ArrayList<>();
        regs.add("v" + m.vaddr());
        for (int i = 0; i < count - 1; i++) {
            regs.add("v" + m.nsaAddresses().get(i));
        }
        return "[" + String.join(", ", regs) + "]";
    }

    private static void checkVgprs(Opcode op, String what, int first, int count) {
        if (first + count - 1 > 255) {
            throw invalid(op, what + " " + Operands.vgpr(first, count).replace(":", "..") + " runs past v255");
        }
    }

    private static String sgprs(Opcode op, String what, int first, int count) {
        String text = Operands.scalarRegister(first, count); // the field is the register number / 4
        if (text == null || first > 123) {
            throw invalid(op, what + " field " + (first >> 2) + " names no range of " + count + " scalar registers");
        }
        return text;
    }

    private static boolean bit(Fields.Mimg m, String name) {
        return switch (name) {
            case "unorm" -> m.unorm();
            case "glc" -> m.glc();
            case "slc" -> m.slc();
            case "dlc" -> m.dlc();
            case "r128" -> m.r128();
            case "a16" -> m.a16();
            case "tfe" -> m.tfe();
            case "lwe" -> m.lwe();
            case "d16" -> m.d16();
            default -> throw new IllegalStateException("MIMG has no modifier bit " + name);
        };
    }

    // ---------------------------------------------------------------- EXP

    private static String exp(Opcode op, Fields.Exp e) {
        StringBuilder s = new StringBuilder(op.mnemonic());
        int[] vsrc = {e.vsrc0(), e.vsrc1(), e.vsrc2(), e.vsrc3()};
        int source = 0;
        for (String operand : op.operands()) {
            int colon = operand.indexOf(':');
            String name = operand.substring(0, colon);
            String type = operand.substring(colon + 1);
            switch (type) {
                case "target" -> s.append(' ').append(expTarget(e.target()));
                case "expsrc" -> {
                    int n = source++;
                    s.append(n == 0 ? " " : ", ");
                    s.append((e.en() >> n & 1) == 0 ? "off" : "v" + vsrc[e.compr() ? n / 2 : n]);
                }
                case "bit" -> {
                    boolean set = switch (name) {
                        case "done" -> e.done();
                        case "compr" -> e.compr();
                        case "vm" -> e.vm();
                        default -> throw new IllegalStateException("EXP has no modifier bit " + name);
                    };
                    if (set) {
                        s.append(' ').append(name);
                    }
                }
                default -> throw new IllegalStateException("EXP table: unknown operand type " + operand);
            }
        }
        return s.toString();
    }

    static String expTarget(int target) {
        if (target <= 7) {
            return "mrt" + target;
        } else if (target == 8) {
            return "mrtz";
        } else if (target == 9) {
            return "null";
        } else if (target >= 12 && target <= 16) {
            return "pos" + (target - 12);
        } else if (target == 20) {
            return "prim";
        } else if (target >= 32 && target <= 63) {
            return "param" + (target - 32);
        }
        return "invalid_target_" + target;
    }

    // ---------------------------------------------------------------- VINTRP

    private static String vintrp(Opcode op, Fields.Vintrp v) {
        StringBuilder s = new StringBuilder(op.mnemonic());
        if (op.has(OpcodeFlag.E32)) {
            s.append("_e32");
        }
        boolean first = true;
        for (String operand : op.operands()) {
            String type = operand.substring(operand.indexOf(':') + 1);
            String name = operand.substring(0, operand.indexOf(':'));
            String text = switch (type) {
                case "vgpr" -> "v" + (name.equals("vdst") ? v.vdst() : v.vsrc());
                case "param" -> v.vsrc() < INTERP_PARAMS.length ? INTERP_PARAMS[v.vsrc()] : "invalid_param_" + v.vsrc();
                case "attrchan" -> "attr" + v.attr() + "." + CHANNELS[v.attrChan()];
                default -> throw new IllegalStateException("VINTRP table: unknown operand type " + operand);
            };
            s.append(first ? " " : ", ").append(text);
            first = false;
        }
        return s.toString();
    }

    private static IllegalArgumentException invalid(Opcode op, String why) {
        return new IllegalArgumentException(op.mnemonic() + ": " + why);
    }
}
