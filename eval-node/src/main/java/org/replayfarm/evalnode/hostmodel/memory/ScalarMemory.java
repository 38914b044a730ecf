package org.replayfarm.evalnode.hostmodel.memory;

import org.replayfarm.evalnode.hostmodel.semantics.Semantics;
import org.replayfarm.evalnode.hostmodel.semantics.SemanticsTable;
import org.replayfarm.evalnode.hostmodel.wave.Wave;
import org.replayfarm.model.isa.Encoding;
import org.replayfarm.model.isa.Fields;
import org.replayfarm.model.isa.Instruction;
import org.replayfarm.model.isa.MemoryAccess;
import org.replayfarm.model.isa.Opcode;

/**
 * Scalar memory (SMEM): s_load_dword{,x2,x4,x8,x16} from a 64-bit address, s_buffer_load_dword* through
 * a buffer descriptor, the clocks, cache controls and address-translation probes. RDNA 2 ISA guide,
 * "Scalar Memory Operations".
 *
 * <p>Addresses: s_load reads from SGPR[SBASE:SBASE+1] + OFFSET (signed 21-bit) + SGPR[SOFFSET] (unsigned;
 * none when SOFFSET is null). The hardware ignores the low two bits of the address: loads are dword
 * aligned. Each dword is read through the group's view of guest memory; a dword outside every range
 * faults (a page fault on the hardware).
 *
 * <p>s_buffer_load reads through the 4-SGPR buffer descriptor at SBASE: base address = word 0 and word
 * 1 [15:0] (48 bits), STRIDE = word 1 [29:16], NUM_RECORDS = word 2. The byte offset OFFSET + SGPR[SOFFSET]
 * (32 bits, low two bits ignored) is range checked per dword against NUM_RECORDS bytes (NUM_RECORDS *
 * STRIDE when STRIDE is not 0): a dword whose offset is at or past that size reads 0 and touches no
 * memory, as the hardware returns 0 for out-of-range reads.
 *
 * <p>s_memtime and s_memrealtime return the wave's instruction count (including this instruction): a
 * replay has no clock, and the count is deterministic and increases as time does. Registered as
 * approximate: there is no bound on how far it is from the hardware's clocks.
 */
public final class ScalarMemory {
    private ScalarMemory() {
    }

    public static void register(SemanticsTable.Builder b) {
        for (Opcode op : b.table().rows(Encoding.SMEM)) {
            MemoryAccess a = op.memory();
            if (a.isLoad()) {
                int n = a.dwords();
                // s_load takes a 64-bit address in an SGPR pair, s_buffer_load a buffer descriptor (a quad)
                boolean buffer = "base128".equals(op.operandType("sbase"));
                b.exact(Encoding.SMEM, op.mnemonic(), buffer ? (w, insn) -> bufferLoad(w, insn, n) : (w, insn) -> load(w, insn, n));
            }
        }
        Semantics nothing = (w, insn) -> {
        };
        // cache invalidation and translation probes/prefetches: no functional effect
        b.exact(Encoding.SMEM, "s_gl1_inv", nothing);
        b.exact(Encoding.SMEM, "s_dcache_inv", nothing);
        b.exact(Encoding.SMEM, "s_atc_probe", nothing);
        b.exact(Encoding.SMEM, "s_atc_probe_buffer", nothing);
        b.approximate(Encoding.SMEM, "s_memtime", ScalarMemory::clock);
        b.approximate(Encoding.SMEM, "s_memrealtime", ScalarMemory::clock);
    }

    private static Fields.Smem fields(Instruction insn) {
        return (Fields.Smem) insn.fields();
    }

    private static void load(Wave w, Instruction insn, int n) {
        Fields.Smem s = fields(insn);
        long address = w.sgpr64(s.sbase()) + s.offset() + Integer.toUnsignedLong(w.sgpr(s.soffset())) & ~3L;
        int[] data = new int[n];
        for (int i = 0; i < n; i++) {
            data[i] = (int) w.group().memory().load(address + 4L * i, 4, -1);
        }
        write(w, s.sdata(), data);
    }

    private static void bufferLoad(Wave w, Instruction insn, int n) {
        Fields.Smem s = fields(insn);
        int word0 = w.sgpr(s.sbase());
        int word1 = w.sgpr(s.sbase() + 1);
        long numRecords = Integer.toUnsignedLong(w.sgpr(s.sbase() + 2));
        long base = Integer.toUnsignedLong(word0) | (long) (word1 & 0xFFFF) << 32;
        int stride = word1 >>> 16 & 0x3FFF;
        long size = stride == 0 ? numRecords : numRecords * stride;
        long offset = s.offset() + Integer.toUnsignedLong(w.sgpr(s.soffset())) & 0xFFFF_FFFCL;
        int[] data = new int[n];
        for (int i = 0; i < n; i++) {
            long at = offset + 4L * i;
            data[i] = at < size ? (int) w.group().memory().load(base + at, 4, -1) : 0;
        }
        write(w, s.sdata(), data);
    }

    private static void write(Wave w, int sdata, int[] data) {
        for (int i = 0; i < data.length; i++) {
            w.setSgpr(sdata + i, data[i]);
        }
    }

    private static void clock(Wave w, Instruction insn) {
        w.setSgpr64(fields(insn).sdata(), w.instructions());
    }
}
