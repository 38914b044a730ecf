package org.replayfarm.model.isa;

/**
 * One operand of a table row, {@code name:type} in the .tsv: {@code name} is the field (or implicit
 * operand) it comes from ({@code vdst}, {@code src0}, {@code data0}, ...), {@code type} how it is read and
 * printed ({@code v2}, {@code f32}, {@code rsrc}, ...; "" when the row gives none).
 */
public record OperandSpec(String name, String type) {
    public OperandSpec {
        if (name.isEmpty()) {
            throw new IllegalArgumentException("an operand needs a name");
        }
    }

    /** Reads {@code name} or {@code name:type}. */
    public static OperandSpec parse(String text) {
        int colon = text.indexOf(':');
        return colon < 0 ? new OperandSpec(text, "") : new OperandSpec(text.substring(0, colon), text.substring(colon + 1));
    }

    /**
     * The number of consecutive registers a {@code vN} / {@code xN} type names (v3: 3 VGPRs; x64: 2 SGPRs, the
     * SMEM spelling in bits), or -1 for any other type.
     */
    public int registers() {
        if (type.length() > 1 && (type.charAt(0) == 'v' || type.charAt(0) == 'x')) {
            for (int i = 1; i < type.length(); i++) {
                if (!Character.isDigit(type.charAt(i))) {
                    return -1;
                }
            }
            int n = Integer.parseInt(type.substring(1));
            return type.charAt(0) == 'v' ? n : n / 32;
        }
        return -1;
    }

    /** As the table writes it. */
    public String text() {
        return type.isEmpty() ? name : name + ":" + type;
    }

    @Override
    public String toString() {
        return text();
    }
}
