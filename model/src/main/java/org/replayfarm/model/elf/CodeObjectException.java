package org.replayfarm.model.elf;

/** An HSA code object is malformed or asks for something this loader does not do; the message says what and where. */
public final class CodeObjectException extends Exception {
    public CodeObjectException(String message) {
        super(message);
    }

    public CodeObjectException(String message, Throwable cause) {
        super(message, cause);
    }
}
