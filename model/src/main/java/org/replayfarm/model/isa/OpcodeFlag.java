package org.replayfarm.model.isa;

import java.util.HashMap;
import java.util.Map;

/**
 * Every flag a row of the opcode tables may carry (the last .tsv column), spelled in the tables as the
 * constant's name in lower case. A flag the enum does not know is refused when the table loads, with the
 * file, line and flag named. {@link #valued} flags carry a value ({@code vdata=1|2|3|4}), the others none.
 */
public enum OpcodeFlag {
    // scalar
    /** SOPK: a 32-bit literal always follows (s_setreg_imm32_b32); VOP2: fmamk/fmaak's constant K. */
    LITERAL(false),
    /** SOPP: a PC-relative branch (SIMM16 is a word offset). */
    BRANCH(false),
    // VALU
    /** VOP1/VOP2/VOPC/VINTRP: llvm prints the _e32 suffix. */
    E32(false),
    /** VOP3: llvm prints the _e64 suffix. */
    E64(false),
    DPP(false),
    SDWA(false),
    VGPRSRC(false),
    VLDSSRC(false),
    DPPMODSIGNORED(false),
    DPPSEXT(false),
    FIELDSZERO(false),
    FMODS(false),
    CLAMP(false),
    OMOD(false),
    OPSEL(false),
    OPSEL_FI_BC(false),
    HIGH(false),
    PACKED(false),
    MIX(false),
    // memory
    LOAD(false),
    STORE(false),
    ATOMIC(false),
    /** FLAT/GLOBAL/SCRATCH/MUBUF: the LDS bit (load into LDS) is legal. */
    LDS(false),
    GDS_ONLY(false),
    NO_GDS(false),
    // image
    COORDS(false),
    LOD(false),
    GRAD(false),
    G16(false),
    GATHER4(false),
    SAMPLER(false),
    BVH(false),
    NSA2(false),
    ADDR(true),
    ADDR_A16(true),
    EXTRA(true),
    NSA(true),
    VADDR(true),
    VDATA(true);

    private static final Map<String, OpcodeFlag> BY_TEXT = new HashMap<>();

    static {
        for (OpcodeFlag f : values()) {
            BY_TEXT.put(f.text(), f);
        }
    }

    /** Whether the flag is written {@code name=value} in the tables. */
    public final boolean valued;

    OpcodeFlag(boolean valued) {
        this.valued = valued;
    }

    /** The flag as the tables spell it. */
    public String text() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    /** The flag a table spelling names, or null when there is none. */
    public static OpcodeFlag byText(String text) {
        return BY_TEXT.get(text);
    }
}
