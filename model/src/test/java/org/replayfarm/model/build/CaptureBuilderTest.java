package org.replayfarm.model.build;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.model.elf.CodeObjectException;
import org.replayfarm.model.testing.Kernels;
import org.replayfarm.model.testing.ReadelfNotes;
import org.replayfarm.model.testing.Toolchain;
import org.replayfarm.proto.Capture;
import org.replayfarm.proto.MemoryRange;
import org.replayfarm.proto.Provenance;
import org.replayfarm.proto.SystemSgprKind;
import org.replayfarm.proto.UserSgprRole;
import org.replayfarm.proto.WorkItemDimension;

/**
 * The launch state the builder lays out is checked against what clang-19's code expects: the registers
 * its instructions read (llvm-objdump-19), the argument offsets its metadata lists (llvm-readelf-19),
 * and the entry point ld.lld-19 computes.
 */
@Tag("unit")
class CaptureBuilderTest {
    @TempDir
    Path dir;

    static final String IDS = """
            __kernel void ids(__global int *out, int n, float f) {
                int i = __builtin_amdgcn_workitem_id_x() + __builtin_amdgcn_workgroup_id_x() * 64;
                out[i] = n + (int) f + __builtin_amdgcn_workitem_id_y() * 3 + __builtin_amdgcn_workitem_id_z()
                       + __builtin_amdgcn_workgroup_id_y() * 5 + __builtin_amdgcn_workgroup_id_z() * 7;
            }
            """;

    static final String ARGS = """
            __kernel void mixed(__global float *o, float s, long l, uint u, __global const int *in, int i) {
                uint x = __builtin_amdgcn_workitem_id_x();
                o[x] = s * (float) l + (float) u + (float) in[x] + (float) i
                     + (float) __builtin_amdgcn_workgroup_size_x() + (float) __builtin_amdgcn_grid_size_x();
            }
            """;

    private static Provenance provenance() {
        return Provenance.newBuilder().setTool("test").build();
    }

    private static Map<Integer, UserSgprRole> userRoles(Capture c) {
        Map<Integer, UserSgprRole> roles = new TreeMap<>();
        c.getRegisters().getUserSgprsList().forEach(u -> roles.put(u.getIndex(), u.getRole()));
        return roles;
    }

    private static Map<Integer, SystemSgprKind> systemKinds(Capture c) {
        Map<Integer, SystemSgprKind> kinds = new TreeMap<>();
        c.getRegisters().getSystemSgprsList().forEach(s -> kinds.put(s.getIndex(), s.getKind()));
        return kinds;
    }

    private static int kernargSgpr(Capture c) {
        return c.getRegisters().getUserSgprsList().stream().filter(u -> u.getRole() == UserSgprRole.KERNARG_SEGMENT_PTR)
                .mapToInt(u -> u.getIndex()).min().orElseThrow();
    }

    /** The SGPR pair the compiled code loads its kernel arguments through (first scalar load). */
    private static int kernargPairInCode(String disassembly) {
        Matcher m = Pattern.compile("s_load_dword\\w* [^,]+, s\\[(\\d+):(\\d+)\\]").matcher(disassembly);
        assertTrue(m.find(), "the kernel loads its arguments with s_load_dword*:\n" + disassembly);
        return Integer.parseInt(m.group(1));
    }

    private static DispatchShape shape(int gx, int gy, int gz, int bx, int by, int bz) {
        return new DispatchShape(gx, gy, gz, bx, by, bz, 3);
    }

    @Test
    void user_and_system_sgprs_sit_where_the_compiled_code_reads_them() throws Exception {
        Path o = Toolchain.compileOpenCl(dir, "ids", IDS);
        var built = CaptureBuilder.fromCodeObject(Files.readAllBytes(o), "ids", shape(4, 2, 2, 8, 4, 2),
                List.of(KernelArg.parse("zeros:4096"), KernelArg.parse("i32:-3"), KernelArg.parse("f32:2.5")),
                provenance());
        Capture c = built.metadata();
        assertEquals(Map.of(0, UserSgprRole.PRIVATE_SEGMENT_BUFFER, 1, UserSgprRole.PRIVATE_SEGMENT_BUFFER,
                2, UserSgprRole.PRIVATE_SEGMENT_BUFFER, 3, UserSgprRole.PRIVATE_SEGMENT_BUFFER,
                4, UserSgprRole.KERNARG_SEGMENT_PTR, 5, UserSgprRole.KERNARG_SEGMENT_PTR), userRoles(c));
        assertEquals(Map.of(6, SystemSgprKind.WORKGROUP_ID_X, 7, SystemSgprKind.WORKGROUP_ID_Y,
                8, SystemSgprKind.WORKGROUP_ID_Z), systemKinds(c));
        assertEquals(kernargPairInCode(Toolchain.disassemble(o)), kernargSgpr(c));
        assertEquals(List.of(WorkItemDimension.WORK_ITEM_ID_X, WorkItemDimension.WORK_ITEM_ID_Y,
                WorkItemDimension.WORK_ITEM_ID_Z), c.getRegisters().getWorkItemVgprsList().stream()
                .map(v -> v.getDimension()).toList());
        assertEquals(32, c.getProgram().getWaveSize());
        assertTrue(c.getProgram().getFloatMode().getIeee());
        assertTrue(c.getProgram().getFloatMode().getDx10Clamp());
    }

    @Test
    void an_unoptimised_kernel_gets_every_user_sgpr_it_enables_in_abi_order() throws Exception {
        Path o = Toolchain.compileOpenCl(dir, "ids0", IDS, "-O0");
        var c = CaptureBuilder.fromCodeObject(Files.readAllBytes(o), "ids", shape(1, 1, 1, 8, 4, 2),
                List.of(KernelArg.parse("zeros:4096"), KernelArg.parse("i32:1"), KernelArg.parse("f32:1")),
                provenance()).metadata();
        Map<Integer, UserSgprRole> roles = userRoles(c);
        assertEquals(UserSgprRole.DISPATCH_PTR, roles.get(4));
        assertEquals(UserSgprRole.KERNARG_SEGMENT_PTR, roles.get(6));
        assertEquals(UserSgprRole.DISPATCH_ID, roles.get(8));
        assertEquals(UserSgprRole.FLAT_SCRATCH_INIT, roles.get(10));
        assertEquals(Map.of(12, SystemSgprKind.WORKGROUP_ID_X, 13, SystemSgprKind.WORKGROUP_ID_Y,
                14, SystemSgprKind.WORKGROUP_ID_Z, 15, SystemSgprKind.PRIVATE_SEGMENT_WAVE_OFFSET), systemKinds(c));
        String code = Toolchain.disassemble(o);
        assertTrue(code.contains("s_add_u32 s0, s0, s15"), "the prolog adds the wave offset (s15) to the scratch base");
        assertTrue(c.getProgram().getScratchBytesPerLane() > 0);
        MemoryRange packet = c.getRangesList().stream().filter(r -> r.getName().equals("dispatch-packet")).findFirst()
                .orElseThrow();
        long dispatchPtr = Integer.toUnsignedLong(c.getRegisters().getUserSgprs(4).getValue())
                | (long) c.getRegisters().getUserSgprs(5).getValue() << 32;
        assertEquals(packet.getGuestAddress(), dispatchPtr);
    }

    @Test
    void system_sgprs_start_at_user_sgpr_count_even_past_the_enabled_ones() throws Exception {
        Path o = Toolchain.assemble(dir, "kd", Kernels.DESCRIPTOR_ASM, false);
        var c = CaptureBuilder.fromCodeObject(Files.readAllBytes(o), "k", shape(1, 1, 1, 32, 1, 1), List.of(),
                provenance()).metadata();
        assertEquals(8, userRoles(c).size(), "PSB, dispatch pointer and kernarg pointer");
        assertEquals(Map.of(10, SystemSgprKind.WORKGROUP_ID_X, 11, SystemSgprKind.WORKGROUP_ID_Y,
                12, SystemSgprKind.WORKGROUP_ID_Z, 13, SystemSgprKind.PRIVATE_SEGMENT_WAVE_OFFSET), systemKinds(c));
        assertEquals(512, c.getProgram().getLdsBytes());
        assertEquals(64, c.getProgram().getScratchBytesPerLane());
    }

    @Test
    void arguments_land_at_the_offsets_the_metadata_lists_and_hidden_arguments_describe_the_dispatch() throws Exception {
        Path o = Toolchain.compileOpenCl(dir, "mixed", ARGS);
        byte[] input = new byte[64];
        input[0] = 42;
        Path in = dir.resolve("in.bin");
        Files.write(in, input);
        List<KernelArg> args = List.of(KernelArg.parse("zeros:256"), KernelArg.parse("f32:-1.5"),
                KernelArg.parse("u64:0x123456789abcdef0"), KernelArg.parse("u32:4000000000"),
                KernelArg.parse("buffer:" + in), KernelArg.parse("i32:-7"));
        var built = CaptureBuilder.fromCodeObject(Files.readAllBytes(o), "mixed", new DispatchShape(5, 3, 1, 16, 2, 1, 2),
                args, provenance());
        Capture c = built.metadata();
        ReadelfNotes.Kernel meta = ReadelfNotes.read(o).get("mixed");
        MemoryRange kernarg = c.getRangesList().stream().filter(r -> r.getName().equals("kernarg")).findFirst().orElseThrow();
        assertEquals(meta.kernargSegmentSize(), c.getProgram().getKernargSize(), "the launch's kernarg size is the segment's");
        assertEquals(4096, kernarg.getSize(), "the range is the segment and the rest of its page, as the runtime's pool holds it");
        assertEquals(0, kernarg.getGuestAddress() % 16, "the kernarg segment is 16-byte aligned");
        CaptureFile file = CaptureFile.open(write(built));
        ByteBuffer k = file.blob(kernarg.getInitial());
        List<ReadelfNotes.Arg> explicit = meta.args().stream().filter(a -> !a.valueKind().startsWith("hidden_")).toList();
        assertEquals(6, explicit.size());
        assertEquals(c.getRanges(0).getGuestAddress(), k.getLong(explicit.get(0).offset()));
        assertEquals(Float.floatToIntBits(-1.5f), k.getInt(explicit.get(1).offset()));
        assertEquals(0x123456789abcdef0L, k.getLong(explicit.get(2).offset()));
        assertEquals((int) 4000000000L, k.getInt(explicit.get(3).offset()));
        assertEquals(c.getRanges(1).getGuestAddress(), k.getLong(explicit.get(4).offset()));
        assertEquals(-7, k.getInt(explicit.get(5).offset()));
        assertEquals(5, k.getInt(meta.hidden("hidden_block_count_x").offset()));
        assertEquals(3, k.getInt(meta.hidden("hidden_block_count_y").offset()));
        assertEquals(16, k.getShort(meta.hidden("hidden_group_size_x").offset()));
        assertEquals(2, k.getShort(meta.hidden("hidden_group_size_y").offset()));
        assertEquals(0, k.getShort(meta.hidden("hidden_remainder_x").offset()));
        assertEquals(2, k.getShort(meta.hidden("hidden_grid_dims").offset()));
        // the buffers come first, numbered in argument order, then the ranges the builder adds
        assertEquals(List.of(0, 1, 2, 3, 4), c.getRangesList().stream().map(MemoryRange::getIndex).toList());
        assertEquals(List.of("arg0 zeros", "arg4 in.bin", "kernarg", "dispatch-packet", "code-object"),
                c.getRangesList().stream().map(MemoryRange::getName).toList());
        // grid_size_x() reads the dispatch packet at +0xc: the grid in work-items
        ByteBuffer packet = file.blob(c.getRanges(3).getInitial());
        assertEquals(5 * 16, packet.getInt(12));
        assertEquals(16, packet.getShort(4));
        assertTrue(Toolchain.disassemble(o).contains(", 0xc"), "the code reads the packet's grid_size_x");
        ByteBuffer buffer = file.blob(c.getRanges(1).getInitial());
        assertEquals(42, buffer.get(0));
    }

    @Test
    void the_entry_point_is_where_ld_lld_puts_the_kernel_relative_to_its_text() throws Exception {
        Path o = Toolchain.compileOpenCl(dir, "tables", Kernels.TABLES);
        Path so = Toolchain.link(o);
        String symbols = Toolchain.run(dir, "llvm-readelf-19", "-s", "-S", so.getFileName().toString());
        long other = symbolValue(symbols, "other");
        long text = sectionAddress(symbols, ".text");
        for (Path object : List.of(o, so)) {
            var c = CaptureBuilder.fromCodeObject(Files.readAllBytes(object), "other", shape(1, 1, 1, 64, 1, 1),
                    List.of(KernelArg.parse("zeros:256"), KernelArg.parse("f32:1"), KernelArg.parse("u64:2"),
                            KernelArg.parse("u32:3")), provenance()).metadata();
            assertEquals(other - text, c.getProgram().getEntryOffset(), object.getFileName().toString());
            assertEquals(0, (c.getProgram().getCodeAddress() + c.getProgram().getEntryOffset()) % 256,
                    "kernel entries are 256-byte aligned");
        }
    }

    @Test
    void a_wave64_kernel_is_captured_as_wave64() throws Exception {
        Path o = Toolchain.compileOpenCl(dir, "ids64", IDS, "-mwavefrontsize64");
        var c = CaptureBuilder.fromCodeObject(Files.readAllBytes(o), "ids", shape(2, 1, 1, 64, 1, 1),
                List.of(KernelArg.parse("zeros:4096"), KernelArg.parse("i32:1"), KernelArg.parse("f32:1")),
                provenance()).metadata();
        assertEquals(64, c.getProgram().getWaveSize());
        assertEquals(0, c.getProgram().getVgprCount() % 4);
        int word3 = c.getRegisters().getUserSgprs(3).getValue();
        assertEquals(3, (word3 >>> 21) & 3, "scratch V# index stride is 64 for wave64");
    }

    @Test
    void wrong_arguments_are_refused_with_the_kernels_signature() throws Exception {
        Path o = Toolchain.compileOpenCl(dir, "ids", IDS);
        byte[] elf = Files.readAllBytes(o);
        var tooFew = assertThrows(CodeObjectException.class, () -> CaptureBuilder.fromCodeObject(elf, "ids",
                shape(1, 1, 1, 64, 1, 1), List.of(KernelArg.parse("zeros:16")), provenance()));
        assertTrue(tooFew.getMessage().contains("takes 3 argument(s) (int* , int, float); 1 given")
                || tooFew.getMessage().contains("takes 3 argument(s)"), tooFew.getMessage());
        var wrongKind = assertThrows(CodeObjectException.class, () -> CaptureBuilder.fromCodeObject(elf, "ids",
                shape(1, 1, 1, 64, 1, 1), List.of(KernelArg.parse("f32:1"), KernelArg.parse("i32:1"),
                        KernelArg.parse("f32:1")), provenance()));
        assertTrue(wrongKind.getMessage().contains("argument 0") && wrongKind.getMessage().contains("global buffer"),
                wrongKind.getMessage());
        var noKernel = assertThrows(CodeObjectException.class, () -> CaptureBuilder.fromCodeObject(elf, "nope",
                shape(1, 1, 1, 64, 1, 1), List.of(), provenance()));
        assertTrue(noKernel.getMessage().contains("no kernel 'nope'") && noKernel.getMessage().contains("ids"),
                noKernel.getMessage());
    }

    @Test
    void the_same_inputs_build_byte_identical_captures() throws Exception {
        Path o = Toolchain.compileOpenCl(dir, "ids", IDS);
        List<byte[]> builds = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            builds.add(CaptureBuilder.fromCodeObject(Files.readAllBytes(o), "ids", shape(3, 1, 1, 64, 1, 1),
                    List.of(KernelArg.parse("zeros:4096"), KernelArg.parse("i32:1"), KernelArg.parse("f32:1")),
                    provenance()).toBytes());
        }
        assertArrayEquals(builds.get(0), builds.get(1));
    }

    @Test
    void plain_assembly_gets_the_register_layout_given_by_hand() throws Exception {
        Path o = Toolchain.assemble(dir, "plain", """
                s_load_dword s4, s[0:1], 0x0
                s_waitcnt lgkmcnt(0)
                s_endpgm
                """, false);
        var raw = new RawLayout(32, 16, 106, 0, 0, Map.of(2, 0x1234, 3, 7), java.util.OptionalInt.empty(),
                java.util.OptionalInt.empty());
        var c = CaptureBuilder.fromRawCode(Files.readAllBytes(o), raw, shape(2, 1, 1, 32, 1, 1),
                List.of(KernelArg.parse("zeros:128"), KernelArg.parse("u32:9")), provenance()).metadata();
        assertEquals(Map.of(0, UserSgprRole.KERNARG_SEGMENT_PTR, 1, UserSgprRole.KERNARG_SEGMENT_PTR,
                2, UserSgprRole.USER_SGPR_ROLE_UNSPECIFIED, 3, UserSgprRole.USER_SGPR_ROLE_UNSPECIFIED), userRoles(c));
        assertEquals(0x1234, c.getRegisters().getUserSgprs(2).getValue());
        assertEquals(Map.of(4, SystemSgprKind.WORKGROUP_ID_X, 5, SystemSgprKind.WORKGROUP_ID_Y,
                6, SystemSgprKind.WORKGROUP_ID_Z), systemKinds(c));
        assertEquals(16, c.getProgram().getCode().getLength(), "8 + 4 + 4 bytes of code");
        assertEquals(0, c.getProgram().getEntryOffset());
    }

    private Path write(CaptureBuilder.Built built) throws Exception {
        Path p = Files.createTempFile(dir, "b", ".capture");
        built.write(p);
        return p;
    }

    private static long symbolValue(String readelf, String name) {
        Matcher m = Pattern.compile("(?m)^\\s*\\d+: ([0-9a-f]+)\\s+\\d+\\s+FUNC\\s+\\S+\\s+\\S+\\s+\\S+\\s+" + name + "$")
                .matcher(readelf);
        assertTrue(m.find(), "symbol " + name + " in\n" + readelf);
        return Long.parseLong(m.group(1), 16);
    }

    private static long sectionAddress(String readelf, String name) {
        Matcher m = Pattern.compile("\\] " + Pattern.quote(name) + "\\s+\\S+\\s+([0-9a-f]+)").matcher(readelf);
        assertTrue(m.find(), "section " + name);
        return Long.parseLong(m.group(1), 16);
    }

}
