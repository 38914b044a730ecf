package org.replayfarm.model.isa;

import java.util.HexFormat;

/** Bytes at a PC that are not a gfx1030 instruction: unknown or reserved opcode, or truncated. */
public final class DecodeException extends Exception {
    private final long pc;
    private final byte[] bytes;

    public DecodeException(long pc, byte[] bytes, String problem) {
        super(message(pc, bytes, problem));
        this.pc = pc;
        this.bytes = bytes.clone();
    }

    /** "pc 0x..: problem (bytes ..)"; without the bytes clause when there are none (a PC outside the code). */
    private static String message(long pc, byte[] bytes, String problem) {
        String at = String.format("pc 0x%x: %s", pc, problem);
        return bytes.length == 0 ? at : at + " (bytes " + HexFormat.ofDelimiter(" ").formatHex(bytes) + ")";
    }

    public long pc() {
        return pc;
    }

    public byte[] bytes() {
        return bytes.clone();
    }
}
