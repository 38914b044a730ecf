package org.replayfarm.gpunode.translate.memory;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Seeded random programs for the memory unit's differential test: one wave of W lanes (a partial wave
 * when the group is smaller), or two waves with s_barrier between instructions, runs random DS, GLOBAL,
 * FLAT, SCRATCH and MUBUF instructions (every width,
 * D16, sign extension, atomics with and without return, read2/write2, crossbars, apertures, buffer
 * addressing) over random per-lane addresses, offsets and data, optionally under random EXEC masks; then it
 * dumps its LDS and private memory to an output range (range 2), so comparing the ranges and the final wave
 * state compares every register and byte.
 *
 * <p>The program itself needs nothing but memory instructions (and, with {@code exec}, s_mov into EXEC):
 * VGPRs v8..v39 start from per-lane values loaded with global_load_dword_addtid from range 0 (the
 * generator picks each register's kind: LDS addresses, global offsets, 64-bit global or FLAT addresses
 * of any aperture, private offsets, permute addresses, data); SGPRs come from the capture's user SGPRs.
 * Ranges: 0 = the initial VGPR values, 1 = data (global memory the program works on), 2 = the dump.
 */
final class MemoryProgramGenerator {
    static final int FIRST = 8;
    static final int COUNT = 32;
    static final int TEMP = FIRST + COUNT; // v40..v47: the dump's temporaries
    static final int VGPRS = TEMP + 8;
    static final int INIT_BYTES = 8192;

    /** What a register holds per lane. */
    enum Kind { DATA, LDS, LDS8, GOFF, GOFF8, GADDR, GADDR8, FLAT, FLAT8, POFF, POFF8, PERM, BIDX }

    /** One generated program: its assembly, launch shape and the contents of its ranges. */
    record Program(long seed, int waveSize, int lanes, int ldsBytes, int scratchPerLane, String asm, byte[] init,
                   byte[] data, int outBytes, Map<Integer, Integer> sgprs, int memoryInstructions) {
    }

    private final Random r;
    private final int w;
    private final int lanes;
    private final Random extra;
    private final int secondWave;
    private final int lds;
    private final int scratch;
    private final int dataBytes;
    private final boolean exec;
    private final long seed;
    private final Kind[] kinds = new Kind[COUNT];
    private final int[][] values = new int[COUNT][];
    private final List<String> body = new ArrayList<>();
    private int memory;

    MemoryProgramGenerator(long seed, int waveSize, boolean exec) {
        this(seed, waveSize, exec, false);
    }

    /**
     * With {@code twoWaves} the group has a second wave (its own number of lanes, drawn from a second
     * stream so that the one-wave programs of a seed stay as they were) running the same code over the same
     * memory, with s_barrier at random points.
     */
    MemoryProgramGenerator(long seed, int waveSize, boolean exec, boolean twoWaves) {
        this.seed = seed;
        this.r = new Random(seed);
        this.w = waveSize;
        this.exec = exec;
        this.extra = new Random(seed * 31 + 7);
        this.secondWave = twoWaves ? 1 + extra.nextInt(waveSize) : 0;
        this.lanes = r.nextInt(4) == 0 ? 1 + r.nextInt(waveSize) : waveSize;
        this.lds = 64 * (1 + r.nextInt(8));
        this.scratch = 32 * (1 + r.nextInt(4));
        this.dataBytes = 512 + 64 * r.nextInt(8);
    }

    /** The size of range 2 (the dump) for these parameters. */
    int outBytes() {
        return (lds / (4 * w) + (lds % (4 * w) == 0 ? 0 : 1) + scratch / 4) * 4 * w;
    }

    int dataBytes() {
        return dataBytes;
    }

    /** The group's lanes: the first wave's, plus the second wave's (which then starts after a full first wave). */
    int lanes() {
        return secondWave == 0 ? lanes : w + secondWave;
    }

    int ldsBytes() {
        return lds;
    }

    int scratchPerLane() {
        return scratch;
    }

    /** Builds the program once the ranges' guest addresses are known (they do not depend on the contents). */
    Program generate(long initAddress, long dataAddress, long outAddress, int instructions) {
        // v8..v17 data; then one register (pair) of every address kind; the rest random single kinds
        Kind[] fixed = {Kind.GADDR, null, Kind.GADDR8, null, Kind.FLAT, null, Kind.FLAT8, null, Kind.LDS, Kind.LDS8,
                Kind.GOFF, Kind.GOFF8, Kind.POFF, Kind.POFF8, Kind.PERM, Kind.BIDX};
        Kind[] single = {Kind.DATA, Kind.LDS, Kind.LDS8, Kind.GOFF, Kind.GOFF8, Kind.POFF, Kind.POFF8, Kind.PERM, Kind.BIDX};
        for (int i = 0; i < COUNT; i++) {
            kinds[i] = i < 10 ? Kind.DATA : i < 10 + fixed.length ? fixed[i - 10] : single[r.nextInt(single.length)];
        }
        // the 64-bit kinds occupy an aligned pair: the second register of a pair holds the high dwords
        for (int i = 0; i < COUNT; i++) {
            values[i] = new int[w];
        }
        for (int i = 0; i < COUNT; i++) {
            Kind k = kinds[i];
            boolean pair = k == Kind.GADDR || k == Kind.GADDR8 || k == Kind.FLAT || k == Kind.FLAT8;
            for (int l = 0; l < w; l++) {
                long v = laneValue(k, l, dataAddress);
                values[i][l] = (int) v;
                if (pair) {
                    values[i + 1][l] = (int) (v >>> 32);
                }
            }
            if (pair) {
                kinds[i + 1] = null; // the high half of the pair
                i++;
            }
        }
        // user SGPRs (s[0:1] is the kernarg pointer): s2 buffer SOFFSET, s3 scratch SADDR, s[4:7] the init bases,
        // s[8:9] data, s[10:11] and s[28:29] EXEC masks, s[12:15] a raw V# over data, s[16:19] the scratch V#,
        // s[20:23] a structured V# over data, s[24:27] the dump's V#, s30 M0
        Map<Integer, Integer> sgprs = new LinkedHashMap<>();
        put64(sgprs, 4, initAddress + 2048);
        put64(sgprs, 6, initAddress + 6144);
        put64(sgprs, 8, dataAddress);
        putV(sgprs, 12, vsharp(dataAddress, 0, false, dataBytes - 32 - r.nextInt(32), 3, false, 0));
        int stride = 8 * (1 + r.nextInt(4));
        putV(sgprs, 20, vsharp(dataAddress, stride, false, dataBytes / stride, r.nextInt(2), false, 0));
        // the scratch V# ROCr hands over (swizzled, ADD_TID, index stride = the wave size, OOB_SELECT 2)
        putV(sgprs, 16, vsharp(0x7F00_0000_0000L, 0, true, scratch * w, 2, true, w == 64 ? 3 : 2));
        // the dump: lane l's dword at base + SOFFSET + 4 l (ADD_TID, stride 4)
        putV(sgprs, 24, vsharp(outAddress, 4, false, outBytes(), 3, true, 0));
        sgprs.put(2, r.nextInt(3) == 0 ? 4 * r.nextInt(8) : 0);
        sgprs.put(3, 4 * r.nextInt(scratch / 4 - 6));
        int fewest = secondWave == 0 ? lanes : Math.min(w, secondWave);
        long all = fewest == 64 ? -1L : (1L << fewest) - 1;
        put64(sgprs, 10, r.nextInt(4) == 0 ? all : r.nextLong() & all);
        put64(sgprs, 28, r.nextLong() & all);
        sgprs.put(30, 4 * r.nextInt(lds / 4));

        StringBuilder asm = new StringBuilder();
        asm.append("// seed ").append(seed).append(", wave").append(w).append(", ").append(lanes()).append(" lanes\n");
        for (int i = 0; i < COUNT; i++) {
            asm.append(String.format("global_load_dword_addtid v%d, s[%d:%d] offset:%d%n", FIRST + i,
                    i < 16 ? 4 : 6, i < 16 ? 5 : 7, (i % 16) * 4 * w - 2048));
        }
        if (exec) {
            asm.append(w == 64 ? "s_mov_b64 s[60:61], exec\n" : "s_mov_b32 s60, exec_lo\n");
        }
        asm.append("s_mov_b32 m0, s30\n");
        for (int i = 0; i < instructions; i++) {
            if (exec && r.nextInt(8) == 0) {
                int m = r.nextBoolean() ? 10 : 28;
                body.add(w == 64 ? String.format("s_mov_b64 exec, s[%d:%d]", m, m + 1) : "s_mov_b32 exec_lo, s" + m);
            }
            if (secondWave > 0 && extra.nextInt(6) == 0) {
                body.add("s_barrier");
            }
            body.add(instruction());
            memory++;
        }
        for (String b : body) {
            asm.append(b).append('\n');
        }
        if (exec) {
            asm.append(w == 64 ? "s_mov_b64 exec, s[60:61]\n" : "s_mov_b32 exec_lo, s60\n");
        }
        // the dump (the final VGPRs are compared directly): the LDS, dword l of each row of 4W bytes by lane l,
        // then private memory, dword by dword
        asm.append("s_mov_b32 m0, 0\n");
        int slot = 0;
        for (int row = 0; row * 4 * w < lds; row++) {
            asm.append(String.format("ds_read_addtid_b32 v%d offset:%d%n", TEMP, row * 4 * w));
            asm.append(store(TEMP, slot++));
        }
        for (int d = 0; d < scratch / 4; d++) {
            asm.append(String.format("scratch_load_dword v%d, off, s%d offset:%d%n", TEMP + 1, 62, 4 * d));
            asm.append(store(TEMP + 1, slot++));
        }
        asm.append("s_endpgm\n");
        String text = asm.toString();
        ByteBuffer init = ByteBuffer.allocate(INIT_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < COUNT; i++) {
            for (int l = 0; l < w; l++) {
                init.putInt((i % 16) * 4 * w + (i < 16 ? 0 : 4096) + 4 * l, values[i][l]);
            }
        }
        byte[] data = new byte[dataBytes];
        for (int i = 0; i < dataBytes; i += 4) {
            int v = (int) dataValue();
            for (int b = 0; b < 4; b++) {
                data[i + b] = (byte) (v >>> (8 * b));
            }
        }
        return new Program(seed, w, lanes(), lds, scratch, text, init.array(), data, outBytes(), sgprs, memory);
    }

    private String store(int vgpr, int slot) {
        int at = slot * 4 * w;
        return String.format("s_mov_b32 s63, 0x%x%nbuffer_store_dword v%d, off, s[24:27], s63 offset:%d%n",
                at & ~0xFFF, vgpr, at & 0xFFF);
    }

    private static void putV(Map<Integer, Integer> s, int at, int[] v) {
        for (int i = 0; i < 4; i++) {
            s.put(at + i, v[i]);
        }
    }

    private static void put64(Map<Integer, Integer> s, int at, long v) {
        s.put(at, (int) v);
        s.put(at + 1, (int) (v >>> 32));
    }

    static int[] vsharp(long base, int stride, boolean swizzle, long numRecords, int oob, boolean addTid, int isCode) {
        int w1 = (int) (base >>> 32) & 0xFFFF | stride << 16 | (swizzle ? 1 << 31 : 0);
        int w3 = (4 | 5 << 3 | 6 << 6 | 7 << 9) | 20 << 12 | isCode << 21 | (addTid ? 1 << 23 : 0) | 1 << 24 | oob << 28;
        return new int[] {(int) base, w1, (int) numRecords, w3};
    }

    // ------------------------------------------------------------------ per-lane values

    private long dataValue() {
        return switch (r.nextInt(6)) {
            case 0 -> r.nextInt(16);
            case 1 -> Float.floatToRawIntBits((float) r.nextGaussian());
            case 2 -> new int[] {0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001, 1, -1}[r.nextInt(8)];
            default -> r.nextInt();
        } & 0xFFFF_FFFFL;
    }

    private long align(long v, int a) {
        return v & -a;
    }

    private long laneValue(Kind k, int lane, long dataAddress) {
        int a = 1 << r.nextInt(5);
        return switch (k) {
            case DATA -> dataValue();
            case LDS -> r.nextInt(40) == 0 ? lds + r.nextInt(32) : r.nextInt(30) == 0 ? 0xFFFF_FFF0L + r.nextInt(16)
                    : align(r.nextInt(lds), a);
            case LDS8 -> r.nextInt(40) == 0 ? lds + 8L * r.nextInt(4) : align(r.nextInt(lds), 8);
            case GOFF -> 16 + align(r.nextInt(dataBytes - 56), a);
            case GOFF8 -> 16 + align(r.nextInt(dataBytes - 56), 8);
            case GADDR -> dataAddress + 16 + align(r.nextInt(dataBytes - 56), a);
            case GADDR8 -> dataAddress + 16 + align(r.nextInt(dataBytes - 56), 8);
            case FLAT, FLAT8 -> {
                int al = k == Kind.FLAT8 ? 8 : a;
                yield switch (r.nextInt(3)) {
                    case 0 -> dataAddress + align(r.nextInt(dataBytes - 32), al);
                    case 1 -> (1L << 48) + align(r.nextInt(lds), al);
                    default -> (2L << 48) + align(r.nextInt(scratch - 24), al);
                };
            }
            case POFF -> align(r.nextInt(scratch - 24), a);
            case POFF8 -> align(r.nextInt(scratch - 24), 8);
            case PERM -> r.nextInt(10) == 0 ? r.nextInt() & 0xFFFF_FFFFL : 4L * r.nextInt(64) + r.nextInt(4);
            case BIDX -> r.nextInt(dataBytes / 8);
        };
    }

    // ------------------------------------------------------------------ instructions

    /** A VGPR of one of the kinds (a DATA register when none has it). */
    private int reg(Kind... ks) {
        List<Integer> c = new ArrayList<>();
        for (int i = 0; i < COUNT; i++) {
            for (Kind k : ks) {
                if (kinds[i] == k) {
                    c.add(FIRST + i);
                }
            }
        }
        if (c.isEmpty()) {
            for (int i = 0; i < COUNT; i++) {
                if (kinds[i] == Kind.DATA) {
                    c.add(FIRST + i);
                }
            }
        }
        return c.get(r.nextInt(c.size()));
    }

    /** A destination: n consecutive DATA registers (addresses stay intact). */
    private String dst(int n) {
        for (int tries = 0; tries < 100; tries++) {
            int i = r.nextInt(10 - n + 1);
            boolean ok = true;
            for (int j = 0; j < n; j++) {
                ok &= kinds[i + j] == Kind.DATA;
            }
            if (ok) {
                return range(FIRST + i, n);
            }
        }
        return range(FIRST, n);
    }

    /** n consecutive DATA registers as a source (any of v8..v17). */
    private String src(int n) {
        return range(FIRST + r.nextInt(10 - n + 1), n);
    }

    private static String range(int v, int n) {
        return n == 1 ? "v" + v : "v[" + v + ":" + (v + n - 1) + "]";
    }

    private static final String[] DS_READS = {"b32", "b64", "b96", "b128", "u8", "i8", "u16", "i16", "u8_d16",
            "u8_d16_hi", "i8_d16", "i8_d16_hi", "u16_d16", "u16_d16_hi"};
    private static final String[] DS_WRITES = {"b32", "b64", "b96", "b128", "b8", "b16", "b8_d16_hi", "b16_d16_hi"};
    private static final String[] DS_ATOMICS = {"add_u32", "sub_u32", "rsub_u32", "inc_u32", "dec_u32", "min_i32",
            "max_i32", "min_u32", "max_u32", "and_b32", "or_b32", "xor_b32", "mskor_b32", "cmpst_b32", "cmpst_f32",
            "min_f32", "max_f32", "add_f32", "add_u64", "sub_u64", "rsub_u64", "inc_u64", "dec_u64", "min_i64",
            "max_i64", "min_u64", "max_u64", "and_b64", "or_b64", "xor_b64", "mskor_b64", "cmpst_b64", "cmpst_f64",
            "min_f64", "max_f64"};
    private static final String[] VMEM_LOADS = {"ubyte", "sbyte", "ushort", "sshort", "dword", "dwordx2", "dwordx3",
            "dwordx4", "ubyte_d16", "ubyte_d16_hi", "sbyte_d16", "sbyte_d16_hi", "short_d16", "short_d16_hi"};
    private static final String[] VMEM_STORES = {"byte", "byte_d16_hi", "short", "short_d16_hi", "dword", "dwordx2",
            "dwordx3", "dwordx4"};
    private static final String[] VMEM_ATOMICS = {"swap", "cmpswap", "add", "sub", "smin", "umin", "smax", "umax",
            "and", "or", "xor", "inc", "dec", "fcmpswap", "fmin", "fmax"};

    private static int regs(String width) {
        return switch (width) {
            case "b64", "dwordx2" -> 2;
            case "b96", "dwordx3" -> 3;
            case "b128", "dwordx4" -> 4;
            default -> 1;
        };
    }

    private String instruction() {
        return switch (r.nextInt(14)) {
            case 0, 1 -> dsReadWrite();
            case 2 -> dsPair();
            case 3 -> dsAtomic();
            case 4 -> dsCross();
            case 5, 6 -> global();
            case 7 -> globalAtomic();
            case 8 -> flat();
            case 9 -> scratch();
            case 10, 11 -> buffer();
            case 12 -> bufferAtomic();
            default -> r.nextBoolean() ? dsReadWrite() : global();
        };
    }

    private String dsOffset() {
        return r.nextBoolean() ? "" : " offset:" + (r.nextInt(4) == 0 ? r.nextInt(65536) : r.nextInt(64));
    }

    private String dsReadWrite() {
        if (r.nextBoolean()) {
            String s = DS_READS[r.nextInt(DS_READS.length)];
            return "ds_read_" + s + " " + dst(regs(s)) + ", v" + reg(Kind.LDS, Kind.LDS8) + dsOffset();
        }
        if (r.nextInt(8) == 0) {
            return r.nextBoolean() ? "ds_write_addtid_b32 " + src(1) + " offset:" + 4 * r.nextInt(16)
                    : "ds_read_addtid_b32 " + dst(1) + " offset:" + 4 * r.nextInt(16);
        }
        String s = DS_WRITES[r.nextInt(DS_WRITES.length)];
        return "ds_write_" + s + " v" + reg(Kind.LDS, Kind.LDS8) + ", " + src(regs(s)) + dsOffset();
    }

    private String dsPair() {
        boolean b64 = r.nextBoolean();
        String st = r.nextInt(4) == 0 ? "st64" : "";
        String size = b64 ? "b64" : "b32";
        int n = b64 ? 2 : 1;
        String offs = " offset0:" + r.nextInt(st.isEmpty() ? 64 : 4) + " offset1:" + r.nextInt(st.isEmpty() ? 64 : 4);
        int a = reg(Kind.LDS8);
        return switch (r.nextInt(3)) {
            case 0 -> "ds_read2" + st + "_" + size + " " + dst(2 * n) + ", v" + a + offs;
            case 1 -> "ds_write2" + st + "_" + size + " v" + a + ", " + src(n) + ", " + src(n) + offs;
            default -> "ds_wrxchg2" + st + "_rtn_" + size + " " + dst(2 * n) + ", v" + a + ", " + src(n) + ", " + src(n)
                    + offs;
        };
    }

    private String dsAtomic() {
        if (r.nextInt(6) == 0) {
            return switch (r.nextInt(4)) {
                case 0 -> "ds_wrxchg_rtn_b32 " + dst(1) + ", v" + reg(Kind.LDS8) + ", " + src(1);
                case 1 -> "ds_wrxchg_rtn_b64 " + dst(2) + ", v" + reg(Kind.LDS8) + ", " + src(2);
                case 2 -> "ds_wrap_rtn_b32 " + dst(1) + ", v" + reg(Kind.LDS8) + ", " + src(1) + ", " + src(1);
                default -> (r.nextBoolean() ? "ds_append " : "ds_consume ") + dst(1) + " offset:" + 4 * r.nextInt(8);
            };
        }
        String a = DS_ATOMICS[r.nextInt(DS_ATOMICS.length)];
        int n = a.endsWith("64") ? 2 : 1;
        boolean two = a.startsWith("mskor") || a.startsWith("cmpst");
        boolean rtn = r.nextBoolean() && !a.equals("add_f32");
        int cut = a.indexOf('_');
        String m = rtn ? a.substring(0, cut) + "_rtn" + a.substring(cut) : a;
        String addr = "v" + reg(r.nextInt(60) == 0 ? Kind.LDS : Kind.LDS8);
        return "ds_" + m + " " + (rtn ? dst(n) + ", " : "") + addr + ", " + src(n) + (two ? ", " + src(n) : "")
                + (r.nextBoolean() ? " offset:" + 8 * r.nextInt(8) : "");
    }

    private String dsCross() {
        return switch (r.nextInt(3)) {
            case 0 -> "ds_swizzle_b32 " + dst(1) + ", " + src(1) + " offset:" + (r.nextBoolean()
                    ? 0x8000 | r.nextInt(256) : r.nextInt(0x8000));
            case 1 -> "ds_bpermute_b32 " + dst(1) + ", v" + reg(Kind.PERM) + ", " + src(1) + dsOffset();
            default -> "ds_permute_b32 " + dst(1) + ", v" + reg(Kind.PERM) + ", " + src(1) + dsOffset();
        };
    }

    private String gOffset() {
        return r.nextBoolean() ? "" : " offset:" + (r.nextInt(33) - 16);
    }

    private boolean has(Kind k) {
        for (Kind x : kinds) {
            if (x == k) {
                return true;
            }
        }
        return false;
    }

    private String global() {
        if (r.nextInt(10) == 0) {
            return r.nextBoolean() ? "global_load_dword_addtid " + dst(1) + ", s[8:9] offset:" + 4 * r.nextInt(8)
                    : "global_store_dword_addtid " + src(1) + ", s[8:9] offset:" + 4 * r.nextInt(8);
        }
        boolean pair = r.nextBoolean() && (has(Kind.GADDR) || has(Kind.GADDR8));
        String address;
        if (pair) {
            int v = reg(Kind.GADDR, Kind.GADDR8);
            address = "v[" + v + ":" + (v + 1) + "], off";
        } else {
            address = "v" + reg(Kind.GOFF, Kind.GOFF8) + ", s[8:9]";
        }
        if (r.nextBoolean()) {
            String s = VMEM_LOADS[r.nextInt(VMEM_LOADS.length)];
            return "global_load_" + s + " " + dst(regs(s)) + ", " + address + gOffset();
        }
        String s = VMEM_STORES[r.nextInt(VMEM_STORES.length)];
        return "global_store_" + s + " " + address.replace(", off", "").replace(", s[8:9]", "") + ", " + src(regs(s))
                + (address.endsWith("off") ? ", off" : ", s[8:9]") + gOffset();
    }

    private String globalAtomic() {
        String a = VMEM_ATOMICS[r.nextInt(VMEM_ATOMICS.length)];
        boolean x2 = r.nextBoolean() && !a.equals("fcmpswap");
        if (r.nextInt(10) == 0) {
            a = "csub";
            x2 = false;
        }
        int n = x2 ? 2 : 1;
        boolean cmp = a.endsWith("cmpswap");
        String name = "global_atomic_" + a + (x2 ? "_x2" : "");
        boolean glc = r.nextBoolean() || a.equals("csub");
        boolean pair = r.nextBoolean() && has(Kind.GADDR8);
        int v = pair ? reg(Kind.GADDR8) : reg(Kind.GOFF8);
        String address = pair ? "v[" + v + ":" + (v + 1) + "]" : "v" + v;
        String saddr = pair ? "off" : "s[8:9]";
        return name + " " + (glc ? dst(n) + ", " : "") + address + ", " + src(cmp ? 2 * n : n) + ", " + saddr
                + (r.nextBoolean() ? " offset:" + 8 * (r.nextInt(5) - 2) : "") + (glc ? " glc" : "");
    }

    private String flat() {
        boolean atomic = r.nextInt(3) == 0;
        Kind k = atomic ? Kind.FLAT8 : r.nextBoolean() ? Kind.FLAT : Kind.FLAT8;
        if (!has(k)) {
            return global();
        }
        int v = reg(k);
        String address = "v[" + v + ":" + (v + 1) + "]";
        String off = atomic || r.nextBoolean() ? "" : " offset:" + 8 * r.nextInt(2);
        switch (atomic ? 2 : r.nextInt(2)) {
            case 0 -> {
                String s = VMEM_LOADS[r.nextInt(VMEM_LOADS.length)];
                return "flat_load_" + s + " " + dst(regs(s)) + ", " + address + off;
            }
            case 1 -> {
                String s = VMEM_STORES[r.nextInt(VMEM_STORES.length)];
                return "flat_store_" + s + " " + address + ", " + src(regs(s)) + off;
            }
            default -> {
                String a = VMEM_ATOMICS[r.nextInt(VMEM_ATOMICS.length)];
                boolean x2 = r.nextBoolean() && !a.equals("fcmpswap");
                int n = x2 ? 2 : 1;
                boolean glc = r.nextBoolean();
                return "flat_atomic_" + a + (x2 ? "_x2" : "") + " " + (glc ? dst(n) + ", " : "") + address + ", "
                        + src(a.endsWith("cmpswap") ? 2 * n : n) + (glc ? " glc" : "");
            }
        }
    }

    private String scratch() {
        boolean sgpr = r.nextInt(4) == 0;
        String off = " offset:" + 4 * r.nextInt(3);
        if (r.nextBoolean()) {
            String s = VMEM_LOADS[r.nextInt(VMEM_LOADS.length)];
            return "scratch_load_" + s + " " + dst(regs(s)) + ", " + (sgpr ? "off, s3" : "v" + reg(Kind.POFF, Kind.POFF8)
                    + ", off") + off;
        }
        String s = VMEM_STORES[r.nextInt(VMEM_STORES.length)];
        return "scratch_store_" + s + " " + (sgpr ? "off" : "v" + reg(Kind.POFF, Kind.POFF8)) + ", " + src(regs(s)) + ", "
                + (sgpr ? "s3" : "off") + off;
    }

    /** MUBUF addressing: the raw V# in s[12:15] (offen / none), the structured one in s[20:23] (idxen), scratch in s[16:19]. */
    private String bufferOperands() {
        return switch (r.nextInt(5)) {
            case 0 -> "off, s[12:15], s2 offset:" + r.nextInt(64);
            case 1, 2 -> "v" + reg(Kind.GOFF, Kind.GOFF8) + ", s[12:15], s2 offen offset:" + r.nextInt(32);
            case 3 -> "v" + reg(Kind.BIDX) + ", s[20:23], 0 idxen offset:" + 4 * r.nextInt(3);
            default -> "v" + reg(Kind.POFF, Kind.POFF8) + ", s[16:19], 0 offen offset:" + 4 * r.nextInt(3);
        };
    }

    private String buffer() {
        String ops = bufferOperands();
        if (r.nextBoolean()) {
            String s = VMEM_LOADS[r.nextInt(VMEM_LOADS.length)];
            return "buffer_load_" + s + " " + dst(regs(s)) + ", " + ops;
        }
        String s = VMEM_STORES[r.nextInt(VMEM_STORES.length)];
        return "buffer_store_" + s + " " + src(regs(s)) + ", " + ops;
    }

    private String bufferAtomic() {
        String a = VMEM_ATOMICS[r.nextInt(VMEM_ATOMICS.length)];
        boolean x2 = r.nextBoolean() && !a.equals("fcmpswap");
        int n = x2 ? 2 : 1;
        boolean cmp = a.endsWith("cmpswap");
        boolean glc = r.nextBoolean();
        String ops = r.nextBoolean() ? "v" + reg(Kind.GOFF8) + ", s[12:15], 0 offen" : "v" + reg(Kind.BIDX) + ", s[20:23], 0 idxen";
        // the data registers are also the destination: a DATA run
        return "buffer_atomic_" + a + (x2 ? "_x2" : "") + " " + dst(cmp ? 2 * n : n) + ", " + ops + (glc ? " glc" : "");
    }
}
