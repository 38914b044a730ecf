package org.replayfarm.evalnode.hostmodel.memory;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.function.Consumer;
import org.replayfarm.evalnode.hostmodel.InitialMemory;
import org.replayfarm.evalnode.hostmodel.Kernel;
import org.replayfarm.evalnode.hostmodel.semantics.Semantics;
import org.replayfarm.evalnode.hostmodel.semantics.SemanticsTable;
import org.replayfarm.evalnode.hostmodel.wave.GuestFault;
import org.replayfarm.evalnode.hostmodel.wave.Wave;
import org.replayfarm.evalnode.hostmodel.wave.Workgroup;
import org.replayfarm.model.build.CaptureBuilder;
import org.replayfarm.model.build.DispatchShape;
import org.replayfarm.model.build.GuestLayout;
import org.replayfarm.model.build.KernelArg;
import org.replayfarm.model.build.Llvm;
import org.replayfarm.model.build.RawLayout;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.model.isa.Instruction;
import org.replayfarm.proto.Provenance;
import org.replayfarm.proto.UserSgpr;
import org.replayfarm.proto.WorkItemVgpr;

/**
 * Runs gfx1030 assembly (assembled by llvm-mc-19, built into a capture as {@link AsmRunner} does) on
 * one group, after a setup step that may preset any register of each wave: the memory unit tests need
 * VGPR and SGPR values without depending on the ALU units. Buffer n's address is in s[2n:2n+1]; each
 * wave's FLAT_SCRATCH is the scratch base plus the wave's offset (what a kernel prolog programs).
 * Instructions are executed through the semantics table until every wave ends or one faults.
 */
public final class MemoryHarness {
    private final Path dir;
    private int waveSize = 32;
    private int groupSize = 32;
    private int ldsBytes = 0;
    private int scratchBytesPerLane = 0;
    private final List<byte[]> buffers = new ArrayList<>();
    private Consumer<Wave> setup = w -> { };

    public MemoryHarness(Path dir) {
        this.dir = dir;
    }

    public MemoryHarness wave64() {
        waveSize = 64;
        groupSize = Math.max(groupSize, 64);
        return this;
    }

    MemoryHarness waveSize(int size) {
        return size == 64 ? wave64() : this;
    }

    MemoryHarness groupSize(int lanes) {
        groupSize = lanes;
        return this;
    }

    MemoryHarness lds(int bytes) {
        ldsBytes = bytes;
        return this;
    }

    MemoryHarness scratch(int bytesPerLane) {
        scratchBytesPerLane = bytesPerLane;
        return this;
    }

    public MemoryHarness buffer(byte[] contents) {
        buffers.add(contents.clone());
        return this;
    }

    /** Runs before the first instruction, once per wave. */
    public MemoryHarness setup(Consumer<Wave> step) {
        setup = step;
        return this;
    }

    /** The final state, and the first fault (null when none). */
    public record Outcome(Workgroup group, GuestFault fault, long[] bufferAddresses) {
        public Wave wave(int i) {
            return group.waves().get(i);
        }

        public byte[] buffer(int n) {
            InitialMemory.Range r = group.memory().initial().ranges().get(n);
            byte[] out = new byte[(int) r.size()];
            for (int i = 0; i < out.length; i++) {
                out[i] = (byte) group.memory().load(r.address() + i, 1, -1);
            }
            return out;
        }

        int bufferDword(int n, int at) {
            byte[] b = buffer(n);
            return MemoryOps.dword(b, at);
        }

        public Outcome ok() {
            if (fault != null) {
                throw new AssertionError("unexpected fault: " + fault.getMessage(), fault);
            }
            return this;
        }
    }

    public Outcome run(String assembly) throws Exception {
        Path s = Files.createTempFile(dir, "m", ".s");
        Files.writeString(s, assembly + "\ns_endpgm\n");
        byte[] object = Llvm.assemble(s, waveSize == 64);
        List<KernelArg> args = new ArrayList<>();
        for (int i = 0; i < buffers.size(); i++) {
            Path b = dir.resolve("buffer" + i + "-" + s.getFileName() + ".bin");
            Files.write(b, buffers.get(i));
            args.add(KernelArg.parse("buffer:" + b));
        }
        DispatchShape shape = new DispatchShape(1, 1, 1, groupSize, 1, 1, 1);
        var first = CaptureBuilder.fromRawCode(object, raw(Map.of()), shape, args, Provenance.getDefaultInstance())
                .metadata();
        Map<Integer, Integer> sgprs = new LinkedHashMap<>();
        long[] addresses = new long[buffers.size()];
        for (int i = 0; i < buffers.size(); i++) {
            long address = first.getRanges(i).getGuestAddress();
            addresses[i] = address;
            sgprs.put(2 * i, (int) address);
            sgprs.put(2 * i + 1, (int) (address >>> 32));
        }
        var built = CaptureBuilder.fromRawCode(object, raw(sgprs), shape, args, Provenance.getDefaultInstance());
        Path capture = Files.createTempFile(dir, "m", ".capture");
        built.write(capture);
        Kernel kernel = new Kernel(CaptureFile.open(capture));
        Workgroup group = new Workgroup(kernel, 0, 0, 0);
        int perWave = kernel.scratchBytesPerLane() * waveSize;
        for (int index = 0; index < kernel.wavesPerGroup(); index++) {
            Wave w = new Wave(group, index, waveSize, kernel.vgprCount(), kernel.entry(), kernel.initialMode());
            for (UserSgpr u : kernel.capture().getRegisters().getUserSgprsList()) {
                w.setSgpr(u.getIndex(), u.getValue());
            }
            long exec = 0;
            for (int lane = 0; lane < waveSize; lane++) {
                if (index * waveSize + lane < groupSize) {
                    exec |= 1L << lane;
                    for (WorkItemVgpr v : kernel.capture().getRegisters().getWorkItemVgprsList()) {
                        if (v.getDimensionValue() == 1) {
                            w.setVgpr(v.getIndex(), lane, index * waveSize + lane);
                        }
                    }
                }
            }
            w.setExec(exec);
            w.setFlatScratch(GuestLayout.SCRATCH_BASE + (long) index * perWave);
            group.add(w);
        }
        for (Wave w : group.waves()) {
            setup.accept(w);
        }
        GuestFault fault = null;
        SemanticsTable table = SemanticsTable.gfx1030();
        try {
            for (Wave w : group.waves()) {
                int steps = 0;
                while (!w.ended()) {
                    Instruction insn = kernel.program().at(w.pc());
                    Semantics h = table.handler(insn.opcode());
                    if (h == null) {
                        throw new GuestFault("unsupported instruction: " + insn.mnemonic());
                    }
                    h.execute(w, insn);
                    if (!w.takeJumped()) {
                        w.setPc(w.pc() + insn.length());
                    }
                    if (++steps > 10_000) {
                        throw new IllegalStateException("runaway");
                    }
                }
            }
        } catch (GuestFault f) {
            fault = f;
        }
        return new Outcome(group, fault, addresses);
    }

    private RawLayout raw(Map<Integer, Integer> sgprs) {
        int wg = 2 * buffers.size();
        return new RawLayout(waveSize, 256, 106, ldsBytes, scratchBytesPerLane, sgprs, OptionalInt.of(wg + 3),
                OptionalInt.of(wg));
    }

    /** Little-endian dwords as bytes. */
    static byte[] dwords(int... values) {
        byte[] b = new byte[4 * values.length];
        for (int i = 0; i < values.length; i++) {
            MemoryOps.putDword(b, 4 * i, values[i]);
        }
        return b;
    }
}
