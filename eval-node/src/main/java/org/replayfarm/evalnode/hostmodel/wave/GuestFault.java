package org.replayfarm.evalnode.hostmodel.wave;

/**
 * The guest program did something the hardware would fault on, or the model cannot follow: an access
 * outside every range, a misaligned access, an exhausted instruction budget, an unsupported or
 * undecodable instruction. It stops the group it happened in, and only that group. {@code lane} is -1
 * when the fault is not one lane's.
 */
public final class GuestFault extends RuntimeException {
    private final int lane;

    public GuestFault(String message) {
        this(message, -1);
    }

    public GuestFault(String message, int lane) {
        super(message);
        this.lane = lane;
    }

    public int lane() {
        return lane;
    }
}
