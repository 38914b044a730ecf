package org.replayfarm.model.testing;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BiFunction;
import org.replayfarm.model.isa.DecodeException;
import org.replayfarm.model.isa.Decoder;
import org.replayfarm.model.isa.Instruction;
import org.replayfarm.model.isa.Syntax;

/**
 * Compares our decoder and printer with llvm-objdump-19 over candidate bytes: for every candidate
 * llvm decodes, ours must decode it to the same length and print the same text.
 */
public final class CorpusCheck {
    /** Counts and the first mismatches, for the test's report. */
    public record Report(int candidates, int decodedByLlvm, int matches, Map<String, Integer> opcodesSeen,
                         List<String> mismatches) {
        public String summary() {
            return String.format("%d candidates, %d decoded by llvm-objdump-19, %d match, %d distinct opcodes",
                    candidates, decodedByLlvm, matches, opcodesSeen.size());
        }
    }

    private CorpusCheck() {
    }

    public static Report run(List<byte[]> candidates, Syntax syntax, BiFunction<Instruction, Syntax, String> printer,
                             int keepMismatches) {
        return check(LlvmOracle.disassemble(candidates, syntax.waveSize() == 64), syntax, printer, keepMismatches);
    }

    /**
     * {@link #run} over verdicts the oracle already gave (a test that sorted a batch's verdicts checks the ones it
     * keeps without asking llvm again: each candidate's verdict is its own, whatever else was in the batch).
     */
    public static Report check(List<LlvmOracle.Verdict> verdicts, Syntax syntax,
                               BiFunction<Instruction, Syntax, String> printer, int keepMismatches) {
        Decoder decoder = Decoder.gfx1030();
        int decoded = 0;
        int matches = 0;
        Map<String, Integer> seen = new TreeMap<>();
        List<String> mismatches = new ArrayList<>();
        for (LlvmOracle.Verdict v : verdicts) {
            if (!v.decoded()) {
                continue;
            }
            decoded++;
            String ours;
            int length;
            try {
                Instruction insn = decoder.decode(ByteBuffer.wrap(v.candidate()), 0, 0);
                ours = printer.apply(insn, syntax);
                length = insn.length();
                seen.merge(insn.encoding() + " " + insn.mnemonic(), 1, Integer::sum);
            } catch (DecodeException | RuntimeException e) {
                ours = "<" + e + ">";
                length = -1;
            }
            if (ours.equals(v.text()) && length == v.length()) {
                matches++;
            } else if (mismatches.size() < keepMismatches) {
                mismatches.add("bytes " + HexFormat.ofDelimiter(" ").formatHex(v.candidate(), 0, Math.min(v.length(), v.candidate().length))
                        + "\n   llvm: " + v.text() + " (" + v.length() + " bytes)\n   ours: " + ours + " (" + length + " bytes)");
            }
        }
        return new Report(verdicts.size(), decoded, matches, seen, mismatches);
    }
}
