package org.replayfarm.evalnode.hostmodel.memory;

import org.replayfarm.evalnode.hostmodel.semantics.Fidelity;
import org.replayfarm.evalnode.hostmodel.semantics.Semantics;
import org.replayfarm.evalnode.hostmodel.semantics.SemanticsTable;
import org.replayfarm.evalnode.hostmodel.wave.GuestFault;
import org.replayfarm.evalnode.hostmodel.wave.Wave;
import org.replayfarm.model.isa.AtomicOp;
import org.replayfarm.model.isa.Encoding;
import org.replayfarm.model.isa.Fields;
import org.replayfarm.model.isa.Instruction;
import org.replayfarm.model.isa.MemoryAccess;
import org.replayfarm.model.isa.Opcode;

/**
 * The LDS unit: every DS instruction of the tables except GDS-only ones (GWS, ordered count) and
 * ds_condxchg32_rtn_b64.
 *
 * <p>Addressing: byte address = ADDR VGPR (32 bits, unsigned) + OFFSET (16 bits, OFFSET1:OFFSET0);
 * read2/write2/wrxchg2 use two addresses ADDR + OFFSET0 * size and ADDR + OFFSET1 * size (size 4 for
 * b32, 8 for b64), the st64 forms 64 times that. Out of range (any byte at or past the group's LDS
 * allocation): reads return 0, writes and atomics change nothing (see {@link MemorySpaces#lds}). There
 * are no banks in the model: any address pattern works. The GDS bit faults (no GDS is modelled).
 *
 * <p>Lanes execute in increasing lane order, each lane's whole access (or atomic) before the next lane's,
 * so conflicting writes in one instruction leave the highest active lane's value and atomics of one
 * instruction see each other in lane order.
 */
public final class Lds {
    private Lds() {
    }

    /**
     * Registers every DS row by its {@link MemoryAccess}: reads, writes, read2/write2/wrxchg2 and the atomics
     * (all but ds_condxchg32_rtn_b64), then the instructions that are no memory access of those kinds.
     */
    public static void register(SemanticsTable.Builder b) {
        for (Opcode op : b.table().rows(Encoding.DS)) {
            MemoryAccess a = op.memory();
            Semantics s = a.addtid() || a.kind() == MemoryAccess.Kind.OTHER ? null
                    : a.pair() != null ? (a.isLoad() ? Lds::read2 : a.isStore() ? Lds::write2 : Lds::wrxchg2)
                    : a.isLoad() ? Lds::read : a.isStore() ? Lds::write
                    : a.atomic() == AtomicOp.CONDXCHG32 ? null : Lds::atomic;
            if (s != null) {
                // IEEE addition rounded to nearest even; the hardware may flush f32 denormals here (undocumented),
                // the model keeps them: results differ only when an operand or the sum is denormal.
                b.add(Encoding.DS, op.mnemonic(), a.atomic() == AtomicOp.FADD ? Fidelity.APPROXIMATE : Fidelity.EXACT, s);
            }
        }
        b.exact(Encoding.DS, "ds_swizzle_b32", Lds::ds_swizzle_b32);
        b.exact(Encoding.DS, "ds_permute_b32", Lds::ds_permute_b32);
        b.exact(Encoding.DS, "ds_bpermute_b32", Lds::ds_bpermute_b32);
        b.exact(Encoding.DS, "ds_nop", (w, i) -> ds(i));
        b.exact(Encoding.DS, "ds_append", (w, i) -> appendConsume(w, i, 1));
        b.exact(Encoding.DS, "ds_consume", (w, i) -> appendConsume(w, i, -1));
        b.exact(Encoding.DS, "ds_write_addtid_b32", Lds::ds_write_addtid_b32);
        b.exact(Encoding.DS, "ds_read_addtid_b32", Lds::ds_read_addtid_b32);
    }

    /** The DS fields; GDS faults. */
    private static Fields.Ds ds(Instruction insn) {
        Fields.Ds f = (Fields.Ds) insn.fields();
        if (f.gds()) {
            throw new GuestFault("GDS access: the host model has no global data share");
        }
        return f;
    }

    private static int offset(Fields.Ds f) {
        return f.offset1() << 8 | f.offset0();
    }

    /**
     * The LDS address: ADDR + OFFSET, computed in 32 bits (a base below the allocation plus an offset that
     * brings it back in is in range: LLVM folds offsets into DS instructions whatever the base's sign from
     * Sea Islands on, and clang-19 emits e.g. {@code ds_read_b32 v1, v1 offset:252} for {@code p[63 - l]}).
     */
    private static long address(Wave w, Fields.Ds f, int lane) {
        return Integer.toUnsignedLong(w.vgpr(f.addr(), lane)) + offset(f) & 0xFFFF_FFFFL;
    }

    static void read(Wave w, Instruction insn) {
        Fields.Ds f = ds(insn);
        MemoryOps.Width width = MemoryOps.width(MemoryOps.access(insn));
        MemorySpaces.Space lds = MemorySpaces.lds(w.group().lds());
        for (int lane = 0; lane < w.waveSize(); lane++) {
            if (w.active(lane)) {
                MemoryOps.writeLoaded(w, f.vdst(), lane, width, lds.load(address(w, f, lane), width.bytes(), lane));
            }
        }
    }

    static void write(Wave w, Instruction insn) {
        Fields.Ds f = ds(insn);
        MemoryOps.Width width = MemoryOps.width(MemoryOps.access(insn));
        MemorySpaces.Space lds = MemorySpaces.lds(w.group().lds());
        for (int lane = 0; lane < w.waveSize(); lane++) {
            if (w.active(lane)) {
                lds.store(address(w, f, lane), MemoryOps.storeBytes(w, f.data0(), lane, width), lane);
            }
        }
    }

    /** Element size (4 or 8) and offset scale (1 or 64 elements) of a read2/write2/wrxchg2 form. */
    private static int[] pairGeometry(Instruction insn) {
        MemoryAccess.Pair p = MemoryOps.access(insn).pair();
        return new int[] {p.elementBytes(), p.offsetUnit()};
    }

    static void read2(Wave w, Instruction insn) {
        Fields.Ds f = ds(insn);
        int[] g = pairGeometry(insn);
        MemorySpaces.Space lds = MemorySpaces.lds(w.group().lds());
        for (int lane = 0; lane < w.waveSize(); lane++) {
            if (w.active(lane)) {
                long base = Integer.toUnsignedLong(w.vgpr(f.addr(), lane));
                byte[] first = lds.load((base + (long) f.offset0() * g[1] & 0xFFFF_FFFFL), g[0], lane);
                byte[] second = lds.load((base + (long) f.offset1() * g[1] & 0xFFFF_FFFFL), g[0], lane);
                MemoryOps.Width width = new MemoryOps.Width(g[0], false, 0);
                MemoryOps.writeLoaded(w, f.vdst(), lane, width, first);
                MemoryOps.writeLoaded(w, f.vdst() + g[0] / 4, lane, width, second);
            }
        }
    }

    static void write2(Wave w, Instruction insn) {
        Fields.Ds f = ds(insn);
        int[] g = pairGeometry(insn);
        MemoryOps.Width width = new MemoryOps.Width(g[0], false, 0);
        MemorySpaces.Space lds = MemorySpaces.lds(w.group().lds());
        for (int lane = 0; lane < w.waveSize(); lane++) {
            if (w.active(lane)) {
                long base = Integer.toUnsignedLong(w.vgpr(f.addr(), lane));
                lds.store((base + (long) f.offset0() * g[1] & 0xFFFF_FFFFL), MemoryOps.storeBytes(w, f.data0(), lane, width), lane);
                lds.store((base + (long) f.offset1() * g[1] & 0xFFFF_FFFFL), MemoryOps.storeBytes(w, f.data1(), lane, width), lane);
            }
        }
    }

    /** Two exchanges: DATA0 to ADDR + OFFSET0 * size, DATA1 to ADDR + OFFSET1 * size; the old values to VDST pair. */
    static void wrxchg2(Wave w, Instruction insn) {
        Fields.Ds f = ds(insn);
        int[] g = pairGeometry(insn);
        MemorySpaces.Space lds = MemorySpaces.lds(w.group().lds());
        for (int lane = 0; lane < w.waveSize(); lane++) {
            if (w.active(lane)) {
                long base = Integer.toUnsignedLong(w.vgpr(f.addr(), lane));
                long d0 = MemoryOps.vgprData(w, f.data0(), lane, g[0]);
                long d1 = MemoryOps.vgprData(w, f.data1(), lane, g[0]);
                long old0 = lds.atomic((base + (long) f.offset0() * g[1] & 0xFFFF_FFFFL), "swap", d0, 0, g[0], lane);
                long old1 = lds.atomic((base + (long) f.offset1() * g[1] & 0xFFFF_FFFFL), "swap", d1, 0, g[0], lane);
                MemoryOps.setVgprData(w, f.vdst(), lane, g[0], old0);
                MemoryOps.setVgprData(w, f.vdst() + g[0] / 4, lane, g[0], old1);
            }
        }
    }

    /**
     * Every single-address atomic: ds_OP[_rtn]_TYPE. The operand is DATA0; mskor takes the mask from DATA0
     * and the OR value from DATA1; cmpst compares with DATA0 and stores DATA1 (the DS order, the reverse of
     * the FLAT/MUBUF cmpswap data pair); wrap subtracts DATA0 when memory >= DATA0, else adds DATA1; wrxchg
     * is a swap. The _rtn forms return the value before the atomic.
     */
    static void atomic(Wave w, Instruction insn) {
        Fields.Ds f = ds(insn);
        MemoryAccess a = MemoryOps.access(insn);
        boolean rtn = a.returns() == MemoryAccess.Returns.YES;
        int bytes = a.bytes();
        AtomicOp atomic = a.atomic();
        String op = atomic.opName();
        boolean compare = atomic.compares();
        boolean second = compare || atomic == AtomicOp.MSKOR || atomic == AtomicOp.WRAP;
        MemorySpaces.Space lds = MemorySpaces.lds(w.group().lds());
        for (int lane = 0; lane < w.waveSize(); lane++) {
            if (!w.active(lane)) {
                continue;
            }
            long d0 = MemoryOps.vgprData(w, f.data0(), lane, bytes);
            long d1 = second ? MemoryOps.vgprData(w, f.data1(), lane, bytes) : 0;
            long old = compare ? lds.atomic(address(w, f, lane), op, d1, d0, bytes, lane)
                    : lds.atomic(address(w, f, lane), op, d0, d1, bytes, lane);
            if (rtn) {
                MemoryOps.setVgprData(w, f.vdst(), lane, bytes, old);
            }
        }
    }

    /**
     * Lane crossbar without LDS memory. OFFSET bit 15 set: QUAD_PERM, lane i reads lane (i & ~3) | sel,
     * sel = OFFSET[2k+1:2k] for k = i % 4. Bit 15 clear: BITMASK_PERM within each group of 32 lanes,
     * lane i reads ((i & AND) | OR) ^ XOR of its group, AND = OFFSET[4:0], OR = OFFSET[9:5], XOR =
     * OFFSET[14:10]. A lane whose source lane is inactive reads 0.
     */
    static void ds_swizzle_b32(Wave w, Instruction insn) {
        Fields.Ds f = ds(insn);
        int pattern = offset(f);
        int[] out = new int[w.waveSize()];
        for (int lane = 0; lane < w.waveSize(); lane++) {
            int src;
            if ((pattern & 0x8000) != 0) {
                src = (lane & ~3) | (pattern >>> (2 * (lane & 3)) & 3);
            } else {
                int and = pattern & 0x1F;
                int or = pattern >>> 5 & 0x1F;
                int xor = pattern >>> 10 & 0x1F;
                src = (lane & ~31) | (((lane & 31) & and) | or) ^ xor;
            }
            out[lane] = w.active(src) ? w.vgpr(f.addr(), src) : 0;
        }
        for (int lane = 0; lane < w.waveSize(); lane++) {
            if (w.active(lane)) {
                w.setVgpr(f.vdst(), lane, out[lane]);
            }
        }
    }

    /**
     * The lane a permute byte address names: (ADDR + OFFSET) / 4 modulo 32, within the 32-lane half of the
     * lane (wave64 permutes do not cross halves on gfx10: translator.md, "Wave64 cross-lane operations stay
     * within 32-lane halves", KytyPS5#380; LLPC needs gfx11's v_permlane64 to cross them).
     */
    private static int permuteLane(Wave w, Fields.Ds f, int lane) {
        int inHalf = (int) (((Integer.toUnsignedLong(w.vgpr(f.addr(), lane)) + offset(f)) >>> 2) & 31);
        return (lane & 32) | inHalf;
    }

    /**
     * Forward permute: each active lane i sends DATA0 to lane (ADDR_i + OFFSET) / 4 of its 32-lane half; several
     * senders to one lane: the highest wins (lanes in order); an active lane nobody sends to gets 0.
     */
    static void ds_permute_b32(Wave w, Instruction insn) {
        Fields.Ds f = ds(insn);
        int[] out = new int[w.waveSize()];
        for (int lane = 0; lane < w.waveSize(); lane++) {
            if (w.active(lane)) {
                out[permuteLane(w, f, lane)] = w.vgpr(f.data0(), lane);
            }
        }
        for (int lane = 0; lane < w.waveSize(); lane++) {
            if (w.active(lane)) {
                w.setVgpr(f.vdst(), lane, out[lane]);
            }
        }
    }

    /** Backward permute: each active lane i reads DATA0 of lane (ADDR_i + OFFSET) / 4 of its 32-lane half, 0 if inactive. */
    static void ds_bpermute_b32(Wave w, Instruction insn) {
        Fields.Ds f = ds(insn);
        int[] out = new int[w.waveSize()];
        for (int lane = 0; lane < w.waveSize(); lane++) {
            if (w.active(lane)) {
                int src = permuteLane(w, f, lane);
                out[lane] = w.active(src) ? w.vgpr(f.data0(), src) : 0;
            }
        }
        for (int lane = 0; lane < w.waveSize(); lane++) {
            if (w.active(lane)) {
                w.setVgpr(f.vdst(), lane, out[lane]);
            }
        }
    }

    /**
     * ds_append / ds_consume on an LDS counter at M0[15:0] + OFFSET: the counter grows (append) or shrinks
     * (consume) by the number of active lanes, once for the wave; every active lane receives the value
     * before the change. Nothing happens with no active lane.
     */
    static void appendConsume(Wave w, Instruction insn, int sign) {
        Fields.Ds f = ds(insn);
        long active = w.exec();
        if (active == 0) {
            return;
        }
        long address = (w.m0() & 0xFFFF) + offset(f);
        MemorySpaces.Space lds = MemorySpaces.lds(w.group().lds());
        long old = lds.atomic(address, "add", Integer.toUnsignedLong(sign * Long.bitCount(active)), 0, 4, -1);
        for (int lane = 0; lane < w.waveSize(); lane++) {
            if (w.active(lane)) {
                w.setVgpr(f.vdst(), lane, (int) old);
            }
        }
    }

    /** LDS address of the addtid forms: M0[15:0] + OFFSET + lane * 4. */
    private static long addtidAddress(Wave w, Fields.Ds f, int lane) {
        return (w.m0() & 0xFFFF) + offset(f) + 4L * lane;
    }

    static void ds_write_addtid_b32(Wave w, Instruction insn) {
        Fields.Ds f = ds(insn);
        MemorySpaces.Space lds = MemorySpaces.lds(w.group().lds());
        for (int lane = 0; lane < w.waveSize(); lane++) {
            if (w.active(lane)) {
                byte[] b = new byte[4];
                MemoryOps.putDword(b, 0, w.vgpr(f.data0(), lane));
                lds.store(addtidAddress(w, f, lane), b, lane);
            }
        }
    }

    static void ds_read_addtid_b32(Wave w, Instruction insn) {
        Fields.Ds f = ds(insn);
        MemorySpaces.Space lds = MemorySpaces.lds(w.group().lds());
        for (int lane = 0; lane < w.waveSize(); lane++) {
            if (w.active(lane)) {
                w.setVgpr(f.vdst(), lane, MemoryOps.dword(lds.load(addtidAddress(w, f, lane), 4, lane), 0));
            }
        }
    }
}
