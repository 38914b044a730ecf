package org.replayfarm.model.isa;

/**
 * How operands are spelled: in wave32 a lane mask is one SGPR ({@code vcc_lo}, {@code s0}), in wave64 a
 * pair ({@code vcc}, {@code s[0:1]}) — as llvm-objdump-19 prints with and without
 * {@code --mattr=+wavefrontsize64}. The encodings are the same.
 */
public record Syntax(int waveSize) {
    public static final Syntax WAVE32 = new Syntax(32);
    public static final Syntax WAVE64 = new Syntax(64);

    public Syntax {
        if (waveSize != 32 && waveSize != 64) {
            throw new IllegalArgumentException("wave size is 32 or 64, not " + waveSize);
        }
    }

    /** Dwords of a lane mask operand. */
    public int laneMaskDwords() {
        return waveSize / 32;
    }
}
