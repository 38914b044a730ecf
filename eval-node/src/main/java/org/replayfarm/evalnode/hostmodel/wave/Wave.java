package org.replayfarm.evalnode.hostmodel.wave;

import org.replayfarm.model.isa.Instruction;

/**
 * One wave's architectural state, owned by the wave: the scalar register file indexed by operand code
 * (s0-s105, vcc_lo/hi at 106/107, ttmp0-15 at 108-123, m0 at 124, null at 125, exec_lo/hi at
 * 126/127), the VGPRs register-major with lanes contiguous, SCC, the MODE register, the flat scratch
 * base and the PC. Operand reads that the ISA defines for every unit (inline constants, literals,
 * special sources) live here too.
 */
public final class Wave {
    public static final int VCC_LO = 106;
    public static final int M0 = 124;
    public static final int NULL = 125;
    public static final int EXEC_LO = 126;

    /** Aperture bases as the Linux KFD sets them on GFX9+ (hsa-abi.md §3.4): LDS at 1<<48, scratch at 2<<48. */
    public static final long SHARED_BASE = 1L << 48;
    public static final long PRIVATE_BASE = 2L << 48;
    private static final int[] F32_CONSTANTS = {0x3f000000, 0xbf000000, 0x3f800000, 0xbf800000, 0x40000000,
            0xc0000000, 0x40800000, 0xc0800000, 0x3e22f983};
    private static final int[] F16_CONSTANTS = {0x3800, 0xb800, 0x3c00, 0xbc00, 0x4000, 0xc000, 0x4400, 0xc400, 0x3118};
    private static final long[] F64_CONSTANTS = {0x3fe0000000000000L, 0xbfe0000000000000L, 0x3ff0000000000000L,
            0xbff0000000000000L, 0x4000000000000000L, 0xc000000000000000L, 0x4010000000000000L, 0xc010000000000000L,
            0x3fc45f306dc9c882L};

    private final Workgroup group;
    private final int index;
    private final int waveSize;
    private final int vgprCount;
    private final int[] sgprs = new int[128];
    private final int[] vgprs;
    private boolean scc;
    private int mode;
    private long flatScratch;
    private long pc;
    private boolean ended;
    private boolean jumped;
    private boolean atBarrier;
    private long instructions;
    private long laneInstructions;

    public Wave(Workgroup group, int index, int waveSize, int vgprCount, long entry, int mode) {
        this.group = group;
        this.index = index;
        this.waveSize = waveSize;
        this.vgprCount = vgprCount;
        this.vgprs = new int[vgprCount * waveSize];
        this.pc = entry;
        this.mode = mode;
    }

    public Workgroup group() {
        return group;
    }

    /** The wave's number within its group (0, 1, ...). */
    public int index() {
        return index;
    }

    public int waveSize() {
        return waveSize;
    }

    public int vgprCount() {
        return vgprCount;
    }

    // ---------------------------------------------------------------- scalar registers

    /** A scalar register by operand code 0-127; null reads 0. */
    public int sgpr(int code) {
        return code == NULL ? 0 : sgprs[code];
    }

    /** Writes a scalar register by operand code 0-127; writes to null are dropped. */
    public void setSgpr(int code, int value) {
        if (code != NULL) {
            sgprs[code] = value;
        }
    }

    public long sgpr64(int code) {
        return Integer.toUnsignedLong(sgpr(code)) | (long) sgpr(code + 1) << 32;
    }

    public void setSgpr64(int code, long value) {
        setSgpr(code, (int) value);
        if (code != NULL) {
            setSgpr(code + 1, (int) (value >>> 32));
        }
    }

    /** EXEC: 32 bits in wave32 (exec_hi is then an ordinary register), 64 in wave64. */
    public long exec() {
        return waveSize == 32 ? Integer.toUnsignedLong(sgprs[EXEC_LO]) : sgpr64(EXEC_LO);
    }

    public void setExec(long mask) {
        if (waveSize == 32) {
            sgprs[EXEC_LO] = (int) mask;
        } else {
            setSgpr64(EXEC_LO, mask);
        }
    }

    /** VCC: vcc_lo in wave32, the pair in wave64. */
    public long vcc() {
        return waveSize == 32 ? Integer.toUnsignedLong(sgprs[VCC_LO]) : sgpr64(VCC_LO);
    }

    /** A lane mask held in scalar registers from {@code code} (one register in wave32, a pair in wave64). */
    public long laneMask(int code) {
        return waveSize == 32 ? Integer.toUnsignedLong(sgpr(code)) : sgpr64(code);
    }

    public void setLaneMask(int code, long mask) {
        if (waveSize == 32) {
            setSgpr(code, (int) mask);
        } else {
            setSgpr64(code, mask);
        }
    }

    public boolean active(int lane) {
        return (exec() >>> lane & 1) != 0;
    }

    public boolean scc() {
        return scc;
    }

    public void setScc(boolean value) {
        scc = value;
    }

    public int m0() {
        return sgprs[M0];
    }

    /** The MODE register: FP_ROUND [3:0], FP_DENORM [7:4], DX10_CLAMP [8], IEEE [9], ... (RDNA 2 ISA, "MODE"). */
    public int mode() {
        return mode;
    }

    public void setMode(int value) {
        mode = value;
    }

    public long flatScratch() {
        return flatScratch;
    }

    public void setFlatScratch(long base) {
        flatScratch = base;
    }

    // ---------------------------------------------------------------- vector registers

    public int vgpr(int reg, int lane) {
        if (reg >= vgprCount) {
            throw new GuestFault("v" + reg + " is past the " + vgprCount + " VGPRs the program allocates", lane);
        }
        return vgprs[reg * waveSize + lane];
    }

    public void setVgpr(int reg, int lane, int value) {
        if (reg >= vgprCount) {
            throw new GuestFault("v" + reg + " is past the " + vgprCount + " VGPRs the program allocates", lane);
        }
        if (deferred != null) {
            deferred.add(new long[] {reg * waveSize + lane, value});
            return;
        }
        vgprs[reg * waveSize + lane] = value;
    }

    /** VGPR writes held back while a DPP instruction runs its lanes (see {@link #deferVgprWrites}). */
    private java.util.List<long[]> deferred;

    /**
     * Holds VGPR writes until {@link #commitVgprWrites}: a DPP instruction reads other lanes' source 0, so
     * every lane must see the values from before the instruction (all lanes execute at once in hardware),
     * also when a unit computes and writes lane by lane.
     */
    public void deferVgprWrites() {
        deferred = new java.util.ArrayList<>();
    }

    public void commitVgprWrites() {
        java.util.List<long[]> d = deferred;
        deferred = null;
        if (d != null) {
            for (long[] x : d) {
                vgprs[(int) x[0]] = (int) x[1];
            }
        }
    }

    public long vgpr64(int reg, int lane) {
        return Integer.toUnsignedLong(vgpr(reg, lane)) | (long) vgpr(reg + 1, lane) << 32;
    }

    public void setVgpr64(int reg, int lane, long value) {
        setVgpr(reg, lane, (int) value);
        setVgpr(reg + 1, lane, (int) (value >>> 32));
    }

    // ---------------------------------------------------------------- operands

    /**
     * A 32-bit scalar or (for codes below 256) uniform vector source: registers, inline constants (float
     * ones as f32 bits), special sources and the literal.
     */
    public int source32(int code, Instruction insn) {
        if (code < 128) {
            return sgpr(code);
        }
        if (code <= 192) {
            return code - 128;
        }
        if (code <= 208) {
            return 192 - code;
        }
        if (code >= 240 && code <= 248) {
            return F32_CONSTANTS[code - 240];
        }
        return (int) special(code, insn, false);
    }

    /** A 16-bit source: float inline constants are half bit patterns; registers give their low 16 bits. */
    public int source16(int code, Instruction insn) {
        if (code >= 240 && code <= 248) {
            return F16_CONSTANTS[code - 240];
        }
        return source32(code, insn);
    }

    /**
     * A 64-bit source: register pairs, inline integers sign-extended, float inline constants as f64
     * bits; a literal is zero-extended for integer operands and is the high dword of a double for
     * float ones.
     */
    public long source64(int code, Instruction insn, boolean floatOperand) {
        if (code < 128) {
            return sgpr64(code);
        }
        if (code <= 208) {
            return source32(code, insn);
        }
        if (code >= 240 && code <= 248) {
            return F64_CONSTANTS[code - 240];
        }
        if (code == 255) {
            int literal = literal(insn);
            return floatOperand ? (long) literal << 32 : Integer.toUnsignedLong(literal);
        }
        return special(code, insn, true);
    }

    private long special(int code, Instruction insn, boolean wide) {
        return switch (code) {
            case 235 -> wide ? SHARED_BASE : (int) SHARED_BASE;
            case 236 -> wide ? SHARED_BASE + 0xFFFF_FFFFL : (int) (SHARED_BASE + 0xFFFF_FFFFL);
            case 237 -> wide ? PRIVATE_BASE : (int) PRIVATE_BASE;
            case 238 -> wide ? PRIVATE_BASE + 0xFFFF_FFFFL : (int) (PRIVATE_BASE + 0xFFFF_FFFFL);
            case 239 -> 0;
            case 251 -> vcc() == 0 ? 1 : 0;
            case 252 -> exec() == 0 ? 1 : 0;
            case 253 -> scc ? 1 : 0;
            case 255 -> literal(insn);
            default -> throw new GuestFault("operand code " + code + " is not a source the model reads");
        };
    }

    private static int literal(Instruction insn) {
        if (insn.literal().isEmpty()) {
            throw new GuestFault("operand 255 names a literal, but the instruction has none");
        }
        return insn.literal().getAsInt();
    }

    // ---------------------------------------------------------------- control

    public long pc() {
        return pc;
    }

    public void setPc(long value) {
        pc = value;
    }

    /** Continues at {@code target} instead of the next instruction (branches, s_setpc, s_swappc). */
    public void jump(long target) {
        pc = target;
        jumped = true;
    }

    /** Whether the last instruction jumped; clears the flag. */
    public boolean takeJumped() {
        boolean j = jumped;
        jumped = false;
        return j;
    }

    public boolean ended() {
        return ended;
    }

    public void end() {
        ended = true;
    }

    public boolean atBarrier() {
        return atBarrier;
    }

    public void setAtBarrier(boolean waiting) {
        atBarrier = waiting;
    }

    public long instructions() {
        return instructions;
    }

    public long laneInstructions() {
        return laneInstructions;
    }

    // ---------------------------------------------------------------- for the fast tier (FastTier)

    /** The VGPR file itself, register-major, lanes contiguous ({@code reg * waveSize + lane}). */
    public int[] vgprFile() {
        return vgprs;
    }

    /** The scalar register file itself, by operand code. */
    int[] sgprFile() {
        return sgprs;
    }

    private final int[][] broadcast = new int[3][];
    /** The value each broadcast row holds (rows are only written here, so a row filled with it stays so). */
    private final int[] broadcastValue = new int[3];
    private int[] laneScratch;

    /** Row {@code slot} (0-2) of per-wave scratch filled with {@code value} in every lane: a uniform source as a lane array. */
    public int[] broadcast(int slot, int value) {
        int[] row = broadcast[slot];
        if (row == null) {
            row = new int[waveSize];
            broadcast[slot] = row;
        } else if (broadcastValue[slot] == value) {
            return row; // the fast tier's loops repeat with the same literals: skip the refill
        }
        java.util.Arrays.fill(row, value);
        broadcastValue[slot] = value;
        return row;
    }

    /** A per-wave scratch row of one value per lane (the fast tier computes a partial-EXEC result here first). */
    public int[] laneScratch() {
        int[] row = laneScratch;
        if (row == null) {
            row = new int[waveSize];
            laneScratch = row;
        }
        return row;
    }

    public void count(long activeLanes) {
        instructions++;
        laneInstructions += activeLanes;
    }

    /** Counts {@code n} instructions executed with the same {@code activeLanes} each (a compiled run). */
    public void count(int n, long activeLanes) {
        instructions += n;
        laneInstructions += n * activeLanes;
    }
}
