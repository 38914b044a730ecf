package org.replayfarm.evalnode.hostmodel.image;

import org.replayfarm.evalnode.hostmodel.memory.BufferFormats;
import org.replayfarm.evalnode.hostmodel.memory.MemoryOps;
import org.replayfarm.evalnode.hostmodel.semantics.SemanticsTable;
import org.replayfarm.evalnode.hostmodel.wave.GuestFault;
import org.replayfarm.evalnode.hostmodel.wave.Wave;
import org.replayfarm.model.fp.Half;
import org.replayfarm.model.image.ImageFormat;
import org.replayfarm.model.image.TexelCodec;
import org.replayfarm.model.isa.AtomicOp;
import org.replayfarm.model.isa.Encoding;
import org.replayfarm.model.isa.Fields;
import org.replayfarm.model.isa.Instruction;
import org.replayfarm.model.isa.Opcode;

/**
 * The image unit (MIMG): image_load, image_load_mip, image_store, image_store_mip, image_get_resinfo,
 * the image atomics and (through {@link ImageSampler}) image_sample, image_sample_lz and image_sample_l.
 *
 * <p>Addresses: the instruction's DIM gives the coordinates (1D x; 2D x, y; 3D x, y, z; cube x, y, face;
 * 1D array x, slice; 2D array x, y, slice; 2D MSAA x, y, sample; 2D MSAA array x, y, slice, sample), then the mip level for the _mip forms; address value k is in
 * VGPR k of the range (or, with NSA, the k-th listed VGPR); with A16 two values share a dword, the first
 * in the low half. Loads and stores take unsigned integer texel coordinates (a negative 32-bit
 * coordinate is out of range).
 *
 * <p>Data: DMASK picks the channels (after DST_SEL for reads), packed from VDATA up; D16 packs two 16-bit
 * values a VGPR, converted as the buffer format forms convert them ({@link BufferFormats#toD16} and {@link
 * BufferFormats#fromD16}: float formats as halves, integer formats their low 16 bits, a SINT store's half
 * sign-extended). TFE writes 0 to the VGPR
 * after the data. The T#'s DST_SEL is applied once, on reads: the captured texels are what the binding
 * hands the device (seed 001's bug applied the selects a second time). Stores write channels in storage
 * order (DST_SEL is a read swizzle); a channel DMASK leaves out is written as 0.
 *
 * <p>Atomics operate on a 32-bit (DMASK 0x1; cmpswap 0x3) or 64-bit (0x3; cmpswap 0xf) texel of a
 * 32/32_32 format, on the group's view of the image; GLC returns the value before the atomic. Each is
 * recorded as a per-texel atomic contribution ({@link TexelAtomic}), not a store: the merge applies them
 * after every group's stores, so commutative atomics of several groups on one texel combine exactly, and
 * non-commutative ones on a texel several groups touch are reported as order-dependent.
 *
 * <p>A null T# (FORMAT 0, {@link ImageView#isNull}) reads 0 and drops stores and atomics, as the hardware
 * does: ACO's sample-index remap for a multisampled texelFetch loads through RADV's zeroed FMASK descriptor.
 */
public final class ImageUnit {
    private static final int[] COORDS = {1, 2, 3, 3, 2, 3, 3, 4};
    /** image_get_resinfo's results are integers (D16 keeps their low halves). */
    private static final ImageFormat UINT32 = ImageFormat.parse("32_UINT");

    private ImageUnit() {
    }

    public static void register(SemanticsTable.Builder b) {
        b.exact(Encoding.MIMG, "image_load", (w, i) -> load(w, i, false));
        b.exact(Encoding.MIMG, "image_load_mip", (w, i) -> load(w, i, true));
        b.exact(Encoding.MIMG, "image_store", (w, i) -> store(w, i, false));
        b.exact(Encoding.MIMG, "image_store_mip", (w, i) -> store(w, i, true));
        b.exact(Encoding.MIMG, "image_get_resinfo", ImageUnit::resinfo);
        for (Opcode op : b.table().rows(Encoding.MIMG)) {
            if (op.memory().isAtomic()) {
                b.exact(Encoding.MIMG, op.mnemonic(), ImageUnit::atomic);
            }
        }
    }

    // ---------------------------------------------------------------- addresses

    /** The VGPR holding address dword {@code k}. */
    static int addressVgpr(Fields.Mimg m, int k) {
        if (k == 0) {
            return m.vaddr();
        }
        if (m.nsaDwords() > 0) {
            if (k - 1 >= m.nsaAddresses().size()) {
                throw new GuestFault("MIMG address " + k + " is past the instruction's NSA list");
            }
            return m.nsaAddresses().get(k - 1);
        }
        return m.vaddr() + k;
    }

    /** Address value {@code k} as its raw bits: a dword, or with A16 a 16-bit half. */
    static int addressBits(Wave w, Fields.Mimg m, int k, int lane) {
        if (!m.a16()) {
            return w.vgpr(addressVgpr(m, k), lane);
        }
        int dword = w.vgpr(addressVgpr(m, k / 2), lane);
        return (k % 2 == 0 ? dword : dword >>> 16) & 0xFFFF;
    }

    /** Address value {@code k} as an integer coordinate (A16: unsigned 16-bit). */
    static int intAddress(Wave w, Fields.Mimg m, int k, int lane) {
        return addressBits(w, m, k, lane);
    }

    /** Address value {@code k} as a float coordinate (A16: a half). */
    static float floatAddress(Wave w, Fields.Mimg m, int k, int lane) {
        int bits = addressBits(w, m, k, lane);
        return Float.intBitsToFloat(m.a16() ? Half.toFloatBits(bits) : bits);
    }

    static int coordinates(Fields.Mimg m) {
        return COORDS[m.dim() & 7];
    }

    /** Texel position {x, y, z, layer, sample} from integer coordinates as the dim lays them out. */
    static int[] position(Fields.Mimg m, int[] c) {
        return switch (m.dim() & 7) {
            case 0 -> new int[] {c[0], 0, 0, 0, 0};
            case 1 -> new int[] {c[0], c[1], 0, 0, 0};
            case 2 -> new int[] {c[0], c[1], c[2], 0, 0};
            case 3, 5 -> new int[] {c[0], c[1], 0, c[2], 0};
            case 4 -> new int[] {c[0], 0, 0, c[1], 0};
            case 6 -> new int[] {c[0], c[1], 0, 0, c[2]};
            default -> new int[] {c[0], c[1], 0, c[2], c[3]};
        };
    }

    // ---------------------------------------------------------------- data

    /** Writes the DMASK-selected values of {@code selected} (4 register values) to VDATA, D16-packed if asked. */
    static void writeData(Wave w, Fields.Mimg m, int lane, int[] selected, ImageFormat format) {
        int dmask = m.dmask() == 0 ? 1 : m.dmask();
        int n = 0;
        int[] out = new int[4];
        for (int c = 0; c < 4; c++) {
            if ((dmask >>> c & 1) != 0) {
                out[n++] = selected[c];
            }
        }
        int regs;
        if (m.d16()) {
            regs = (n + 1) / 2;
            for (int r = 0; r < regs; r++) {
                int lo = BufferFormats.toD16(format, out[2 * r]);
                int hi = 2 * r + 1 < n ? BufferFormats.toD16(format, out[2 * r + 1]) : 0;
                w.setVgpr(m.vdata() + r, lane, lo | hi << 16);
            }
        } else {
            regs = n;
            for (int r = 0; r < n; r++) {
                w.setVgpr(m.vdata() + r, lane, out[r]);
            }
        }
        if (m.tfe()) {
            w.setVgpr(m.vdata() + regs, lane, 0);
        }
    }

    /** The store data: DMASK-enabled channels from VDATA (D16 halves widened), others 0, storage order. */
    private static int[] readData(Wave w, Fields.Mimg m, int lane, ImageFormat format) {
        int dmask = m.dmask() == 0 ? 1 : m.dmask();
        int[] channels = new int[4];
        int n = 0;
        for (int c = 0; c < 4; c++) {
            if ((dmask >>> c & 1) == 0) {
                continue;
            }
            if (m.d16()) {
                int half = w.vgpr(m.vdata() + n / 2, lane) >>> (16 * (n % 2)) & 0xFFFF;
                channels[c] = BufferFormats.fromD16(format, half);
            } else {
                channels[c] = w.vgpr(m.vdata() + n, lane);
            }
            n++;
        }
        return channels;
    }

    // ---------------------------------------------------------------- handlers

    private static int[] integerCoordinates(Wave w, Fields.Mimg m, int lane, int count) {
        int[] c = new int[count];
        for (int k = 0; k < count; k++) {
            c[k] = intAddress(w, m, k, lane);
        }
        return c;
    }

    private static Fields.Mimg fields(Instruction insn) {
        return (Fields.Mimg) insn.fields();
    }

    /**
     * The texel a lane addresses in view {@code v}: its {@code n} integer coordinates, then (with {@code mip})
     * the view level after them; -1 outside the view.
     */
    private static long laneTexel(Wave w, Fields.Mimg m, ImageView v, int n, int lane, boolean mip) {
        int[] p = position(m, integerCoordinates(w, m, lane, n));
        return v.texel(v.level(mip ? intAddress(w, m, n, lane) : 0), p[3], p[0], p[1], p[2], p[4]);
    }

    static void load(Wave w, Instruction insn, boolean mip) {
        Fields.Mimg m = fields(insn);
        if (ImageView.isNull(w, m.srsrc())) {
            for (int lane = 0; lane < w.waveSize(); lane++) {
                if (w.active(lane)) {
                    writeData(w, m, lane, new int[4], UINT32);
                }
            }
            return;
        }
        ImageView v = ImageView.of(w, m.srsrc(), m.r128());
        int n = coordinates(m);
        for (int lane = 0; lane < w.waveSize(); lane++) {
            if (!w.active(lane)) {
                continue;
            }
            long texel = laneTexel(w, m, v, n, lane, mip);
            int[] selected = texel < 0 ? new int[4] : v.select(v.channels(texel));
            writeData(w, m, lane, selected, v.format);
        }
    }

    static void store(Wave w, Instruction insn, boolean mip) {
        Fields.Mimg m = fields(insn);
        if (ImageView.isNull(w, m.srsrc())) {
            return;
        }
        ImageView v = ImageView.of(w, m.srsrc(), m.r128());
        int n = coordinates(m);
        for (int lane = 0; lane < w.waveSize(); lane++) {
            if (!w.active(lane)) {
                continue;
            }
            long texel = laneTexel(w, m, v, n, lane, mip);
            if (texel >= 0) {
                v.write(texel, TexelCodec.encode(v.format, readData(w, m, lane, v.format)), lane);
            }
        }
    }

    /**
     * image_get_resinfo: for the view level in the address (image level BASE_LEVEL + it), x = width, y = height
     * (1 for 1D), z = depth for 3D, the view's layers for arrays (cube: layers / 6), else 1; w = the view's
     * level count from the T# (LAST_LEVEL - BASE_LEVEL + 1), as the hardware reads it, whatever the capture
     * holds. A level outside the view reads 0 in x, y and z.
     */
    static void resinfo(Wave w, Instruction insn) {
        Fields.Mimg m = fields(insn);
        ImageView v = ImageView.of(w, m.srsrc(), m.r128());
        for (int lane = 0; lane < w.waveSize(); lane++) {
            if (!w.active(lane)) {
                continue;
            }
            int level = v.imageLevel(intAddress(w, m, 0, lane));
            int[] info = new int[4];
            if (level >= 0) {
                info[0] = v.width(level);
                info[1] = m.dim() == 0 || m.dim() == 4 ? 1 : v.height(level);
                info[2] = switch (m.dim()) {
                    case 2 -> v.depth(level);
                    case 3 -> v.layers() / 6;
                    case 4, 5, 7 -> v.layers();
                    default -> 1;
                };
            }
            info[3] = Math.max(0, v.levels());
            writeData(w, m, lane, info, UINT32);
        }
    }

    static void atomic(Wave w, Instruction insn) {
        Fields.Mimg m = fields(insn);
        if (ImageView.isNull(w, m.srsrc())) {
            int regs = Integer.bitCount(m.dmask()) / (insn.opcode().memory().atomic().compares() ? 2 : 1);
            for (int lane = 0; lane < w.waveSize(); lane++) {
                if (w.active(lane) && m.glc()) {
                    for (int r = 0; r < regs; r++) {
                        w.setVgpr(m.vdata() + r, lane, 0);
                    }
                }
            }
            return;
        }
        ImageView v = ImageView.of(w, m.srsrc(), m.r128());
        AtomicOp atomic = insn.opcode().memory().atomic();
        String op = atomic.opName();
        boolean compare = atomic.compares();
        int dataRegs = Integer.bitCount(m.dmask());
        int bytes = (compare ? dataRegs / 2 : dataRegs) * 4;
        boolean floatOp = atomic.floating();
        org.replayfarm.proto.DataFormat want = bytes == 8 ? org.replayfarm.proto.DataFormat.FMT_32_32
                : org.replayfarm.proto.DataFormat.FMT_32;
        org.replayfarm.proto.NumericFormat numeric = v.format.numeric();
        boolean numericOk = floatOp ? numeric == org.replayfarm.proto.NumericFormat.NUM_FLOAT
                : numeric == org.replayfarm.proto.NumericFormat.NUM_UINT || numeric == org.replayfarm.proto.NumericFormat.NUM_SINT
                        || numeric == org.replayfarm.proto.NumericFormat.NUM_FLOAT && (atomic == AtomicOp.SWAP || atomic == AtomicOp.CMPSWAP);
        if (bytes != 4 && bytes != 8 || v.format.data() != want || !numericOk) {
            throw new GuestFault(insn.mnemonic() + " with DMASK 0x" + Integer.toHexString(m.dmask()) + " on a "
                    + v.format + " image: atomics need a 32-bit (DMASK 0x1, cmpswap 0x3) or 64-bit (0x3, cmpswap 0xf)"
                    + " texel of a 32 or 32_32 format, UINT or SINT (FLOAT for the float atomics and swaps)");
        }
        int n = coordinates(m);
        for (int lane = 0; lane < w.waveSize(); lane++) {
            if (!w.active(lane)) {
                continue;
            }
            long texel = laneTexel(w, m, v, n, lane, false);
            long data = MemoryOps.vgprData(w, m.vdata(), lane, bytes);
            long cmp = compare ? MemoryOps.vgprData(w, m.vdata() + bytes / 4, lane, bytes) : 0;
            long old = 0;
            if (texel >= 0) {
                old = MemoryOps.littleEndian(v.read(texel), 0, bytes);
                long next = MemoryOps.atomic(op, old, data, cmp, bytes);
                byte[] value = new byte[bytes];
                MemoryOps.putLittleEndian(value, 0, next, bytes);
                v.writeAtomic(texel, value, op, data, cmp, old, lane);
            }
            if (m.glc()) {
                MemoryOps.setVgprData(w, m.vdata(), lane, bytes, old);
            }
        }
    }
}
