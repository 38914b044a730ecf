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
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.replayfarm.model.capture.CaptureFile;
import org.replayfarm.model.elf.CodeObjectException;
import org.replayfarm.model.testing.ReadelfNotes;
import org.replayfarm.model.testing.Toolchain;
import org.replayfarm.proto.Capture;
import org.replayfarm.proto.MemoryRange;
import org.replayfarm.proto.Provenance;

/**
 * {@code local:} and by-value arguments of every size in the kernarg segment, checked against the offsets,
 * sizes, pointee alignments and static LDS size clang-19's metadata gives (read with llvm-readelf-19,
 * independently of the project's MessagePack reader).
 */
@Tag("unit")
class KernargLayoutTest {
    @TempDir
    Path dir;

    static final String KERNEL = """
            #pragma OPENCL EXTENSION cl_khr_fp16 : enable
            typedef struct { int a; float b; short c; } pair_t;
            struct tri { char a; double d; ushort s; };
            __kernel void many(__global float *out, __local float *scratch, __local double4 *wide, char c, uchar uc,
                               short s, half h, long l, double d, float2 f2, int3 i3, float4 f4, pair_t p,
                               struct tri t, ushort8 u8, __local uchar *bytes, char3 c3) {
                __local int st[5];
                uint x = __builtin_amdgcn_workitem_id_x();
                st[x % 5] = c + uc + s + (int) h + (int) l + (int) d + (int) f2.y + i3.z + (int) f4.w + p.c + t.s + u8.s7;
                scratch[x] = (float) st[(x + 1) % 5];
                wide[x] = (double4) (1.0);
                bytes[x] = (uchar) c3.z;
                out[x] = scratch[(x + 1) % 64] + (float) wide[x].x + bytes[x]
                       + (float) __builtin_amdgcn_workgroup_size_x(); // keeps the hidden arguments listed
            }
            """;

    static final List<String> ARGS = List.of("zeros:256", "local:256", "local:2048", "i8:-7", "u8:200", "i16:-1234",
            "f16:2.375", "i64:-5000000000", "f64:0.15625", "f32x2:0.5,-1.25", "i32x3:1,-2,3", "f32x4:1.5,2,-0.75,4",
            "bytes:fbffffff0000c03f2c010000", "bytes:090000000000000000000000000002c00110000000000000",
            "u16x8:1,2,3,4,5,6,7,65535", "local:67", "i8x3:-1,2,-3");

    private static List<KernelArg> parse(List<String> args) {
        return args.stream().map(KernelArg::parse).toList();
    }

    private static Provenance provenance() {
        return Provenance.newBuilder().setTool("test").build();
    }

    private static byte[] le(int bytes, long... values) {
        ByteBuffer b = ByteBuffer.allocate(bytes * values.length).order(ByteOrder.LITTLE_ENDIAN);
        for (long v : values) {
            for (int k = 0; k < bytes; k++) {
                b.put((byte) (v >>> (8 * k)));
            }
        }
        return b.array();
    }

    private static byte[] slice(ByteBuffer k, ReadelfNotes.Arg a) {
        byte[] out = new byte[a.size()];
        k.get(a.offset(), out);
        return out;
    }

    private static long alignUp(long v, int a) {
        return (v + a - 1) / a * a;
    }

    @Test
    void every_argument_lands_at_its_metadata_offset_with_its_bytes_and_locals_follow_the_static_lds() throws Exception {
        Path o = Toolchain.compileOpenCl(dir, "many", KERNEL);
        ReadelfNotes.Kernel meta = ReadelfNotes.read(o).get("many");
        var built = CaptureBuilder.fromCodeObject(Files.readAllBytes(o), "many", new DispatchShape(1, 1, 1, 64, 1, 1, 1),
                parse(ARGS), provenance());
        Capture c = built.metadata();
        Path file = dir.resolve("many.capture");
        built.write(file);
        MemoryRange kr = c.getRangesList().stream().filter(r -> r.getName().equals("kernarg")).findFirst().orElseThrow();
        ByteBuffer k = CaptureFile.open(file).blob(kr.getInitial()).order(ByteOrder.LITTLE_ENDIAN);
        List<ReadelfNotes.Arg> explicit = meta.args().stream().filter(a -> !a.valueKind().startsWith("hidden_")).toList();
        assertEquals(ARGS.size(), explicit.size());

        // the sizes clang gives the slots: the OpenCL C sizes, a 3-vector as big as a 4-vector
        assertEquals(List.of(8, 4, 4, 1, 1, 2, 2, 8, 8, 8, 16, 16, 12, 24, 16, 4, 4),
                explicit.stream().map(ReadelfNotes.Arg::size).toList());
        assertEquals(c.getRanges(0).getGuestAddress(), k.getLong(explicit.get(0).offset()));
        // dynamic LDS: after the static LDS, in argument order, each aligned to .pointee_align
        assertEquals(4, explicit.get(1).pointeeAlign());
        assertEquals(32, explicit.get(2).pointeeAlign());
        assertEquals(1, explicit.get(15).pointeeAlign());
        long first = alignUp(meta.groupSegmentFixedSize(), 4);
        long second = alignUp(first + 256, 32);
        long third = second + 2048;
        assertEquals(first, k.getInt(explicit.get(1).offset()));
        assertEquals(second, k.getInt(explicit.get(2).offset()));
        assertEquals(third, k.getInt(explicit.get(15).offset()));
        assertEquals(third + 67, c.getProgram().getLdsBytes(), "the group's LDS: static and dynamic");
        assertTrue(meta.groupSegmentFixedSize() >= 20, "the static __local int[5]");
        assertEquals(third + 67 - meta.groupSegmentFixedSize(), k.getInt(meta.hidden("hidden_dynamic_lds_size").offset()));
        // by-value bytes, written here independently of the parser
        assertArrayEquals(le(1, -7), slice(k, explicit.get(3)));
        assertArrayEquals(le(1, 200), slice(k, explicit.get(4)));
        assertArrayEquals(le(2, -1234), slice(k, explicit.get(5)));
        assertArrayEquals(le(2, 0x40C0), slice(k, explicit.get(6)), "2.375 as a half: 0x40c0");
        assertArrayEquals(le(8, -5000000000L), slice(k, explicit.get(7)));
        assertArrayEquals(le(8, Double.doubleToLongBits(0.15625)), slice(k, explicit.get(8)));
        assertArrayEquals(le(4, Float.floatToIntBits(0.5f), Float.floatToIntBits(-1.25f)), slice(k, explicit.get(9)));
        assertArrayEquals(le(4, 1, -2, 3, 0), slice(k, explicit.get(10)));
        assertArrayEquals(le(4, Float.floatToIntBits(1.5f), Float.floatToIntBits(2f), Float.floatToIntBits(-0.75f),
                Float.floatToIntBits(4f)), slice(k, explicit.get(11)));
        assertArrayEquals(le(4, -5, Float.floatToIntBits(1.5f), 300), slice(k, explicit.get(12)));
        assertArrayEquals(le(8, 9, Double.doubleToLongBits(-2.25), 4097), slice(k, explicit.get(13)));
        assertArrayEquals(le(2, 1, 2, 3, 4, 5, 6, 7, 65535), slice(k, explicit.get(14)));
        assertArrayEquals(le(1, -1, 2, -3, 0), slice(k, explicit.get(16)));
        // the dispatch packet's group segment size is the whole LDS, as the runtime writes it
        MemoryRange packet = c.getRangesList().stream().filter(r -> r.getName().equals("dispatch-packet")).findFirst()
                .orElse(null);
        if (packet != null) {
            assertEquals(third + 67, CaptureFile.open(file).blob(packet.getInitial()).order(ByteOrder.LITTLE_ENDIAN).getInt(28));
        }
    }

    private CodeObjectException refused(List<String> args) throws Exception {
        Path o = Toolchain.compileOpenCl(dir, "many", KERNEL);
        byte[] elf = Files.readAllBytes(o);
        return assertThrows(CodeObjectException.class, () -> CaptureBuilder.fromCodeObject(elf, "many",
                new DispatchShape(1, 1, 1, 64, 1, 1, 1), parse(args), provenance()));
    }

    private static List<String> with(int index, String arg) {
        List<String> args = new ArrayList<>(ARGS);
        args.set(index, arg);
        return args;
    }

    @Test
    void local_allocations_over_64_kib_are_refused_naming_them() throws Exception {
        String m = refused(with(2, "local:65300")).getMessage();
        assertTrue(m.contains("argument 2 local:65300") && m.contains("65536") && m.contains("static LDS"), m);
    }

    @Test
    void a_by_value_argument_of_the_wrong_size_is_refused_naming_the_slot_and_its_type() throws Exception {
        String m = refused(with(3, "i32:5")).getMessage();
        assertTrue(m.contains("argument 3 (char) takes 1 bytes") && m.contains("'i32:5' gives 4"), m);
        m = refused(with(12, "bytes:0011")).getMessage();
        assertTrue(m.contains("argument 12 (pair_t) takes 12 bytes") && m.contains("gives 2"), m);
    }

    /** The kinds against the metadata's .type_name: float against integer, widths and counts must agree. */
    @Test
    void a_by_value_argument_of_the_wrong_kind_is_refused_naming_the_type_and_the_kind_to_give() throws Exception {
        String m = refused(with(9, "i32x2:1,2")).getMessage();
        assertTrue(m.contains("argument 9 (float2) is a float2; 'i32x2:1,2' gives i32x2; give f32x2:V1,...,V2"), m);
        m = refused(with(6, "i16:7")).getMessage();
        assertTrue(m.contains("is a half; 'i16:7' gives i16; give f16:VALUE"), m);
        m = refused(with(8, "i64:7")).getMessage();
        assertTrue(m.contains("is a double; 'i64:7' gives i64; give f64:VALUE"), m);
        m = refused(with(14, "u32:3")).getMessage();
        assertTrue(m.contains("takes 16 bytes"), "a size mismatch is named as one first: " + m);
        // signed and unsigned integers of one width are the same bits: accepted
        Path o = Toolchain.compileOpenCl(dir, "many", KERNEL);
        List<String> args = new ArrayList<>(ARGS);
        args.set(4, "i8:-56");
        args.set(7, "u64:5");
        CaptureBuilder.fromCodeObject(Files.readAllBytes(o), "many", new DispatchShape(1, 1, 1, 64, 1, 1, 1),
                parse(args), provenance());
        // a float for an integer parameter of the same size, the case: u32 for float and f32 for int
        Path scalar = Toolchain.compileOpenCl(dir, "scalar", """
                __kernel void s(__global float *out, float f, int n) { out[n] = f; }
                """);
        for (String[] bad : new String[][] {{"i32:1", "f32:2"}, {"f32:1", "f32:2.5"}}) {
            var e = assertThrows(CodeObjectException.class, () -> CaptureBuilder.fromCodeObject(Files.readAllBytes(scalar),
                    "s", new DispatchShape(1, 1, 1, 64, 1, 1, 1), parse(List.of("zeros:64", bad[0], bad[1])), provenance()));
            assertTrue(e.getMessage().contains("give f32:VALUE") || e.getMessage().contains("give i32:VALUE"), e.getMessage());
        }
    }

    @Test
    void local_and_global_slots_take_only_their_own_kind() throws Exception {
        String m = refused(with(0, "local:64")).getMessage();
        assertTrue(m.contains("argument 0 (float*) is a global_buffer, not a __local pointer"), m);
        m = refused(with(1, "zeros:64")).getMessage();
        assertTrue(m.contains("argument 1 (float*) is a __local pointer") && m.contains("give local:BYTES, not 'zeros:64'"), m);
        m = refused(with(1, "u32:64")).getMessage();
        assertTrue(m.contains("argument 1 (float*) is a __local pointer") && m.contains("give local:BYTES"), m);
        m = refused(with(0, "f32x2:1,2")).getMessage();
        assertTrue(m.contains("argument 0 (float*) is a global buffer"), m);
        m = refused(with(3, "local:4")).getMessage();
        assertTrue(m.contains("argument 3 (char) is a by_value"), m);
    }

    @Test
    void by_value_spellings_parse_to_their_bytes_and_bad_ones_say_why() {
        assertArrayEquals(le(1, 255), ((KernelArg.Value) KernelArg.parse("u8:0xff")).bytes());
        assertArrayEquals(le(2, -32768), ((KernelArg.Value) KernelArg.parse("i16:-32768")).bytes());
        assertArrayEquals(le(8, Long.MIN_VALUE), ((KernelArg.Value) KernelArg.parse("i64:-9223372036854775808")).bytes());
        assertArrayEquals(le(8, Long.MAX_VALUE), ((KernelArg.Value) KernelArg.parse("i64:9223372036854775807")).bytes());
        assertEquals(-1L, ((KernelArg.DoubleWord) KernelArg.parse("u64:0xffffffffffffffff")).bits());
        assertEquals(-1, ((KernelArg.Word) KernelArg.parse("u32:4294967295")).bits());
        assertArrayEquals(le(2, 0x3C00, 0x7C00, 0x0001, 0x8000), ((KernelArg.Value) KernelArg.parse("f16x4:1,65520,5.960464477539063e-8,-0")).bytes());
        assertEquals(16, KernelArg.parse("f32x3:1,2,3").size());
        assertEquals(128, KernelArg.parse("f64x16:1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16").size());
        assertEquals("f32x4:1,2,3,4", KernelArg.parse("f32x4:1,2,3,4").describe());
        assertEquals("bytes:00ff,type=struct s", KernelArg.parse("bytes:00FF,type=struct s").describe());
        assertEquals("local:100", KernelArg.parse("local:100").describe());
        for (String[] bad : new String[][] {
                {"i8:128", "not a valid i8 value"}, {"u8:-1", "not a valid u8 value"}, {"i16:40000", "signed 16-bit"},
                {"f32x4:1,2,3", "takes 4 value(s), 3 given"}, {"f32x5:1,2,3,4,5", "unknown kind 'f32x5'"},
                {"bytes:abc", "even number of hex digits"}, {"local:0", "at least one byte"},
                {"local:x", "not a valid local value"}, {"q8:1", "unknown kind 'q8'"},
                // past 64 bits: Long's parser said "Error at index 18 in: ..."
                {"u32:99999999999999999999999", "(does not fit in 32 bits)"},
                {"i64:-99999999999999999999999", "(out of the signed 64-bit range)"},
                {"u64:0x1ffffffffffffffff", "(does not fit in 64 bits)"}, {"u32:12a", "(not a decimal number)"},
                {"u32:0xg", "(not a hexadecimal number)"}, {"buffer:/no/such/file.bin", "cannot read /no/such/file.bin: no such file"}}) {
            var e = assertThrows(IllegalArgumentException.class, () -> KernelArg.parse(bad[0]), bad[0]);
            assertTrue(e.getMessage().contains(bad[1]) && e.getMessage().contains(bad[0]), e.getMessage());
        }
    }
}
