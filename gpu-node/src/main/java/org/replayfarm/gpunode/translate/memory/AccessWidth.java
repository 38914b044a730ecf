package org.replayfarm.gpunode.translate.memory;

/**
 * The data a memory instruction moves per lane: {@code bytes}, sign extension of sub-dword loads, and the
 * D16 half (0: the whole VGPR; 1: its low half, the high half kept; 2: its high half, the low half kept).
 */
public record AccessWidth(int bytes, boolean signed, int d16) {
    public static AccessWidth of(int bytes) {
        return new AccessWidth(bytes, false, 0);
    }

    public int dwords() {
        return (bytes + 3) / 4;
    }

    /** The width a FLAT/GLOBAL/SCRATCH/MUBUF mnemonic names after _load_ / _store_ (ubyte, sshort_d16_hi, dwordx3, ...). */
    public static AccessWidth suffix(String s) {
        int half = s.endsWith("_d16_hi") ? 2 : s.endsWith("_d16") ? 1 : 0;
        String base = s.replace("_d16_hi", "").replace("_d16", "");
        return switch (base) {
            case "ubyte", "byte" -> new AccessWidth(1, false, half);
            case "sbyte" -> new AccessWidth(1, true, half);
            case "ushort", "short" -> new AccessWidth(2, false, half);
            case "sshort" -> new AccessWidth(2, true, half);
            case "dword" -> of(4);
            case "dwordx2" -> of(8);
            case "dwordx3" -> of(12);
            case "dwordx4" -> of(16);
            default -> throw new IllegalArgumentException("no access width " + s);
        };
    }
}
