package org.replayfarm.evalnode.hostmodel.memory;

import org.replayfarm.evalnode.hostmodel.wave.GuestFault;
import org.replayfarm.evalnode.hostmodel.wave.Wave;
import org.replayfarm.evalnode.hostmodel.wave.Workgroup;
import org.replayfarm.model.build.GuestLayout;
import org.replayfarm.model.isa.Instruction;
import org.replayfarm.model.isa.MemoryAccess;

/**
 * What the memory units (LDS, FLAT/GLOBAL/SCRATCH, MUBUF/MTBUF) share: access widths and how loaded
 * bytes land in VGPRs (sign/zero extension, D16 halves), the arithmetic of every atomic, the per-lane
 * private (scratch) swizzle and the group's scratch backing store.
 *
 * <p>Alignment rule (RDNA 2 with the default unaligned mode the Linux driver programs): plain loads and
 * stores of any width may be unaligned, in every address space; atomics must be naturally aligned
 * (4 or 8 bytes), and a misaligned atomic faults.
 */
public final class MemoryOps {
    private MemoryOps() {
    }

    /**
     * One access width, as the instruction's {@link MemoryAccess} gives it: {@code bytes} per lane; {@code signed}
     * extension for sub-dword loads; {@code d16}: 0 for a whole VGPR, 1 for the low half (high half kept), 2 for
     * the high half (low half kept).
     */
    record Width(int bytes, boolean signed, int d16) {
        int dwords() {
            return (bytes + 3) / 4;
        }
    }

    /** The width of a load or store, from the facts the opcode table read off the row. */
    static Width width(MemoryAccess a) {
        return new Width(a.bytes(), a.signed(), a.half().code());
    }

    /** The memory facts of an instruction (every memory row of the tables has them). */
    static MemoryAccess access(Instruction insn) {
        return insn.opcode().memory();
    }

    /** Writes the loaded little-endian bytes {@code data[0..bytes)} to the VGPRs from {@code vdst} as the width says. */
    static void writeLoaded(Wave w, int vdst, int lane, Width width, byte[] data) {
        if (width.bytes() >= 4) {
            for (int d = 0; d < width.dwords(); d++) {
                w.setVgpr(vdst + d, lane, dword(data, 4 * d));
            }
            return;
        }
        int raw = width.bytes() == 1 ? data[0] & 0xFF : (data[0] & 0xFF) | (data[1] & 0xFF) << 8;
        int bits = 8 * width.bytes();
        if (width.signed()) {
            raw = raw << (32 - bits) >> (32 - bits);
        }
        if (width.d16() == 0) {
            w.setVgpr(vdst, lane, raw);
            return;
        }
        int half = raw & 0xFFFF;
        int old = w.vgpr(vdst, lane);
        w.setVgpr(vdst, lane, width.d16() == 1 ? (old & 0xFFFF0000) | half : (old & 0xFFFF) | half << 16);
    }

    /** The little-endian bytes a store of {@code width} takes from the VGPRs from {@code data}. */
    static byte[] storeBytes(Wave w, int data, int lane, Width width) {
        byte[] out = new byte[width.bytes()];
        if (width.bytes() >= 4) {
            for (int d = 0; d < width.dwords(); d++) {
                putDword(out, 4 * d, w.vgpr(data + d, lane));
            }
            return out;
        }
        int v = w.vgpr(data, lane);
        if (width.d16() == 2) {
            v >>>= 16;
        }
        out[0] = (byte) v;
        if (width.bytes() == 2) {
            out[1] = (byte) (v >>> 8);
        }
        return out;
    }

    static int dword(byte[] b, int at) {
        return (b[at] & 0xFF) | (b[at + 1] & 0xFF) << 8 | (b[at + 2] & 0xFF) << 16 | (b[at + 3] & 0xFF) << 24;
    }

    static void putDword(byte[] b, int at, int v) {
        for (int i = 0; i < 4; i++) {
            b[at + i] = (byte) (v >>> (8 * i));
        }
    }

    public static long littleEndian(byte[] b, int at, int bytes) {
        long v = 0;
        for (int i = 0; i < bytes; i++) {
            v |= (long) (b[at + i] & 0xFF) << (8 * i);
        }
        return v;
    }

    public static void putLittleEndian(byte[] b, int at, long v, int bytes) {
        for (int i = 0; i < bytes; i++) {
            b[at + i] = (byte) (v >>> (8 * i));
        }
    }

    /** Reads a 32- or 64-bit operand from VGPRs. */
    public static long vgprData(Wave w, int reg, int lane, int bytes) {
        return bytes == 8 ? w.vgpr64(reg, lane) : Integer.toUnsignedLong(w.vgpr(reg, lane));
    }

    /** Writes a 32- or 64-bit result to VGPRs. */
    public static void setVgprData(Wave w, int reg, int lane, int bytes, long value) {
        if (bytes == 8) {
            w.setVgpr64(reg, lane, value);
        } else {
            w.setVgpr(reg, lane, (int) value);
        }
    }

    /** Faults unless an atomic's address is naturally aligned. */
    static void checkAtomicAlignment(long address, int bytes, int lane) {
        if ((address & (bytes - 1)) != 0) {
            throw new GuestFault(String.format("misaligned %d-byte atomic at 0x%x (atomics must be naturally aligned)",
                    bytes, address), lane);
        }
    }

    // ---------------------------------------------------------------- atomics

    /**
     * The value memory holds after atomic {@code op} on {@code old} (both {@code bytes} = 4 or 8 wide,
     * zero-extended in the long). {@code data} is the operand; {@code cmp} the comparand of the
     * compare-swaps and the second operand of mskor (the OR value) and wrap (the add value). Ops: swap,
     * cmpswap, add, sub, rsub, csub (subtract clamped at 0), smin, umin, smax, umax, and, or, xor, inc
     * (0 once old >= data, else old + 1), dec (data when old is 0 or above data, else old - 1), fcmpswap
     * (float equality: +0 == -0, NaN never equal), fmin, fmax (a NaN operand yields the other one, -0 below
     * +0), fadd (IEEE round to nearest even), mskor ((old & ~data) | cmp), wrap (old >= data ? old - data
     * : old + cmp).
     */
    public static long atomic(String op, long old, long data, long cmp, int bytes) {
        boolean wide = bytes == 8;
        long mask = wide ? -1L : 0xFFFF_FFFFL;
        long signedOld = wide ? old : (int) old;
        long signedData = wide ? data : (int) data;
        long r = switch (op) {
            case "swap" -> data;
            case "cmpswap" -> old == cmp ? data : old;
            case "add" -> old + data;
            case "sub" -> old - data;
            case "rsub" -> data - old;
            case "csub" -> Long.compareUnsigned(old, data) >= 0 ? old - data : 0;
            case "smin" -> Math.min(signedOld, signedData);
            case "smax" -> Math.max(signedOld, signedData);
            case "umin" -> Long.compareUnsigned(old, data) <= 0 ? old : data;
            case "umax" -> Long.compareUnsigned(old, data) >= 0 ? old : data;
            case "and" -> old & data;
            case "or" -> old | data;
            case "xor" -> old ^ data;
            case "inc" -> Long.compareUnsigned(old, data) >= 0 ? 0 : old + 1;
            case "dec" -> old == 0 || Long.compareUnsigned(old, data) > 0 ? data : old - 1;
            case "mskor" -> (old & ~data) | cmp;
            case "wrap" -> Long.compareUnsigned(old, data) >= 0 ? old - data : old + cmp;
            case "fcmpswap" -> floatEquals(old, cmp, wide) ? data : old;
            case "fmin" -> floatMinMax(old, data, wide, true);
            case "fmax" -> floatMinMax(old, data, wide, false);
            case "fadd" -> wide ? Double.doubleToRawLongBits(Double.longBitsToDouble(old) + Double.longBitsToDouble(data))
                    : Integer.toUnsignedLong(Float.floatToRawIntBits(
                    Float.intBitsToFloat((int) old) + Float.intBitsToFloat((int) data)));
            default -> throw new IllegalArgumentException("no atomic " + op);
        };
        return r & mask;
    }

    private static boolean floatEquals(long a, long b, boolean wide) {
        return wide ? Double.longBitsToDouble(a) == Double.longBitsToDouble(b)
                : Float.intBitsToFloat((int) a) == Float.intBitsToFloat((int) b);
    }

    private static long floatMinMax(long a, long b, boolean wide, boolean min) {
        double x = wide ? Double.longBitsToDouble(a) : Float.intBitsToFloat((int) a);
        double y = wide ? Double.longBitsToDouble(b) : Float.intBitsToFloat((int) b);
        if (Double.isNaN(x)) {
            return b;
        }
        if (Double.isNaN(y)) {
            return a;
        }
        if (x == y) {
            // -0 orders below +0
            boolean aNegative = wide ? a < 0 : (int) a < 0;
            return aNegative == min ? a : b;
        }
        return (x < y) == min ? a : b;
    }

    // ---------------------------------------------------------------- private (scratch) memory

    /**
     * The guest address of byte {@code offset} of lane {@code lane}'s private memory, for a wave whose
     * private base is {@code waveBase}: scratch is dword-interleaved across the wave's lanes (hsa-abi.md
     * §3.2), {@code waveBase + (offset / 4) * 4 * waveSize + 4 * lane + offset % 4}. The same layout serves
     * scratch_*, flat_* in the private aperture and buffer_* through the swizzled scratch V#, so all
     * three see one private variable in one place.
     */
    static long privateAddress(long waveBase, long offset, int lane, int waveSize) {
        return waveBase + (offset >>> 2) * 4L * waveSize + 4L * lane + (offset & 3);
    }

    /** Whether a guest address lies in the group's scratch backing store (from {@link GuestLayout#SCRATCH_BASE}). */
    static boolean inScratch(Workgroup g, long address) {
        long at = address - GuestLayout.SCRATCH_BASE;
        return at >= 0 && at < g.scratch().length();
    }

    /** The scratch byte index of a guest address, or a fault when it is outside the group's scratch. */
    static int scratchIndex(Workgroup g, long address, int lane) {
        long at = address - GuestLayout.SCRATCH_BASE;
        if (at < 0 || at >= g.scratch().length()) {
            throw new GuestFault(String.format("private access at 0x%x is outside the group's %d bytes of scratch",
                    address, g.scratch().length()), lane);
        }
        return (int) at;
    }
}
