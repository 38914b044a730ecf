package org.replayfarm.gpunode.translate.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * rt_mem.h under g++ against an oracle written here from the ISA guide's pseudocode and the data facts
 * (hsa-abi.md's private interleave, the V# layout): seeded random vectors, every answer compared line by
 * line; and the header compiled by nvcc for sm_90 (no GPU needed).
 */
@Tag("corpus")
class RtMemTest {
    private static Path driver;

    @BeforeAll
    static void build() {
        driver = RtBuild.gxx("rt_mem_driver", RtBuild.resource("/org/replayfarm/gpunode/translate/memory/rt_mem_driver.cpp"));
    }

    /** Runs the commands through the driver and compares each answer with the oracle's. */
    private static void check(List<String> commands, List<String> expected) {
        String out = RtBuild.run(List.of(driver.toString()), String.join("\n", commands) + "\n", 120);
        String[] got = out.split("\n", -1);
        assertTrue(got.length >= expected.size(), "driver answered " + got.length + " of " + expected.size());
        int bad = 0;
        StringBuilder first = new StringBuilder();
        for (int i = 0; i < expected.size(); i++) {
            if (!expected.get(i).equals(got[i])) {
                if (bad++ < 5) {
                    first.append("\n  ").append(commands.get(i)).append("\n    want ").append(expected.get(i))
                            .append("\n    got  ").append(got[i]);
                }
            }
        }
        assertEquals(0, bad, bad + " of " + expected.size() + " answers differ:" + first);
    }

    // ------------------------------------------------------------------ the oracle: atomics

    static final String[] OPS = {"swap", "cmpswap", "add", "sub", "rsub", "csub", "smin", "umin", "smax", "umax",
            "and", "or", "xor", "inc", "dec", "fcmpswap", "fmin", "fmax", "fadd", "mskor", "wrap"};

    private static boolean isNaN(long v, boolean wide) {
        return wide ? Double.isNaN(Double.longBitsToDouble(v)) : Float.isNaN(Float.intBitsToFloat((int) v));
    }

    private static double num(long v, boolean wide) {
        return wide ? Double.longBitsToDouble(v) : Float.intBitsToFloat((int) v);
    }

    /** IEEE minNum / maxNum: a NaN gives the other operand; -0 < +0. */
    private static long minMax(long a, long b, boolean wide, boolean min) {
        if (isNaN(a, wide)) {
            return b;
        }
        if (isNaN(b, wide)) {
            return a;
        }
        double x = num(a, wide);
        double y = num(b, wide);
        if (x == 0 && y == 0) {
            boolean aNeg = wide ? a < 0 : (int) a < 0;
            boolean bNeg = wide ? b < 0 : (int) b < 0;
            if (aNeg != bNeg) {
                return (aNeg == min) ? a : b;
            }
            return a;
        }
        if (x == y) {
            return a;
        }
        return min ? (x < y ? a : b) : (x > y ? a : b);
    }

    static long aop(int op, long old, long data, long cmp, int bytes) {
        boolean wide = bytes == 8;
        long mask = wide ? -1L : 0xFFFF_FFFFL;
        old &= mask;
        data &= mask;
        cmp &= mask;
        long sOld = wide ? old : (long) (int) old;
        long sData = wide ? data : (long) (int) data;
        long r = switch (OPS[op]) {
            case "swap" -> data;
            case "cmpswap" -> old == cmp ? data : old;
            case "add" -> old + data;
            case "sub" -> old - data;
            case "rsub" -> data - old;
            case "csub" -> Long.compareUnsigned(old, data) >= 0 ? old - data : 0;
            case "smin" -> sOld < sData ? sOld : sData;
            case "smax" -> sOld > sData ? sOld : sData;
            case "umin" -> Long.compareUnsigned(old, data) < 0 ? old : data;
            case "umax" -> Long.compareUnsigned(old, data) > 0 ? old : data;
            case "and" -> old & data;
            case "or" -> old | data;
            case "xor" -> old ^ data;
            case "inc" -> Long.compareUnsigned(old, data) >= 0 ? 0 : old + 1;
            case "dec" -> old == 0 || Long.compareUnsigned(old, data) > 0 ? data : old - 1;
            case "fcmpswap" -> !isNaN(old, wide) && !isNaN(cmp, wide) && num(old, wide) == num(cmp, wide) ? data : old;
            case "fmin" -> minMax(old, data, wide, true);
            case "fmax" -> minMax(old, data, wide, false);
            case "fadd" -> wide ? Double.doubleToRawLongBits(num(old, true) + num(data, true))
                    : Integer.toUnsignedLong(Float.floatToRawIntBits((float) num(old, false) + (float) num(data, false)));
            case "mskor" -> (old & ~data) | cmp;
            case "wrap" -> Long.compareUnsigned(old, data) >= 0 ? old - data : old + cmp;
            default -> throw new IllegalArgumentException();
        };
        return r & mask;
    }

    private static final long[] SPECIAL32 = {0, 0x80000000L, 0x7F800000L, 0xFF800000L, 0x7FC00000L, 0x7F800001L,
            0xFFC00001L, 1, 0x807FFFFFL, 0x3F800000L, 0xBF800000L, 0xFFFFFFFFL, 0x7FFFFFFFL, 0x00800000L, 2};
    private static final long[] SPECIAL64 = {0, 0x8000000000000000L, 0x7FF0000000000000L, 0xFFF0000000000000L,
            0x7FF8000000000000L, 0x7FF0000000000001L, 1, 0x800FFFFFFFFFFFFFL, 0x3FF0000000000000L, -1L,
            0x7FFFFFFFFFFFFFFFL, 0xFFFFFFFFL, 0x100000000L};

    private static long value(Random r, int bytes) {
        long[] special = bytes == 8 ? SPECIAL64 : SPECIAL32;
        long v = switch (r.nextInt(4)) {
            case 0 -> special[r.nextInt(special.length)];
            case 1 -> r.nextInt(8);
            case 2 -> bytes == 8 ? Double.doubleToRawLongBits(r.nextGaussian() * 4)
                    : Integer.toUnsignedLong(Float.floatToRawIntBits((float) (r.nextGaussian() * 4)));
            default -> r.nextLong();
        };
        return bytes == 8 ? v : v & 0xFFFF_FFFFL;
    }

    @Test
    void atomicArithmeticMatchesTheIsaPseudocode() {
        Random r = new Random(13);
        List<String> cmds = new ArrayList<>();
        List<String> want = new ArrayList<>();
        for (int op = 0; op < OPS.length; op++) {
            for (int bytes : new int[] {4, 8}) {
                for (int i = 0; i < 150; i++) {
                    long old = value(r, bytes);
                    long data = r.nextInt(5) == 0 ? old : value(r, bytes);
                    long cmp = r.nextInt(3) == 0 ? old : value(r, bytes);
                    cmds.add(String.format("aop %d 0x%x 0x%x 0x%x %d", op, old, data, cmp, bytes));
                    want.add(String.format("%016x", aop(op, old, data, cmp, bytes)));
                }
            }
        }
        check(cmds, want);
    }

    // ------------------------------------------------------------------ the oracle: lane crossbars, addressing

    @Test
    void swizzleAndPermuteLanes() {
        Random r = new Random(7);
        List<String> cmds = new ArrayList<>();
        List<String> want = new ArrayList<>();
        int[] patterns = {0x8000 | 0b00011011, 0x8000, 0x041F, 0x001F, 0x7C1F, 0x03E0, 0x0010 | (1 << 10)};
        for (int k = 0; k < 60; k++) {
            int p = k < patterns.length ? patterns[k] : r.nextInt(0x10000);
            for (int lane = 0; lane < 64; lane++) {
                int src;
                if ((p & 0x8000) != 0) {
                    src = lane / 4 * 4 + (p >> (2 * (lane % 4)) & 3);
                } else {
                    int and = p & 31;
                    int or = (p >> 5) & 31;
                    int xor = (p >> 10) & 31;
                    src = lane / 32 * 32 + (((lane % 32 & and) | or) ^ xor);
                }
                cmds.add("swz " + lane + " " + p);
                want.add(Integer.toString(src));
            }
        }
        for (int k = 0; k < 500; k++) {
            long a = r.nextBoolean() ? r.nextInt(512) : Integer.toUnsignedLong(r.nextInt());
            int off = r.nextInt(65536);
            int lane = r.nextInt(64);
            int w = r.nextBoolean() ? 64 : 32;
            if (w == 32) {
                lane &= 31;
            }
            long byteAddress = (a + off) & 0xFFFF_FFFFL;
            int target = (int) ((byteAddress / 4) % 32) + (w == 64 && lane >= 32 ? 32 : 0);
            cmds.add("perm " + a + " " + off + " " + lane + " " + w);
            want.add(Integer.toString(target));
        }
        for (int k = 0; k < 300; k++) {
            long base = 0x7F0000000000L + r.nextInt(4096);
            long off = Integer.toUnsignedLong(r.nextInt(k < 150 ? 4096 : Integer.MAX_VALUE));
            int w = r.nextBoolean() ? 64 : 32;
            int lane = r.nextInt(w);
            cmds.add("priv " + base + " " + off + " " + lane + " " + w);
            want.add(Long.toHexString(base + off / 4 * 4 * w + 4L * lane + off % 4));
        }
        check(cmds, want);
    }

    @Test
    void bufferAddressingAndRangeChecks() {
        Random r = new Random(11);
        List<String> cmds = new ArrayList<>();
        List<String> want = new ArrayList<>();
        for (int k = 0; k < 2000; k++) {
            long base = r.nextLong() & 0xFFFF_FFFF_FFFFL;
            int stride = r.nextInt(4) == 0 ? 0 : r.nextInt(0x4000);
            boolean swizzle = r.nextInt(3) == 0;
            long numRecords = r.nextInt(4) == 0 ? 0 : r.nextBoolean() ? r.nextInt(300) : Integer.toUnsignedLong(r.nextInt());
            int indexStrideCode = r.nextInt(4);
            boolean addTid = r.nextInt(3) == 0;
            int oob = r.nextInt(4);
            int w0 = (int) base;
            int w1 = (int) (base >>> 32) & 0xFFFF | stride << 16 | (swizzle ? 1 << 31 : 0) | (r.nextBoolean() ? 1 << 30 : 0);
            int w2 = (int) numRecords;
            int w3 = r.nextInt(1 << 21) | indexStrideCode << 21 | (addTid ? 1 << 23 : 0) | oob << 28 | r.nextInt(4) << 30;
            boolean idxen = r.nextBoolean();
            boolean offen = r.nextBoolean();
            long v0 = r.nextBoolean() ? r.nextInt(400) : Integer.toUnsignedLong(r.nextInt());
            long v1 = r.nextBoolean() ? r.nextInt(400) : Integer.toUnsignedLong(r.nextInt());
            int instOffset = r.nextInt(4096);
            long soffset = r.nextBoolean() ? r.nextInt(1024) : Integer.toUnsignedLong(r.nextInt());
            int lane = r.nextInt(64);
            int n = new int[] {1, 2, 4}[r.nextInt(3)];
            int kk = r.nextInt(4) * 4;
            // the ISA's addressing
            long index = (idxen ? v0 : 0) + (addTid ? lane : 0);
            long offset = ((offen ? (idxen ? v1 : v0) : 0) + instOffset) & 0xFFFF_FFFFL;
            long end = offset + kk + n;
            boolean in = switch (oob) {
                case 0 -> index < numRecords && end <= stride;
                case 1 -> index < numRecords;
                case 2 -> numRecords != 0;
                default -> end <= numRecords;
            };
            long off = offset + kk;
            long is = 8L << indexStrideCode;
            long bo = swizzle ? ((index / is) * stride + (off / 4) * 4) * is + (index % is) * 4 + off % 4 : index * stride + off;
            cmds.add(String.format("buf %d %d %d %d %d %d %d %d %d %d %d %d %d", Integer.toUnsignedLong(w0),
                    Integer.toUnsignedLong(w1), Integer.toUnsignedLong(w2), Integer.toUnsignedLong(w3), idxen ? 1 : 0,
                    offen ? 1 : 0, v0, v1, instOffset, soffset, lane, kk, n));
            want.add((in ? 1 : 0) + " " + Long.toHexString(base + soffset + bo));
        }
        check(cmds, want);
    }

    // ------------------------------------------------------------------ the oracle: memory spaces

    /** The driver's memory, as the oracle sees it. */
    private static final class Memory {
        final byte[] g0 = new byte[256];
        final byte[] g1 = new byte[64];
        final byte[] lds = new byte[256];
        final byte[] scratch = new byte[1024];
        static final long G0 = 0x1_0000_0000L;
        static final long G1 = 0x1_0002_0000L;
        static final long SCRATCH = 0x7F00_0000_0000L;

        Memory() {
            for (int i = 0; i < 256; i++) {
                g0[i] = (byte) (i * 7 + 3);
                lds[i] = (byte) (i ^ 0x5A);
            }
            for (int i = 0; i < 64; i++) {
                g1[i] = (byte) (0xA0 + i);
            }
            for (int i = 0; i < 1024; i++) {
                scratch[i] = (byte) i;
            }
        }

        /** The range array and index of [a, a+n), or null. */
        Object[] global(long a, int n) {
            if (a >= G0 && a + n <= G0 + 256) {
                return new Object[] {g0, (int) (a - G0), false};
            }
            if (a >= G1 && a + n <= G1 + 64) {
                return new Object[] {g1, (int) (a - G1), true};
            }
            return null;
        }

        String dump() {
            HexFormat h = HexFormat.of();
            return h.formatHex(g0) + " " + h.formatHex(g1) + " " + h.formatHex(lds) + " " + h.formatHex(scratch);
        }
    }

    private static long le(byte[] b, int at, int n) {
        long v = 0;
        for (int i = 0; i < n; i++) {
            v |= (long) (b[at + i] & 0xFF) << (8 * i);
        }
        return v;
    }

    private static void putLe(byte[] b, int at, long v, int n) {
        for (int i = 0; i < n; i++) {
            b[at + i] = (byte) (v >>> (8 * i));
        }
    }

    private static String fault(int code, long address) {
        return "fault " + code + " " + Long.toHexString(address);
    }

    @Test
    void accessesThroughEverySpaceAreCheckedThenMoved() {
        Random r = new Random(5);
        Memory m = new Memory();
        HexFormat h = HexFormat.of();
        List<String> cmds = new ArrayList<>();
        List<String> want = new ArrayList<>();
        int[] widths = {1, 2, 4, 8, 12, 16};
        for (int k = 0; k < 4000; k++) {
            int n = widths[r.nextInt(widths.length)];
            byte[] data = new byte[n];
            r.nextBytes(data);
            switch (r.nextInt(8)) {
                case 0, 1 -> { // global load / store
                    long a = (r.nextBoolean() ? Memory.G0 : Memory.G1) - 20 + r.nextInt(300);
                    Object[] g = m.global(a, n);
                    boolean store = r.nextBoolean();
                    if (store) {
                        cmds.add("gstore " + a + " " + n + " " + h.formatHex(data));
                        if (g == null) {
                            want.add(fault(1, a));
                        } else if ((boolean) g[2]) {
                            want.add(fault(4, a));
                        } else {
                            System.arraycopy(data, 0, (byte[]) g[0], (int) g[1], n);
                            want.add("ok");
                        }
                    } else {
                        cmds.add("gload " + a + " " + n);
                        if (g == null) {
                            want.add(fault(1, a));
                        } else {
                            byte[] b = new byte[n];
                            System.arraycopy((byte[]) g[0], (int) g[1], b, 0, n);
                            want.add(h.formatHex(b));
                        }
                    }
                }
                case 2 -> { // global atomic
                    int bytes = r.nextBoolean() ? 4 : 8;
                    long a = Memory.G0 - 16 + r.nextInt(290);
                    if (r.nextInt(4) != 0) {
                        a &= ~(bytes - 1L);
                    }
                    int op = r.nextInt(OPS.length);
                    long d = value(r, bytes);
                    long c = value(r, bytes);
                    cmds.add(String.format("gatomic %d %d 0x%x 0x%x %d", a, op, d, c, bytes));
                    Object[] g = m.global(a, bytes);
                    if ((a & (bytes - 1)) != 0) {
                        want.add(fault(2, a));
                    } else if (g == null) {
                        want.add(fault(1, a));
                    } else if ((boolean) g[2]) {
                        want.add(fault(4, a));
                    } else {
                        byte[] arr = (byte[]) g[0];
                        long old = le(arr, (int) g[1], bytes);
                        putLe(arr, (int) g[1], aop(op, old, d, c, bytes), bytes);
                        want.add(String.format("%016x", old));
                    }
                }
                case 3, 4 -> { // LDS
                    long a = r.nextInt(8) == 0 ? Integer.toUnsignedLong(r.nextInt()) : r.nextInt(270);
                    boolean in = a + n <= 256;
                    if (r.nextBoolean()) {
                        cmds.add("dsstore " + a + " " + n + " " + h.formatHex(data));
                        if (in) {
                            System.arraycopy(data, 0, m.lds, (int) a, n);
                        }
                        want.add("ok");
                    } else if (r.nextBoolean()) {
                        cmds.add("dsload " + a + " " + n);
                        byte[] b = new byte[n];
                        if (in) {
                            System.arraycopy(m.lds, (int) a, b, 0, n);
                        }
                        want.add(h.formatHex(b));
                    } else {
                        int bytes = r.nextBoolean() ? 4 : 8;
                        if (r.nextInt(4) != 0) {
                            a &= ~(bytes - 1L);
                        }
                        int op = r.nextInt(OPS.length);
                        long d = value(r, bytes);
                        long c = value(r, bytes);
                        cmds.add(String.format("dsatomic %d %d 0x%x 0x%x %d", a, op, d, c, bytes));
                        if ((a & (bytes - 1)) != 0) {
                            want.add(fault(2, a));
                        } else if (a + bytes > 256) {
                            want.add(String.format("%016x", 0));
                        } else {
                            long old = le(m.lds, (int) a, bytes);
                            putLe(m.lds, (int) a, aop(op, old, d, c, bytes), bytes);
                            want.add(String.format("%016x", old));
                        }
                    }
                }
                case 5 -> { // private
                    int w = r.nextBoolean() ? 32 : 64;
                    int lane = r.nextInt(w);
                    long base = Memory.SCRATCH + (r.nextInt(4) == 0 ? 4L * r.nextInt(64) : 0);
                    long off = r.nextInt(10) == 0 ? Integer.toUnsignedLong(-r.nextInt(8) - 1) : r.nextInt(20);
                    long[] at = new long[n];
                    int bad = -1;
                    for (int i = 0; i < n; i++) {
                        long o = (off + i) & 0xFFFF_FFFFL;
                        at[i] = base + o / 4 * 4 * w + 4L * lane + o % 4;
                        if (bad < 0 && (at[i] < Memory.SCRATCH || at[i] >= Memory.SCRATCH + 1024)) {
                            bad = i;
                        }
                    }
                    if (r.nextBoolean()) {
                        cmds.add("pstore " + base + " " + off + " " + n + " " + lane + " " + w + " " + h.formatHex(data));
                        if (bad >= 0) {
                            want.add(fault(3, at[bad]));
                        } else {
                            for (int i = 0; i < n; i++) {
                                m.scratch[(int) (at[i] - Memory.SCRATCH)] = data[i];
                            }
                            want.add("ok");
                        }
                    } else {
                        cmds.add("pload " + base + " " + off + " " + n + " " + lane + " " + w);
                        if (bad >= 0) {
                            want.add(fault(3, at[bad]));
                        } else {
                            byte[] b = new byte[n];
                            for (int i = 0; i < n; i++) {
                                b[i] = m.scratch[(int) (at[i] - Memory.SCRATCH)];
                            }
                            want.add(h.formatHex(b));
                        }
                    }
                }
                default -> { // buffer: a raw V# over range 0 or over scratch, linear or swizzled
                    boolean overScratch = r.nextBoolean();
                    long base = overScratch ? Memory.SCRATCH : Memory.G0 - 8 + r.nextInt(16);
                    boolean swizzle = overScratch && r.nextBoolean();
                    int stride = swizzle ? 4 : r.nextInt(3) == 0 ? 0 : 4 * r.nextInt(9);
                    int oob = r.nextInt(4);
                    long numRecords = r.nextInt(300);
                    int isCode = r.nextInt(2) + 2; // 32 or 64 lanes
                    boolean addTid = swizzle;
                    int lane = r.nextInt(8 << isCode);
                    boolean idxen = !swizzle && r.nextBoolean();
                    boolean offen = r.nextBoolean();
                    long v0 = r.nextInt(40);
                    long v1 = r.nextInt(300);
                    int instOffset = r.nextInt(64);
                    long soffset = r.nextInt(3) == 0 ? r.nextInt(32) : 0;
                    int w1 = (int) (base >>> 32) & 0xFFFF | stride << 16 | (swizzle ? 1 << 31 : 0);
                    int w3 = isCode << 21 | (addTid ? 1 << 23 : 0) | oob << 28;
                    int bn = new int[] {1, 2, 4, 8, 12, 16}[r.nextInt(6)];
                    long index = (idxen ? v0 : 0) + (addTid ? lane : 0);
                    long offset = (offen ? (idxen ? v1 : v0) : 0) + instOffset;
                    int chunk = Math.min(bn, 4);
                    long is = 8L << isCode;
                    boolean store = r.nextBoolean();
                    byte[] bdata = new byte[bn];
                    r.nextBytes(bdata);
                    String head = String.format("%d %d %d %d %d %d %d %d %d %d %d %d", base & 0xFFFF_FFFFL,
                            Integer.toUnsignedLong(w1), numRecords, Integer.toUnsignedLong(w3), idxen ? 1 : 0,
                            offen ? 1 : 0, v0, v1, instOffset, soffset, lane, bn);
                    cmds.add((store ? "bstore " : "bload ") + head + (store ? " " + h.formatHex(bdata) : ""));
                    // plan every byte: in range? where? a fault?
                    byte[][] arr = new byte[bn][];
                    int[] idx = new int[bn];
                    boolean[] in = new boolean[bn];
                    String faultText = null;
                    for (int kk = 0; kk < bn && faultText == null; kk += chunk) {
                        long end = offset + kk + chunk;
                        boolean ok = switch (oob) {
                            case 0 -> index < numRecords && end <= stride;
                            case 1 -> index < numRecords;
                            case 2 -> numRecords != 0;
                            default -> end <= numRecords;
                        };
                        for (int i = 0; i < chunk; i++) {
                            in[kk + i] = ok;
                            if (!ok) {
                                continue;
                            }
                            long off = offset + kk + i;
                            long bo = swizzle ? ((index / is) * stride + (off / 4) * 4) * is + (index % is) * 4 + off % 4
                                    : index * stride + off;
                            long a = base + soffset + bo;
                            if (a >= Memory.SCRATCH && a < Memory.SCRATCH + 1024) {
                                arr[kk + i] = m.scratch;
                                idx[kk + i] = (int) (a - Memory.SCRATCH);
                            } else {
                                Object[] g = m.global(a, 1);
                                if (g == null) {
                                    faultText = fault(1, a);
                                    break;
                                }
                                if (store && (boolean) g[2]) {
                                    faultText = fault(4, a);
                                    break;
                                }
                                arr[kk + i] = (byte[]) g[0];
                                idx[kk + i] = (int) g[1];
                            }
                        }
                    }
                    if (faultText != null) {
                        want.add(faultText);
                    } else if (store) {
                        for (int i = 0; i < bn; i++) {
                            if (in[i]) {
                                arr[i][idx[i]] = bdata[i];
                            }
                        }
                        want.add("ok");
                    } else {
                        byte[] b = new byte[bn];
                        for (int i = 0; i < bn; i++) {
                            b[i] = in[i] ? arr[i][idx[i]] : 0;
                        }
                        want.add(h.formatHex(b));
                    }
                }
            }
        }
        cmds.add("dump");
        want.add(m.dump());
        check(cmds, want);
    }

    @Test
    void headerCompilesWithNvccForSm90() {
        Assumptions.assumeTrue(RtBuild.hasNvcc(), "nvcc is not installed");
        String src = """
                #include "rt_mem.h"
                extern "C" __global__ void probe(rt_mem_t m, uint64_t *out) {
                  uint64_t fa = 0, old = 0;
                  uint8_t b[16];
                  int lane = threadIdx.x;
                  int rc = rt_mem_global_load(&m, out[0] + lane, 1 + lane % 16, b, &fa);
                  rc |= rt_mem_global_store(&m, out[1] + lane, 1 + lane % 16, b, &fa);
                  for (int op = RT_AOP_SWAP; op <= RT_AOP_WRAP; op++) {
                    rc |= rt_mem_global_atomic(&m, out[2], op, lane, 1, 4, &old, &fa);
                    rc |= rt_mem_global_atomic(&m, out[3], op, lane, 1, 8, &old, &fa);
                    rc |= rt_ds_atomic(&m, 8 * lane, op, lane, 1, 4 + 4 * (lane & 1), &old, &fa);
                  }
                  rt_ds_load(&m, lane * 3, 12, b);
                  rt_ds_store(&m, lane * 5, 16, b);
                  rc |= rt_mem_private_load(&m, m.scratch_lo, lane, 8, lane, 32, b, &fa);
                  rc |= rt_mem_private_store(&m, m.scratch_lo, lane, 8, lane, 32, b, &fa);
                  rc |= rt_mem_private_atomic(&m, m.scratch_lo, 4, lane, 32, RT_AOP_FMAX, 1, 0, 4, &old, &fa);
                  rt_vsharp_t v = rt_buf_vsharp(out[4], out[5], out[6], out[7]);
                  rt_buf_lane_t l = rt_buf_lane(&v, 1, 1, lane, lane * 4, 16, 0, lane);
                  rc |= rt_buf_load(&m, &v, &l, 16, b, &fa);
                  rc |= rt_buf_store(&m, &v, &l, 12, b, &fa);
                  rc |= rt_buf_atomic(&m, &v, &l, RT_AOP_ADD, 1, 0, 8, &old, &fa);
                  out[8 + lane] = rc + old + fa + rt_ds_swizzle_src(lane, 0x801B) + rt_ds_permute_lane(lane, 4, lane, 64)
                      + rt_mem_d16(rt_mem_extend(b, 2, 1), rt_mem_dword(b, 1), 1);
                }
                """;
        RtBuild.nvcc("rt_mem_probe", src);
    }
}
