package org.replayfarm.model.isa;

/**
 * The OFFSET field of FLAT, GLOBAL and SCRATCH instructions as the hardware reads it: a signed 12-bit
 * number for GLOBAL and SCRATCH (offset:-2048 is encoded 0x800), an unsigned 11-bit number for FLAT
 * (RDNA 2 ISA, "FLAT, Scratch and Global Instructions"; llvm-mc-19 refuses a FLAT offset with bit 11 set).
 * Everything that forms an address calls this one function.
 */
public final class FlatOffset {
    private FlatOffset() {
    }

    /** The byte offset an access adds to its address. */
    public static int of(Encoding segment, int rawField) {
        int field = rawField & 0xFFF;
        return switch (segment) {
            case GLOBAL, SCRATCH -> (field << 20) >> 20;
            case FLAT -> field & 0x7FF;
            default -> throw new IllegalArgumentException(segment + " has no FLAT offset");
        };
    }
}
