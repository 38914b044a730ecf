package org.replayfarm.evalnode.hostmodel.memory;

import org.replayfarm.evalnode.hostmodel.semantics.Semantics;
import org.replayfarm.evalnode.hostmodel.semantics.SemanticsTable;
import org.replayfarm.evalnode.hostmodel.wave.GuestFault;
import org.replayfarm.evalnode.hostmodel.wave.Wave;
import org.replayfarm.evalnode.hostmodel.wave.Workgroup;
import org.replayfarm.model.image.ImageFormat;
import org.replayfarm.model.isa.Encoding;
import org.replayfarm.model.isa.Fields;
import org.replayfarm.model.isa.Instruction;
import org.replayfarm.model.isa.MemoryAccess;
import org.replayfarm.model.isa.Opcode;

/**
 * MUBUF and MTBUF: buffer loads, stores, format loads/stores and atomics through the 4-SGPR buffer
 * resource (V#), gfx10 layout: word0 base[31:0]; word1 base[47:32] [15:0], STRIDE [29:16], SWIZZLE_ENABLE
 * [31]; word2 NUM_RECORDS; word3 DST_SEL_X/Y/Z/W [11:0] (3 bits each: 0 zero, 1 one, 4-7 x-w), FORMAT
 * [18:12], INDEX_STRIDE [22:21] (8 << n), ADD_TID_ENABLE [23], OOB_SELECT [29:28].
 *
 * <p>Address: index = (IDXEN ? VADDR : 0) + (ADD_TID_ENABLE ? lane : 0); offset = (OFFEN ? VADDR (the
 * second VGPR when IDXEN) : 0) + OFFSET; unswizzled, buffer offset = index * STRIDE + offset; with
 * SWIZZLE_ENABLE (element size 4 bytes), buffer offset = ((index / IS) * STRIDE + (offset / 4) * 4) * IS +
 * (index % IS) * 4 + offset % 4 with IS the index stride, per byte; address = base + SOFFSET + buffer
 * offset. An address inside the group's scratch backing store (from GuestLayout.SCRATCH_BASE, the base of
 * the scratch V# the capture builder hands over) goes to the group's scratch, so clang's private accesses
 * {@code buffer_store_dword v, v_off, s[0:3], soffset offen offset:K} land, per lane, where scratch_* and
 * flat private accesses find them; any other address goes to guest memory.
 *
 * <p>Range check (what this model implements; SOFFSET is not part of the checked offset):
 * OOB_SELECT 0: out if index >= NUM_RECORDS or offset + size > STRIDE; 1: out if index >= NUM_RECORDS;
 * 2: out only if NUM_RECORDS is 0; 3 (raw): out if offset + size > NUM_RECORDS. Out-of-range loads return
 * 0 (the format defaults do not apply), stores and atomics are dropped (an atomic returns 0). dword,
 * dwordx2/3/4 accesses are checked per dword; sub-dword, format accesses (the whole format element) and
 * atomics all or nothing.
 *
 * <p>GLC/SLC/DLC are cache hints (no-ops). TFE writes 0 to the VGPR after the data. The LDS bit faults
 * (not modelled). Loads and stores may be unaligned; atomics must be naturally aligned (else a fault).
 * buffer_gl0_inv / buffer_gl1_inv invalidate caches the model does not have (no-ops).
 */
public final class BufferMemory {
    private BufferMemory() {
    }

    public static void register(SemanticsTable.Builder b) {
        for (Encoding e : new Encoding[] {Encoding.MUBUF, Encoding.MTBUF}) {
            for (Opcode op : b.table().rows(e)) {
                MemoryAccess a = op.memory();
                Semantics s = a.format() ? BufferMemory::format : switch (a.kind()) {
                    case LOAD -> BufferMemory::load;
                    case STORE -> BufferMemory::store;
                    case ATOMIC -> BufferMemory::atomic;
                    case OTHER -> NOTHING; // buffer_gl0_inv / buffer_gl1_inv
                };
                b.exact(e, op.mnemonic(), s);
            }
        }
    }

    private static final Semantics NOTHING = (w, i) -> { };

    /** The fields both encodings share. */
    private record Access(int offset, boolean offen, boolean idxen, boolean glc, boolean lds, int vaddr, int vdata,
                          int srsrc, boolean tfe, int soffset, int format) {
        static Access of(Instruction insn) {
            if (insn.fields() instanceof Fields.Mubuf m) {
                return new Access(m.offset(), m.offen(), m.idxen(), m.glc(), m.lds(), m.vaddr(), m.vdata(), m.srsrc(),
                        m.tfe(), m.soffset(), -1);
            }
            Fields.Mtbuf t = (Fields.Mtbuf) insn.fields();
            return new Access(t.offset(), t.offen(), t.idxen(), t.glc(), false, t.vaddr(), t.vdata(), t.srsrc(),
                    t.tfe(), t.soffset(), t.format());
        }
    }

    /** A decoded V#. */
    record Resource(long base, int stride, boolean swizzle, long numRecords, int dstSel, int format, int indexStride,
                    boolean addTid, int oobSelect) {
        static Resource of(int w0, int w1, int w2, int w3) {
            return new Resource(Integer.toUnsignedLong(w0) | (long) (w1 & 0xFFFF) << 32, w1 >>> 16 & 0x3FFF,
                    w1 < 0, Integer.toUnsignedLong(w2), w3 & 0xFFF, w3 >>> 12 & 0x7F, 8 << (w3 >>> 21 & 3),
                    (w3 >>> 23 & 1) != 0, w3 >>> 28 & 3);
        }
    }

    /** One lane's addressing: everything but the byte offset within the record. */
    private record Lane(Resource r, long soffset, long index, long offset) {
        /** The guest address of byte {@code k} of the access. */
        long address(long k) {
            long off = offset + k;
            long bufferOffset;
            if (r.swizzle()) {
                long is = r.indexStride();
                bufferOffset = ((index / is) * r.stride() + (off >>> 2) * 4) * is + (index % is) * 4 + (off & 3);
            } else {
                bufferOffset = index * r.stride() + off;
            }
            return r.base() + soffset + bufferOffset;
        }

        /** Whether bytes [k, k + size) of the access pass the range check. */
        boolean inRange(long k, int size) {
            return switch (r.oobSelect()) {
                case 0 -> index < r.numRecords() && offset + k + size <= r.stride();
                case 1 -> index < r.numRecords();
                case 2 -> r.numRecords() != 0;
                default -> offset + k + size <= r.numRecords();
            };
        }
    }

    private static Resource resource(Wave w, Access a) {
        return Resource.of(w.sgpr(a.srsrc()), w.sgpr(a.srsrc() + 1), w.sgpr(a.srsrc() + 2), w.sgpr(a.srsrc() + 3));
    }

    private static Lane lane(Wave w, Instruction insn, Access a, Resource r, int lane) {
        long index = (a.idxen() ? Integer.toUnsignedLong(w.vgpr(a.vaddr(), lane)) : 0) + (r.addTid() ? lane : 0);
        long voffset = a.offen() ? Integer.toUnsignedLong(w.vgpr(a.vaddr() + (a.idxen() ? 1 : 0), lane)) : 0;
        long soffset = Integer.toUnsignedLong(w.source32(a.soffset(), insn));
        return new Lane(r, soffset, index, (voffset + a.offset()) & 0xFFFF_FFFFL);
    }

    private static Access access(Instruction insn) {
        Access a = Access.of(insn);
        if (a.lds()) {
            throw new GuestFault(insn.mnemonic() + " with the LDS bit (load into LDS): not modelled by the host model");
        }
        return a;
    }

    /** The space an address goes to: the group's scratch backing store, or guest memory. */
    private static MemorySpaces.Space space(Workgroup g, long address) {
        return MemoryOps.inScratch(g, address) ? MemorySpaces.scratch(g) : MemorySpaces.global(g.memory());
    }

    /** Reads bytes [k, k + size) of the access (contiguous unless swizzled). */
    private static void read(Workgroup g, Lane l, long k, int size, byte[] into, int at, int laneNumber) {
        if (!l.r().swizzle()) {
            long address = l.address(k);
            System.arraycopy(space(g, address).load(address, size, laneNumber), 0, into, at, size);
            return;
        }
        for (int i = 0; i < size; i++) {
            long address = l.address(k + i);
            into[at + i] = space(g, address).load(address, 1, laneNumber)[0];
        }
    }

    private static void write(Workgroup g, Lane l, long k, byte[] from, int at, int size, int laneNumber) {
        if (!l.r().swizzle()) {
            long address = l.address(k);
            byte[] part = new byte[size];
            System.arraycopy(from, at, part, 0, size);
            space(g, address).store(address, part, laneNumber);
            return;
        }
        for (int i = 0; i < size; i++) {
            long address = l.address(k + i);
            space(g, address).store(address, new byte[] {from[at + i]}, laneNumber);
        }
    }

    static void load(Wave w, Instruction insn) {
        Access a = access(insn);
        Resource r = resource(w, a);
        MemoryOps.Width width = MemoryOps.width(MemoryOps.access(insn));
        for (int lane = 0; lane < w.waveSize(); lane++) {
            if (!w.active(lane)) {
                continue;
            }
            Lane l = lane(w, insn, a, r, lane);
            byte[] data = new byte[width.bytes()];
            int chunk = width.bytes() >= 4 ? 4 : width.bytes();
            for (int k = 0; k < width.bytes(); k += chunk) {
                if (l.inRange(k, chunk)) {
                    read(w.group(), l, k, chunk, data, k, lane);
                }
            }
            MemoryOps.writeLoaded(w, a.vdata(), lane, width, data);
            if (a.tfe()) {
                w.setVgpr(a.vdata() + width.dwords(), lane, 0);
            }
        }
    }

    static void store(Wave w, Instruction insn) {
        Access a = access(insn);
        Resource r = resource(w, a);
        MemoryOps.Width width = MemoryOps.width(MemoryOps.access(insn));
        for (int lane = 0; lane < w.waveSize(); lane++) {
            if (!w.active(lane)) {
                continue;
            }
            Lane l = lane(w, insn, a, r, lane);
            byte[] data = MemoryOps.storeBytes(w, a.vdata(), lane, width);
            int chunk = width.bytes() >= 4 ? 4 : width.bytes();
            for (int k = 0; k < width.bytes(); k += chunk) {
                if (l.inRange(k, chunk)) {
                    write(w.group(), l, k, data, k, chunk, lane);
                }
            }
        }
    }

    /**
     * buffer_atomic_OP[_x2]: the op on the naturally aligned datum at the lane's address; cmpswap's VDATA is
     * {new value, comparand}; with GLC the value before the atomic goes to VDATA.
     */
    static void atomic(Wave w, Instruction insn) {
        Access a = access(insn);
        Resource r = resource(w, a);
        MemoryAccess facts = MemoryOps.access(insn);
        String op = facts.atomic().opName();
        int bytes = facts.bytes();
        boolean compare = facts.atomic().compares();
        for (int lane = 0; lane < w.waveSize(); lane++) {
            if (!w.active(lane)) {
                continue;
            }
            Lane l = lane(w, insn, a, r, lane);
            long data = MemoryOps.vgprData(w, a.vdata(), lane, bytes);
            long cmp = compare ? MemoryOps.vgprData(w, a.vdata() + bytes / 4, lane, bytes) : 0;
            long old = 0;
            if (l.inRange(0, bytes)) {
                long address = l.address(0);
                old = space(w.group(), address).atomic(address, op, data, cmp, bytes, lane);
            }
            if (a.glc()) {
                MemoryOps.setVgprData(w, a.vdata(), lane, bytes, old);
            }
        }
    }

    /**
     * buffer_load/store_format_* and tbuffer_*: components of the format (the V#'s FORMAT for MUBUF, the
     * instruction's for MTBUF) converted by {@link BufferFormats} (the model's texel conversions). Loads: components the format lacks
     * take their defaults (0, 0, 0, 1), then the V#'s DST_SEL picks each result; D16 forms pack two 16-bit
     * results per VGPR (d16_hi_x: the high half, the low half kept). Stores write the components both
     * the instruction and the format have.
     */
    static void format(Wave w, Instruction insn) {
        Access a = access(insn);
        Resource r = resource(w, a);
        ImageFormat fmt = BufferFormats.of(a.format() >= 0 ? a.format() : r.format());
        MemoryAccess facts = MemoryOps.access(insn);
        boolean load = facts.isLoad();
        boolean d16 = facts.d16();
        boolean hi = facts.half() == MemoryAccess.Half.HIGH;
        int count = facts.components();
        int bytes = fmt.bytesPerTexel();
        for (int lane = 0; lane < w.waveSize(); lane++) {
            if (!w.active(lane)) {
                continue;
            }
            Lane l = lane(w, insn, a, r, lane);
            boolean in = l.inRange(0, bytes);
            if (load) {
                int[] element = new int[4];
                if (in) {
                    byte[] raw = new byte[bytes];
                    read(w.group(), l, 0, bytes, raw, 0, lane);
                    element = BufferFormats.load(fmt, raw);
                }
                int[] result = new int[count];
                for (int c = 0; c < count; c++) {
                    int sel = r.dstSel() >>> (3 * c) & 7;
                    int v = sel >= 4 ? element[sel - 4] : sel == 1 ? (fmt.integer() ? 1
                            : Float.floatToRawIntBits(1.0f)) : 0;
                    result[c] = in ? v : 0;
                }
                writeFormatResult(w, a.vdata(), lane, fmt, result, d16, hi);
                if (a.tfe()) {
                    w.setVgpr(a.vdata() + (d16 ? (count + 1) / 2 : count), lane, 0);
                }
            } else if (in) {
                int[] registers = new int[4];
                for (int c = 0; c < Math.min(count, fmt.channels()); c++) {
                    if (d16) {
                        int reg = w.vgpr(a.vdata() + c / 2, lane);
                        int half = (hi ? reg >>> 16 : reg >>> (16 * (c % 2))) & 0xFFFF;
                        registers[c] = BufferFormats.fromD16(fmt, half);
                    } else {
                        registers[c] = w.vgpr(a.vdata() + c, lane);
                    }
                }
                byte[] raw = BufferFormats.store(fmt, registers, count, insn);
                write(w.group(), l, 0, raw, 0, raw.length, lane);
            }
        }
    }

    private static void writeFormatResult(Wave w, int vdata, int lane, ImageFormat fmt, int[] result,
                                          boolean d16, boolean hi) {
        if (!d16) {
            for (int c = 0; c < result.length; c++) {
                w.setVgpr(vdata + c, lane, result[c]);
            }
            return;
        }
        if (hi) {
            int old = w.vgpr(vdata, lane);
            w.setVgpr(vdata, lane, (old & 0xFFFF) | BufferFormats.toD16(fmt, result[0]) << 16);
            return;
        }
        for (int c = 0; c < result.length; c += 2) {
            int lo = BufferFormats.toD16(fmt, result[c]);
            int reg = c + 1 < result.length ? lo | BufferFormats.toD16(fmt, result[c + 1]) << 16
                    : (w.vgpr(vdata + c / 2, lane) & 0xFFFF0000) | lo;
            w.setVgpr(vdata + c / 2, lane, reg);
        }
    }
}
