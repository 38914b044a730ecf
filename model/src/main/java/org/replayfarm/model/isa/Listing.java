package org.replayfarm.model.isa;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * A disassembly listing in llvm-objdump-19's layout: a label line for each symbol, then one line per
 * instruction with its text, its address and its dwords, and for branches the target as
 * {@code <symbol+0xoffset>}. Bytes that do not decode are listed as {@code .long} words, as objdump does.
 */
public final class Listing {
    private static final int TEXT_COLUMN = 59;

    private Listing() {
    }

    /**
     * @param code   the bytes to list
     * @param base   the address of the first byte
     * @param labels symbol names by address (the first label covers addresses below any other)
     * @param section name used for targets before the first label, e.g. ".text"
     */
    public static List<String> lines(ByteBuffer code, long base, Map<Long, String> labels, String section, Syntax syntax) {
        Decoder decoder = Decoder.gfx1030();
        NavigableMap<Long, String> symbols = new TreeMap<>(labels);
        ByteBuffer view = code.slice().order(ByteOrder.LITTLE_ENDIAN);
        List<String> out = new ArrayList<>();
        int offset = 0;
        while (offset + 4 <= view.limit()) {
            long pc = base + offset;
            String label = symbols.get(pc);
            if (label != null) {
                out.add("");
                out.add(String.format("%016x <%s>:", pc, label));
            }
            String text;
            int length;
            String target = "";
            try {
                Instruction insn = decoder.decode(view, offset, base);
                text = Disassembler.text(insn, syntax);
                length = insn.length();
                if (insn.opcode().has(OpcodeFlag.BRANCH)) {
                    long to = pc + 4 + 4L * (short) ((Fields.Sopp) insn.fields()).simm16();
                    target = " <" + symbolize(to, symbols, section, base) + ">";
                }
            } catch (DecodeException | IllegalArgumentException e) {
                text = String.format(".long 0x%08x", view.getInt(offset));
                length = 4;
            }
            StringBuilder line = new StringBuilder("\t").append(text);
            while (line.length() < TEXT_COLUMN + 1) {
                line.append(' ');
            }
            line.append(String.format("// %012X:", pc));
            for (int i = 0; i < length; i += 4) {
                line.append(String.format(" %08X", view.getInt(offset + i)));
            }
            out.add(line.append(target).toString());
            offset += length;
        }
        return out;
    }

    private static String symbolize(long address, NavigableMap<Long, String> symbols, String section, long base) {
        Map.Entry<Long, String> below = symbols.floorEntry(address);
        if (below == null) {
            return section + "+0x" + Long.toHexString(address - base);
        }
        long delta = address - below.getKey();
        return delta == 0 ? below.getValue() : below.getValue() + "+0x" + Long.toHexString(delta);
    }
}
