package dev.javaep.examples.vulkan;

import static org.lwjgl.vulkan.KHRExternalMemoryFd.VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME;
import static org.lwjgl.vulkan.KHRExternalSemaphoreFd.VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME;
import static org.lwjgl.vulkan.VK10.VK_API_VERSION_MAJOR;
import static org.lwjgl.vulkan.VK10.VK_API_VERSION_MINOR;
import static org.lwjgl.vulkan.VK10.VK_API_VERSION_PATCH;
import static org.lwjgl.vulkan.VK10.VK_QUEUE_COMPUTE_BIT;
import static org.lwjgl.vulkan.VK10.VK_QUEUE_GRAPHICS_BIT;
import static org.lwjgl.vulkan.VK10.VK_QUEUE_TRANSFER_BIT;
import static org.lwjgl.vulkan.VK10.vkEnumerateDeviceExtensionProperties;
import static org.lwjgl.vulkan.VK10.vkGetPhysicalDeviceProperties;
import static org.lwjgl.vulkan.VK10.vkGetPhysicalDeviceQueueFamilyProperties;
import static org.lwjgl.vulkan.VK11.VK_EXTERNAL_MEMORY_FEATURE_DEDICATED_ONLY_BIT;
import static org.lwjgl.vulkan.VK11.VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT;
import static org.lwjgl.vulkan.VK11.VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
import static org.lwjgl.vulkan.VK11.VK_EXTERNAL_SEMAPHORE_FEATURE_EXPORTABLE_BIT;
import static org.lwjgl.vulkan.VK11.VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
import static org.lwjgl.vulkan.VK11.vkGetPhysicalDeviceExternalBufferProperties;
import static org.lwjgl.vulkan.VK11.vkGetPhysicalDeviceExternalSemaphoreProperties;
import static org.lwjgl.vulkan.VK11.vkGetPhysicalDeviceFeatures2;
import static org.lwjgl.vulkan.VK11.vkGetPhysicalDeviceProperties2;
import static org.lwjgl.vulkan.VK12.VK_API_VERSION_1_2;
import static org.lwjgl.vulkan.VK12.VK_SEMAPHORE_TYPE_TIMELINE;

import java.nio.IntBuffer;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.lwjgl.system.MemoryStack;
import org.lwjgl.vulkan.VkExtensionProperties;
import org.lwjgl.vulkan.VkExternalBufferProperties;
import org.lwjgl.vulkan.VkExternalSemaphoreProperties;
import org.lwjgl.vulkan.VkPhysicalDevice;
import org.lwjgl.vulkan.VkPhysicalDeviceDriverProperties;
import org.lwjgl.vulkan.VkPhysicalDeviceExternalBufferInfo;
import org.lwjgl.vulkan.VkPhysicalDeviceExternalSemaphoreInfo;
import org.lwjgl.vulkan.VkPhysicalDeviceFeatures2;
import org.lwjgl.vulkan.VkPhysicalDeviceIDProperties;
import org.lwjgl.vulkan.VkPhysicalDeviceProperties;
import org.lwjgl.vulkan.VkPhysicalDeviceProperties2;
import org.lwjgl.vulkan.VkPhysicalDeviceTimelineSemaphoreFeatures;
import org.lwjgl.vulkan.VkQueueFamilyProperties;
import org.lwjgl.vulkan.VkSemaphoreTypeCreateInfo;

/**
 * What one physical device offers a {@link VulkanContext}, read once before a device is created: its
 * identity (name, driver, UUID), the queue family we would use, and whether it can export buffer memory
 * and timeline semaphores as OPAQUE_FD.
 *
 * @param queueFamilyIndex the first family with graphics or compute (both imply transfer), else the
 *     first transfer-only family; -1 if none
 * @param opaqueFdBufferExport OPAQUE_FD export of a {@link VulkanBuffer#USAGE} buffer works without a
 *     dedicated allocation (the importer maps our memory as a non-dedicated allocation)
 */
record PhysicalDeviceProfile(
        VkPhysicalDevice device,
        String deviceName,
        String driverName,
        String driverInfo,
        int driverId,
        int apiVersion,
        byte[] deviceUuid,
        int queueFamilyIndex,
        Set<String> extensions,
        boolean timelineSemaphores,
        boolean opaqueFdBufferExport,
        boolean opaqueFdTimelineSemaphoreExport) {

    static PhysicalDeviceProfile read(VkPhysicalDevice device) {
        try (MemoryStack stack = MemoryStack.stackPush()) {
            VkPhysicalDeviceProperties basic = VkPhysicalDeviceProperties.malloc(stack);
            vkGetPhysicalDeviceProperties(device, basic);
            int apiVersion = basic.apiVersion();
            // Driver properties and timeline semaphores are Vulkan 1.2; asking an older device about them is invalid.
            boolean vulkan12 = apiVersion >= VK_API_VERSION_1_2;

            VkPhysicalDeviceIDProperties id = VkPhysicalDeviceIDProperties.calloc(stack).sType$Default();
            VkPhysicalDeviceDriverProperties driver = VkPhysicalDeviceDriverProperties.calloc(stack).sType$Default();
            VkPhysicalDeviceProperties2 properties = VkPhysicalDeviceProperties2.calloc(stack).sType$Default().pNext(id);
            if (vulkan12) {
                properties.pNext(driver);
            }
            vkGetPhysicalDeviceProperties2(device, properties);
            byte[] uuid = new byte[VulkanContext.UUID_SIZE];
            id.deviceUUID().get(uuid);

            Set<String> extensions = extensionNames(device, stack);
            boolean timeline = false;
            boolean semaphoreExport = false;
            if (vulkan12) {
                VkPhysicalDeviceTimelineSemaphoreFeatures timelineFeatures =
                        VkPhysicalDeviceTimelineSemaphoreFeatures.calloc(stack).sType$Default();
                vkGetPhysicalDeviceFeatures2(device,
                        VkPhysicalDeviceFeatures2.calloc(stack).sType$Default().pNext(timelineFeatures));
                timeline = timelineFeatures.timelineSemaphore();
                semaphoreExport = timeline && extensions.contains(VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME)
                        && timelineSemaphoreExportable(device, stack);
            }
            boolean bufferExport = extensions.contains(VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME)
                    && bufferExportableWithoutDedicatedAllocation(device, stack);
            return new PhysicalDeviceProfile(device, basic.deviceNameString(),
                    vulkan12 ? driver.driverNameString() : "unknown (Vulkan < 1.2)",
                    vulkan12 ? driver.driverInfoString() : "", vulkan12 ? driver.driverID() : 0,
                    apiVersion, uuid, transferQueueFamily(device, stack), Set.copyOf(extensions),
                    timeline, bufferExport, semaphoreExport);
        }
    }

    @Override
    public byte[] deviceUuid() {
        return deviceUuid.clone();
    }

    /** Why a {@link VulkanContext} cannot run on this device at all, if it cannot. */
    Optional<String> unusableBecause() {
        if (apiVersion < VK_API_VERSION_1_2) {
            return Optional.of("Vulkan " + versionString(apiVersion) + " < 1.2");
        }
        if (queueFamilyIndex < 0) {
            return Optional.of("no queue family supports transfers");
        }
        if (!timelineSemaphores) {
            return Optional.of("no timelineSemaphore feature");
        }
        return Optional.empty();
    }

    /** Why this device is not the one to pick by default, which needs OPAQUE_FD buffer export. */
    Optional<String> notExportingBecause() {
        Optional<String> unusable = unusableBecause();
        if (unusable.isPresent()) {
            return unusable;
        }
        if (!extensions.contains(VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME)) {
            return Optional.of("no " + VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
        }
        if (!opaqueFdBufferExport) {
            return Optional.of("buffers cannot be exported as OPAQUE_FD without a dedicated allocation");
        }
        return Optional.empty();
    }

    /** One line for logs and skip messages: name, driver, API version, UUID. */
    String describe() {
        return deviceName + " (driver " + driverName + (driverInfo.isEmpty() ? "" : " " + driverInfo)
                + ", Vulkan " + versionString(apiVersion) + ", UUID " + HexFormat.of().formatHex(deviceUuid) + ")";
    }

    static String versionString(int version) {
        return VK_API_VERSION_MAJOR(version) + "." + VK_API_VERSION_MINOR(version) + "." + VK_API_VERSION_PATCH(version);
    }

    private static Set<String> extensionNames(VkPhysicalDevice device, MemoryStack stack) {
        IntBuffer count = stack.mallocInt(1);
        VulkanException.check(vkEnumerateDeviceExtensionProperties(device, (CharSequence) null, count, null),
                "vkEnumerateDeviceExtensionProperties");
        Set<String> names = new TreeSet<>();
        if (count.get(0) == 0) {
            return names;
        }
        // Heap, not stack: drivers list a few hundred extensions of 260 bytes each.
        VkExtensionProperties.Buffer properties = VkExtensionProperties.calloc(count.get(0));
        try {
            VulkanException.check(vkEnumerateDeviceExtensionProperties(device, (CharSequence) null, count, properties),
                    "vkEnumerateDeviceExtensionProperties");
            for (int i = 0; i < count.get(0); i++) {
                names.add(properties.get(i).extensionNameString());
            }
        } finally {
            properties.free();
        }
        return names;
    }

    private static int transferQueueFamily(VkPhysicalDevice device, MemoryStack stack) {
        IntBuffer count = stack.mallocInt(1);
        vkGetPhysicalDeviceQueueFamilyProperties(device, count, null);
        VkQueueFamilyProperties.Buffer families = VkQueueFamilyProperties.malloc(count.get(0), stack);
        vkGetPhysicalDeviceQueueFamilyProperties(device, count, families);
        List<Integer> transferOnly = new ArrayList<>();
        for (int i = 0; i < count.get(0); i++) {
            int flags = families.get(i).queueFlags();
            if (families.get(i).queueCount() == 0) {
                continue;
            }
            if ((flags & (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT)) != 0) {
                return i;
            }
            if ((flags & VK_QUEUE_TRANSFER_BIT) != 0) {
                transferOnly.add(i);
            }
        }
        return transferOnly.isEmpty() ? -1 : transferOnly.getFirst();
    }

    private static boolean bufferExportableWithoutDedicatedAllocation(VkPhysicalDevice device, MemoryStack stack) {
        VkPhysicalDeviceExternalBufferInfo info = VkPhysicalDeviceExternalBufferInfo.calloc(stack).sType$Default()
                .usage(VulkanBuffer.USAGE)
                .handleType(VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT);
        VkExternalBufferProperties properties = VkExternalBufferProperties.calloc(stack).sType$Default();
        vkGetPhysicalDeviceExternalBufferProperties(device, info, properties);
        int features = properties.externalMemoryProperties().externalMemoryFeatures();
        int compatible = properties.externalMemoryProperties().compatibleHandleTypes();
        return (features & VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT) != 0
                && (features & VK_EXTERNAL_MEMORY_FEATURE_DEDICATED_ONLY_BIT) == 0
                && (compatible & VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT) != 0;
    }

    private static boolean timelineSemaphoreExportable(VkPhysicalDevice device, MemoryStack stack) {
        // Binary and timeline semaphores can differ; the timeline type in pNext asks about the one we make.
        VkSemaphoreTypeCreateInfo timelineType = VkSemaphoreTypeCreateInfo.calloc(stack).sType$Default()
                .semaphoreType(VK_SEMAPHORE_TYPE_TIMELINE);
        VkPhysicalDeviceExternalSemaphoreInfo info = VkPhysicalDeviceExternalSemaphoreInfo.calloc(stack).sType$Default()
                .pNext(timelineType)
                .handleType(VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT);
        VkExternalSemaphoreProperties properties = VkExternalSemaphoreProperties.calloc(stack).sType$Default();
        vkGetPhysicalDeviceExternalSemaphoreProperties(device, info, properties);
        return (properties.externalSemaphoreFeatures() & VK_EXTERNAL_SEMAPHORE_FEATURE_EXPORTABLE_BIT) != 0
                && (properties.compatibleHandleTypes() & VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT) != 0;
    }
}
