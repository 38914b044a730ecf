package org.replayfarm.gpunode.translate;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.LongFunction;
import org.replayfarm.model.isa.Disassembler;
import org.replayfarm.model.isa.Encoding;
import org.replayfarm.model.isa.Fields;
import org.replayfarm.model.isa.Instruction;
import org.replayfarm.model.isa.Opcode;
import org.replayfarm.model.isa.Syntax;

/**
 * One instruction being translated: the decoded instruction (from the project's decoder and tables),
 * where it is, the wave size, and helpers that spell operands as C expressions against replay_rt.h's
 * layout ({@code S(c)}, {@code V(r, l)}, {@code RT_EXEC}, ...). An emitter writes the instruction's body
 * with {@link #line}; the translator wraps it in a brace block after a {@code #line} directive.
 *
 * <p>Operand helpers return C expressions of type {@code uint32_t} (32-bit and 16-bit reads; a 16-bit
 * read of a register gives all 32 bits, the emitter takes the half it wants) or {@code uint64_t}
 * (64-bit reads). Inline constants and literals come out as unsigned hexadecimal constants.
 */
public final class InsnContext {
    /** Inline float constants (codes 240..248): f32 bits, f16 bits, f64 bits (ISA guide, "Inline constants"). */
    private static final long[] F32 = {0x3f000000L, 0xbf000000L, 0x3f800000L, 0xbf800000L, 0x40000000L, 0xc0000000L,
            0x40800000L, 0xc0800000L, 0x3e22f983L};
    private static final long[] F16 = {0x3800, 0xb800, 0x3c00, 0xbc00, 0x4000, 0xc000, 0x4400, 0xc400, 0x3118};
    private static final long[] F64 = {0x3fe0000000000000L, 0xbfe0000000000000L, 0x3ff0000000000000L,
            0xbff0000000000000L, 0x4000000000000000L, 0xc000000000000000L, 0x4010000000000000L, 0xc010000000000000L,
            0x3fc45f306dc9c882L};

    private final Instruction insn;
    private final int waveSize;
    private final int vgprCount;
    private final int ldsBytes;
    private final String unit;
    private final LongFunction<String> labels;
    private final List<String> lines = new ArrayList<>();
    private final Set<String> includes;
    private String vgprFault;
    /** Program-wide state (barrier numbering, the address switch), for the lead's own units. */
    Translator.State state;

    /** A context outside a translation (unit tests of one emitter): no LDS, no program state. */
    InsnContext(Instruction insn, int waveSize, int vgprCount, String unit, LongFunction<String> labels,
                Set<String> includes) {
        this(insn, waveSize, vgprCount, 0, unit, labels, includes);
        this.state = new Translator.State(new java.util.TreeMap<>());
    }

    InsnContext(Instruction insn, int waveSize, int vgprCount, int ldsBytes, String unit, LongFunction<String> labels,
                Set<String> includes) {
        this.insn = insn;
        this.ldsBytes = ldsBytes;
        this.waveSize = waveSize;
        this.vgprCount = vgprCount;
        this.unit = unit;
        this.labels = labels;
        this.includes = includes;
    }

    // ---------------------------------------------------------------- the instruction

    public Instruction insn() {
        return insn;
    }

    public Opcode opcode() {
        return insn.opcode();
    }

    public Encoding encoding() {
        return insn.encoding();
    }

    public String mnemonic() {
        return insn.mnemonic();
    }

    /**
     * Whether the row gives the named operand 64 bits ({@code b64}, {@code r64}: an SGPR pair), as the opcode
     * table types it; false for a 32-bit operand or one the row does not have.
     */
    public boolean wide(String operand) {
        String type = insn.opcode().operandType(operand);
        return type != null && type.endsWith("64");
    }

    /** The instruction's fields as the record of its encoding (e.g. {@code cx.fields(Fields.Vop2.class)}). */
    public <T extends Fields> T fields(Class<T> kind) {
        return kind.cast(insn.fields());
    }

    public long pc() {
        return insn.pc();
    }

    /** The PC of the next instruction. */
    public long nextPc() {
        return insn.pc() + insn.length();
    }

    /** The PC as a C constant ({@code 0x...ull}), for faults. */
    public String pcC() {
        return hex64(insn.pc());
    }

    public int waveSize() {
        return waveSize;
    }

    public boolean wave64() {
        return waveSize == 64;
    }

    public int vgprCount() {
        return vgprCount;
    }

    /** The program's LDS allocation in bytes (as the capture gives it). */
    public int ldsBytes() {
        return ldsBytes;
    }

    /** The instruction as llvm-objdump-19 prints it (for comments and messages). */
    public String text() {
        try {
            return Disassembler.text(insn, waveSize == 64 ? Syntax.WAVE64 : Syntax.WAVE32);
        } catch (IllegalArgumentException e) {
            return insn.mnemonic();
        }
    }

    /**
     * The C label of the basic block that starts at {@code pc}. Only branch targets the translator found
     * in its first pass (SOPP branches) have labels.
     *
     * @throws IllegalStateException for a PC that starts no block
     */
    public String label(long pc) {
        String l = labels.apply(pc);
        if (l == null) {
            throw new IllegalStateException(String.format("pc 0x%x starts no basic block", pc));
        }
        return l;
    }

    // ---------------------------------------------------------------- output

    /** Appends one line of C to the instruction's body. */
    public void line(String c) {
        lines.add(c);
    }

    /** Appends one formatted line (String.format, root locale). */
    public void line(String format, Object... args) {
        lines.add(String.format(Locale.ROOT, format, args));
    }

    /** Asks for a runtime header (e.g. {@code rt_valu.h}) to be included by the kernel and copied beside it. */
    public void include(String header) {
        includes.add(header);
    }

    /** A refusal of this instruction, to throw: {@code throw cx.refuse("why")}. */
    public Refusal refuse(String reason) {
        return new Refusal(insn.pc(), insn.mnemonic(), unit, reason);
    }

    List<String> lines() {
        return lines;
    }

    /** Set when an operand named a VGPR past the allocation: the instruction becomes that fault. */
    String vgprFault() {
        return vgprFault;
    }

    // ---------------------------------------------------------------- scalar operands

    /** A scalar register (operand code 0..127) as an rvalue; null reads 0. */
    public String sreg(int code) throws Refusal {
        if (code < 0 || code > 127) {
            throw refuse("operand code " + code + " is not a scalar register");
        }
        return code == 125 ? "0u" : "S(" + code + ")";
    }

    /** A statement writing {@code expr} (uint32_t) to scalar register {@code code}; a write to null is dropped. */
    public String writeS(int code, String expr) throws Refusal {
        if (code < 0 || code > 127) {
            throw refuse("operand code " + code + " is not a writable scalar register");
        }
        return code == 125 ? "(void)(" + expr + ");" : "S(" + code + ") = (uint32_t)(" + expr + ");";
    }

    /** A statement writing {@code expr} (uint64_t) to the scalar pair at {@code code}; null drops it. */
    public String writeS64(int code, String expr) throws Refusal {
        if (code < 0 || code > 126) {
            throw refuse("operand code " + code + " is not a writable scalar register pair");
        }
        if (code == 125) {
            return "(void)(" + expr + ");";
        }
        return "{ uint64_t t_w64 = (" + expr + "); S(" + code + ") = rt_lo(t_w64); S(" + (code + 1)
                + ") = rt_hi(t_w64); }";
    }

    /**
     * A 32-bit source (8-bit scalar code, or a 9-bit code below 256): registers, inline integers, inline
     * floats as f32 bits, the literal, src_vccz / src_execz / src_scc.
     */
    public String src32(int code) throws Refusal {
        if (code < 128) {
            return sreg(code);
        }
        return special(code, F32, false);
    }

    /** As {@link #src32} with inline floats as f16 bits (for f16 operands). */
    public String src16(int code) throws Refusal {
        if (code < 128) {
            return sreg(code);
        }
        return special(code, F16, false);
    }

    /**
     * A 64-bit source: register pairs, inline integers sign-extended to 64 bits, inline floats as f64
     * bits; a literal is the high dword of a double for float operands and zero-extended otherwise.
     */
    public String src64(int code, boolean floatOperand) throws Refusal {
        if (code < 128) {
            if (code == 125) {
                return "0ull";
            }
            if (code == 127) {
                throw refuse("a register pair cannot start at exec_hi");
            }
            return "rt_pair(S(" + code + "), S(" + (code + 1) + "))";
        }
        if (code == 255) {
            long lit = literal();
            return hex64(floatOperand ? lit << 32 : lit);
        }
        if (code >= 128 && code <= 208) {
            long v = code <= 192 ? code - 128 : 192 - code;
            return hex64(v);
        }
        if (code >= 240 && code <= 248) {
            return hex64(F64[code - 240]);
        }
        if (code == 235 || code == 237) {
            // the aperture bases Linux gives (hsa-abi.md §3.4): shared 1 << 48, private 2 << 48
            return hex64(code == 235 ? 1L << 48 : 2L << 48);
        }
        if (code == 236 || code == 238) {
            return hex64((code == 236 ? 1L << 48 : 2L << 48) + 0xFFFF_FFFFL);
        }
        return "(uint64_t)" + special(code, F32, true);
    }

    /** The instruction's literal dword (unsigned). */
    public long literal() throws Refusal {
        if (insn.literal().isEmpty()) {
            throw refuse("operand 255 names a literal, but the instruction has none");
        }
        return Integer.toUnsignedLong(insn.literal().getAsInt());
    }

    public boolean hasLiteral() {
        return insn.literal().isPresent();
    }

    private String special(int code, long[] floats, boolean wideContext) throws Refusal {
        if (code <= 192) {
            return hex32(code - 128);
        }
        if (code <= 208) {
            return hex32(192 - code);
        }
        if (code >= 240 && code <= 248) {
            return hex32(floats[code - 240]);
        }
        return switch (code) {
            case 251 -> "(RT_VCC == 0 ? 1u : 0u)";
            case 252 -> "(RT_EXEC == 0 ? 1u : 0u)";
            case 253 -> "RT_SCC";
            case 255 -> hex32(literal());
            case 239 -> "0u";
            case 235, 236, 237, 238 -> throw refuse("a 32-bit read of an aperture register (operand " + code
                    + "): only 64-bit reads are translated");
            case 254 -> throw refuse("lds_direct is not translated");
            default -> throw refuse("operand code " + code + " is not a source");
        };
    }

    // ---------------------------------------------------------------- vector operands

    /** VGPR {@code r} of lane {@code lane} (a C expression, usually the lane-loop variable) as an lvalue. */
    public String vreg(int r, String lane) {
        if (r < 0 || r >= vgprCount) {
            if (vgprFault == null) {
                vgprFault = "v" + r + " is past the " + vgprCount + " VGPRs the program allocates";
            }
            return "V(0, " + lane + ")";
        }
        return "V(" + r + ", " + lane + ")";
    }

    /** VGPR pair {@code r, r+1} of a lane as a uint64_t rvalue. */
    public String vreg64(int r, String lane) {
        return "rt_pair(" + vreg(r, lane) + ", " + vreg(r + 1, lane) + ")";
    }

    /** A statement writing a uint64_t to VGPR pair {@code r, r+1} of a lane. */
    public String writeV64(int r, String lane, String expr) {
        return "{ uint64_t t_v64 = (" + expr + "); " + vreg(r, lane) + " = rt_lo(t_v64); " + vreg(r + 1, lane)
                + " = rt_hi(t_v64); }";
    }

    /** A 9-bit source code as a 32-bit value of a lane: a VGPR (code >= 256) or any {@link #src32} operand. */
    public String vsrc32(int code9, String lane) throws Refusal {
        return code9 >= 256 ? vreg(code9 - 256, lane) : src32(code9);
    }

    /** As {@link #vsrc32}, inline floats as f16 bits. */
    public String vsrc16(int code9, String lane) throws Refusal {
        return code9 >= 256 ? vreg(code9 - 256, lane) : src16(code9);
    }

    /** A 9-bit source code as a 64-bit value of a lane (VGPR pair or {@link #src64}). */
    public String vsrc64(int code9, String lane, boolean floatOperand) throws Refusal {
        return code9 >= 256 ? vreg64(code9 - 256, lane) : src64(code9, floatOperand);
    }

    // ---------------------------------------------------------------- wave state and faults

    public String exec() {
        return "RT_EXEC";
    }

    public String vcc() {
        return "RT_VCC";
    }

    /** A statement recording a fault of this instruction ({@code code} an RT_FAULT_* name). */
    public String fault(String code, String lane, String addr) {
        return "rt_fault(C, " + code + ", " + pcC() + ", " + lane + ", " + addr + ");";
    }

    /** The statement that stops the wave when any of its lanes faulted (after the lane loop). */
    public String check() {
        return "RT_CHECK();";
    }

    // ---------------------------------------------------------------- C constants

    public static String hex32(long v) {
        return "0x" + Long.toHexString(v & 0xFFFF_FFFFL) + "u";
    }

    public static String hex64(long v) {
        return "0x" + Long.toHexString(v) + "ull";
    }
}
