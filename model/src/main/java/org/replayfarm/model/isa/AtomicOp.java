package org.replayfarm.model.isa;

/**
 * The operation of an atomic memory instruction, whatever its encoding names it ({@code ds_cmpst_b32},
 * {@code global_atomic_cmpswap} and {@code image_atomic_cmpswap} are all {@link #CMPSWAP}): the one list the
 * host model, the translator and the runtime share. {@link #opName} is the name the host model's atomic
 * arithmetic and its reports use; the translation's runtime (rt_atomic.h) numbers the operations
 * {@code RT_AOP_<NAME>} in this order, which a gpu-node test keeps in step.
 */
public enum AtomicOp {
    SWAP, CMPSWAP, ADD, SUB, RSUB, CSUB, SMIN, UMIN, SMAX, UMAX, AND, OR, XOR, INC, DEC, FCMPSWAP, FMIN, FMAX, FADD,
    MSKOR, WRAP,
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

    /**
     * Whether the operation takes a second operand beside its data: the comparand of the compare-swaps, the OR
     * value of mskor, the add value of wrap (a DS form reads it from DATA1).
     */
    public boolean secondOperand() {
        return compares() || this == MSKOR || this == WRAP;
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
