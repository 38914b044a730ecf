package org.replayfarm.model.isa;

import java.util.List;
import java.util.OptionalInt;

/**
 * A decoded instruction: where it is, which table row it is, its fields, and every dword it takes
 * (base words, then the DPP/SDWA word, the NSA address words and the literal, as they lie in memory).
 */
public record Instruction(long pc, Opcode opcode, Fields fields, List<Integer> words, OptionalInt literal) {
    public Instruction {
        words = List.copyOf(words);
    }

    public int length() {
        return words.size() * 4;
    }

    public Encoding encoding() {
        return opcode.encoding();
    }

    public String mnemonic() {
        return opcode.mnemonic();
    }
}
