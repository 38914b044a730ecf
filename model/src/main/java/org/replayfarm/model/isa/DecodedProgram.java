package org.replayfarm.model.isa;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * A program decoded once, front to back, into an array indexed by PC (one slot per dword). A slot holds
 * the instruction that starts there, or the error for bytes that do not decode (executing that PC is
 * then a fault naming it); the dwords inside a longer instruction hold nothing.
 */
public final class DecodedProgram {
    private final long base;
    private final Instruction[] instructions;
    private final DecodeException[] errors;
    private final List<Instruction> ordered;

    private DecodedProgram(long base, Instruction[] instructions, DecodeException[] errors, List<Instruction> ordered) {
        this.base = base;
        this.instructions = instructions;
        this.errors = errors;
        this.ordered = ordered;
    }

    /** Decodes {@code code} (its first byte at guest address {@code base}); undecodable dwords are kept as errors. */
    public static DecodedProgram decode(Decoder decoder, ByteBuffer code, long base) {
        int dwords = code.remaining() / 4;
        Instruction[] instructions = new Instruction[(code.remaining() + 3) / 4];
        DecodeException[] errors = new DecodeException[instructions.length];
        List<Instruction> ordered = new ArrayList<>();
        ByteBuffer view = code.slice();
        int offset = 0;
        while (offset < view.limit()) {
            try {
                Instruction insn = decoder.decode(view, offset, base);
                instructions[offset / 4] = insn;
                ordered.add(insn);
                offset += insn.length();
            } catch (DecodeException e) {
                errors[offset / 4] = e;
                offset += 4;
            }
        }
        if (dwords < instructions.length && errors[dwords] == null && instructions[dwords] == null) {
            errors[dwords] = new DecodeException(base + dwords * 4L, new byte[0], "truncated: the code ends inside a dword");
        }
        return new DecodedProgram(base, instructions, errors, List.copyOf(ordered));
    }

    /** The instruction at a PC; an error if the bytes there do not decode or the PC is not an instruction start. */
    public Instruction at(long pc) throws DecodeException {
        long index = (pc - base) / 4;
        if (pc < base || (pc - base) % 4 != 0 || index >= instructions.length) {
            throw new DecodeException(pc, new byte[0], "outside the program's code");
        }
        Instruction insn = instructions[(int) index];
        if (insn != null) {
            return insn;
        }
        if (errors[(int) index] != null) {
            throw errors[(int) index];
        }
        throw new DecodeException(pc, new byte[0], "inside an instruction, not at its start");
    }

    /** Every instruction, in address order (errors left out). */
    public List<Instruction> instructions() {
        return ordered;
    }

    /** Every position whose bytes did not decode. */
    public List<DecodeException> errors() {
        List<DecodeException> list = new ArrayList<>();
        for (DecodeException e : errors) {
            if (e != null) {
                list.add(e);
            }
        }
        return list;
    }

    public long base() {
        return base;
    }
}
