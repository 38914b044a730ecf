package org.replayfarm.gpunode.translate.vector;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import org.replayfarm.evalnode.hostmodel.GroupResult;
import org.replayfarm.evalnode.hostmodel.HostModel;
import org.replayfarm.evalnode.hostmodel.Kernel;
import org.replayfarm.evalnode.hostmodel.wave.Wave;
import org.replayfarm.gpunode.translate.ProgramInfo;
import org.replayfarm.gpunode.translate.Translation;
import org.replayfarm.gpunode.translate.Translator;
import org.replayfarm.model.build.CaptureBuilder;
import org.replayfarm.model.build.DispatchShape;
import org.replayfarm.model.build.Llvm;
import org.replayfarm.model.build.RawLayout;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.proto.Provenance;

/**
 * Runs one wave of plain assembly two ways and returns both final register files: the host model
 * (eval-node) and the translation (this module's Translator, kernel.cu built with g++ against the CPU
 * runtime and a small driver that runs the wave function once and prints every register). The
 * translation side is built with the project's CPU flags; the programs start from the same state as the
 * host model's raw-code captures (v0 the lane id, EXEC the group's lanes, everything else zero).
 */
final class VectorRig {
    static final String GXX_FLAGS = "-std=c++17 -O0 -ffp-contract=off -fno-strict-aliasing -frounding-math";

    /** A wave's final state: SGPRs 0..127, SCC, MODE, VGPRs [reg][lane], and the fault (code, pc) if any. */
    record State(int[] sgpr, int scc, int mode, int[][] vgpr, String fault) {
    }

    /** One program, built for both sides. */
    record Built(Path capture, Kernel kernel, Translation translation) {
    }

    private final Path dir;
    private final int wave;
    private final int vgprs;

    VectorRig(Path dir, int wave, int vgprs) {
        this.dir = dir;
        this.wave = wave;
        this.vgprs = vgprs;
    }

    Built build(String name, String assembly) throws Exception {
        Path s = dir.resolve(name + ".s");
        Files.writeString(s, assembly);
        byte[] object = Llvm.assemble(s, wave == 64);
        RawLayout raw = new RawLayout(wave, vgprs, CaptureBuilder.GFX10_SGPRS, 0, 0, Map.of(), OptionalInt.empty(),
                OptionalInt.empty());
        var built = CaptureBuilder.fromRawCode(object, raw, new DispatchShape(1, 1, 1, wave, 1, 1, 1), List.of(),
                Provenance.getDefaultInstance());
        Path capture = dir.resolve(name + ".capture");
        built.write(capture);
        CaptureFile file = CaptureFile.open(capture);
        Translation t = new Translator().translate(ProgramInfo.of(file));
        return new Built(capture, new Kernel(CaptureFile.open(capture)), t);
    }

    State host(Built b) {
        HostModel.Run run = new HostModel(b.kernel(), 1_000_000).runKeepingState(0, 0, 0);
        GroupResult r = run.result();
        Wave w = run.group().waves().get(0);
        int[] s = new int[128];
        for (int i = 0; i < 128; i++) {
            s[i] = i == 125 ? 0 : w.sgpr(i);
        }
        int[][] v = new int[vgprs][wave];
        for (int reg = 0; reg < vgprs; reg++) {
            for (int l = 0; l < wave; l++) {
                v[reg][l] = w.vgpr(reg, l);
            }
        }
        String fault = r.fault().map(f -> "fault pc=0x" + Long.toHexString(f.pc())).orElse(null);
        return new State(s, w.scc() ? 1 : 0, w.mode(), v, fault);
    }

    /** Writes kernel.cu, its headers and the driver; returns the source to compile. */
    Path writeTranslation(String name, Built b) throws IOException {
        Translation t = b.translation();
        if (!t.ok()) {
            throw new IllegalStateException("translation refused: " + t.coverageReport());
        }
        Path d = dir.resolve(name + "-cu");
        Files.createDirectories(d);
        for (Map.Entry<String, String> h : t.headers().entrySet()) {
            Files.writeString(d.resolve(h.getKey()), h.getValue());
        }
        Files.writeString(d.resolve("kernel.cu"), t.source());
        Files.writeString(d.resolve("main.cpp"), DRIVER);
        return d;
    }

    /** g++ of a translation directory into an executable (run by {@link #device}). */
    static Process compile(Path d) throws IOException {
        List<String> cmd = new ArrayList<>(List.of("g++"));
        cmd.addAll(List.of(GXX_FLAGS.split(" ")));
        cmd.addAll(List.of("-o", d.resolve("run").toString(), d.resolve("main.cpp").toString()));
        return new ProcessBuilder(cmd).directory(d.toFile()).redirectErrorStream(true)
                .redirectOutput(d.resolve("build.log").toFile()).start();
    }

    static void await(Process p, Path d) throws Exception {
        if (!p.waitFor(300, TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IllegalStateException("g++ failed in " + d + ":\n" + Files.readString(d.resolve("build.log")));
        }
    }

    State device(Path d) throws Exception {
        Process p = new ProcessBuilder(d.resolve("run").toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException("translated program failed (" + d + "): " + out);
        }
        int[] s = new int[128];
        int[][] v = new int[vgprs][wave];
        int scc = 0;
        int mode = 0;
        String fault = null;
        for (String line : out.split("\n")) {
            String[] w = line.trim().split(" ");
            switch (w[0]) {
                case "s" -> s[Integer.parseInt(w[1])] = (int) Long.parseLong(w[2], 16);
                case "v" -> v[Integer.parseInt(w[1])][Integer.parseInt(w[2])] = (int) Long.parseLong(w[3], 16);
                case "scc" -> scc = Integer.parseInt(w[1]);
                case "mode" -> mode = (int) Long.parseLong(w[1], 16);
                case "fault" -> fault = "fault pc=0x" + w[2];
                default -> { }
            }
        }
        return new State(s, scc, mode, v, fault);
    }

    /** Every difference between two states, one line each (empty when equal). */
    static List<String> diff(State host, State dev, int wave) {
        List<String> out = new ArrayList<>();
        if (!java.util.Objects.equals(host.fault(), dev.fault())) {
            out.add("fault: host " + host.fault() + ", translation " + dev.fault());
        }
        for (int i = 0; i < 128; i++) {
            if (i == 125 || wave == 32 && (i == 127 || i == 107) && false) {
                continue;
            }
            if (host.sgpr()[i] != dev.sgpr()[i]) {
                out.add(String.format("s%d: host 0x%08x, translation 0x%08x", i, host.sgpr()[i], dev.sgpr()[i]));
            }
        }
        if (host.scc() != dev.scc()) {
            out.add("scc: host " + host.scc() + ", translation " + dev.scc());
        }
        if (host.mode() != dev.mode()) {
            out.add(String.format("mode: host 0x%x, translation 0x%x", host.mode(), dev.mode()));
        }
        for (int r = 0; r < host.vgpr().length; r++) {
            for (int l = 0; l < wave; l++) {
                if (host.vgpr()[r][l] != dev.vgpr()[r][l]) {
                    out.add(String.format("v%d lane %d: host 0x%08x, translation 0x%08x", r, l, host.vgpr()[r][l],
                            dev.vgpr()[r][l]));
                }
            }
        }
        return out;
    }

    /** The CPU driver: one group of one wave, the wave function run once, every register printed. */
    static final String DRIVER = """
            #include "kernel.cu"
            #include <stdio.h>
            #include <stdlib.h>
            int main(void) {
                static rt_launch_t L;
                memset(&L, 0, sizeof L);
                L.group_count[0] = L.group_count[1] = L.group_count[2] = 1;
                L.group_size[0] = RT_WAVE; L.group_size[1] = 1; L.group_size[2] = 1;
                L.waves_per_group = 1;
                L.mode = 0x3f0u | (1u << 8) | (1u << 9); /* raw captures: IEEE, DX10_CLAMP, no flushing, nearest */
                L.budget = 1000000;
                static volatile uint32_t abort_flag = 0;
                L.abort = &abort_flag;
                static rt_fault_t fault;
                static uint64_t counts[2];
                L.faults = &fault;
                L.counts = counts;
                L.nwi = 3;
                for (int i = 0; i < 3; i++) { L.wi_index[i] = (uint32_t)i; L.wi_dim[i] = (uint32_t)(i + 1); }
                static rt_group_t g;
                memset(&g, 0, sizeof g);
                g.fault = &fault;
                rt_wave_t *w = (rt_wave_t *)calloc(1, sizeof(rt_wave_t));
                rt_wave_init(w, &L, &g, 0);
                rt_ctx_t c = {w, &g, &L};
                rt_program_wave(&c);
                printf("state %u\\n", w->state);
                if (fault.set) printf("fault %u %llx\\n", fault.code, (unsigned long long)fault.pc);
                for (int i = 0; i < 128; i++) printf("s %d %x\\n", i, w->s[i]);
                printf("scc %u\\nmode %x\\n", w->scc, w->mode);
                for (int r = 0; r < RT_NVGPR; r++)
                    for (int l = 0; l < RT_WAVE; l++) printf("v %d %d %x\\n", r, l, w->v[r][l]);
                return 0;
            }
            """;
}
