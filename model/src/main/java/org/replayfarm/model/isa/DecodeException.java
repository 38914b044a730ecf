package org.replayfarm.model.isa;

import java.util.HexFormat;

/** Bytes at a PC that are not a gfx1030 instruction: unknown or reserved opcode, or truncated. */
public final class DecodeException extends Exception {
    private final long pc;
    private final byte[] bytes;

    public DecodeException(long pc, byte[] bytes, String problem) {
        super(String.format("pc 0x%x: %s (bytes %s)", pc, problem, HexFormat.ofDelimiter(" ").formatHex(bytes)));
        this.pc = pc;
        this.bytes = bytes.clone();
    }

    public long pc() {
        return pc;
    }

    public byte[] bytes() {
        return bytes.clone();
    }
}
