package org.replayfarm.model.capture;

import java.nio.charset.StandardCharsets;

/**
 * Constants of the capture file layout: magic, format version, header size and blob alignment.
 * The layout itself is described at the top of {@code capture.proto}.
 */
public final class CaptureFormat {
    /** "RFCAPT\r\n": the CR LF catches files mangled by text-mode transfers. */
    public static final byte[] MAGIC = "RFCAPT\r\n".getBytes(StandardCharsets.US_ASCII);
    public static final int VERSION = 1;
    /** Magic (8), version (u32), reserved (u32). */
    public static final int HEADER_BYTES = 16;
    /** Blob section and every blob start on a page boundary, so each can be mapped on its own. */
    public static final int BLOB_ALIGNMENT = 4096;
    /** Metadata larger than this is refused before it is parsed. */
    public static final int MAX_METADATA_BYTES = 64 << 20;

    private CaptureFormat() {
    }

    static long alignUp(long value, long alignment) {
        return (value + alignment - 1) / alignment * alignment;
    }
}
