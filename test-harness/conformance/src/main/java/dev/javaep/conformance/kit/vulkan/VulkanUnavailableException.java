package dev.javaep.conformance.kit.vulkan;

/** Vulkan cannot do what was asked here (no loader, no driver, no such device, no export); the message says which. */
public final class VulkanUnavailableException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public VulkanUnavailableException(String message) {
        super(message);
    }
}
