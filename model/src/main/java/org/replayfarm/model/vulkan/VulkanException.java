package org.replayfarm.model.vulkan;

/** A Vulkan compute shader could not be built into a capture, or run on the reference: the message says what and where. */
public final class VulkanException extends Exception {
    public VulkanException(String message) {
        super(message);
    }

    public VulkanException(String message, Throwable cause) {
        super(message, cause);
    }
}
