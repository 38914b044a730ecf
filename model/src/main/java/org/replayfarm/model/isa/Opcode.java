package org.replayfarm.model.isa;

import java.util.List;
import java.util.Set;

/**
 * One row of an encoding's table: the single source of truth that the decoder, the disassembler and
 * (later) the interpreter and translator key on. {@code operands} lists the operands in the order they
 * are written, each {@code name:type}; {@code flags} are the row's extra facts (e.g. {@code literal}: a
 * 32-bit literal always follows).
 */
public record Opcode(Encoding encoding, int code, String mnemonic, List<String> operands, Set<String> flags) {
    public Opcode {
        operands = List.copyOf(operands);
        flags = Set.copyOf(flags);
    }

    public boolean has(String flag) {
        return flags.contains(flag);
    }

    /** Operands whose name starts with {@code src} (VALU sources, in order). */
    public int sourceCount() {
        return (int) operands.stream().filter(o -> o.startsWith("src")).count();
    }

    /** The type of a named operand, or null when the row has no such operand. */
    public String operandType(String name) {
        int n = name.length();
        for (String o : operands) {
            // "name" or "name:type", compared in place (handlers ask per lane: no substring per call)
            if (o.startsWith(name) && (o.length() == n || o.charAt(n) == ':')) {
                return o.length() == n ? "" : o.substring(n + 1);
            }
        }
        return null;
    }

    @Override
    public String toString() {
        return encoding + " " + code + " " + mnemonic;
    }
}
