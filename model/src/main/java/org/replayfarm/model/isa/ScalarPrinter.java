package org.replayfarm.model.isa;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

/**
 * Prints SOP1, SOP2, SOPK, SOPC, SOPP and SMEM instructions exactly as llvm-objdump-19 does for gfx1030
 * (wave32 and wave64 spell these the same). What each operand is comes from the table row
 * ({@code name:type}, types documented in the encodings' tables); an operand whose field names nothing
 * valid (a register range past s105, a misaligned range, a source code that is not a scalar source, a
 * nonzero immediate where the row takes none) throws {@link IllegalArgumentException}.
 */
public final class ScalarPrinter {
    private ScalarPrinter() {
    }

    public static String print(Instruction insn, Syntax syntax) {
        Opcode op = insn.opcode();
        Fields f = insn.fields();
        List<String> parts = new ArrayList<>();
        String suffix = "";
        for (String operand : op.operands()) {
            int colon = operand.indexOf(':');
            String name = operand.substring(0, colon);
            String type = operand.substring(colon + 1);
            if (type.equals("cpol")) {
                suffix = cachePolicy((Fields.Smem) f);
            } else if (!(type.equals("endpgm") && ((Fields.Sopp) f).simm16() == 0)) {
                parts.add(operand(insn, f, name, type));
            }
        }
        if (op.operands().isEmpty()) {
            requireNoImmediate(insn, f);
        }
        String text = parts.isEmpty() ? op.mnemonic() : op.mnemonic() + " " + String.join(", ", parts);
        return text + suffix;
    }

    private static String operand(Instruction insn, Fields f, String name, String type) {
        if (f instanceof Fields.Sop1 s) {
            return name.equals("sdst") ? destination(s.sdst(), type) : source(s.ssrc0(), type, insn.literal());
        } else if (f instanceof Fields.Sop2 s) {
            return switch (name) {
                case "sdst" -> destination(s.sdst(), type);
                case "ssrc0" -> source(s.ssrc0(), type, insn.literal());
                default -> source(s.ssrc1(), type, insn.literal());
            };
        } else if (f instanceof Fields.Sopc s) {
            return name.equals("ssrc0") ? source(s.ssrc0(), type, insn.literal()) : source(s.ssrc1(), type, insn.literal());
        } else if (f instanceof Fields.Sopk s) {
            if (name.equals("sdst")) {
                return destination(s.sdst(), type);
            }
            if (type.equals("lit32")) {
                return Operands.literal(insn.literal().orElseThrow(), Operands.Type.B32);
            }
            return immediate(s.simm16(), type);
        } else if (f instanceof Fields.Sopp s) {
            return immediate(s.simm16(), type);
        } else if (f instanceof Fields.Smem s) {
            return smem(s, name, type);
        }
        throw new IllegalArgumentException(insn.opcode() + " is not a scalar instruction");
    }

    private static void requireNoImmediate(Instruction insn, Fields f) {
        if (f instanceof Fields.Sopp s && s.simm16() != 0) {
            throw new IllegalArgumentException(insn.mnemonic() + " takes no immediate, but SIMM16 is "
                    + Operands.hex(s.simm16()));
        }
    }

    private static int dwords(String type) {
        return switch (type) {
            case "b32", "r32", "x32" -> 1;
            case "b64", "r64", "x64", "base64" -> 2;
            case "x128", "base128" -> 4;
            case "x256" -> 8;
            case "x512" -> 16;
            default -> throw new IllegalArgumentException("unknown scalar operand type " + type);
        };
    }

    /** A scalar register range (printed aligned, as the hardware reads it), checked for range. */
    static String register(int code, int dwords) {
        String text = code < 128 ? Operands.scalarRegister(code, dwords) : null;
        if (text == null) {
            throw new IllegalArgumentException("operand code " + code + " names no scalar register of "
                    + dwords + " dword(s)");
        }
        return text;
    }

    private static String destination(int code, String type) {
        return register(code, dwords(type));
    }

    private static String source(int code, String type, OptionalInt literal) {
        int dwords = dwords(type);
        if (type.startsWith("r") && (Operands.isInlineConstant(code) || code == Operands.LITERAL)) {
            throw new IllegalArgumentException("operand code " + code + " is a constant, but this source takes registers only");
        }
        if (code == Operands.LITERAL) {
            return Operands.literal(literal.orElseThrow(() -> new IllegalArgumentException("literal missing")),
                    dwords == 1 ? Operands.Type.B32 : Operands.Type.B64);
        }
        if (code == 254 || code >= 209 && code <= 234 || code == 249 || code == 250) {
            throw new IllegalArgumentException("operand code " + code + " is not a scalar source");
        }
        if (code < 128) {
            return register(code, dwords);
        }
        String text = Operands.source(code, dwords == 1 ? Operands.Type.B32 : Operands.Type.B64, OptionalInt.empty());
        if (text == null) {
            throw new IllegalArgumentException("operand code " + code + " is not a scalar source");
        }
        return text;
    }

    private static String immediate(int v, String type) {
        return switch (type) {
            case "imm16" -> ScalarImmediates.imm16(v);
            case "hex16" -> Operands.hex(v);
            case "udec16" -> Integer.toString(v);
            case "endpgm" -> Integer.toString(v);
            case "waitcnt" -> ScalarImmediates.waitcnt(v);
            case "sendmsg" -> ScalarImmediates.sendmsg(v);
            case "depctr" -> ScalarImmediates.depctr(v);
            case "hwreg" -> ScalarImmediates.hwreg(v);
            case "version" -> ScalarImmediates.version(v);
            default -> throw new IllegalArgumentException("unknown immediate type " + type);
        };
    }

    private static String smem(Fields.Smem s, String name, String type) {
        return switch (type) {
            case "imm7" -> ScalarImmediates.imm16(s.sdata());
            case "offset" -> smemOffset(s);
            default -> {
                int code = name.equals("sbase") ? s.sbase() : s.sdata();
                if (!name.equals("sbase") && (code == Operands.M0 || code == Operands.EXEC_LO || code == 127)) {
                    throw new IllegalArgumentException("SMEM data cannot be " + Operands.scalarRegister(code, 1));
                }
                yield register(code, dwords(type));
            }
        };
    }

    private static String smemOffset(Fields.Smem s) {
        String offset = s.offset() < 0 ? "-0x" + Integer.toHexString(-s.offset()) : "0x" + Integer.toHexString(s.offset());
        if (s.soffset() == Operands.NULL) {
            return s.offset() == 0 ? "null" : offset;
        }
        String reg = register(s.soffset(), 1);
        return s.offset() == 0 ? reg : reg + " offset:" + offset;
    }

    private static String cachePolicy(Fields.Smem s) {
        return (s.glc() ? " glc" : "") + (s.dlc() ? " dlc" : "");
    }
}
