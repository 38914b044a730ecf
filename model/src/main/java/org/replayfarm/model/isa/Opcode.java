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
        for (String o : operands) {
            int colon = o.indexOf(':');
            if ((colon < 0 ? o : o.substring(0, colon)).equals(name)) {
                return colon < 0 ? "" : o.substring(colon + 1);
            }
        }
        return null;
    }

    @Override
    public String toString() {
        return encoding + " " + code + " " + mnemonic;
    }
}
