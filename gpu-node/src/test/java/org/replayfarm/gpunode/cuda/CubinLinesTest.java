package org.replayfarm.gpunode.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.gpunode.translate.CpuBuild;
import org.replayfarm.gpunode.translate.ProgramInfo;
import org.replayfarm.gpunode.translate.Translation;
import org.replayfarm.gpunode.translate.Translator;
import org.replayfarm.model.capture.CaptureFile;

/**
 * The cubin line table: nvcc (no GPU needed) builds saxpy's translation as a fat binary with -lineinfo;
 * {@link CubinLines} must decode exactly the rows llvm-dwarfdump-19 decodes, and a hand-written kernel
 * whose {@code #line}s we chose must map its PCs back to those lines.
 */
@Tag("corpus")
class CubinLinesTest {
    @TempDir
    static Path cache;
    static Translation saxpy;
    static FatbinBuild.Built built;

    @BeforeAll
    static void build() throws Exception {
        assumeTrue(Files.isExecutable(Path.of(FatbinBuild.defaultNvcc())) || FatbinBuild.defaultNvcc().equals("nvcc"),
                "nvcc");
        CaptureFile c = CaptureFile.open(Path.of("../examples/saxpy/saxpy.capture"));
        saxpy = new Translator().translate(ProgramInfo.of(c));
        assertTrue(saxpy.ok(), saxpy.coverageReport());
        built = new FatbinBuild(FatbinBuild.defaultNvcc(), cache).build(saxpy);
    }

    @Test
    void theFatbinIsCachedByProgramHashAndHoldsSm90() throws Exception {
        assertTrue(built.compiled());
        byte[] fat = built.fatbinBytes();
        assertEquals(0xBA55ED50, ByteBuffer.wrap(fat).order(ByteOrder.LITTLE_ENDIAN).getInt(0), "fatbin magic");
        FatbinBuild.Built again = new FatbinBuild(FatbinBuild.defaultNvcc(), cache).build(saxpy);
        assertFalse(again.compiled(), "the second build of one program comes from the cache");
        assertEquals(built.hash(), again.hash());
        // the cubin is an sm_90 ELF (e_flags' low byte is the SM number for CUDA ELF)
        byte[] cubin = Files.readAllBytes(built.cubin());
        assertEquals(0x7f, cubin[0]);
        assertEquals(190, Short.toUnsignedInt(ByteBuffer.wrap(cubin).order(ByteOrder.LITTLE_ENDIAN).getShort(0x12)),
                "e_machine EM_CUDA");
    }

    @Test
    void rowsAreLlvmDwarfdumpsRows() throws Exception {
        CubinLines lines = CubinLines.read(Files.readAllBytes(built.cubin()));
        List<long[]> expected = dwarfdump(built.cubin());
        assertTrue(expected.size() > 100, "llvm-dwarfdump found " + expected.size() + " rows");
        List<CubinLines.Row> rows = lines.rows();
        assertEquals(expected.size(), rows.size(), "row count");
        for (int i = 0; i < rows.size(); i++) {
            long[] e = expected.get(i);
            CubinLines.Row r = rows.get(i);
            assertEquals(e[0], r.address(), "row " + i + " address");
            assertEquals(e[1], r.line(), "row " + i + " line");
            assertEquals(e[2] != 0, r.end(), "row " + i + " end_sequence");
        }
    }

    @Test
    void everyDevicePcOfAGuestRowMapsToAnInstructionOfTheListing() throws Exception {
        CubinLines lines = CubinLines.read(Files.readAllBytes(built.cubin()));
        GuestPcMap map = new GuestPcMap(lines, saxpy.listing());
        int checked = 0;
        for (CubinLines.Row r : lines.rows()) {
            if (!r.end() && r.file().equals("guest.s")) {
                int line = map.guestLine("replay_kernel", r.address()).orElseThrow();
                assertEquals(r.line(), line, "PC 0x" + Long.toHexString(r.address()));
                assertTrue(map.guestPc(line) >= 0, "guest.s line " + line + " is an instruction: "
                        + saxpy.listing().get(line - 1));
                checked++;
            }
        }
        assertTrue(checked > 50, checked + " guest rows");
        // a PC past the kernel's code maps nowhere
        assertTrue(lines.place("replay_kernel", 1L << 30).isEmpty());
        assertTrue(lines.place("no_such_function", 0).isEmpty());
    }

    @Test
    void samplesAreAttributedToGuestInstructionsHottestFirst() throws Exception {
        CubinLines lines = CubinLines.read(Files.readAllBytes(built.cubin()));
        GuestPcMap map = new GuestPcMap(lines, saxpy.listing());
        List<CubinLines.Row> guest = lines.rows().stream().filter(r -> !r.end() && r.file().equals("guest.s")).toList();
        CubinLines.Row a = guest.get(guest.size() / 3);
        CubinLines.Row b = guest.stream().filter(r -> r.line() != a.line()).findFirst().orElseThrow();
        List<GuestPcMap.Sample> samples = List.of(
                new GuestPcMap.Sample("replay_kernel", a.address(), "smsp__pcsamp_warps_issue_stalled_long_scoreboard", 7),
                new GuestPcMap.Sample("replay_kernel", a.address(), "smsp__pcsamp_warps_issue_stalled_wait", 2),
                new GuestPcMap.Sample("replay_kernel", b.address(), "smsp__pcsamp_warps_issue_stalled_wait", 4),
                new GuestPcMap.Sample("replay_kernel", 0, "smsp__pcsamp_warps_issue_stalled_wait", 5), // the prologue
                new GuestPcMap.Sample("elsewhere", 0x10, "smsp__pcsamp_warps_issue_stalled_wait", 1));
        GuestPcMap.Attribution at = map.attribute(samples, 10);
        assertEquals(13, at.attributed());
        assertEquals(6, at.unattributed(), "the kernel's prologue and an unknown function are counted apart");
        assertEquals(2, at.hottest().size());
        GuestPcMap.Hotspot first = at.hottest().get(0);
        assertEquals(a.line(), first.line());
        assertEquals(9, first.samples());
        assertEquals(List.of("smsp__pcsamp_warps_issue_stalled_long_scoreboard", "smsp__pcsamp_warps_issue_stalled_wait"),
                List.copyOf(first.stallReasons().keySet()), "most samples first");
        String listed = saxpy.listing().get(a.line() - 1);
        assertTrue(listed.contains(first.text()), listed + " / " + first.text());
        assertEquals(Long.parseLong(listed.substring(listed.indexOf("// ") + 3, listed.indexOf("// ") + 15), 16),
                first.guestPc());
        assertEquals(b.line(), at.hottest().get(1).line());
        assertEquals(1, map.attribute(samples, 1).hottest().size(), "top N");
    }

    /**
     * The module a sample is in is named by its cubinCrc, the CRC CUPTI computes (cuptiGetCubinCrc through the
     * shim, which runs without a GPU): a sample of another module at the same function name and offset is
     * never read through this cubin's lines; a sample without a CRC falls back to the function's name. The
     * samples cross the wire as the GPU node sends them (PcSample, real protobuf bytes).
     */
    @Test
    void samplesAreKeyedToTheModuleByCubinCrcAndByNameOnlyWithoutOne(@TempDir Path dir) throws Exception {
        Path shim = Path.of("target", "native", org.replayfarm.gpunode.sampling.CuptiShim.LIBRARY);
        assumeTrue(Files.isRegularFile(shim), "the CUPTI shim is built where the CUDA toolkit's CUPTI headers are");
        byte[] cubin = Files.readAllBytes(built.cubin());
        long crc = org.replayfarm.gpunode.sampling.CuptiShim.cubinCrc(shim, cubin);
        assertEquals(crc, org.replayfarm.gpunode.sampling.CuptiShim.cubinCrc(shim, cubin.clone()), "one cubin, one CRC");
        // another module with a kernel of the same name (another program loaded in the same context)
        Files.writeString(dir.resolve("other.cu"), "extern \"C\" __global__ void replay_kernel(int *p, int n) {\n"
                + "  for (int i = 0; i < n; i++) p[threadIdx.x + i] += i * 7;\n}\n");
        Process nv = new ProcessBuilder(FatbinBuild.defaultNvcc(), "-arch=sm_90", "-cubin", "-lineinfo", "-o",
                dir.resolve("other.cubin").toString(), dir.resolve("other.cu").toString()).redirectErrorStream(true).start();
        String said = new String(nv.getInputStream().readAllBytes());
        assertEquals(0, nv.waitFor(), said);
        long other = org.replayfarm.gpunode.sampling.CuptiShim.cubinCrc(shim, Files.readAllBytes(dir.resolve("other.cubin")));
        assertTrue(crc != 0 && other != 0 && crc != other, "CRCs 0x" + Long.toHexString(crc) + ", 0x" + Long.toHexString(other));

        CubinLines lines = CubinLines.read(cubin);
        CubinLines.Row a = lines.rows().stream().filter(r -> !r.end() && r.file().equals("guest.s")).skip(10).findFirst()
                .orElseThrow();
        CubinLines.Row b = lines.rows().stream().filter(r -> !r.end() && r.file().equals("guest.s") && r.line() != a.line())
                .findFirst().orElseThrow();
        String wait = "smsp__pcsamp_warps_issue_stalled_wait";
        List<org.replayfarm.proto.PcSample> wire = new ArrayList<>();
        for (org.replayfarm.proto.PcSample s : List.of(
                org.replayfarm.proto.PcSample.newBuilder().setFunction("replay_kernel").setCubinCrc(crc)
                        .setPcOffset(a.address()).setStallReason(wait).setSamples(5).build(),
                org.replayfarm.proto.PcSample.newBuilder().setFunction("replay_kernel").setCubinCrc(other)
                        .setPcOffset(a.address()).setStallReason(wait).setSamples(11).build(),
                org.replayfarm.proto.PcSample.newBuilder().setFunction("replay_kernel")
                        .setPcOffset(b.address()).setStallReason(wait).setSamples(3).build())) {
            wire.add(org.replayfarm.proto.PcSample.parseFrom(s.toByteArray()));
        }
        List<GuestPcMap.Sample> samples = org.replayfarm.gpunode.node.DeviceRunner.samples(wire);
        assertEquals(List.of(crc, other, 0L), samples.stream().map(GuestPcMap.Sample::cubinCrc).toList(),
                "the CRC crosses the wire with each sample");

        GuestPcMap.Attribution byCrc = new GuestPcMap(lines, saxpy.listing(), crc).attribute(samples, 10);
        assertEquals(8, byCrc.attributed(), "this module's sample and the one without a CRC");
        assertEquals(11, byCrc.otherModules(), "the other module's sample is set apart");
        assertEquals(List.of(a.line(), b.line()), byCrc.hottest().stream().map(GuestPcMap.Hotspot::line).toList());
        assertEquals(5, byCrc.hottest().get(0).samples(), "the other module's samples at the same offset are not added");

        GuestPcMap.Attribution byName = new GuestPcMap(lines, saxpy.listing()).attribute(samples, 10);
        assertEquals(19, byName.attributed(), "with the module's CRC unknown, the name alone places every sample");
        assertEquals(0, byName.otherModules());
    }

    @Test
    void aKernelWithKnownLinesMapsItsPcsToThem(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("k.cu"), """
                #line 1 "guest.s"
                __device__ __noinline__ void body(float *p) {
                #line 40 "guest.s"
                    p[threadIdx.x] *= 3.0f;
                #line 41 "guest.s"
                    p[threadIdx.x + 64] = p[threadIdx.x] + 1.0f;
                }
                extern "C" __global__ void k(float *p) { body(p); }
                """);
        List<String> cmd = new ArrayList<>(List.of(FatbinBuild.defaultNvcc(), "-arch=sm_90", "-cubin", "-lineinfo",
                "k.cu", "-o", "k.cubin"));
        CpuBuild.run(cmd, dir, 300);
        CubinLines lines = CubinLines.read(Files.readAllBytes(dir.resolve("k.cubin")));
        java.util.Set<Integer> seen = new java.util.TreeSet<>();
        for (CubinLines.Row r : lines.rows()) {
            if (!r.end()) {
                seen.add(lines.place("k", r.address()).orElseThrow().line());
            }
        }
        assertTrue(seen.contains(40) && seen.contains(41), "lines " + seen);
    }

    @Test
    void aBadCubinIsAnErrorNamingWhat() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CubinLines.read(new byte[10]));
        assertTrue(e.getMessage().contains("ELF magic"), e.getMessage());
        byte[] cut = new byte[200];
        cut[0] = 0x7f;
        cut[1] = 'E';
        cut[2] = 'L';
        cut[3] = 'F';
        cut[4] = 2;
        cut[5] = 1;
        e = assertThrows(IllegalArgumentException.class, () -> CubinLines.read(cut));
        assertTrue(e.getMessage().startsWith("cubin:"), e.getMessage());
    }

    /** (address, line, end) of every row llvm-dwarfdump-19 prints. */
    static List<long[]> dwarfdump(Path cubin) throws Exception {
        String out = CpuBuild.run(List.of("llvm-dwarfdump-19", "--debug-line", cubin.toString()), null, 120);
        Pattern row = Pattern.compile("^0x([0-9a-f]{16})\\s+(\\d+)\\s+\\d+\\s+\\d+\\s+\\d+\\s+\\d+\\s+\\d+\\s*(.*)$");
        List<long[]> rows = new ArrayList<>();
        for (String l : out.split("\n")) {
            Matcher m = row.matcher(l);
            if (m.matches()) {
                rows.add(new long[] {Long.parseLong(m.group(1), 16), Long.parseLong(m.group(2)),
                        m.group(3).contains("end_sequence") ? 1 : 0});
            }
        }
        return rows;
    }
}
