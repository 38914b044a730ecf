package org.replayfarm.evalnode.hostmodel;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.replayfarm.evalnode.hostmodel.wave.Wave;
import org.replayfarm.evalnode.hostmodel.wave.Workgroup;
import org.replayfarm.model.build.CaptureBuilder;
import org.replayfarm.model.build.DispatchShape;
import org.replayfarm.model.build.KernelArg;
import org.replayfarm.model.build.RawLayout;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.model.testing.Toolchain;
import org.replayfarm.proto.Capture;
import org.replayfarm.proto.Provenance;

/**
 * Runs a few lines of gfx1030 assembly on the host model, for instruction tests. The assembly is
 * assembled by llvm-mc-19 (the reference assembler). Buffers become memory ranges 0, 1, ...; their
 * guest addresses are handed to the wave in s[0:1], s[2:3], ... (buffer n in s[2n:2n+1]); the workgroup
 * ids x, y, z follow them. The program should end with s_endpgm.
 */
public final class AsmRunner {
    private final Path dir;
    private int waveSize = 32;
    private int groupSize = 32;
    private int ldsBytes = 0;
    private int scratchBytesPerLane = 0;
    private final List<byte[]> buffers = new ArrayList<>();
    private HostModel.Tier tier = HostModel.Tier.byDefault();

    public AsmRunner(Path dir) {
        this.dir = dir;
    }

    public AsmRunner wave64() {
        this.waveSize = 64;
        this.groupSize = Math.max(groupSize, 64);
        return this;
    }

    /** The tier the program runs on (default: {@link HostModel.Tier#byDefault}, the fast tier unless set). */
    public AsmRunner tier(HostModel.Tier t) {
        this.tier = t;
        return this;
    }

    public AsmRunner groupSize(int lanes) {
        this.groupSize = lanes;
        return this;
    }

    public AsmRunner lds(int bytes) {
        this.ldsBytes = bytes;
        return this;
    }

    public AsmRunner scratch(int bytesPerLane) {
        this.scratchBytesPerLane = bytesPerLane;
        return this;
    }

    /** Adds a buffer (memory range n, its address in s[2n:2n+1]). */
    public AsmRunner buffer(byte[] contents) {
        buffers.add(contents.clone());
        return this;
    }

    /** What a run left: the group's result and final state, and the capture it ran. */
    public record Outcome(GroupResult result, Workgroup group, Capture capture) {
        public Wave wave(int index) {
            return group.waves().get(index);
        }

        /** Range n's bytes as the group left them: initial contents with its stores and atomics. */
        public byte[] buffer(int n) {
            InitialMemory.Range r = group.memory().initial().ranges().get(n);
            byte[] out = new byte[(int) r.size()];
            for (int i = 0; i < out.length; i++) {
                out[i] = (byte) group.memory().load(r.address() + i, 1, -1);
            }
            return out;
        }
    }

    public Outcome run(String assembly) throws Exception {
        Kernel kernel = kernel(assembly);
        HostModel.Run run = new HostModel(kernel, 1_000_000, tier).runKeepingState(0, 0, 0);
        return new Outcome(run.result(), run.group(), kernel.capture());
    }

    /** The assembly assembled by llvm-mc-19 and built into a one-group capture, as {@link #run} runs it. */
    public Kernel kernel(String assembly) throws Exception {
        Path s = Files.createTempFile(dir, "t", ".s");
        Files.writeString(s, assembly);
        byte[] object = org.replayfarm.model.build.Llvm.assemble(s, waveSize == 64);
        List<KernelArg> args = new ArrayList<>();
        for (int i = 0; i < buffers.size(); i++) {
            Path b = dir.resolve("buffer" + i + "-" + s.getFileName() + ".bin");
            Files.write(b, buffers.get(i));
            args.add(KernelArg.parse("buffer:" + b));
        }
        DispatchShape shape = new DispatchShape(1, 1, 1, groupSize, 1, 1, 1);
        // first pass learns where the builder puts the buffers; the second hands their addresses over
        Capture first = build(object, shape, args, Map.of());
        Map<Integer, Integer> sgprs = new LinkedHashMap<>();
        for (int i = 0; i < buffers.size(); i++) {
            long address = first.getRanges(i).getGuestAddress();
            sgprs.put(2 * i, (int) address);
            sgprs.put(2 * i + 1, (int) (address >>> 32));
        }
        var built = CaptureBuilder.fromRawCode(object, raw(sgprs), shape, args, Provenance.getDefaultInstance());
        Path capture = Files.createTempFile(dir, "t", ".capture");
        built.write(capture);
        return new Kernel(CaptureFile.open(capture));
    }

    private Capture build(byte[] object, DispatchShape shape, List<KernelArg> args, Map<Integer, Integer> sgprs)
            throws Exception {
        return CaptureBuilder.fromRawCode(object, raw(sgprs), shape, args, Provenance.getDefaultInstance()).metadata();
    }

    private RawLayout raw(Map<Integer, Integer> sgprs) {
        int wg = 2 * buffers.size();
        // the kernarg pointer goes after the buffer addresses and the group ids
        return new RawLayout(waveSize, 256, 106, ldsBytes, scratchBytesPerLane, sgprs, OptionalInt.of(wg + 3),
                OptionalInt.of(wg));
    }

    /** The repository root, for tests that need the examples. */
    public static Path root() {
        return Toolchain.root();
    }
}
