package org.replayfarm.model.amber;

/** Whether an {@link Expect} held, and if not why (the message names buffer, index, expected and actual). */
public record ExpectOutcome(boolean passed, String message) {
    static ExpectOutcome pass() {
        return new ExpectOutcome(true, "passed");
    }

    static ExpectOutcome fail(String message) {
        return new ExpectOutcome(false, message);
    }
}
