package org.replayfarm.gpunode.translate.image;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.SortedMap;
import java.util.function.UnaryOperator;
import org.replayfarm.evalnode.eval.ImageMerge;
import org.replayfarm.evalnode.eval.MemoryMerge;
import org.replayfarm.evalnode.hostmodel.GroupResult;
import org.replayfarm.evalnode.hostmodel.HostModel;
import org.replayfarm.evalnode.hostmodel.Kernel;
import org.replayfarm.evalnode.hostmodel.wave.Wave;
import org.replayfarm.gpunode.translate.CpuBuild;
import org.replayfarm.gpunode.translate.LaunchBundle;
import org.replayfarm.gpunode.translate.NvccBatch;
import org.replayfarm.gpunode.translate.ProgramInfo;
import org.replayfarm.gpunode.translate.Translation;
import org.replayfarm.gpunode.translate.Translator;
import org.replayfarm.model.build.CaptureBuilder;
import org.replayfarm.model.build.DispatchShape;
import org.replayfarm.model.build.KernelArg;
import org.replayfarm.model.build.Llvm;
import org.replayfarm.model.build.RawLayout;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.proto.Capture;
import org.replayfarm.proto.Provenance;

/**
 * Runs an image program both ways — the host model (the oracle: ImageMerge's final images, MemoryMerge's
 * ranges, every wave's VGPRs, faults) and the translation through the lead's CPU runner with this unit's
 * image section — and lists every difference. Programs are assembly as the host model's image tests write
 * them ({@code --arg} texts: the kernarg pointer in s[0:1], argument k's 8 bytes at kernarg offset 8k, work-item
 * ids in v0..v2, group ids in s[20:22]).
 */
final class ImageRig {
    static final Path CACHE = Path.of(System.getProperty("java.io.tmpdir"), "replay-farm-cuda-cpu-tests");
    private static final CpuBuild BUILD = new CpuBuild("g++", CACHE);
    private static final long BUDGET = 1_000_000;

    /** A side's outcome. */
    record Side(Map<Integer, byte[]> images, Map<Integer, byte[]> ranges, List<int[][]> vgprs, List<String> faults,
                List<String> messages) {
    }

    private ImageRig() {
    }

    static CaptureFile capture(Path dir, String assembly, int waveSize, int lanes, int groups, List<String> args,
                               UnaryOperator<Capture> patch) throws Exception {
        Path s = Files.createTempFile(dir, "i", ".s");
        Files.writeString(s, assembly + "\ns_endpgm\n");
        byte[] object = Llvm.assemble(s, waveSize == 64);
        List<KernelArg> kernelArgs = new ArrayList<>();
        for (String a : args) {
            kernelArgs.add(KernelArg.parse(a));
        }
        var built = CaptureBuilder.fromRawCode(object, new RawLayout(waveSize, 256, 106, 0, 0, Map.of(), OptionalInt.of(0),
                OptionalInt.of(20)), new DispatchShape(groups, 1, 1, lanes, 1, 1, 1), kernelArgs,
                Provenance.getDefaultInstance());
        Path capture = Files.createTempFile(dir, "i", ".capture");
        built.writer().write(patch.apply(built.metadata()), capture);
        return CaptureFile.open(capture);
    }

    static Side host(CaptureFile capture) {
        Kernel kernel = new Kernel(capture);
        HostModel model = new HostModel(kernel, BUDGET);
        ImageMerge images = new ImageMerge(kernel.images(), kernel.dispatch());
        MemoryMerge memory = new MemoryMerge(kernel.memory(), kernel.dispatch());
        List<int[][]> vgprs = new ArrayList<>();
        List<String> faults = new ArrayList<>();
        List<String> messages = new ArrayList<>();
        var d = kernel.dispatch();
        for (int g = 0; g < d.getGroupCountX() * Math.max(1, d.getGroupCountY()) * Math.max(1, d.getGroupCountZ()); g++) {
            int x = g % d.getGroupCountX();
            int y = g / d.getGroupCountX() % Math.max(1, d.getGroupCountY());
            int z = g / (d.getGroupCountX() * Math.max(1, d.getGroupCountY()));
            HostModel.Run run = model.runKeepingState(x, y, z);
            GroupResult r = run.result();
            images.add(r);
            memory.add(r);
            faults.add(r.fault().map(f -> "wave " + f.wave() + " lane " + f.lane() + " pc 0x" + Long.toHexString(f.pc()))
                    .orElse(""));
            messages.add(r.fault().map(Object::toString).orElse(""));
            for (Wave w : run.group().waves()) {
                int[][] v = new int[w.vgprCount()][w.waveSize()];
                for (int reg = 0; reg < w.vgprCount(); reg++) {
                    for (int l = 0; l < w.waveSize(); l++) {
                        v[reg][l] = w.vgpr(reg, l);
                    }
                }
                vgprs.add(v);
            }
        }
        images.applyAtomics();
        memory.applyAtomics();
        Map<Integer, byte[]> im = new LinkedHashMap<>();
        for (int n = 0; n < capture.metadata().getImagesCount(); n++) {
            im.put(n, images.texels(n));
        }
        Map<Integer, byte[]> ranges = new LinkedHashMap<>();
        for (int n = 0; n < capture.metadata().getRangesCount(); n++) {
            ranges.put(n, memory.range(n));
        }
        return new Side(im, ranges, vgprs, faults, messages);
    }

    static Translation translate(CaptureFile capture) {
        Translation t = new Translator().translate(ProgramInfo.of(capture));
        if (!t.ok()) {
            throw new AssertionError("translation refused:\n" + t.coverageReport());
        }
        return t;
    }

    /** The translations {@link #device} built since the last {@link #nvccCheck} (by source: each once). */
    private static final Map<String, Translation> TO_COMPILE = new LinkedHashMap<>();

    /**
     * The nvcc compile check of every translation {@link #device} ran since the last call (the corpus test's check:
     * one {@link NvccBatch}, compute_90 PTX with {@link CpuBuild#NVCC_CHECK_FLAGS}, then ptxas to sm_90): each test
     * class that runs image programs calls it after its tests. Returns how many were compiled; throws when nvcc or
     * ptxas fails, or when nvcc is not installed at /usr/local/cuda.
     */
    static int nvccCheck(Path dir) throws Exception {
        List<Translation> ts;
        synchronized (TO_COMPILE) {
            ts = List.copyOf(TO_COMPILE.values());
            TO_COMPILE.clear();
        }
        if (ts.isEmpty()) {
            return 0;
        }
        NvccBatch.compile(Path.of("/usr/local/cuda/bin/nvcc"), Path.of("/usr/local/cuda/bin/ptxas"), ts,
                dir.resolve("nvcc-batch"), 1200);
        return ts.size();
    }

    static Side device(CaptureFile capture, Path work) throws Exception {
        ProgramInfo p = ProgramInfo.of(capture);
        Translation t = translate(capture);
        synchronized (TO_COMPILE) {
            TO_COMPILE.putIfAbsent(t.source(), t);
        }
        CpuBuild.Built built = BUILD.build(t);
        Path bundle = Files.createTempFile(work, "launch", ".bundle");
        Path result = Files.createTempFile(work, "result", ".bin");
        Path state = Files.createTempFile(work, "state", ".bin");
        Files.write(bundle, LaunchBundle.write(capture, BUDGET, ImageBundle.section(capture)));
        CpuBuild.run(List.of(built.runner().toString(), bundle.toString(), result.toString(), state.toString()), work, 300);
        LaunchBundle.Result r = LaunchBundle.read(Files.readAllBytes(result));
        Map<Integer, byte[]> images = new LinkedHashMap<>();
        SortedMap<Integer, ByteBuffer> texels = ImageBundle.texels(r.images());
        texels.forEach((k, v) -> images.put(k, bytes(v)));
        Map<Integer, byte[]> ranges = new LinkedHashMap<>();
        r.ranges().forEach((k, v) -> ranges.put(k, bytes(v)));
        List<String> faults = new ArrayList<>();
        for (LaunchBundle.GroupOutcome g : r.groups()) {
            faults.add(g.faulted() ? "wave " + g.wave() + " lane " + g.lane() + " pc 0x" + Long.toHexString(g.pc()) : "");
        }
        ByteBuffer s = ByteBuffer.wrap(Files.readAllBytes(state)).order(ByteOrder.LITTLE_ENDIAN);
        var d = capture.metadata().getDispatch();
        int waveSize = p.waveSize();
        int lanes = d.getGroupSizeX() * d.getGroupSizeY() * d.getGroupSizeZ();
        int perGroup = (lanes + waveSize - 1) / waveSize;
        int nv = Math.max(1, p.vgprCount());
        List<int[][]> vgprs = new ArrayList<>();
        for (int g = 0; g < r.groups().size(); g++) {
            for (int w = 0; w < perGroup; w++) {
                s.position(s.position() + 16 + 4 * 128);
                int[][] v = new int[p.vgprCount()][waveSize];
                for (int reg = 0; reg < nv; reg++) {
                    for (int l = 0; l < waveSize; l++) {
                        int x = s.getInt();
                        if (reg < p.vgprCount()) {
                            v[reg][l] = x;
                        }
                    }
                }
                vgprs.add(v);
            }
        }
        return new Side(images, ranges, vgprs, faults, List.of());
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] a = new byte[b.remaining()];
        b.duplicate().get(a);
        return a;
    }

    /**
     * Every difference: image bytes, range bytes, faults, and the VGPRs of lanes the groups have except
     * {@code approximate} ones (VGPR numbers whose values come from an approximate instruction), which
     * must agree within {@code bound} (absolute, as floats); returns the differences and counts the
     * approximate values that were not bit-equal in {@code approxUnequal[0]}.
     */
    static List<String> differences(Side host, Side device, int lanes, int waveSize, java.util.Set<Integer> approximate,
                                    float bound, long[] approxUnequal) {
        List<String> out = new ArrayList<>();
        host.images().forEach((k, h) -> compareBytes("image " + k, h, device.images().get(k), out));
        host.ranges().forEach((k, h) -> compareBytes("range " + k, h, device.ranges().get(k), out));
        if (!host.faults().equals(device.faults())) {
            out.add("faults: host " + host.faults() + ", device " + device.faults());
        }
        boolean faulted = host.faults().stream().anyMatch(f -> !f.isEmpty());
        if (!faulted) {
            int perGroup = (lanes + waveSize - 1) / waveSize;
            for (int w = 0; w < host.vgprs().size(); w++) {
                int[][] h = host.vgprs().get(w);
                int[][] g = device.vgprs().get(w);
                for (int r = 0; r < h.length; r++) {
                    for (int l = 0; l < waveSize; l++) {
                        if ((w % perGroup) * waveSize + l >= lanes || h[r][l] == g[r][l]) {
                            continue;
                        }
                        if (approximate.contains(r)) {
                            approxUnequal[0]++;
                            float a = Float.intBitsToFloat(h[r][l]);
                            float b = Float.intBitsToFloat(g[r][l]);
                            if (Math.abs(a - b) <= bound) {
                                continue;
                            }
                        }
                        if (out.size() < 40) {
                            out.add(String.format("wave %d v%d lane %d: host 0x%08x, device 0x%08x", w, r, l, h[r][l],
                                    g[r][l]));
                        }
                    }
                }
            }
        }
        return out;
    }

    private static void compareBytes(String what, byte[] h, byte[] g, List<String> out) {
        if (g == null || g.length != h.length) {
            out.add(what + ": device has " + (g == null ? "none" : g.length + " bytes, host " + h.length));
            return;
        }
        int shown = 0;
        for (int i = 0; i < h.length; i++) {
            if (h[i] != g[i] && shown++ < 8) {
                out.add(String.format("%s byte %d: host 0x%02x, device 0x%02x", what, i, h[i] & 0xFF, g[i] & 0xFF));
            }
        }
    }
}
