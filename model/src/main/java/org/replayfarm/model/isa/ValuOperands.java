package org.replayfarm.model.isa;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

/**
 * How VOP3 and VOP3P operands print, as llvm-objdump-19 spells them: the table's operand types
 * ({@code name:type+mods}, see the header of {@code VOP3.tsv}), register ranges (64-bit scalar ranges
 * start at an even register, as llvm prints them), inline constants and literals per operand type.
 * An operand code that llvm marks invalid for the operand throws {@link IllegalArgumentException}.
 */
final class ValuOperands {
    /** One operand of a table row: its name, its type and the input modifiers it prints. */
    record Operand(String name, String type, boolean neg, boolean abs, boolean sext) {
        static Operand parse(String spec) {
            int colon = spec.indexOf(':');
            String name = colon < 0 ? spec : spec.substring(0, colon);
            String rest = colon < 0 ? "" : spec.substring(colon + 1);
            String[] parts = rest.split("\\+");
            boolean neg = false;
            boolean abs = false;
            boolean sext = false;
            for (int i = 1; i < parts.length; i++) {
                switch (parts[i]) {
                    case "neg" -> neg = true;
                    case "abs" -> abs = true;
                    case "sext" -> sext = true;
                    default -> throw new IllegalStateException("unknown operand modifier '" + parts[i] + "' in " + spec);
                }
            }
            return new Operand(name, parts[0], neg, abs, sext);
        }

        /** The source field (0, 1, 2) a source-like operand reads, or -1. */
        int sourceField() {
            return switch (name) {
                case "src0", "attr" -> 0;
                case "src1", "vsrc1", "param" -> 1;
                case "src2", "vsrc2" -> 2;
                default -> -1;
            };
        }
    }


    private ValuOperands() {
    }

    /** An inline constant or the literal (what a NEG bit alone prints as {@code neg(c)}). */
    static boolean isConstant(int code) {
        return Operands.isInlineConstant(code) || code == Operands.LITERAL;
    }

    /**
     * The apertures, the POPS id and src_vccz/execz/scc: llvm prints them by name in any source,
     * whatever register class the operand has.
     */
    static boolean isSpecialSource(int code) {
        return code >= 235 && code <= 239 || code >= 251 && code <= 253;
    }

    static List<Operand> operands(Opcode op) {
        List<Operand> list = new ArrayList<>();
        for (String s : op.operands()) {
            list.add(Operand.parse(s));
        }
        return list;
    }

    /** Registers (dwords) of a value type. */
    static int dwords(String type) {
        return switch (type) {
            case "b64", "f64" -> 2;
            case "b128" -> 4;
            default -> 1;
        };
    }

    static Operands.Type valueType(String type) {
        return switch (type) {
            case "f16", "mix" -> Operands.Type.F16;
            case "v2f16" -> Operands.Type.V2F16;
            case "v2i16" -> Operands.Type.V2I16;
            case "i16" -> Operands.Type.I16;
            case "f32" -> Operands.Type.F32;
            case "f64" -> Operands.Type.F64;
            case "b64" -> Operands.Type.B64;
            default -> Operands.Type.B32;
        };
    }

    /** A VGPR destination of the given type. */
    static String vgprDestination(int vdst, String type) {
        int n = dwords(type);
        if (vdst + n - 1 > 255) {
            throw new IllegalArgumentException("VGPR range v" + vdst + " of " + n + " registers passes v255");
        }
        return Operands.vgpr(vdst, n);
    }

    /**
     * A scalar register code (0-127) spelled for {@code dwords} registers, or null where llvm has no such
     * register. A multi-register range of SGPRs or trap temporaries prints aligned, as llvm prints it.
     */
    static String scalar(int code, int dwords) {
        if (dwords == 1 || code <= 105 || code >= 108 && code <= 123) {
            return code < 128 ? Operands.scalarRegister(code, dwords) : null;
        }
        return switch (code) {
            case Operands.VCC_LO -> dwords == 2 ? "vcc" : null;
            case Operands.NULL -> "null";
            case Operands.EXEC_LO -> dwords == 2 ? "exec" : null;
            default -> null;
        };
    }

    /** A lane mask: a destination may be exec, a source may not; constants and VGPRs are invalid. */
    static String laneMask(int code, Syntax syntax, boolean destination) {
        int n = syntax.laneMaskDwords();
        if (code >= 128 || !destination && (code == Operands.EXEC_LO || code == 127)) {
            throw new IllegalArgumentException("operand code " + code + " is not a lane mask"
                    + (destination ? "" : " source"));
        }
        String s = scalar(code, n);
        if (s == null) {
            throw new IllegalArgumentException("operand code " + code + " names no " + (32 * n) + "-bit lane mask");
        }
        return s;
    }

    /** A 32-bit scalar destination (v_readlane): SGPRs and the special scalar registers, no constants. */
    static String scalarDestination(int code) {
        String s = code < 128 ? scalar(code, 1) : null;
        if (s == null) {
            throw new IllegalArgumentException("operand code " + code + " is not a scalar destination");
        }
        return s;
    }

    /** A value source of a table type: register, inline constant or literal, without modifiers. */
    static String source(int code, String type, OptionalInt literal) {
        switch (type) {
            case "vgpr", "vgpr_lds" -> {
                if (code == 254 && type.equals("vgpr_lds")) {
                    return "src_lds_direct";
                }
                if (code >= Operands.FIRST_VGPR) {
                    return Operands.vgpr(code - Operands.FIRST_VGPR, 1);
                }
                if (code == Operands.NULL) {
                    return "null";
                }
                throw new IllegalArgumentException("operand code " + code + " is not a VGPR");
            }
            case "sreg", "sreg_lds" -> {
                if (code >= Operands.FIRST_VGPR || code == 254 && type.equals("sreg")) {
                    throw new IllegalArgumentException("operand code " + code + " is not a scalar source");
                }
                return value(code, "b32", literal);
            }
            case "b128" -> {
                if (code == Operands.NULL) {
                    return "null";
                }
                if (code < Operands.FIRST_VGPR || code - Operands.FIRST_VGPR + 3 > 255) {
                    throw new IllegalArgumentException("operand code " + code + " is not a 128-bit VGPR range");
                }
                return Operands.vgpr(code - Operands.FIRST_VGPR, 4);
            }
            default -> {
                return value(code, type, literal);
            }
        }
    }

    private static String value(int code, String type, OptionalInt literal) {
        int n = dwords(type);
        if (code >= Operands.FIRST_VGPR) {
            int v = code - Operands.FIRST_VGPR;
            if (v + n - 1 > 255) {
                throw new IllegalArgumentException("VGPR range v" + v + " of " + n + " registers passes v255");
            }
            return Operands.vgpr(v, n);
        }
        if (code < 128) {
            String s = scalar(code, n);
            if (s == null) {
                throw new IllegalArgumentException("operand code " + code + " names no " + (32 * n) + "-bit register");
            }
            return s;
        }
        if (Operands.isInlineConstant(code)) {
            OptionalInt i = Operands.inlineInteger(code);
            return i.isPresent() ? Integer.toString(i.getAsInt()) : Operands.floatConstant(code, valueType(type));
        }
        if (code == Operands.LITERAL) {
            if (literal.isEmpty()) {
                throw new IllegalArgumentException("literal operand without a literal");
            }
            return literal(literal.getAsInt(), type);
        }
        if (code >= 235 && code <= 239 || code >= 251 && code <= 253 || code == 254 && n == 1) {
            return Operands.scalarRegister(code, 1);
        }
        throw new IllegalArgumentException("operand code " + code + " is reserved");
    }

    /** A literal as llvm prints it for the operand type (see {@link Operands#literal}). */
    static String literal(int v, String type) {
        return Operands.literal(v, valueType(type));
    }

    /**
     * Applies the input modifiers a source prints: {@code -x}, {@code |x|}, {@code -|x|}, {@code sext(x)};
     * a negated constant without abs prints {@code neg(c)}.
     */
    static String modified(String text, Operand o, boolean negBit, boolean absBit, boolean constant) {
        String s = text;
        boolean abs = o.abs() && absBit;
        if (abs) {
            s = "|" + s + "|";
        }
        if (o.sext() && negBit) {
            s = "sext(" + s + ")";
        } else if (o.neg() && negBit) {
            s = constant && !abs ? "neg(" + s + ")" : "-" + s;
        }
        return s;
    }

    /** {@code op_sel:[a,b,...]} from bits. */
    static String bitList(String name, int... bits) {
        StringBuilder b = new StringBuilder(name).append(":[");
        for (int i = 0; i < bits.length; i++) {
            b.append(i == 0 ? "" : ",").append(bits[i]);
        }
        return b.append(']').toString();
    }
}
