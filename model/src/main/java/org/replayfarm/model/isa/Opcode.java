package org.replayfarm.model.isa;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * One row of an encoding's table, typed when the table loads: the single source of truth that the decoder,
 * the disassembler, the host model and the translator key on. {@link #operandList} lists the operands in
 * the order they are written ({@code name:type} in the .tsv), {@link #flagSet} the row's extra facts as
 * {@link OpcodeFlag}s (an unknown flag is refused), and {@link #memory} what a memory instruction does
 * (kind, width, sign, D16 half, atomic operation: {@link MemoryAccess}) and what a vector ALU row does
 * ({@link ValuFacts}: compare relation and type, scalar destination, byte index, 64-bit shift), read off the
 * mnemonic here, once.
 * {@link #operands()} and {@link #flags()} give the row's text for the printers.
 */
public final class Opcode {
    private final Encoding encoding;
    private final int code;
    private final String mnemonic;
    private final List<OperandSpec> operandList;
    private final Set<OpcodeFlag> flagSet;
    private final Map<OpcodeFlag, String> flagValues;
    private final MemoryAccess memory;
    private final ValuFacts valu;
    private final List<String> operandText;
    private final Set<String> flagText;

    /**
     * A row from its text: operands {@code name[:type]}, flags {@code flag} or {@code flag=value}.
     *
     * @throws IllegalArgumentException for an unknown flag, a valued flag without value (or the reverse), or a
     *                                  memory row whose access the naming rules cannot read
     */
    public Opcode(Encoding encoding, int code, String mnemonic, List<String> operands, Set<String> flags) {
        this.encoding = Objects.requireNonNull(encoding);
        this.code = code;
        this.mnemonic = Objects.requireNonNull(mnemonic);
        List<OperandSpec> ops = new ArrayList<>();
        for (String o : operands) {
            ops.add(OperandSpec.parse(o));
        }
        this.operandList = List.copyOf(ops);
        EnumSet<OpcodeFlag> set = EnumSet.noneOf(OpcodeFlag.class);
        EnumMap<OpcodeFlag, String> values = new EnumMap<>(OpcodeFlag.class);
        for (String text : flags) {
            int eq = text.indexOf('=');
            String name = eq < 0 ? text : text.substring(0, eq);
            OpcodeFlag f = OpcodeFlag.byText(name);
            if (f == null) {
                throw new IllegalArgumentException("unknown flag '" + text + "' (known: " + known() + ")");
            }
            if (f.valued != eq >= 0) {
                throw new IllegalArgumentException("flag '" + text + "' " + (f.valued ? "needs a value (" + name
                        + "=...)" : "takes no value"));
            }
            if (!set.add(f)) {
                throw new IllegalArgumentException("flag '" + name + "' given twice");
            }
            if (eq >= 0) {
                values.put(f, text.substring(eq + 1));
            }
        }
        this.flagSet = Collections.unmodifiableSet(set);
        this.flagValues = Collections.unmodifiableMap(values);
        this.operandText = List.copyOf(operands);
        this.flagText = Collections.unmodifiableSet(new LinkedHashSet<>(flags));
        this.memory = MemoryFacts.derive(encoding, mnemonic);
        this.valu = ValuFacts.derive(encoding, mnemonic, operandList);
    }

    private static String known() {
        StringBuilder b = new StringBuilder();
        for (OpcodeFlag f : OpcodeFlag.values()) {
            b.append(b.length() == 0 ? "" : ", ").append(f.text());
        }
        return b.toString();
    }

    public Encoding encoding() {
        return encoding;
    }

    public int code() {
        return code;
    }

    public String mnemonic() {
        return mnemonic;
    }

    /** The operands, typed, in printed order. */
    public List<OperandSpec> operandList() {
        return operandList;
    }

    /** The flags, typed. */
    public Set<OpcodeFlag> flagSet() {
        return flagSet;
    }

    /** The value of a valued flag ({@code vdata=1|2|3|4} gives "1|2|3|4"), or null when the row lacks it. */
    public String flagValue(OpcodeFlag flag) {
        return flagValues.get(flag);
    }

    /**
     * What the instruction does to memory: non-null for every row of DS, FLAT, GLOBAL, SCRATCH, MUBUF, MTBUF,
     * SMEM and MIMG; null for the other encodings.
     */
    public MemoryAccess memory() {
        return memory;
    }

    /**
     * What a vector ALU row does beyond its operands (compare relation and type, scalar destination, byte index,
     * 64-bit shift): non-null for every row of VOP1, VOP2, VOP3, VOP3P and VOPC; null for the other encodings.
     */
    public ValuFacts valu() {
        return valu;
    }

    /** The operands as the table writes them ({@code name:type}). */
    public List<String> operands() {
        return operandText;
    }

    /** The flags as the table writes them ({@code flag} or {@code flag=value}). */
    public Set<String> flags() {
        return flagText;
    }

    public boolean has(OpcodeFlag flag) {
        return flagSet.contains(flag);
    }

    /** Whether the row has a flag, by its table spelling; a spelling no flag has is a caller's error. */
    public boolean has(String flag) {
        OpcodeFlag f = OpcodeFlag.byText(flag);
        if (f == null) {
            throw new IllegalArgumentException("no opcode flag '" + flag + "'");
        }
        return flagSet.contains(f);
    }

    /** Operands whose name starts with {@code src} (VALU sources, in order). */
    public int sourceCount() {
        int n = 0;
        for (OperandSpec o : operandList) {
            if (o.name().startsWith("src")) {
                n++;
            }
        }
        return n;
    }

    /** The named operand, or null when the row has no such operand. */
    public OperandSpec operand(String name) {
        for (OperandSpec o : operandList) {
            if (o.name().equals(name)) {
                return o;
            }
        }
        return null;
    }

    /** The type of a named operand ("" when the row gives none), or null when the row has no such operand. */
    public String operandType(String name) {
        OperandSpec o = operand(name);
        return o == null ? null : o.type();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Opcode other && encoding == other.encoding && code == other.code
                && mnemonic.equals(other.mnemonic) && operandText.equals(other.operandText)
                && flagText.equals(other.flagText);
    }

    @Override
    public int hashCode() {
        return Objects.hash(encoding, code, mnemonic, operandText, flagText);
    }

    @Override
    public String toString() {
        return encoding + " " + code + " " + mnemonic;
    }
}
