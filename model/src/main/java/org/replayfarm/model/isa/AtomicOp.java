package org.replayfarm.model.isa;

/**
 * The operation of an atomic memory instruction, whatever its encoding names it ({@code ds_cmpst_b32},
 * {@code global_atomic_cmpswap} and {@code image_atomic_cmpswap} are all {@link #CMPSWAP}). {@link #opName}
 * is the name the host model's atomic arithmetic and its reports use.
 */
public enum AtomicOp {
    SWAP, CMPSWAP, ADD, SUB, RSUB, CSUB, SMIN, UMIN, SMAX, UMAX, AND, OR, XOR, INC, DEC, MSKOR, WRAP, FCMPSWAP, FMIN,
    FMAX, FADD,
    /** ds_condxchg32_rtn_b64 (two conditional 32-bit exchanges); the host model does not implement it. */
    CONDXCHG32;

    private final String opName = name().toLowerCase(java.util.Locale.ROOT);

    /** The lower-case name ("cmpswap", "umax", ...). */
    public String opName() {
        return opName;
    }

    /** Whether the instruction carries a comparand beside its data (cmpswap, fcmpswap). */
    public boolean compares() {
        return this == CMPSWAP || this == FCMPSWAP;
    }

    /** Whether the operation reads its operands as floats (fcmpswap, fmin, fmax, fadd). */
    public boolean floating() {
        return this == FCMPSWAP || this == FMIN || this == FMAX || this == FADD;
    }

    /** The op of a FLAT/GLOBAL/MUBUF/MIMG atomic name ("smin", "fcmpswap", ...), or null. */
    static AtomicOp ofVectorName(String name) {
        for (AtomicOp op : values()) {
            if (op.opName.equals(name) && op != RSUB && op != MSKOR && op != WRAP && op != FADD && op != CONDXCHG32) {
                return op;
            }
        }
        return null;
    }
}
