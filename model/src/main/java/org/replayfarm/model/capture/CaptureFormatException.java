package org.replayfarm.model.capture;

/**
 * A capture file, or the metadata in it, is not what the format allows. The message always names the
 * field (a path into the metadata such as {@code ranges[2].size}, or a header field such as
 * {@code header.magic}) and what was wrong with it.
 */
public final class CaptureFormatException extends Exception {
    private final String field;

    public CaptureFormatException(String field, String problem) {
        super(field + ": " + problem);
        this.field = field;
    }

    public CaptureFormatException(String field, String problem, Throwable cause) {
        super(field + ": " + problem, cause);
        this.field = field;
    }

    /** The metadata path or header field that was wrong. */
    public String field() {
        return field;
    }
}
