package org.replayfarm.evalnode.hostmodel.memory;

import org.replayfarm.evalnode.hostmodel.wave.GuestFault;
import org.replayfarm.model.fp.Half;
import org.replayfarm.model.fp.Rounding;
import org.replayfarm.model.image.ImageFormat;
import org.replayfarm.model.image.TexelCodec;
import org.replayfarm.model.isa.Instruction;

/**
 * The gfx10.3 unified buffer formats (the 7-bit FORMAT of MTBUF and of V# word 3 [18:12]; numbers as
 * llvm-mc-19 names them for gfx1030: 1 8_UNORM ... 77 32_32_32_32_FLOAT) are the image formats of the
 * same numbers, so a buffer element converts exactly as a texel does: through the model's
 * {@link ImageFormat} (layout, including the packed 10_11_11, 11_11_10, 10_10_10_2 and 2_10_10_10) and
 * {@link TexelCodec} (every conversion rule). Format 0 (INVALID) and numbers past 77 fault.
 */
public final class BufferFormats {
    private BufferFormats() {
    }

    /** The format numbered {@code number}, or a fault naming it. */
    static ImageFormat of(int number) {
        if (number >= 1 && number <= 77) {
            try {
                return ImageFormat.ofNumber(number);
            } catch (IllegalArgumentException e) {
                // falls through to the fault below
            }
        }
        throw new GuestFault("buffer format " + number + " is not a gfx10 buffer format (0 is INVALID; known: 1..77, "
                + "8/16/32-bit and packed 10/11-bit components)");
    }

    /** The four register values a load of the element at {@code at} of {@code raw} gives (missing components defaulted). */
    static int[] load(ImageFormat f, byte[] raw) {
        return TexelCodec.decode(f, raw, 0);
    }

    /**
     * The bytes a store of {@code count} components (registers, x first) writes: the element's first bytes,
     * holding the components both the instruction and the format have. A packed format's components share a
     * dword, so a store must give all of them: one that gives fewer faults (what the hardware leaves in
     * the others is not modelled).
     */
    static byte[] store(ImageFormat f, int[] registers, int count, Instruction insn) {
        int n = Math.min(count, f.channels());
        byte[] element = TexelCodec.encode(f, registers);
        if (n == f.channels()) {
            return element;
        }
        if (packed(f)) {
            throw new GuestFault(insn.mnemonic() + " stores " + n + " of the " + f.channels() + " components of the packed "
                    + "format " + f + ": a partial store of a packed element is not modelled");
        }
        byte[] first = new byte[n * f.channelBits()[0] / 8];
        System.arraycopy(element, 0, first, 0, first.length);
        return first;
    }

    private static boolean packed(ImageFormat f) {
        int bits = f.channelBits()[0];
        return bits != 8 && bits != 16 && bits != 32;
    }

    /** A register value narrowed for a D16 load: floats as halves (nearest even), integers truncated to 16 bits. */
    public static int toD16(ImageFormat f, int register) {
        return f.integer() ? register & 0xFFFF : Half.fromFloatBits(register, Rounding.NEAREST_EVEN) & 0xFFFF;
    }

    /** A D16 store's 16-bit value widened to a 32-bit register value (halves to floats, integers extended). */
    public static int fromD16(ImageFormat f, int half) {
        if (!f.integer()) {
            return Half.toFloatBits(half);
        }
        return f.numeric() == org.replayfarm.proto.NumericFormat.NUM_SINT ? (short) half : half;
    }
}
