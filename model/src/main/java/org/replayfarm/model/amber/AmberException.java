package org.replayfarm.model.amber;

/**
 * A script that cannot be parsed or checked: either malformed (a wrong number, an undefined name, a missing
 * {@code END}) or well formed but using a part of AmberScript this package does not support
 * ({@link #unsupported()}). The message starts with {@code [source:]line N:}; {@link #line()} is 1-based
 * (0 where no line applies).
 */
public final class AmberException extends Exception {
    private static final long serialVersionUID = 1L;

    private final int line;
    private final boolean unsupported;
    private final String feature;

    private AmberException(String message, int line, boolean unsupported, String feature) {
        super(message);
        this.line = line;
        this.unsupported = unsupported;
        this.feature = feature;
    }

    /** A malformed script: {@code message} says what is wrong at {@code line}. */
    public static AmberException error(String message, int line) {
        return new AmberException("line " + line + ": " + message, line, false, null);
    }

    /** A well-formed script using {@code feature} (a command, keyword or value form) this package refuses. */
    public static AmberException unsupported(String feature, int line) {
        return new AmberException("line " + line + ": unsupported: " + feature, line, true, feature);
    }

    /** The 1-based line the problem is on. */
    public int line() {
        return line;
    }

    /** Whether the script is well formed but uses a feature this package does not support. */
    public boolean unsupported() {
        return unsupported;
    }

    /** The unsupported feature's name, or null for a malformed script. */
    public String feature() {
        return feature;
    }

    /** The same problem with the script's name in front of the message. */
    AmberException in(String sourceName) {
        if (sourceName == null || sourceName.isEmpty()) {
            return this;
        }
        AmberException e = new AmberException(sourceName + ":" + getMessage(), line, unsupported, feature);
        e.setStackTrace(getStackTrace());
        return e;
    }
}
