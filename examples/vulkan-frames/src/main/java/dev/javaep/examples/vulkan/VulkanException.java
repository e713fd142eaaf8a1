package dev.javaep.examples.vulkan;

import static org.lwjgl.vulkan.VK10.VK_SUCCESS;

/** A Vulkan call returned an error; the message names the call and the {@code VkResult}. */
public final class VulkanException extends RuntimeException {
    private final String call;
    private final int result;

    VulkanException(String call, int result) {
        super(call + " failed: " + resultName(result) + " (" + result + ")");
        this.call = call;
        this.result = result;
    }

    /** The Vulkan function that failed, e.g. {@code vkAllocateMemory}. */
    public String call() {
        return call;
    }

    /** The {@code VkResult} it returned. */
    public int result() {
        return result;
    }

    /** Returns normally only for {@code VK_SUCCESS}. */
    static void check(int result, String call) {
        if (result != VK_SUCCESS) {
            throw new VulkanException(call, result);
        }
    }

    /** The spec's name of a {@code VkResult}: the codes the calls we make can return. */
    static String resultName(int result) {
        return switch (result) {
            case 0 -> "VK_SUCCESS";
            case 1 -> "VK_NOT_READY";
            case 2 -> "VK_TIMEOUT";
            case 5 -> "VK_INCOMPLETE";
            case -1 -> "VK_ERROR_OUT_OF_HOST_MEMORY";
            case -2 -> "VK_ERROR_OUT_OF_DEVICE_MEMORY";
            case -3 -> "VK_ERROR_INITIALIZATION_FAILED";
            case -4 -> "VK_ERROR_DEVICE_LOST";
            case -5 -> "VK_ERROR_MEMORY_MAP_FAILED";
            case -6 -> "VK_ERROR_LAYER_NOT_PRESENT";
            case -7 -> "VK_ERROR_EXTENSION_NOT_PRESENT";
            case -8 -> "VK_ERROR_FEATURE_NOT_PRESENT";
            case -9 -> "VK_ERROR_INCOMPATIBLE_DRIVER";
            case -10 -> "VK_ERROR_TOO_MANY_OBJECTS";
            case -11 -> "VK_ERROR_FORMAT_NOT_SUPPORTED";
            case -12 -> "VK_ERROR_FRAGMENTED_POOL";
            case -13 -> "VK_ERROR_UNKNOWN";
            case -1000069000 -> "VK_ERROR_OUT_OF_POOL_MEMORY";
            case -1000072003 -> "VK_ERROR_INVALID_EXTERNAL_HANDLE";
            case -1000161000 -> "VK_ERROR_FRAGMENTATION";
            case -1000257000 -> "VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS";
            default -> "VkResult " + result;
        };
    }
}
