package org.replayfarm.gpunode.translate.memory;

/** The memory atomics as rt_mem.h numbers them (RT_AOP_*), and how DS and vector-memory mnemonics name them. */
public enum AtomicOp {
    SWAP, CMPSWAP, ADD, SUB, RSUB, CSUB, SMIN, UMIN, SMAX, UMAX, AND, OR, XOR, INC, DEC, FCMPSWAP, FMIN, FMAX, FADD,
    MSKOR, WRAP;

    /** The C constant. */
    public String c() {
        return "RT_AOP_" + name();
    }

    /** A FLAT/GLOBAL/MUBUF atomic: op, width, whether DATA holds a comparand after the value (cmpswap). */
    public record Vmem(AtomicOp op, int bytes, boolean compare) {
    }

    /** *_atomic_OP[_x2] of FLAT, GLOBAL and MUBUF, or null. */
    public static Vmem vmem(String mnemonic) {
        int at = mnemonic.indexOf("_atomic_");
        if (at < 0) {
            return null;
        }
        String op = mnemonic.substring(at + "_atomic_".length());
        int bytes = 4;
        if (op.endsWith("_x2")) {
            bytes = 8;
            op = op.substring(0, op.length() - 3);
        }
        AtomicOp a;
        try {
            a = valueOf(op.toUpperCase(java.util.Locale.ROOT));
        } catch (IllegalArgumentException e) {
            return null;
        }
        if (a == RSUB || a == MSKOR || a == WRAP || a == FADD) {
            return null; // no such FLAT/MUBUF atomic on gfx1030
        }
        return new Vmem(a, bytes, a == CMPSWAP || a == FCMPSWAP);
    }

    /** A DS atomic: op, width, whether it returns the old value, whether it reads DATA1. */
    public record Ds(AtomicOp op, int bytes, boolean returns, boolean usesData1) {
    }

    /**
     * ds_OP[_rtn]_TYPE (add, sub, rsub, inc, dec, min/max _i/_u/_f, and, or, xor, mskor, cmpst _b/_f,
     * wrxchg_rtn, wrap_rtn, add_f32, add_rtn_f32), or null.
     */
    public static Ds ds(String mnemonic) {
        if (!mnemonic.startsWith("ds_")) {
            return null;
        }
        String stem = mnemonic.substring(3);
        boolean rtn = stem.contains("_rtn_");
        stem = stem.replace("_rtn", "");
        int cut = stem.lastIndexOf('_');
        if (cut < 0) {
            return null;
        }
        String name = stem.substring(0, cut);
        String type = stem.substring(cut + 1);
        if (!type.matches("[biuf](32|64)")) {
            return null;
        }
        char t = type.charAt(0);
        int bytes = type.endsWith("64") ? 8 : 4;
        AtomicOp op = switch (name) {
            case "add" -> t == 'f' ? FADD : t == 'u' ? ADD : null;
            case "sub" -> t == 'u' ? SUB : null;
            case "rsub" -> t == 'u' ? RSUB : null;
            case "inc" -> t == 'u' ? INC : null;
            case "dec" -> t == 'u' ? DEC : null;
            case "min" -> t == 'i' ? SMIN : t == 'u' ? UMIN : t == 'f' ? FMIN : null;
            case "max" -> t == 'i' ? SMAX : t == 'u' ? UMAX : t == 'f' ? FMAX : null;
            case "and" -> t == 'b' ? AND : null;
            case "or" -> t == 'b' ? OR : null;
            case "xor" -> t == 'b' ? XOR : null;
            case "mskor" -> t == 'b' ? MSKOR : null;
            case "cmpst" -> t == 'b' ? CMPSWAP : t == 'f' ? FCMPSWAP : null;
            case "wrxchg" -> t == 'b' && rtn ? SWAP : null;
            case "wrap" -> t == 'b' && rtn && bytes == 4 ? WRAP : null;
            default -> null;
        };
        if (op == null || (op == FADD && bytes != 4)) {
            return null;
        }
        return new Ds(op, bytes, rtn, op == MSKOR || op == CMPSWAP || op == FCMPSWAP || op == WRAP);
    }
}
