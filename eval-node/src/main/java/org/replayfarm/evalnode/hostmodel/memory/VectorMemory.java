package org.replayfarm.evalnode.hostmodel.memory;

import org.replayfarm.evalnode.hostmodel.semantics.Semantics;
import org.replayfarm.evalnode.hostmodel.semantics.SemanticsTable;
import org.replayfarm.evalnode.hostmodel.wave.GuestFault;
import org.replayfarm.evalnode.hostmodel.wave.Wave;
import org.replayfarm.evalnode.hostmodel.wave.Workgroup;
import org.replayfarm.model.isa.Encoding;
import org.replayfarm.model.isa.Fields;
import org.replayfarm.model.isa.FlatOffset;
import org.replayfarm.model.isa.Instruction;
import org.replayfarm.model.isa.MemoryAccess;
import org.replayfarm.model.isa.Opcode;

/**
 * FLAT, GLOBAL and SCRATCH: every load, store and atomic of the tables.
 *
 * <p>Addresses (the OFFSET field read through {@link FlatOffset#of}):
 * <ul>
 * <li>FLAT: VADDR (a 64-bit VGPR pair) + offset. Addresses whose high dword is that of
 * {@link Wave#SHARED_BASE} go to LDS (the low dword is the LDS byte address, with the LDS out-of-range
 * rule), those whose high dword is that of {@link Wave#PRIVATE_BASE} to the lane's private memory (the
 * low dword is the private byte offset), all others to guest memory.
 * <li>GLOBAL: SADDR off: VADDR (64-bit pair) + offset; else SADDR (64-bit SGPR pair) + VADDR (32-bit,
 * unsigned) + offset. The addtid forms: SADDR (0 when off) + offset + lane * 4.
 * <li>SCRATCH: the lane's private byte offset = VADDR (SADDR 0x7d, off) or SADDR (one SGPR; 0x7f, which
 * llvm-mc-19 encodes for "off, off", adds nothing) + offset, 32 bits;
 * private memory is dword-interleaved across the wave's lanes from FLAT_SCRATCH
 * ({@link MemoryOps#privateAddress}), inside the group's scratch.
 * </ul>
 * Loads and stores may be unaligned; atomics must be naturally aligned. Atomics return the value before
 * the atomic in VDST when GLC is set; cmpswap's DATA is {new value, comparand}. GLC/SLC/DLC are cache
 * hints otherwise (no-ops). The LDS bit (load into LDS) faults: not modelled. Lanes run in lane order.
 */
public final class VectorMemory {
    private VectorMemory() {
    }

    private static final int SADDR_OFF = 0x7d;

    public static void register(SemanticsTable.Builder b) {
        for (Encoding e : new Encoding[] {Encoding.FLAT, Encoding.GLOBAL, Encoding.SCRATCH}) {
            for (Opcode op : b.table().rows(e)) {
                MemoryAccess a = op.memory();
                Semantics s = switch (a.kind()) {
                    case LOAD -> a.addtid() ? VectorMemory::loadAddtid : VectorMemory::load;
                    case STORE -> a.addtid() ? VectorMemory::storeAddtid : VectorMemory::store;
                    case ATOMIC -> VectorMemory::atomic;
                    case OTHER -> null;
                };
                if (s != null) {
                    b.exact(e, op.mnemonic(), s);
                }
            }
        }
    }

    /** Where one lane's access goes: a space and the address within it. */
    private record Target(MemorySpaces.Space space, long address) {
    }

    private static Fields.Flat fields(Instruction insn) {
        Fields.Flat f = (Fields.Flat) insn.fields();
        if (f.lds()) {
            throw new GuestFault(insn.mnemonic() + " with the LDS bit (load into LDS): not modelled by the host model");
        }
        return f;
    }

    /** The access's target for one lane. */
    private static Target target(Wave w, Instruction insn, Fields.Flat f, int lane) {
        Encoding e = insn.encoding();
        long offset = FlatOffset.of(e, f.offset());
        Workgroup g = w.group();
        if (e == Encoding.SCRATCH) {
            // SADDR 0x7d (off): the VGPR; 0x7f: no address at all (llvm's "off, off"); else the SGPR
            long base = f.saddr() == SADDR_OFF ? Integer.toUnsignedLong(w.vgpr(f.addr(), lane))
                    : f.saddr() == 0x7f ? 0 : Integer.toUnsignedLong(w.sgpr(f.saddr()));
            return new Target(MemorySpaces.privateMemory(g, w.flatScratch(), w.waveSize()),
                    (base + offset) & 0xFFFF_FFFFL);
        }
        if (e == Encoding.GLOBAL) {
            long address = f.saddr() == SADDR_OFF ? w.vgpr64(f.addr(), lane) + offset
                    : w.sgpr64(f.saddr()) + Integer.toUnsignedLong(w.vgpr(f.addr(), lane)) + offset;
            return new Target(MemorySpaces.global(g.memory()), address);
        }
        long address = w.vgpr64(f.addr(), lane) + offset;
        long high = address >>> 32;
        if (high == Wave.SHARED_BASE >>> 32) {
            return new Target(MemorySpaces.lds(g.lds()), address & 0xFFFF_FFFFL);
        }
        if (high == Wave.PRIVATE_BASE >>> 32) {
            return new Target(MemorySpaces.privateMemory(g, w.flatScratch(), w.waveSize()), address & 0xFFFF_FFFFL);
        }
        return new Target(MemorySpaces.global(g.memory()), address);
    }

    static void load(Wave w, Instruction insn) {
        Fields.Flat f = fields(insn);
        MemoryOps.Width width = MemoryOps.width(MemoryOps.access(insn));
        for (int lane = 0; lane < w.waveSize(); lane++) {
            if (w.active(lane)) {
                Target t = target(w, insn, f, lane);
                MemoryOps.writeLoaded(w, f.vdst(), lane, width, t.space().load(t.address(), width.bytes(), lane));
            }
        }
    }

    static void store(Wave w, Instruction insn) {
        Fields.Flat f = fields(insn);
        MemoryOps.Width width = MemoryOps.width(MemoryOps.access(insn));
        for (int lane = 0; lane < w.waveSize(); lane++) {
            if (w.active(lane)) {
                Target t = target(w, insn, f, lane);
                t.space().store(t.address(), MemoryOps.storeBytes(w, f.data(), lane, width), lane);
            }
        }
    }

    /** global_load_dword_addtid / global_store_dword_addtid address: SADDR (0 when off) + offset + lane * 4. */
    private static long addtidAddress(Wave w, Fields.Flat f, int lane) {
        long base = f.saddr() == SADDR_OFF ? 0 : w.sgpr64(f.saddr());
        return base + FlatOffset.of(Encoding.GLOBAL, f.offset()) + 4L * lane;
    }

    static void loadAddtid(Wave w, Instruction insn) {
        Fields.Flat f = fields(insn);
        MemorySpaces.Space memory = MemorySpaces.global(w.group().memory());
        for (int lane = 0; lane < w.waveSize(); lane++) {
            if (w.active(lane)) {
                w.setVgpr(f.vdst(), lane, MemoryOps.dword(memory.load(addtidAddress(w, f, lane), 4, lane), 0));
            }
        }
    }

    static void storeAddtid(Wave w, Instruction insn) {
        Fields.Flat f = fields(insn);
        MemorySpaces.Space memory = MemorySpaces.global(w.group().memory());
        for (int lane = 0; lane < w.waveSize(); lane++) {
            if (w.active(lane)) {
                byte[] b = new byte[4];
                MemoryOps.putDword(b, 0, w.vgpr(f.data(), lane));
                memory.store(addtidAddress(w, f, lane), b, lane);
            }
        }
    }

    static void atomic(Wave w, Instruction insn) {
        Fields.Flat f = fields(insn);
        MemoryAccess a = MemoryOps.access(insn);
        String op = a.atomic().opName();
        int bytes = a.bytes();
        boolean compare = a.atomic().compares();
        for (int lane = 0; lane < w.waveSize(); lane++) {
            if (!w.active(lane)) {
                continue;
            }
            long data = MemoryOps.vgprData(w, f.data(), lane, bytes);
            long cmp = compare ? MemoryOps.vgprData(w, f.data() + bytes / 4, lane, bytes) : 0;
            Target t = target(w, insn, f, lane);
            long old = t.space().atomic(t.address(), op, data, cmp, bytes, lane);
            if (f.glc()) {
                MemoryOps.setVgprData(w, f.vdst(), lane, bytes, old);
            }
        }
    }
}
