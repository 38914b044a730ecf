package org.replayfarm.gpunode.translate;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.replayfarm.evalnode.eval.MemoryMerge;
import org.replayfarm.evalnode.hostmodel.GroupResult;
import org.replayfarm.evalnode.hostmodel.HostModel;
import org.replayfarm.evalnode.hostmodel.Kernel;
import org.replayfarm.evalnode.hostmodel.wave.Wave;
import org.replayfarm.model.build.CaptureBuilder;
import org.replayfarm.model.build.DispatchShape;
import org.replayfarm.model.build.KernelArg;
import org.replayfarm.model.build.Llvm;
import org.replayfarm.model.build.RawLayout;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.proto.Capture;
import org.replayfarm.proto.Provenance;

/**
 * Runs one capture both ways, the host model (the oracle from outside the translator) and the
 * translation through the CPU runner, and says where they differ: every range byte and, per wave, every
 * SGPR, VGPR (of lanes the group has), SCC and MODE, and the fault of every group (whether, which wave, PC).
 * Captures come from assembly (llvm-mc-19) like the host model's instruction tests make them: buffer n's
 * address in s[2n:2n+1], the group ids after them.
 */
public final class Differential {
    /** One build cache for every test of a JVM (builds are cached by hash). */
    public static final Path CACHE = Path.of(System.getProperty("java.io.tmpdir"), "replay-farm-cuda-cpu-tests");
    private static final CpuBuild BUILD = new CpuBuild("g++", CACHE);

    private Differential() {
    }

    /** An assembly program's capture: wave size, group size and count, buffers as ranges 0, 1, ... */
    public static CaptureFile assemble(Path dir, String assembly, int waveSize, int groupSize, int groups,
                                       List<byte[]> buffers, int ldsBytes, int scratchPerLane) throws Exception {
        Path s = Files.createTempFile(dir, "p", ".s");
        Files.writeString(s, assembly);
        byte[] object = Llvm.assemble(s, waveSize == 64);
        List<KernelArg> args = new ArrayList<>();
        for (int i = 0; i < buffers.size(); i++) {
            Path b = dir.resolve(s.getFileName() + "-buffer" + i + ".bin");
            Files.write(b, buffers.get(i));
            args.add(KernelArg.parse("buffer:" + b));
        }
        DispatchShape shape = new DispatchShape(groups, 1, 1, groupSize, 1, 1, 1);
        Capture first = CaptureBuilder.fromRawCode(object, raw(waveSize, buffers.size(), Map.of(), ldsBytes, scratchPerLane),
                shape, args, Provenance.getDefaultInstance()).metadata();
        Map<Integer, Integer> sgprs = new LinkedHashMap<>();
        for (int i = 0; i < buffers.size(); i++) {
            long address = first.getRanges(i).getGuestAddress();
            sgprs.put(2 * i, (int) address);
            sgprs.put(2 * i + 1, (int) (address >>> 32));
        }
        var built = CaptureBuilder.fromRawCode(object, raw(waveSize, buffers.size(), sgprs, ldsBytes, scratchPerLane),
                shape, args, Provenance.getDefaultInstance());
        Path capture = Files.createTempFile(dir, "p", ".capture");
        built.write(capture);
        return CaptureFile.open(capture);
    }

    private static RawLayout raw(int waveSize, int buffers, Map<Integer, Integer> sgprs, int lds, int scratch) {
        int wg = 2 * buffers;
        return new RawLayout(waveSize, 256, 106, lds, scratch, sgprs, OptionalInt.of(wg + 3), OptionalInt.of(wg));
    }

    /** The per-wave state both sides end with. */
    public record WaveState(int[] sgprs, int scc, int mode, int[][] vgprs) {
    }

    /** A side's outcome: final ranges, per group (linear id) its waves and whether/where it faulted. */
    public record Side(Map<Integer, byte[]> ranges, List<List<WaveState>> waves, List<String> faults,
                       long waveInstructions) {
    }

    /** The host model's outcome of the whole dispatch. */
    public static Side host(CaptureFile capture, long budget) {
        Kernel kernel = new Kernel(capture);
        HostModel model = new HostModel(kernel, budget);
        MemoryMerge merge = new MemoryMerge(kernel.memory(), kernel.dispatch());
        var d = kernel.dispatch();
        List<List<WaveState>> waves = new ArrayList<>();
        List<String> faults = new ArrayList<>();
        long instructions = 0;
        for (int z = 0; z < d.getGroupCountZ(); z++) {
            for (int y = 0; y < d.getGroupCountY(); y++) {
                for (int x = 0; x < d.getGroupCountX(); x++) {
                    HostModel.Run run = model.runKeepingState(x, y, z);
                    GroupResult r = run.result();
                    merge.add(r);
                    instructions += r.waveInstructions();
                    faults.add(r.fault().map(f -> "wave " + f.wave() + " pc 0x" + Long.toHexString(f.pc())).orElse(""));
                    List<WaveState> ws = new ArrayList<>();
                    for (Wave w : run.group().waves()) {
                        int[] s = new int[128];
                        for (int i = 0; i < 128; i++) {
                            s[i] = i == 125 ? 0 : w.sgpr(i);
                        }
                        int[][] v = new int[w.vgprCount()][w.waveSize()];
                        for (int r2 = 0; r2 < w.vgprCount(); r2++) {
                            for (int l = 0; l < w.waveSize(); l++) {
                                v[r2][l] = w.vgpr(r2, l);
                            }
                        }
                        ws.add(new WaveState(s, w.scc() ? 1 : 0, w.mode(), v));
                    }
                    waves.add(ws);
                }
            }
        }
        merge.applyAtomics();
        Map<Integer, byte[]> ranges = new LinkedHashMap<>();
        for (int n = 0; n < capture.metadata().getRangesCount(); n++) {
            ranges.put(n, merge.range(n));
        }
        return new Side(ranges, waves, faults, instructions);
    }

    /** The translation's outcome through the CPU runner (the translation must not be refused). */
    public static Side device(CaptureFile capture, Path work, long budget) throws IOException {
        return device(capture, work, budget, BUILD);
    }

    /** As {@link #device(CaptureFile, Path, long)}, built by the given builder (its flags and defines). */
    public static Side device(CaptureFile capture, Path work, long budget, CpuBuild builder) throws IOException {
        ProgramInfo p = ProgramInfo.of(capture);
        Translation t = new Translator().translate(p);
        if (!t.ok()) {
            throw new AssertionError("translation refused:\n" + t.coverageReport());
        }
        CpuBuild.Built built = builder.build(t);
        Path bundle = Files.createTempFile(work, "launch", ".bundle");
        Path result = Files.createTempFile(work, "result", ".bin");
        Path state = Files.createTempFile(work, "state", ".bin");
        Files.write(bundle, LaunchBundle.write(capture, budget, org.replayfarm.gpunode.translate.image.ImageBundle.section(capture)));
        CpuBuild.run(List.of(built.runner().toString(), bundle.toString(), result.toString(), state.toString()), work, 300);
        LaunchBundle.Result r = LaunchBundle.read(Files.readAllBytes(result));
        Map<Integer, byte[]> ranges = new LinkedHashMap<>();
        r.ranges().forEach((k, v) -> {
            byte[] a = new byte[v.remaining()];
            v.duplicate().get(a);
            ranges.put(k, a);
        });
        ByteBuffer s = ByteBuffer.wrap(Files.readAllBytes(state)).order(ByteOrder.LITTLE_ENDIAN);
        var d = capture.metadata().getDispatch();
        int waveSize = p.waveSize();
        int lanes = d.getGroupSizeX() * d.getGroupSizeY() * d.getGroupSizeZ();
        int perGroup = (lanes + waveSize - 1) / waveSize;
        int nv = Math.max(1, p.vgprCount());
        List<List<WaveState>> waves = new ArrayList<>();
        List<String> faults = new ArrayList<>();
        long instructions = 0;
        for (LaunchBundle.GroupOutcome g : r.groups()) {
            faults.add(g.faulted() ? "wave " + g.wave() + " pc 0x" + Long.toHexString(g.pc()) : "");
            instructions += g.waveInstructions();
            List<WaveState> ws = new ArrayList<>();
            for (int w = 0; w < perGroup; w++) {
                s.getInt();
                int scc = s.getInt();
                int mode = s.getInt();
                s.getInt();
                int[] sg = new int[128];
                for (int i = 0; i < 128; i++) {
                    sg[i] = s.getInt();
                }
                int[][] v = new int[p.vgprCount()][waveSize];
                for (int r2 = 0; r2 < nv; r2++) {
                    for (int l = 0; l < waveSize; l++) {
                        int x = s.getInt();
                        if (r2 < p.vgprCount()) {
                            v[r2][l] = x;
                        }
                    }
                }
                ws.add(new WaveState(sg, scc, mode, v));
            }
            waves.add(ws);
        }
        return new Side(ranges, waves, faults, instructions);
    }

    /** Every difference between the two sides, one line each (empty when they agree bit for bit). */
    public static List<String> differences(Side host, Side device, int groupLanes, int waveSize) {
        List<String> out = new ArrayList<>();
        for (Map.Entry<Integer, byte[]> e : host.ranges().entrySet()) {
            byte[] h = e.getValue();
            byte[] g = device.ranges().get(e.getKey());
            if (g == null || g.length != h.length) {
                out.add("range " + e.getKey() + ": device has " + (g == null ? "none" : g.length + " bytes"));
                continue;
            }
            for (int i = 0; i < h.length && out.size() < 40; i++) {
                if (h[i] != g[i]) {
                    out.add(String.format("range %d byte %d: host 0x%02x, device 0x%02x", e.getKey(), i, h[i] & 0xFF,
                            g[i] & 0xFF));
                }
            }
        }
        for (int grp = 0; grp < host.waves().size(); grp++) {
            if (!host.faults().get(grp).equals(device.faults().get(grp))) {
                out.add("group " + grp + " fault: host '" + host.faults().get(grp) + "', device '"
                        + device.faults().get(grp) + "'");
            }
            List<WaveState> hw = host.waves().get(grp);
            List<WaveState> dw = device.waves().get(grp);
            for (int w = 0; w < hw.size(); w++) {
                WaveState a = hw.get(w);
                WaveState b = dw.get(w);
                String where = "group " + grp + " wave " + w + " ";
                for (int i = 0; i < 128; i++) {
                    if (i != 125 && a.sgprs()[i] != b.sgprs()[i]) {
                        out.add(String.format("%ss%d: host 0x%08x, device 0x%08x", where, i, a.sgprs()[i], b.sgprs()[i]));
                    }
                }
                if (a.scc() != b.scc()) {
                    out.add(where + "scc: host " + a.scc() + ", device " + b.scc());
                }
                if (a.mode() != b.mode()) {
                    out.add(String.format("%smode: host 0x%x, device 0x%x", where, a.mode(), b.mode()));
                }
                for (int r = 0; r < a.vgprs().length; r++) {
                    for (int l = 0; l < waveSize; l++) {
                        if (w * waveSize + l < groupLanes && a.vgprs()[r][l] != b.vgprs()[r][l]) {
                            out.add(String.format("%sv%d lane %d: host 0x%08x, device 0x%08x", where, r, l,
                                    a.vgprs()[r][l], b.vgprs()[r][l]));
                        }
                    }
                }
            }
        }
        return out;
    }
}
