package org.replayfarm.gpunode.device;

/** A device run gave no outputs; the message says what and why. */
public final class DeviceException extends Exception {
    public DeviceException(String message) {
        super(message);
    }

    public DeviceException(String message, Throwable cause) {
        super(message, cause);
    }
}
