package org.replayfarm.coordinator.node;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.replayfarm.evalnode.eval.Evaluation;
import org.replayfarm.evalnode.eval.GroupSelection;
import org.replayfarm.evalnode.hostmodel.HostModel;
import org.replayfarm.evalnode.hostmodel.Kernel;
import org.replayfarm.model.build.CaptureBuilder;
import org.replayfarm.model.build.DispatchShape;
import org.replayfarm.model.build.KernelArg;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.model.testing.Toolchain;
import org.replayfarm.proto.Provenance;

/** Captures the cluster tests build with clang-19, and the comparison with replay eval's outputs. */
public final class TestCaptures {
    private TestCaptures() {
    }

    /** 8 x 4 groups of 64: order-free atomics into 16 bins, and a store per work-item. */
    public static final String HISTOGRAM = """
            __kernel void hist(__global const uint *a, __global uint *bins, __global uint *out) {
                uint gx = __builtin_amdgcn_workgroup_id_x();
                uint gy = __builtin_amdgcn_workgroup_id_y();
                uint i = (gy * 8 + gx) * 64 + __builtin_amdgcn_workitem_id_x();
                uint x = a[i] * 2654435761u;
                __atomic_fetch_add(&bins[x & 15], 1u, __ATOMIC_RELAXED);
                out[i] = x ^ (x >> 7);
            }
            """;

    /** Each group of 256 writes its own n words. */
    public static final String FILL = """
            __kernel void fill(__global uint *out, uint n) {
                uint g = __builtin_amdgcn_workgroup_id_x();
                for (uint i = __builtin_amdgcn_workitem_id_x(); i < n; i += 256) {
                    out[g * n + i] = (g * n + i) * 2654435761u;
                }
            }
            """;

    /** A loop of {@code iters} steps per work-item: slow groups. */
    public static final String SPIN = """
            __kernel void spin(__global uint *out, uint iters) {
                uint i = __builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x();
                uint x = i;
                for (uint k = 0; k < iters; k++) {
                    x = x * 1664525u + 1013904223u;
                }
                out[i] = x;
            }
            """;

    public static Path saxpy() {
        return Toolchain.root().resolve("examples/saxpy/saxpy.capture");
    }

    public static Path build(Path dir, String name, String source, String groups, String size, List<KernelArg> args)
            throws Exception {
        Path object = Toolchain.compileOpenCl(dir, name, source, "-O2");
        var built = CaptureBuilder.fromCodeObject(Files.readAllBytes(object), name, DispatchShape.parse(groups, size),
                args, Provenance.getDefaultInstance());
        Path out = dir.resolve(name + ".capture");
        built.write(out);
        return out;
    }

    public static Path histogram(Path dir) throws Exception {
        ByteBuffer a = ByteBuffer.allocate(32 * 64 * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < 32 * 64; i++) {
            a.putInt(i * 7919 + 13);
        }
        Path input = dir.resolve("a.bin");
        Files.write(input, a.array());
        return build(dir, "hist", HISTOGRAM, "8,4", "64", List.of(new KernelArg.Buffer(input, a.array()),
                new KernelArg.Zeros(64), new KernelArg.Zeros(32 * 64 * 4)));
    }

    /** Two groups, each storing {@code words} words. */
    public static Path fill(Path dir, int words) throws Exception {
        return build(dir, "fill", FILL, "2", "256", List.of(new KernelArg.Zeros(2L * words * 4),
                new KernelArg.Word("u32", words)));
    }

    public static Path spin(Path dir, int groups, int iters) throws Exception {
        return build(dir, "spin", SPIN, String.valueOf(groups), "64", List.of(new KernelArg.Zeros(groups * 64L * 4),
                new KernelArg.Word("u32", iters)));
    }

    /** replay eval's outputs for the selection (one thread), in {@code out}. */
    public static Path reference(Path capture, GroupSelection selection, Path out) throws Exception {
        CaptureFile file = CaptureFile.open(capture);
        Kernel kernel = new Kernel(file);
        Evaluation.Outcome o = Evaluation.run(kernel, selection.resolve(kernel.dispatch()), 1, HostModel.DEFAULT_BUDGET,
                done -> { });
        Evaluation.write(o, kernel, file.identity(), out);
        return out;
    }

    /** What a run report adds to replay eval's (docs/report-schema.md), and the schema name it replaces. */
    public static final List<String> RUN_REPORT_FIELDS = List.of("schema", "capture_file", "capture_path", "job", "selection",
            "nondeterministic_slices", "device", "comparison", "result", "timings", "sampling", "farm");

    /**
     * Every file replay eval wrote under host/ byte-identical in the job's host/ (which adds the PNGs of
     * a run report), and report.json identical in eval-report/1's fields but for the wall time and the
     * thread count (which say how, not what).
     */
    public static void assertSameOutputs(Path expected, Path actual) throws IOException {
        List<Path> files;
        try (Stream<Path> s = Files.list(expected.resolve("host"))) {
            files = s.sorted().toList();
        }
        try (Stream<Path> s = Files.list(actual.resolve("host"))) {
            List<String> got = s.map(Path::getFileName).map(Path::toString).filter(n -> !n.endsWith(".png")).sorted().toList();
            assertEquals(files.stream().map(Path::getFileName).map(Path::toString).toList(), got);
        }
        for (Path f : files) {
            assertArrayEquals(Files.readAllBytes(f), Files.readAllBytes(actual.resolve("host").resolve(f.getFileName())),
                    f.getFileName() + " differs");
        }
        assertEquals(comparableReport(expected), comparableReport(actual));
    }

    public static String comparableReport(Path dir) throws IOException {
        ObjectNode r = (ObjectNode) new ObjectMapper().readTree(dir.resolve("report.json").toFile());
        r.remove("wall_time_seconds");
        r.remove("threads");
        r.remove(RUN_REPORT_FIELDS);
        return r.toPrettyString();
    }
}
