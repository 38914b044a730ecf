package org.replayfarm.model.fp;

/**
 * The floating-point controls of the MODE register, decoded. f32 has its own round mode and denormal
 * mode; f16 and f64 share the other pair.
 *
 * @param value the MODE register
 */
public record FpMode(int value) {
    public static final int DX10_CLAMP = 1 << 8;
    public static final int IEEE = 1 << 9;
    public static final int FP16_OVFL = 1 << 23;

    /** MODE with the given fields (round and denorm codes as the hardware encodes them). */
    public static int encode(int roundF32, int roundF16F64, int denormF32, int denormF16F64, boolean dx10Clamp,
                             boolean ieee) {
        return roundF32 | roundF16F64 << 2 | denormF32 << 4 | denormF16F64 << 6 | (dx10Clamp ? DX10_CLAMP : 0)
                | (ieee ? IEEE : 0);
    }

    /** The round mode (a {@link Rounding} constant) for results of a format. */
    public int round(Format f) {
        return f == Format.F32 ? value & 3 : value >>> 2 & 3;
    }

    /** The FP_DENORM code for a format: 0 flush in and out, 1 flush out, 2 flush in, 3 keep denormals. */
    public int denorm(Format f) {
        return f == Format.F32 ? value >>> 4 & 3 : value >>> 6 & 3;
    }

    /** Whether denormal inputs of the format are read as zero (codes 0 and 2). */
    public boolean flushInputs(Format f) {
        return (denorm(f) & 1) == 0;
    }

    /** Whether denormal results of the format are written as zero (codes 0 and 1). */
    public boolean flushOutputs(Format f) {
        return (denorm(f) & 2) == 0;
    }

    public boolean dx10Clamp() {
        return (value & DX10_CLAMP) != 0;
    }

    public boolean ieee() {
        return (value & IEEE) != 0;
    }

    /** FP16_OVFL: an f16 result that overflows becomes +-max finite instead of infinity. */
    public boolean fp16OverflowClamp() {
        return (value & FP16_OVFL) != 0;
    }

    /** An input as the ALU sees it: a denormal flushed to zero when the mode flushes inputs. */
    public long input(Format f, long bits) {
        return flushInputs(f) ? f.flush(bits) : bits;
    }

    /** A result as the ALU writes it: a denormal flushed to zero when the mode flushes outputs. */
    public long output(Format f, long bits) {
        return flushOutputs(f) ? f.flush(bits) : bits;
    }
}
