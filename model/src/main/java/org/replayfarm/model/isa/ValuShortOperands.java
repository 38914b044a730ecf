package org.replayfarm.model.isa;

import java.util.OptionalInt;

/**
 * How llvm-objdump-19 spells the operands of VOP1, VOP2 and VOPC instructions where {@link Operands} does not
 * cover it: 64-bit scalar sources (an odd SGPR or trap temporary is printed as the aligned pair below it),
 * literals by operand type, lane masks, and sources that must be VGPRs but are not.
 */
final class ValuShortOperands {

    private ValuShortOperands() {
    }

    /** The value type of a named operand (b16, i16, f16, b32, f32, b64, f64, v2f16). */
    static Operands.Type type(Opcode op, String name) {
        String t = op.operandType(name);
        if (t == null) {
            throw new IllegalArgumentException(op.mnemonic() + " has no operand " + name);
        }
        return Operands.Type.of(t);
    }

    /** vcc_lo in wave32, vcc in wave64. */
    static String laneMask(Syntax syntax) {
        return syntax.waveSize() == 32 ? "vcc_lo" : "vcc";
    }

    /** A VGPR or VGPR range that must fit v0..v255. */
    static String vgpr(int first, int dwords) {
        if (first + dwords - 1 > 255) {
            throw new IllegalArgumentException("VGPR range v" + first + " + " + dwords + " dwords runs past v255");
        }
        return Operands.vgpr(first, dwords);
    }

    /** A 9-bit source code of the given type; {@code literal} is the instruction's literal, if any. */
    static String source(int code, Operands.Type type, OptionalInt literal) {
        if (code >= Operands.FIRST_VGPR) {
            return vgpr(code - Operands.FIRST_VGPR, type.dwords);
        }
        OptionalInt integer = Operands.inlineInteger(code);
        if (integer.isPresent()) {
            return Integer.toString(integer.getAsInt());
        }
        if (code >= 240 && code <= 248) {
            return Operands.floatConstant(code, type);
        }
        if (code == Operands.LITERAL) {
            if (literal.isEmpty()) {
                throw new IllegalArgumentException("source 255 names a literal, but none follows");
            }
            return Operands.literal(literal.getAsInt(), type);
        }
        return scalar(code, type.dwords);
    }

    /** A scalar register operand of one or two dwords; an odd register of a pair prints as the pair below it. */
    static String scalar(int code, int dwords) {
        String name = dwords == 1 || code <= 127 || code >= 235 && code <= 239 || code >= 251 && code <= 253
                ? Operands.scalarRegister(code, dwords) : null;
        if (name == null) {
            throw new IllegalArgumentException("operand code " + code + " names no " + (32 * dwords) + "-bit source");
        }
        return name;
    }

}
