package dev.javaep.examples.vulkan;

/**
 * There is no usable Vulkan here: no loader, no driver, or no device that can do what a
 * {@link VulkanContext} needs. The message says which, so a test can skip with a visible reason.
 */
public final class VulkanUnavailableException extends RuntimeException {
    VulkanUnavailableException(String message) {
        super(message);
    }

    VulkanUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
