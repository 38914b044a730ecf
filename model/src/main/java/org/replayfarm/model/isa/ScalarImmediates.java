package org.replayfarm.model.isa;

/**
 * How llvm-objdump-19 spells the structured 16-bit immediates of the scalar encodings for gfx1030:
 * s_waitcnt counters, s_sendmsg messages, s_waitcnt_depctr fields, hwreg(...) operands and s_version
 * codes. Names and bit positions are facts of the gfx1030 ISA as llvm-objdump-19 prints them.
 */
final class ScalarImmediates {
    private ScalarImmediates() {
    }

    /** Decimal for 0..64, else 0x-hexadecimal (the plain SOPP immediate). */
    static String imm16(int v) {
        return v <= 64 ? Integer.toString(v) : Operands.hex(v);
    }


    /** s_waitcnt: counters not at their maximum, or all three when every one is at its maximum. */
    static String waitcnt(int v) {
        int vm = (v & 0xF) | ((v >>> 14) & 3) << 4;
        int exp = (v >>> 4) & 7;
        int lgkm = (v >>> 8) & 0x3F;
        boolean all = vm == 63 && exp == 7 && lgkm == 63;
        StringBuilder s = new StringBuilder();
        if (all || vm != 63) {
            s.append("vmcnt(").append(vm).append(')');
        }
        if (all || exp != 7) {
            s.append(s.length() > 0 ? " " : "").append("expcnt(").append(exp).append(')');
        }
        if (all || lgkm != 63) {
            s.append(s.length() > 0 ? " " : "").append("lgkmcnt(").append(lgkm).append(')');
        }
        return s.toString();
    }

    private static final int MSG_GS = 2;
    private static final int MSG_GS_DONE = 3;
    private static final int MSG_SYSMSG = 15;

    private static String messageName(int id) {
        return switch (id) {
            case 1 -> "MSG_INTERRUPT";
            case MSG_GS -> "MSG_GS";
            case MSG_GS_DONE -> "MSG_GS_DONE";
            case 4 -> "MSG_SAVEWAVE";
            case 5 -> "MSG_STALL_WAVE_GEN";
            case 6 -> "MSG_HALT_WAVES";
            case 7 -> "MSG_ORDERED_PS_DONE";
            case 8 -> "MSG_EARLY_PRIM_DEALLOC";
            case 9 -> "MSG_GS_ALLOC_REQ";
            case 10 -> "MSG_GET_DOORBELL";
            case 11 -> "MSG_GET_DDID";
            case MSG_SYSMSG -> "MSG_SYSMSG";
            default -> null;
        };
    }

    private static final String[] GS_OPS = {"GS_OP_NOP", "GS_OP_CUT", "GS_OP_EMIT", "GS_OP_EMIT_CUT"};

    private static String sysmsgOp(int op) {
        return switch (op) {
            case 1 -> "SYSMSG_OP_ECC_ERR_INTERRUPT";
            case 2 -> "SYSMSG_OP_REG_RD";
            case 4 -> "SYSMSG_OP_TTRACE_PC";
            default -> null;
        };
    }

    /**
     * s_sendmsg: message [3:0], operation [6:4], stream [9:8]. A known message with a valid operation
     * and stream prints by name; other values that the three fields re-encode print as numbers in
     * sendmsg(..); the rest print as the decimal SIMM16.
     */
    static String sendmsg(int v) {
        int id = v & 0xF;
        int op = (v >>> 4) & 7;
        int stream = (v >>> 8) & 3;
        String name = messageName(id);
        boolean gs = id == MSG_GS || id == MSG_GS_DONE;
        if (name != null) {
            String opName = null;
            boolean valid;
            if (gs) {
                valid = op < 4 && (op != 0 || id == MSG_GS_DONE) && (op != 0 || stream == 0);
                opName = op < 4 ? GS_OPS[op] : null;
            } else if (id == MSG_SYSMSG) {
                opName = sysmsgOp(op);
                valid = opName != null && stream == 0;
            } else {
                valid = op == 0 && stream == 0;
            }
            if (valid) {
                if (gs && op != 0) {
                    return "sendmsg(" + name + ", " + opName + ", " + stream + ")";
                }
                return opName != null ? "sendmsg(" + name + ", " + opName + ")" : "sendmsg(" + name + ")";
            }
        }
        if ((id | op << 4 | stream << 8) == v) {
            return "sendmsg(" + id + ", " + op + ", " + stream + ")";
        }
        return Integer.toString(v);
    }

    /** The s_waitcnt_depctr fields in llvm's order: name, shift, width; each field's default is all ones. */
    private static final String[] DEPCTR_NAMES = {"depctr_hold_cnt", "depctr_sa_sdst", "depctr_va_vdst",
            "depctr_va_sdst", "depctr_va_ssrc", "depctr_va_vcc", "depctr_vm_vsrc"};
    private static final int[] DEPCTR_SHIFT = {7, 0, 12, 9, 8, 1, 2};
    private static final int[] DEPCTR_WIDTH = {1, 1, 4, 3, 1, 1, 3};

    /**
     * s_waitcnt_depctr: when every set bit belongs to a field, the fields that differ from their default
     * (all of them when none does); else 0x-hexadecimal.
     */
    static String depctr(int v) {
        int covered = 0;
        boolean nonDefault = false;
        for (int i = 0; i < DEPCTR_NAMES.length; i++) {
            int mask = ((1 << DEPCTR_WIDTH[i]) - 1) << DEPCTR_SHIFT[i];
            covered |= mask;
            nonDefault |= (v & mask) != mask;
        }
        if ((v & ~covered & 0xFFFF) != 0) {
            return Operands.hex(v);
        }
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < DEPCTR_NAMES.length; i++) {
            int max = (1 << DEPCTR_WIDTH[i]) - 1;
            int field = (v >>> DEPCTR_SHIFT[i]) & max;
            if (field != max || !nonDefault) {
                s.append(s.length() > 0 ? " " : "").append(DEPCTR_NAMES[i]).append('(').append(field).append(')');
            }
        }
        return s.toString();
    }

    private static String hwregName(int id) {
        return switch (id) {
            case 1 -> "HW_REG_MODE";
            case 2 -> "HW_REG_STATUS";
            case 3 -> "HW_REG_TRAPSTS";
            case 5 -> "HW_REG_GPR_ALLOC";
            case 6 -> "HW_REG_LDS_ALLOC";
            case 7 -> "HW_REG_IB_STS";
            case 15 -> "HW_REG_SH_MEM_BASES";
            case 16 -> "HW_REG_TBA_LO";
            case 17 -> "HW_REG_TBA_HI";
            case 18 -> "HW_REG_TMA_LO";
            case 19 -> "HW_REG_TMA_HI";
            case 20 -> "HW_REG_FLAT_SCR_LO";
            case 21 -> "HW_REG_FLAT_SCR_HI";
            case 23 -> "HW_REG_HW_ID1";
            case 24 -> "HW_REG_HW_ID2";
            case 25 -> "HW_REG_POPS_PACKER";
            case 29 -> "HW_REG_SHADER_CYCLES";
            default -> null;
        };
    }

    /** hwreg(ID, OFFSET, SIZE) with ID [5:0], OFFSET [10:6], SIZE-1 [15:11]; hwreg(ID) for the whole register. */
    static String hwreg(int v) {
        int id = v & 0x3F;
        int offset = (v >>> 6) & 0x1F;
        int size = ((v >>> 11) & 0x1F) + 1;
        String name = hwregName(id);
        String reg = name != null ? name : Integer.toString(id);
        return offset == 0 && size == 32 ? "hwreg(" + reg + ")" : "hwreg(" + reg + ", " + offset + ", " + size + ")";
    }

    /**
     * s_version: when bits [12:8] are clear, the version in [7:0] (by name where it has one) joined with
     * the set flag bits W64 [13], W32 [14], MDP [15], each join parenthesising what came before; else hex.
     */
    static String version(int v) {
        if ((v & 0x1F00) != 0) {
            return Operands.hex(v);
        }
        int code = v & 0xFF;
        String expr = switch (code) {
            case 0 -> "UC_VERSION_GFX7";
            case 4 -> "UC_VERSION_GFX10";
            case 6 -> "UC_VERSION_GFX11";
            case 9 -> "UC_VERSION_GFX12";
            default -> Integer.toString(code);
        };
        String[] flags = {"UC_VERSION_W64_BIT", "UC_VERSION_W32_BIT", "UC_VERSION_MDP_BIT"};
        int joined = 0;
        for (int i = 0; i < 3; i++) {
            if ((v & (0x2000 << i)) != 0) {
                expr = (joined > 0 ? "(" + expr + ")" : expr) + "|" + flags[i];
                joined++;
            }
        }
        return expr;
    }
}
