package org.replayfarm.model.isa;

/**
 * What a memory instruction does, read off its table row once when the table loads (so no handler parses
 * a mnemonic): every row of DS, FLAT, GLOBAL, SCRATCH, MUBUF, MTBUF, SMEM and MIMG has one.
 *
 * @param kind     load, store, atomic, or {@link Kind#OTHER} (no access of those kinds: lane crossbars,
 *                 counters, GWS, cache controls, clocks, probes, samplers, queries)
 * @param bytes    bytes per lane (per element of a DS pair; the datum of an atomic, 4 or 8); 0 where the
 *                 width is not the instruction's (format accesses: the format's; MIMG: DMASK and format)
 * @param signed   sign extension of a sub-dword load (sbyte, sshort, i8, i16); false otherwise
 * @param half     the D16 half a sub-dword load/store or a format access uses ({@link Half#NONE}: whole VGPRs)
 * @param atomic   the atomic operation; null unless {@code kind} is ATOMIC
 * @param returns  when an atomic writes the value before it to VDST; {@link Returns#NO} for non-atomics
 * @param pair     DS read2/write2/wrxchg2: element size and offset unit; null otherwise
 * @param format   buffer format access (buffer_*_format_*, tbuffer_*): the format converts components
 * @param components the components a format access names (x: 1 .. xyzw: 4); 0 otherwise
 * @param addtid   the address is base + lane * 4 (ds/global *_addtid)
 */
public record MemoryAccess(Kind kind, int bytes, boolean signed, Half half, AtomicOp atomic, Returns returns,
                           Pair pair, boolean format, int components, boolean addtid) {
    public enum Kind { LOAD, STORE, ATOMIC, OTHER }

    /** Which part of the VGPR a D16 access uses. */
    public enum Half {
        NONE, LOW, HIGH;

        /** 0 / 1 / 2, the host model's code. */
        public int code() {
            return ordinal();
        }
    }

    /** Whether an atomic returns the value memory held before it. */
    public enum Returns {
        /** Never (DS without _rtn; every non-atomic). */
        NO,
        /** Always (DS _rtn forms). */
        YES,
        /** When the instruction's GLC bit is set (FLAT, GLOBAL, MUBUF, MIMG). */
        IF_GLC
    }

    /**
     * The two accesses of a DS read2/write2/wrxchg2: {@code elementBytes} (4 for b32, 8 for b64) each, at
     * ADDR + OFFSETn * {@code offsetUnit} (the element size, 64 times it for the st64 forms).
     */
    public record Pair(int elementBytes, int offsetUnit) {
    }

    public MemoryAccess {
        if ((atomic != null) != (kind == Kind.ATOMIC)) {
            throw new IllegalArgumentException("an atomic operation belongs to atomics only: " + kind + " " + atomic);
        }
        if (kind != Kind.ATOMIC && returns != Returns.NO) {
            throw new IllegalArgumentException("only atomics return: " + kind);
        }
    }

    static MemoryAccess plain(Kind kind, int bytes, boolean signed, Half half) {
        return new MemoryAccess(kind, bytes, signed, half, null, Returns.NO, null, false, 0, false);
    }

    static MemoryAccess atomic(AtomicOp op, int bytes, Returns returns) {
        return new MemoryAccess(Kind.ATOMIC, bytes, false, Half.NONE, op, returns, null, false, 0, false);
    }

    static final MemoryAccess OTHER = plain(Kind.OTHER, 0, false, Half.NONE);

    public boolean isLoad() {
        return kind == Kind.LOAD;
    }

    public boolean isStore() {
        return kind == Kind.STORE;
    }

    public boolean isAtomic() {
        return kind == Kind.ATOMIC;
    }

    /** Whether this is a D16 access (either half). */
    public boolean d16() {
        return half != Half.NONE;
    }

    /** VGPRs (SGPRs for SMEM) of one lane's datum: bytes rounded up to dwords. */
    public int dwords() {
        return (bytes + 3) / 4;
    }

    /** 64-bit atomic. */
    public boolean wide() {
        return kind == Kind.ATOMIC && bytes == 8;
    }
}
