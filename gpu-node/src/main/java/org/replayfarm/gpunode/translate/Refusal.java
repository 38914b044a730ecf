package org.replayfarm.gpunode.translate;

/**
 * An instruction a unit emitter cannot translate: the translation of the whole program is refused up
 * front, naming the PC, the mnemonic and why (never a silent mistranslation).
 */
public final class Refusal extends Exception {
    private final long pc;
    private final String mnemonic;
    private final String reason;
    private final String unit;

    public Refusal(long pc, String mnemonic, String unit, String reason) {
        super(String.format("pc 0x%x %s (%s unit): %s", pc, mnemonic, unit, reason), null, false, false);
        this.pc = pc;
        this.mnemonic = mnemonic;
        this.unit = unit;
        this.reason = reason;
    }

    public long pc() {
        return pc;
    }

    public String mnemonic() {
        return mnemonic;
    }

    public String unit() {
        return unit;
    }

    public String reason() {
        return reason;
    }
}
