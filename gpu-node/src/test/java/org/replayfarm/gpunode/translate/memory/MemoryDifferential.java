package org.replayfarm.gpunode.translate.memory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.replayfarm.evalnode.hostmodel.FaultRecord;
import org.replayfarm.evalnode.hostmodel.HostModel;
import org.replayfarm.evalnode.hostmodel.InitialMemory;
import org.replayfarm.evalnode.hostmodel.Kernel;
import org.replayfarm.model.build.CaptureBuilder;
import org.replayfarm.model.build.DispatchShape;
import org.replayfarm.model.build.KernelArg;
import org.replayfarm.model.build.Llvm;
import org.replayfarm.model.build.RawLayout;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.proto.Capture;
import org.replayfarm.proto.Provenance;

/**
 * Builds a generated program into a capture (assembled by llvm-mc-19) and runs it on the host model:
 * the final bytes of every range and the fault, if any. The device side runs the same capture.
 */
final class MemoryDifferential {
    private MemoryDifferential() {
    }

    /** A built program: the capture file and the generated program. */
    record Built(Path capture, MemoryProgramGenerator.Program program) {
    }

    /** What one side left: each range's final bytes, and the fault (wave, lane, PC) if the group faulted. */
    record Outcome(List<byte[]> ranges, Optional<String> fault) {
    }

    static Built build(Path dir, long seed, int waveSize, boolean exec, int instructions) throws Exception {
        return build(dir, seed, waveSize, exec, false, instructions);
    }

    static Built build(Path dir, long seed, int waveSize, boolean exec, boolean twoWaves, int instructions)
            throws Exception {
        MemoryProgramGenerator g = new MemoryProgramGenerator(seed, waveSize, exec, twoWaves);
        Path init = dir.resolve("init-" + seed + ".bin");
        Path data = dir.resolve("data-" + seed + ".bin");
        Files.write(init, new byte[MemoryProgramGenerator.INIT_BYTES]);
        Files.write(data, new byte[g.dataBytes()]);
        List<KernelArg> args = List.of(KernelArg.parse("buffer:" + init), KernelArg.parse("buffer:" + data),
                KernelArg.parse("zeros:" + g.outBytes()));
        DispatchShape shape = new DispatchShape(1, 1, 1, g.lanes(), 1, 1, 1);
        Path s = dir.resolve("p-" + seed + ".s");
        Files.writeString(s, "s_endpgm\n");
        byte[] probe = Llvm.assemble(s, waveSize == 64);
        // first pass: where the builder puts the ranges (their sizes do not change)
        Capture first = CaptureBuilder.fromRawCode(probe, raw(g, Map.of(), waveSize), shape, args,
                Provenance.getDefaultInstance()).metadata();
        MemoryProgramGenerator.Program p = g.generate(first.getRanges(0).getGuestAddress(),
                first.getRanges(1).getGuestAddress(), first.getRanges(2).getGuestAddress(), instructions);
        Files.write(init, p.init());
        Files.write(data, p.data());
        Files.writeString(s, p.asm());
        byte[] object = Llvm.assemble(s, waveSize == 64);
        args = List.of(KernelArg.parse("buffer:" + init), KernelArg.parse("buffer:" + data),
                KernelArg.parse("zeros:" + g.outBytes()));
        var built = CaptureBuilder.fromRawCode(object, raw(g, p.sgprs(), waveSize), shape, args,
                Provenance.getDefaultInstance());
        Path capture = dir.resolve("p-" + seed + "-w" + waveSize + ".capture");
        built.write(capture);
        return new Built(capture, p);
    }

    private static RawLayout raw(MemoryProgramGenerator g, Map<Integer, Integer> sgprs, int waveSize) {
        return new RawLayout(waveSize, MemoryProgramGenerator.VGPRS, 106, g.ldsBytes(), g.scratchPerLane(), sgprs,
                OptionalInt.of(0), OptionalInt.of(31));
    }

    /** The host model's run of group (0, 0, 0). */
    static Outcome host(Path capture) throws Exception {
        Kernel kernel = new Kernel(CaptureFile.open(capture));
        HostModel.Run run = new HostModel(kernel, 1_000_000).runKeepingState(0, 0, 0);
        List<byte[]> ranges = new ArrayList<>();
        for (InitialMemory.Range r : run.group().memory().initial().ranges()) {
            byte[] out = new byte[(int) r.size()];
            for (int i = 0; i < out.length; i++) {
                out[i] = (byte) run.group().memory().load(r.address() + i, 1, -1);
            }
            ranges.add(out);
        }
        Optional<FaultRecord> f = run.result().fault();
        return new Outcome(ranges, f.map(x -> fault(x.wave(), x.lane(), x.pc()) + " (" + x.message() + ")"));
    }

    static String fault(int wave, int lane, long pc) {
        return String.format("wave %d lane %d pc 0x%x", wave, lane, pc);
    }

    static byte[] bytes(ByteBuffer b) {
        ByteBuffer d = b.duplicate();
        byte[] out = new byte[d.remaining()];
        d.get(out);
        return out;
    }
}
