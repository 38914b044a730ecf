package org.replayfarm.evalnode.hostmodel.memory;

import org.replayfarm.evalnode.hostmodel.semantics.Semantics;
import org.replayfarm.model.isa.Encoding;
import org.replayfarm.model.isa.Fields;
import org.replayfarm.model.isa.Instruction;

/**
 * The fast tier's GLOBAL loads and stores (the reference handlers are {@link VectorMemory}'s; the compiled tier
 * calls this step between the segments of a run). Null where the reference handler should run the instruction.
 */
public final class GlobalFast {
    private GlobalFast() {
    }

    /**
     * global_load/store_dword[xN] (not the addtid, d16, byte or short forms, not atomics): as {@code
     * VectorMemory.load/store}, lane by lane in lane order, each lane's access in chunks of at most 8 bytes
     * through {@link GroupMemory} (so faults name the same chunk), loaded dwords written once the lane's
     * load is whole.
     */
    public static Semantics of(Instruction insn, int waveSize, int vgprs) {
        Fields.Flat f = (Fields.Flat) insn.fields();
        org.replayfarm.model.isa.MemoryAccess a = insn.opcode().memory();
        boolean load = a.isLoad();
        boolean store = a.isStore();
        // whole dwords only: not the addtid, d16, byte or short forms
        if (!load && !store || a.addtid() || f.lds() || a.bytes() < 4 || a.bytes() > 16 || a.d16()) {
            return null;
        }
        int dwords = a.dwords();
        boolean saddrOff = f.saddr() == 0x7d;
        if (!saddrOff && f.saddr() >= 127) {
            return null;
        }
        if (!fits(f.addr(), saddrOff ? 2 : 1, vgprs) || !fits(load ? f.vdst() : f.data(), dwords, vgprs)) {
            return null;
        }
        long offset = org.replayfarm.model.isa.FlatOffset.of(Encoding.GLOBAL, f.offset());
        int addrLo = f.addr() * waveSize;
        int addrHi = (f.addr() + 1) * waveSize;
        int reg = (load ? f.vdst() : f.data()) * waveSize;
        int saddr = f.saddr();
        return (w, ignored) -> {
            long exec = w.exec();
            if (exec == 0) {
                return;
            }
            int[] v = w.vgprFile();
            GroupMemory memory = w.group().memory();
            long base = saddrOff ? 0 : w.sgpr64(saddr);
            for (long lanes = exec; lanes != 0; lanes &= lanes - 1) {
                int l = Long.numberOfTrailingZeros(lanes);
                long address = saddrOff ? (Integer.toUnsignedLong(v[addrLo + l]) | (long) v[addrHi + l] << 32) + offset
                        : base + Integer.toUnsignedLong(v[addrLo + l]) + offset;
                if (load) {
                    if (dwords == 1) {
                        v[reg + l] = (int) memory.load(address, 4, l);
                    } else {
                        long first = memory.load(address, 8, l);
                        long second = dwords == 2 ? 0 : memory.load(address + 8, dwords == 3 ? 4 : 8, l);
                        v[reg + l] = (int) first;
                        v[reg + waveSize + l] = (int) (first >>> 32);
                        if (dwords >= 3) {
                            v[reg + 2 * waveSize + l] = (int) second;
                        }
                        if (dwords == 4) {
                            v[reg + 3 * waveSize + l] = (int) (second >>> 32);
                        }
                    }
                } else {
                    for (int at = 0; at < dwords; at += 2) {
                        long value = Integer.toUnsignedLong(v[reg + at * waveSize + l]);
                        if (at + 1 < dwords) {
                            value |= (long) v[reg + (at + 1) * waveSize + l] << 32;
                        }
                        memory.store(address + 4L * at, value, at + 1 < dwords ? 8 : 4, l);
                    }
                }
            }
        };
    }

    private static boolean fits(int reg, int width, int vgprs) {
        return reg >= 0 && reg + width <= vgprs;
    }
}
