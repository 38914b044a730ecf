package org.replayfarm.evalnode.probe;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.replayfarm.evalnode.hostmodel.Kernel;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.model.capture.CaptureFormatException;
import org.replayfarm.model.capture.CaptureValidator;
import org.replayfarm.model.capture.CaptureWriter;
import org.replayfarm.model.capture.TexelLayout;
import org.replayfarm.model.isa.DecodeException;
import org.replayfarm.model.isa.Encoding;
import org.replayfarm.model.isa.Instruction;
import org.replayfarm.model.isa.OpcodeFlag;
import org.replayfarm.model.isa.Syntax;
import org.replayfarm.proto.Capture;
import org.replayfarm.proto.Image;
import org.replayfarm.proto.MemoryRange;
import org.replayfarm.proto.Program;
import org.replayfarm.proto.SystemSgpr;
import org.replayfarm.proto.SystemSgprKind;
import org.replayfarm.proto.WorkItemVgpr;

/**
 * Probe captures (issue 34, seed 001's D991 method automated): the capture with, at each chosen PC, the chosen
 * registers stored into an extra range after the instruction there executes, every other instruction at its original
 * PC.
 * <ul>
 * <li>The instruction at the PC is replaced by {@code s_branch} to a stub appended after the program (an 8- or 12-byte
 * instruction: the rest padded with {@code s_nop}, never executed: the stub branches back past it). The stub executes
 * the displaced instruction's own bytes first, so what follows sees its results; a branch target at the PC still
 * lands on the jump. Instructions whose effect depends on where they lie (branches, {@code s_getpc_b64},
 * {@code s_setpc_b64}, {@code s_swappc_b64}, {@code s_call_b64}) and {@code s_endpgm} are not probed.</li>
 * <li>The stub saves SCC in a spare SGPR ({@code s_cselect_b32}) and restores it last ({@code s_cmp_lg_u32}); saves
 * EXEC and sets every lane for its stores, then restores it; VCC and M0 it does not touch. Its registers are SGPRs
 * above every one the program names and three VGPRs above the program's count: the probe capture raises
 * {@code vgpr_count} (and COMPUTE_PGM_RSRC1's VGPR granules) and {@code sgpr_count}, refusing past gfx1030's limits.</li>
 * <li>Each probe point has, per wave of the group, a counter of its executions and, for each of its first
 * {@code maxHits}, a record: EXEC, SCC, then each chosen register (a VGPR: every lane, lane l at 4*l from v_mbcnt; a scalar: one word).</li>
 * <li><b>Group attribution.</b> The capture model has no grid offset (a dispatch always starts at group (0, 0, 0), and
 * the workgroup ids the kernel reads are its real ones), so a probe capture cannot dispatch one group alone without
 * changing what the kernel computes. Instead the whole dispatch runs, as in the original, and the probes store only
 * in the chosen group: a prologue, the probe capture's new entry, compares the workgroup-id SGPRs with the chosen
 * ones before the kernel can overwrite them, keeps the verdict and the wave's index in the group (from TG_SIZE, or the
 * work-item ids of lane 0) in spare SGPRs, and branches to the original entry; each wave's records lie apart. This
 * is correct for every device that runs the capture as given: groups other than the chosen one execute the same
 * instructions with no store.</li>
 * </ul>
 */
public final class ProbePatcher {
    /** A probe point: after the instruction at {@code pc}, store {@code registers} (keys, {@link Registers}). */
    public record Point(long pc, int[] registers, int maxHits) {
    }

    /**
     * Where a point's counters (one word per wave of the group) and records (per wave, {@code maxHits} records of
     * {@code recordBytes}) lie in the probe range.
     */
    public record Layout(Point point, int countOffset, int recordOffset, int recordBytes) {
        int waveStride() {
            return point.maxHits() * recordBytes;
        }
    }

    /** One execution's record: EXEC and SCC after the instruction, and the registers (VGPR: every lane). */
    public record Record(long exec, int scc, Map<Integer, int[]> values) {
    }

    /** A written probe capture: its file, the probe range's index and address, and the points' layouts. */
    public record Patched(Path file, int range, long address, List<Layout> layouts, int waveSize, int waves) {
        /** The executions of each point in each wave of the group: its records in order (at most maxHits). */
        public Map<Long, List<List<Record>>> read(ByteBuffer probeRange) {
            ByteBuffer b = probeRange.duplicate().order(ByteOrder.LITTLE_ENDIAN);
            Map<Long, List<List<Record>>> out = new HashMap<>();
            int header = 4 * (waveSize / 32) + 4;
            for (Layout l : layouts) {
                List<List<Record>> byWave = new ArrayList<>();
                for (int w = 0; w < waves; w++) {
                int count = b.getInt(l.countOffset() + 4 * w);
                List<Record> records = new ArrayList<>();
                for (int h = 0; h < Math.min(count, l.point().maxHits()); h++) {
                    int at = l.recordOffset() + w * l.waveStride() + h * l.recordBytes();
                    long exec = Integer.toUnsignedLong(b.getInt(at)) | (waveSize == 64
                            ? Integer.toUnsignedLong(b.getInt(at + 4)) << 32 : 0);
                    int scc = b.getInt(at + header - 4);
                    Map<Integer, int[]> values = new HashMap<>();
                    int p = at + header;
                    for (int r : l.point().registers()) {
                        int n = r >= Registers.VGPR ? waveSize : 1;
                        int[] v = new int[n];
                        for (int i = 0; i < n; i++) {
                            v[i] = b.getInt(p + 4 * i);
                        }
                        p += 4 * n;
                        values.put(r, v);
                    }
                    records.add(new Record(exec, scc, values));
                }
                byWave.add(records);
                }
                out.put(l.point().pc(), byWave);
            }
            return out;
        }
    }

    private static final Set<String> NOT_PROBED = Set.of("s_getpc_b64", "s_setpc_b64", "s_swappc_b64", "s_call_b64",
            "s_endpgm", "s_endpgm_saved", "s_endpgm_ordered_ps_done", "s_code_end");
    /** Spare SGPRs the stub needs besides one counter per point. */
    private static final int FIXED_SGPRS = 8;
    private static final int STUB_VGPRS = 3;

    private ProbePatcher() {
    }

    /** Whether {@code insn} can be probed (it does not depend on where it lies, and the wave goes on after it). */
    public static boolean probeable(Instruction insn) {
        return !insn.opcode().has(OpcodeFlag.BRANCH) && !NOT_PROBED.contains(insn.mnemonic())
                && !(insn.encoding() == Encoding.SOPP && insn.mnemonic().startsWith("s_cbranch"));
    }

    /**
     * Writes the probe capture of {@code file} to {@code out}: {@code points}, recorded in every wave of group
     * {@code group}.
     *
     * @throws IllegalArgumentException when a point cannot be probed (its PC holds no instruction or one that cannot be
     *         moved) or the capture leaves no room (registers, a group id the kernel is not given)
     */
    public static Patched write(CaptureFile file, int[] group, List<Point> points, Path out)
            throws IOException, CaptureFormatException {
        Kernel kernel = new Kernel(file);
        Capture meta = file.metadata();
        Program p = meta.getProgram();
        int ws = kernel.waveSize();
        boolean w64 = ws == 64;
        Syntax syntax = w64 ? Syntax.WAVE64 : Syntax.WAVE32;
        ByteBuffer codeBlob = file.blob(p.getCode()).order(ByteOrder.LITTLE_ENDIAN);
        byte[] code = new byte[codeBlob.remaining()];
        codeBlob.duplicate().get(code);
        long base = p.getCodeAddress();

        // spare registers: above every SGPR the program names and the layout sets
        int highest = 0;
        for (Instruction insn : kernel.program().instructions()) {
            for (List<Integer> op : Registers.operands(Execution.text(insn, syntax), ws)) {
                for (int r : op) {
                    if (r < Registers.VCC_LO) {
                        highest = Math.max(highest, r + 1);
                    }
                }
            }
        }
        for (var u : meta.getRegisters().getUserSgprsList()) {
            highest = Math.max(highest, u.getIndex() + 1);
        }
        for (var s : meta.getRegisters().getSystemSgprsList()) {
            highest = Math.max(highest, s.getIndex() + 1);
        }
        int spare = (highest + 1) & ~1;
        int sA = spare;
        int sScc = spare + 2;
        int sSel = spare + 3;
        int sExec = spare + 4;
        int sOff = spare + 6;
        int sWave = spare + 7;
        int waves = kernel.wavesPerGroup();
        int sgprsNeeded = spare + FIXED_SGPRS + points.size();
        if (sgprsNeeded > CaptureValidator.SGPR_LIMIT) {
            throw new IllegalArgumentException("the program uses SGPRs up to s" + (highest - 1) + ": no room for "
                    + (FIXED_SGPRS + points.size()) + " probe SGPRs below s" + CaptureValidator.SGPR_LIMIT
                    + " (probe fewer PCs at once)");
        }
        int vL = p.getVgprCount();
        int vT = vL + 1;
        int vZ = vL + 2;
        int granule = w64 ? 4 : 8;
        int vgprs = (vL + STUB_VGPRS + granule - 1) / granule * granule;
        if (vgprs > CaptureValidator.VGPR_LIMIT) {
            throw new IllegalArgumentException("the program uses " + vL + " VGPRs: no room for the probe's "
                    + STUB_VGPRS + " below " + CaptureValidator.VGPR_LIMIT);
        }

        // the probe range: above every range, image and the code, past a guard gap
        long top = base + code.length + 0x10000L * 16;
        for (MemoryRange r : meta.getRangesList()) {
            top = Math.max(top, r.getGuestAddress() + r.getSize());
        }
        for (Image i : meta.getImagesList()) {
            top = Math.max(top, i.getGuestAddress() + TexelLayout.totalBytes(i));
        }
        long address = (top + 0x10000L + 0xffffL) & ~0xffffL;
        int header = 4 * (ws / 32) + 4;
        List<Layout> layouts = new ArrayList<>();
        int offset = 0;
        for (Point pt : points) {
            int rb = header;
            for (int r : pt.registers()) {
                rb += r >= Registers.VGPR ? 4 * ws : 4;
            }
            int counters = (4 * waves + 15) & ~15;
            layouts.add(new Layout(pt, offset, offset + counters, rb));
            offset += counters + waves * pt.maxHits() * rb;
            offset = (offset + 15) & ~15;
            if (offset > (64 << 20)) {
                throw new IllegalArgumentException("the probes would need more than 64 MiB of records: probe fewer "
                        + "executions");
            }
        }
        int rangeBytes = Math.max(16, offset);

        // the appended code: the prologue (the new entry), then one stub per point
        int appendAt = (code.length + 255) & ~255;
        long prologueAt = base + appendAt;
        ProbeAssembler a = new ProbeAssembler(w64);
        a.asm("s_cselect_b32 s" + sScc + ", 1, 0");
        a.asm("s_mov_b32 s" + sSel + ", 0");
        for (int k = 0; k < points.size(); k++) {
            a.asm("s_mov_b32 s" + (spare + FIXED_SGPRS + k) + ", 0");
        }
        int[] counts = {kernel.dispatch().getGroupCountX(), kernel.dispatch().getGroupCountY(),
                kernel.dispatch().getGroupCountZ()};
        Map<SystemSgprKind, Integer> system = new HashMap<>();
        for (SystemSgpr s : meta.getRegisters().getSystemSgprsList()) {
            system.put(s.getKind(), s.getIndex());
        }
        SystemSgprKind[] ids = {SystemSgprKind.WORKGROUP_ID_X, SystemSgprKind.WORKGROUP_ID_Y,
                SystemSgprKind.WORKGROUP_ID_Z};
        for (int d = 0; d < 3; d++) {
            Integer s = system.get(ids[d]);
            if (s == null) {
                if (counts[d] > 1) {
                    throw new IllegalArgumentException("the dispatch has " + counts[d] + " groups in " + "xyz".charAt(d)
                            + " but the kernel is not given its workgroup id there: a probe cannot tell the groups apart");
                }
                continue;
            }
            a.asm("s_cmp_eq_u32 s" + s + ", " + group[d]);
            a.branch(ProbeAssembler.S_CBRANCH_SCC0, "pend");
        }
        a.asm("s_mov_b32 s" + sSel + ", 1");
        a.label("pend");
        if (waves == 1) {
            a.asm("s_mov_b32 s" + sWave + ", 0");
        } else {
            Integer info = system.get(SystemSgprKind.WORKGROUP_INFO);
            if (info != null) {
                a.asm("s_bfe_u32 s" + sWave + ", s" + info + ", 0x60006"); // TG_SIZE [11:6]: the wave's index
            } else {
                Map<Integer, Integer> itemVgpr = new HashMap<>();
                for (WorkItemVgpr v : meta.getRegisters().getWorkItemVgprsList()) {
                    itemVgpr.put(v.getDimensionValue() - 1, v.getIndex());
                }
                int[] size = {kernel.dispatch().getGroupSizeX(), kernel.dispatch().getGroupSizeY(),
                        kernel.dispatch().getGroupSizeZ()};
                int stride = 1;
                for (int d = 0; d < 3; d++) {
                    if (size[d] > 1) {
                        Integer v = itemVgpr.get(d);
                        if (v == null) {
                            throw new IllegalArgumentException("the group has " + kernel.wavesPerGroup() + " waves and "
                                    + "the kernel is given neither TG_SIZE nor the work-item id in " + "xyz".charAt(d)
                                    + ": a probe cannot tell the waves apart");
                        }
                        String to = d == 0 ? "s" + sWave : "s" + sA;
                        a.asm("v_readfirstlane_b32 " + to + ", v" + v);
                        if (d > 0) {
                            a.asm("s_mul_i32 s" + sA + ", s" + sA + ", " + stride);
                            a.asm("s_add_u32 s" + sWave + ", s" + sWave + ", s" + sA);
                        }
                    } else if (d == 0) {
                        a.asm("s_mov_b32 s" + sWave + ", 0");
                    }
                    stride *= size[d];
                }
                // lane 0 (the first active lane at the entry) holds the wave's first work-item
                a.asm("s_lshr_b32 s" + sWave + ", s" + sWave + ", " + Integer.numberOfTrailingZeros(ws));
            }
        }
        a.asm("s_cmp_lg_u32 s" + sScc + ", 0");
        a.branchTo(ProbeAssembler.S_BRANCH, base + p.getEntryOffset());

        Map<Long, Integer> lengths = new HashMap<>();
        for (int k = 0; k < points.size(); k++) {
            Point pt = points.get(k);
            Layout l = layouts.get(k);
            Instruction insn;
            try {
                insn = kernel.program().at(pt.pc());
            } catch (DecodeException | RuntimeException e) {
                throw new IllegalArgumentException(String.format("pc 0x%x holds no instruction of the program", pt.pc()));
            }
            if (!probeable(insn)) {
                throw new IllegalArgumentException(String.format("pc 0x%x: %s cannot be probed (it depends on where it "
                        + "lies or ends the wave)", pt.pc(), insn.mnemonic()));
            }
            if (lengths.put(pt.pc(), insn.length()) != null) {
                throw new IllegalArgumentException(String.format("pc 0x%x is probed twice", pt.pc()));
            }
            int at = (int) (pt.pc() - base);
            byte[] original = java.util.Arrays.copyOfRange(code, at, at + insn.length());
            int sHit = spare + FIXED_SGPRS + k;
            long count = address + l.countOffset();
            long records = address + l.recordOffset() - l.recordBytes(); // the counter is 1-based when records are written
            String pair = "s[" + sA + ":" + (sA + 1) + "]";
            a.label("point" + k);
            a.raw(original);
            a.asm("s_cselect_b32 s" + sScc + ", 1, 0");
            a.asm("s_cmp_eq_u32 s" + sSel + ", 0");
            a.branch(ProbeAssembler.S_CBRANCH_SCC1, "back" + k);
            a.asm("s_mov_b32 s" + sExec + ", exec_lo");
            a.asm("s_mov_b32 exec_lo, -1");
            if (w64) {
                a.asm("s_mov_b32 s" + (sExec + 1) + ", exec_hi");
                a.asm("s_mov_b32 exec_hi, -1");
            }
            a.asm("s_add_u32 s" + sHit + ", s" + sHit + ", 1");
            a.asm("v_mov_b32 v" + vZ + ", 0");
            a.asm("v_mov_b32 v" + vT + ", s" + sHit);
            a.asm("s_mov_b32 s" + sA + ", " + lo(count));
            a.asm("s_mov_b32 s" + (sA + 1) + ", " + hi(count));
            a.asm("s_lshl_b32 s" + sOff + ", s" + sWave + ", 2");
            a.asm("s_add_u32 s" + sA + ", s" + sA + ", s" + sOff);
            a.asm("s_addc_u32 s" + (sA + 1) + ", s" + (sA + 1) + ", 0");
            a.asm("global_store_dword v" + vZ + ", v" + vT + ", " + pair);
            a.asm("s_cmp_gt_u32 s" + sHit + ", " + pt.maxHits());
            a.branch(ProbeAssembler.S_CBRANCH_SCC1, "exec" + k);
            a.asm("s_mov_b32 s" + sA + ", " + lo(records));
            a.asm("s_mov_b32 s" + (sA + 1) + ", " + hi(records));
            a.asm("s_mul_i32 s" + sOff + ", s" + sWave + ", " + l.waveStride());
            a.asm("s_add_u32 s" + sA + ", s" + sA + ", s" + sOff);
            a.asm("s_addc_u32 s" + (sA + 1) + ", s" + (sA + 1) + ", 0");
            a.asm("s_mul_i32 s" + sOff + ", s" + sHit + ", " + l.recordBytes());
            a.asm("s_add_u32 s" + sA + ", s" + sA + ", s" + sOff);
            a.asm("s_addc_u32 s" + (sA + 1) + ", s" + (sA + 1) + ", 0");
            a.asm("v_mbcnt_lo_u32_b32 v" + vL + ", -1, 0");
            if (w64) {
                a.asm("v_mbcnt_hi_u32_b32 v" + vL + ", -1, v" + vL);
            }
            a.asm("v_lshlrev_b32 v" + vL + ", 2, v" + vL);
            a.asm("v_mov_b32 v" + vT + ", s" + sExec);
            a.asm("global_store_dword v" + vZ + ", v" + vT + ", " + pair);
            if (w64) {
                a.asm("v_mov_b32 v" + vT + ", s" + (sExec + 1));
                a.asm("global_store_dword v" + vZ + ", v" + vT + ", " + pair + " offset:4");
            }
            a.asm("v_mov_b32 v" + vT + ", s" + sScc);
            a.asm("global_store_dword v" + vZ + ", v" + vT + ", " + pair + " offset:" + (header - 4));
            int rel = header;
            for (int r : pt.registers()) {
                if (r >= Registers.VGPR) {
                    a.asm("global_store_dword v" + vL + ", v" + (r - Registers.VGPR) + ", " + pair + offset(rel));
                    rel += 4 * ws;
                } else {
                    String source = r == Registers.SCC ? "s" + sScc : r == Registers.EXEC_LO ? "s" + sExec
                            : r == Registers.EXEC_LO + 1 ? "s" + (sExec + 1) : r == Registers.M0 ? "m0"
                            : r == Registers.VCC_LO ? "vcc_lo" : r == Registers.VCC_LO + 1 ? "vcc_hi" : "s" + r;
                    a.asm("v_mov_b32 v" + vT + ", " + source);
                    a.asm("global_store_dword v" + vZ + ", v" + vT + ", " + pair + offset(rel));
                    rel += 4;
                }
                if (rel >= 2048 - 4 * ws) {
                    a.asm("s_add_u32 s" + sA + ", s" + sA + ", " + rel);
                    a.asm("s_addc_u32 s" + (sA + 1) + ", s" + (sA + 1) + ", 0");
                    rel = 0;
                }
            }
            a.label("exec" + k);
            a.asm("s_mov_b32 exec_lo, s" + sExec);
            if (w64) {
                a.asm("s_mov_b32 exec_hi, s" + (sExec + 1));
            }
            a.label("back" + k);
            a.asm("s_cmp_lg_u32 s" + sScc + ", 0");
            a.branchTo(ProbeAssembler.S_BRANCH, pt.pc() + insn.length());
        }
        byte[] appended = a.encode(prologueAt);
        ByteBuffer patched = ByteBuffer.allocate(appendAt + appended.length).order(ByteOrder.LITTLE_ENDIAN);
        patched.put(code);
        while (patched.position() < appendAt) {
            patched.putInt(ProbeAssembler.S_NOP);
        }
        patched.put(appended);
        // the jumps: each point's PC branches to its stub (found again from the prologue's encoded layout)
        long[] stubAt = stubAddresses(points, prologueAt, a);
        for (int k = 0; k < points.size(); k++) {
            Point pt = points.get(k);
            int at = (int) (pt.pc() - base);
            patched.putInt(at, ProbeAssembler.branchWord(ProbeAssembler.S_BRANCH, pt.pc(), stubAt[k]));
            for (int pad = 4; pad < lengths.get(pt.pc()); pad += 4) {
                patched.putInt(at + pad, ProbeAssembler.S_NOP);
            }
        }

        CaptureWriter writer = new CaptureWriter();
        Capture.Builder b = meta.toBuilder().clearRuns().clearRanges().clearImages();
        b.getProgramBuilder().setCode(writer.add(patched.array())).setEntryOffset(prologueAt - base)
                .setVgprCount(vgprs).setSgprCount(Math.max(p.getSgprCount(), sgprsNeeded))
                .setComputePgmRsrc1((p.getComputePgmRsrc1() & ~0x3f) | (vgprs / granule - 1));
        for (MemoryRange r : meta.getRangesList()) {
            b.addRanges(r.toBuilder().setInitial(writer.add(file.blob(r.getInitial()))));
        }
        int index = meta.getRangesCount();
        b.addRanges(MemoryRange.newBuilder().setIndex(index).setGuestAddress(address).setSize(rangeBytes)
                .setInitial(writer.add(new byte[rangeBytes])).setName("probes"));
        for (Image i : meta.getImagesList()) {
            b.addImages(i.toBuilder().setTexels(writer.add(file.blob(i.getTexels()))));
        }
        writer.write(b.build(), out);
        return new Patched(out, index, address, List.copyOf(layouts), ws, waves);
    }

    /** Where each point's stub starts: encoded again with the labels alone (the lengths are llvm-mc's). */
    private static long[] stubAddresses(List<Point> points, long prologueAt, ProbeAssembler a) {
        long[] out = new long[points.size()];
        for (int k = 0; k < points.size(); k++) {
            out[k] = a.labelAddress("point" + k, prologueAt);
        }
        return out;
    }

    private static String offset(int rel) {
        return rel == 0 ? "" : " offset:" + rel;
    }

    private static String lo(long v) {
        return "0x" + Long.toHexString(v & 0xffffffffL);
    }

    private static String hi(long v) {
        return "0x" + Long.toHexString(v >>> 32);
    }
}
