package dev.javaep.conformance.kit.vulkan;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * A Vulkan 1.2 instance and one logical device with timeline semaphores (and {@code VK_KHR_external_semaphore_fd}
 * where the device has it): what the kit needs to make a timeline semaphore, export it as OPAQUE_FD for an EP's
 * importer, and signal, wait on and read it from the host. No queue is used: the host side of a round trip is
 * {@code vkSignalSemaphore} and {@code vkWaitSemaphores}. Closing destroys the semaphores still open, the device and
 * the instance. One thread at a time.
 */
public final class VulkanDevice implements AutoCloseable {
    /** {@code VkPhysicalDeviceProperties} is 824 bytes on LP64; room to spare costs nothing. */
    private static final long PROPERTIES_BYTES = 1024;
    /** {@code VkPhysicalDeviceFeatures}: 55 VkBool32s. */
    private static final long FEATURES_BYTES = 55 * 4;
    private static final long EXTENSION_PROPERTIES_BYTES = 260;
    private static final int UUID_BYTES = 16;

    private final MemorySegment instance;
    private final MethodHandle destroyInstance;
    private final Physical physical;
    private final MemorySegment device;
    private final MethodHandle destroyDevice;
    final MethodHandle createSemaphore;
    private final MethodHandle destroySemaphore;
    final MethodHandle signalSemaphore;
    final MethodHandle waitSemaphores;
    final MethodHandle counterValue;
    /** {@code vkGetSemaphoreFdKHR}; null where the device lacks the extension. */
    final MethodHandle semaphoreFd;
    private final List<TimelineSemaphore> open = new ArrayList<>();
    private boolean closed;

    /**
     * A physical device as the kit sees it.
     *
     * @param opaqueFdTimelineExport timeline semaphores can be exported as OPAQUE_FD
     *     ({@code vkGetPhysicalDeviceExternalSemaphoreProperties} with the timeline type, and the fd extension)
     */
    record Physical(MemorySegment handle, String name, int apiVersion, byte[] uuid, boolean timeline,
                    boolean semaphoreFdExtension, boolean opaqueFdTimelineExport) {
        /** Why the kit cannot use it at all; empty when it can. */
        Optional<String> unusableBecause() {
            if (Integer.compareUnsigned(apiVersion, Vk.API_VERSION_1_2) < 0) {
                return Optional.of("Vulkan " + Vk.version(apiVersion) + " < 1.2");
            }
            return timeline ? Optional.empty() : Optional.of("no timelineSemaphore feature");
        }

        String describe() {
            return name + " (Vulkan " + Vk.version(apiVersion) + ", UUID " + HexFormat.of().formatHex(uuid)
                    + (opaqueFdTimelineExport ? ", exports timeline semaphores as OPAQUE_FD" : semaphoreFdExtension
                    ? ", cannot export timeline semaphores as OPAQUE_FD" : ", no " + Vk.EXTERNAL_SEMAPHORE_FD) + ")";
        }
    }

    private VulkanDevice(MemorySegment instance, MethodHandle destroyInstance, Physical physical, MemorySegment device) {
        this.instance = instance;
        this.destroyInstance = destroyInstance;
        this.physical = physical;
        this.device = device;
        MethodHandle getDeviceProcAddr = Vk.instanceCommand(instance, "vkGetDeviceProcAddr",
                FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS));
        this.destroyDevice = Vk.deviceCommand(getDeviceProcAddr, device, "vkDestroyDevice", FunctionDescriptor.ofVoid(ADDRESS, ADDRESS));
        this.createSemaphore = Vk.deviceCommand(getDeviceProcAddr, device, "vkCreateSemaphore",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS));
        this.destroySemaphore = Vk.deviceCommand(getDeviceProcAddr, device, "vkDestroySemaphore",
                FunctionDescriptor.ofVoid(ADDRESS, JAVA_LONG, ADDRESS));
        this.signalSemaphore = Vk.deviceCommand(getDeviceProcAddr, device, "vkSignalSemaphore",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        this.waitSemaphores = Vk.deviceCommand(getDeviceProcAddr, device, "vkWaitSemaphores",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG));
        this.counterValue = Vk.deviceCommand(getDeviceProcAddr, device, "vkGetSemaphoreCounterValue",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS));
        this.semaphoreFd = physical.semaphoreFdExtension() ? Vk.deviceCommand(getDeviceProcAddr, device, "vkGetSemaphoreFdKHR",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS)) : null;
    }

    /**
     * Opens the device whose {@code deviceUUID} is {@code deviceUuid} (how another API's device is matched to a Vulkan
     * one on Linux: CUDA's {@code cuDeviceGetUuid}, javaep's {@code cuda.uuid}); without one, the first device that
     * exports timeline semaphores as OPAQUE_FD, or where {@code requireExport} is false, the first with timeline
     * semaphores.
     *
     * @throws VulkanUnavailableException no loader, no driver, no such device, or (with {@code requireExport}) no
     *     export; the message lists the devices the loader offers
     */
    public static VulkanDevice open(Optional<byte[]> deviceUuid, boolean requireExport) {
        MemorySegment instance = createInstance();
        MethodHandle destroyInstance = Vk.instanceCommand(instance, "vkDestroyInstance", FunctionDescriptor.ofVoid(ADDRESS, ADDRESS));
        MemorySegment device = MemorySegment.NULL;
        try {
            Physical physical = choose(physicalDevices(instance), deviceUuid, requireExport);
            device = createDevice(instance, physical);
            return new VulkanDevice(instance, destroyInstance, physical, device);
        } catch (RuntimeException | Error e) {
            if (!device.equals(MemorySegment.NULL)) { // the device goes before its instance
                invokeVoid(Vk.instanceCommand(instance, "vkDestroyDevice", FunctionDescriptor.ofVoid(ADDRESS, ADDRESS)),
                        device);
            }
            invokeVoid(destroyInstance, instance);
            throw e;
        }
    }

    private static MemorySegment createInstance() {
        MethodHandle create = Vk.instanceCommand(MemorySegment.NULL, "vkCreateInstance",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment application = Vk.struct(arena, 48, Vk.APPLICATION_INFO, MemorySegment.NULL);
            application.set(ADDRESS, 16, arena.allocateFrom("javaep-conformance")); // pApplicationName
            application.set(JAVA_INT, 44, Vk.API_VERSION_1_2); // apiVersion
            MemorySegment info = Vk.struct(arena, 64, Vk.INSTANCE_CREATE_INFO, MemorySegment.NULL);
            info.set(ADDRESS, 24, application); // pApplicationInfo; no layers, no extensions (external semaphores are 1.1 core)
            MemorySegment out = arena.allocate(ADDRESS);
            int result = (int) create.invokeExact(info, MemorySegment.NULL, out);
            if (result == Vk.ERROR_INCOMPATIBLE_DRIVER || result == Vk.ERROR_INITIALIZATION_FAILED) {
                throw new VulkanUnavailableException("vkCreateInstance returned " + Vk.resultName(result)
                        + ": the loader found no usable Vulkan driver (VK_DRIVER_FILES=" + System.getenv("VK_DRIVER_FILES") + ")");
            }
            Vk.check(result, "vkCreateInstance");
            return out.get(ADDRESS, 0);
        } catch (RuntimeException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    private static List<Physical> physicalDevices(MemorySegment instance) {
        MethodHandle enumerate = Vk.instanceCommand(instance, "vkEnumeratePhysicalDevices",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment count = arena.allocate(JAVA_INT);
            Vk.check((int) enumerate.invokeExact(instance, count, MemorySegment.NULL), "vkEnumeratePhysicalDevices");
            int n = count.get(JAVA_INT, 0);
            MemorySegment handles = arena.allocate(ADDRESS, Math.max(1, n));
            int result = (int) enumerate.invokeExact(instance, count, handles);
            if (result != Vk.INCOMPLETE) {
                Vk.check(result, "vkEnumeratePhysicalDevices");
            }
            List<Physical> devices = new ArrayList<>();
            for (int i = 0; i < count.get(JAVA_INT, 0); i++) {
                devices.add(describe(instance, handles.getAtIndex(ADDRESS, i)));
            }
            return devices;
        } catch (RuntimeException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    private static Physical describe(MemorySegment instance, MemorySegment handle) throws Throwable {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment properties = arena.allocate(PROPERTIES_BYTES, 8);
            Vk.instanceCommand(instance, "vkGetPhysicalDeviceProperties", FunctionDescriptor.ofVoid(ADDRESS, ADDRESS))
                    .invokeExact(handle, properties);
            int apiVersion = properties.get(JAVA_INT, 0);
            String name = properties.getString(20); // deviceName[256]
            byte[] uuid = new byte[UUID_BYTES];
            if (Integer.compareUnsigned(apiVersion, Vk.API_VERSION_1_2) < 0) {
                return new Physical(handle, name, apiVersion, uuid, false, false, false);
            }
            // VkPhysicalDeviceProperties2 { sType, pNext → VkPhysicalDeviceIDProperties { sType, pNext, deviceUUID @16 } }
            MemorySegment ids = Vk.struct(arena, 64, Vk.PHYSICAL_DEVICE_ID_PROPERTIES, MemorySegment.NULL);
            MemorySegment properties2 = Vk.struct(arena, 16 + PROPERTIES_BYTES, Vk.PHYSICAL_DEVICE_PROPERTIES_2, ids);
            Vk.instanceCommand(instance, "vkGetPhysicalDeviceProperties2", FunctionDescriptor.ofVoid(ADDRESS, ADDRESS))
                    .invokeExact(handle, properties2);
            MemorySegment.copy(ids, JAVA_BYTE, 16, uuid, 0, UUID_BYTES);
            // VkPhysicalDeviceFeatures2 { sType, pNext → VkPhysicalDeviceTimelineSemaphoreFeatures { timelineSemaphore @16 } }
            MemorySegment timelineFeatures = Vk.struct(arena, 24, Vk.PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES, MemorySegment.NULL);
            MemorySegment features2 = Vk.struct(arena, 16 + FEATURES_BYTES, Vk.PHYSICAL_DEVICE_FEATURES_2, timelineFeatures);
            Vk.instanceCommand(instance, "vkGetPhysicalDeviceFeatures2", FunctionDescriptor.ofVoid(ADDRESS, ADDRESS))
                    .invokeExact(handle, features2);
            boolean timeline = timelineFeatures.get(JAVA_INT, 16) != 0;
            boolean fdExtension = extensions(instance, handle).contains(Vk.EXTERNAL_SEMAPHORE_FD);
            return new Physical(handle, name, apiVersion, uuid, timeline, fdExtension,
                    timeline && fdExtension && timelineExportable(instance, handle));
        }
    }

    private static Set<String> extensions(MemorySegment instance, MemorySegment handle) throws Throwable {
        MethodHandle enumerate = Vk.instanceCommand(instance, "vkEnumerateDeviceExtensionProperties",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment count = arena.allocate(JAVA_INT);
            Vk.check((int) enumerate.invokeExact(handle, MemorySegment.NULL, count, MemorySegment.NULL),
                    "vkEnumerateDeviceExtensionProperties");
            MemorySegment properties = arena.allocate(EXTENSION_PROPERTIES_BYTES * Math.max(1, count.get(JAVA_INT, 0)), 4);
            int result = (int) enumerate.invokeExact(handle, MemorySegment.NULL, count, properties);
            if (result != Vk.INCOMPLETE) {
                Vk.check(result, "vkEnumerateDeviceExtensionProperties");
            }
            Set<String> names = new TreeSet<>();
            for (int i = 0; i < count.get(JAVA_INT, 0); i++) {
                names.add(properties.getString(i * EXTENSION_PROPERTIES_BYTES)); // extensionName[256], then specVersion
            }
            return names;
        }
    }

    /** Whether a timeline semaphore (the type matters: binary ones can differ) can be exported as OPAQUE_FD. */
    private static boolean timelineExportable(MemorySegment instance, MemorySegment handle) throws Throwable {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment type = timelineType(arena, 0, MemorySegment.NULL);
            // VkPhysicalDeviceExternalSemaphoreInfo { sType, pNext, handleType @16 }
            MemorySegment info = Vk.struct(arena, 24, Vk.PHYSICAL_DEVICE_EXTERNAL_SEMAPHORE_INFO, type);
            info.set(JAVA_INT, 16, Vk.EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD);
            // VkExternalSemaphoreProperties { sType, pNext, exportFrom… @16, compatible… @20, externalSemaphoreFeatures @24 }
            MemorySegment properties = Vk.struct(arena, 32, Vk.EXTERNAL_SEMAPHORE_PROPERTIES, MemorySegment.NULL);
            Vk.instanceCommand(instance, "vkGetPhysicalDeviceExternalSemaphoreProperties",
                    FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, ADDRESS)).invokeExact(handle, info, properties);
            return (properties.get(JAVA_INT, 24) & Vk.EXTERNAL_SEMAPHORE_FEATURE_EXPORTABLE) != 0;
        }
    }

    /** {@code VkSemaphoreTypeCreateInfo { sType, pNext, semaphoreType @16, initialValue @24 }} for a timeline. */
    static MemorySegment timelineType(Arena arena, long initialValue, MemorySegment next) {
        MemorySegment type = Vk.struct(arena, 32, Vk.SEMAPHORE_TYPE_CREATE_INFO, next);
        type.set(JAVA_INT, 16, Vk.SEMAPHORE_TYPE_TIMELINE);
        type.set(JAVA_LONG, 24, initialValue);
        return type;
    }

    static Physical choose(List<Physical> devices, Optional<byte[]> deviceUuid, boolean requireExport) {
        if (devices.isEmpty()) {
            throw new VulkanUnavailableException("the Vulkan loader lists no physical device (VK_DRIVER_FILES="
                    + System.getenv("VK_DRIVER_FILES") + ")");
        }
        String listing = devices.stream().map(Physical::describe).collect(Collectors.joining("; "));
        if (deviceUuid.isPresent()) {
            Physical match = devices.stream().filter(d -> Arrays.equals(d.uuid(), deviceUuid.get())).findFirst()
                    .orElseThrow(() -> new VulkanUnavailableException("no Vulkan device has UUID "
                            + HexFormat.of().formatHex(deviceUuid.get()) + "; the loader lists " + listing));
            match.unusableBecause().ifPresent(why -> {
                throw new VulkanUnavailableException(match.describe() + " cannot be used: " + why);
            });
            if (requireExport && !match.opaqueFdTimelineExport()) {
                throw new VulkanUnavailableException(match.describe() + " cannot export timeline semaphores as OPAQUE_FD");
            }
            return match;
        }
        return devices.stream()
                .filter(d -> d.unusableBecause().isEmpty() && (!requireExport || d.opaqueFdTimelineExport()))
                .findFirst()
                .orElseThrow(() -> new VulkanUnavailableException((requireExport
                        ? "no Vulkan device exports timeline semaphores as OPAQUE_FD: " : "no Vulkan 1.2 device with timeline semaphores: ")
                        + listing));
    }

    private static MemorySegment createDevice(MemorySegment instance, Physical physical) {
        MethodHandle create = Vk.instanceCommand(instance, "vkCreateDevice",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS));
        try (Arena arena = Arena.ofConfined()) {
            // VkDeviceQueueCreateInfo { sType, pNext, flags @16, queueFamilyIndex @20, queueCount @24, pQueuePriorities @32 }:
            // Vulkan wants one queue; the kit never submits to it
            MemorySegment queue = Vk.struct(arena, 40, Vk.DEVICE_QUEUE_CREATE_INFO, MemorySegment.NULL);
            queue.set(JAVA_INT, 24, 1);
            queue.set(ADDRESS, 32, arena.allocateFrom(JAVA_FLOAT, 1.0f));
            MemorySegment timeline = Vk.struct(arena, 24, Vk.PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES, MemorySegment.NULL);
            timeline.set(JAVA_INT, 16, 1);
            // VkDeviceCreateInfo { sType, pNext, flags @16, queueCreateInfoCount @20, pQueueCreateInfos @24,
            //   enabledLayerCount @32, ppEnabledLayerNames @40, enabledExtensionCount @48, ppEnabledExtensionNames @56, pEnabledFeatures @64 }
            MemorySegment info = Vk.struct(arena, 72, Vk.DEVICE_CREATE_INFO, timeline);
            info.set(JAVA_INT, 20, 1);
            info.set(ADDRESS, 24, queue);
            if (physical.semaphoreFdExtension()) {
                info.set(JAVA_INT, 48, 1);
                info.set(ADDRESS, 56, arena.allocateFrom(ADDRESS, arena.allocateFrom(Vk.EXTERNAL_SEMAPHORE_FD)));
            }
            MemorySegment out = arena.allocate(ADDRESS);
            Vk.check((int) create.invokeExact(physical.handle(), info, MemorySegment.NULL, out), "vkCreateDevice");
            return out.get(ADDRESS, 0);
        } catch (RuntimeException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** The device's {@code deviceUUID}. */
    public byte[] deviceUuid() {
        return physical.uuid().clone();
    }

    /** Name, Vulkan version, UUID and whether it exports timeline semaphores, for messages. */
    public String describe() {
        return physical.describe();
    }

    /** Whether {@link #createTimeline} can make exportable semaphores here. */
    public boolean exportsOpaqueFdTimelines() {
        return physical.opaqueFdTimelineExport();
    }

    /**
     * A timeline semaphore at {@code initialValue}; {@code exportable}: created with
     * {@code VkExportSemaphoreCreateInfo(OPAQUE_FD)}, for {@link TimelineSemaphore#exportOpaqueFd}.
     *
     * @throws VulkanUnavailableException {@code exportable} where the device cannot export timeline semaphores
     */
    public TimelineSemaphore createTimeline(long initialValue, boolean exportable) {
        MemorySegment live = handle();
        if (exportable && !exportsOpaqueFdTimelines()) {
            throw new VulkanUnavailableException("cannot make an exportable timeline semaphore: " + describe());
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment export = MemorySegment.NULL;
            if (exportable) { // VkExportSemaphoreCreateInfo { sType, pNext, handleTypes @16 }
                export = Vk.struct(arena, 24, Vk.EXPORT_SEMAPHORE_CREATE_INFO, MemorySegment.NULL);
                export.set(JAVA_INT, 16, Vk.EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD);
            }
            MemorySegment info = Vk.struct(arena, 24, Vk.SEMAPHORE_CREATE_INFO, timelineType(arena, initialValue, export));
            MemorySegment out = arena.allocate(JAVA_LONG);
            Vk.check((int) createSemaphore.invokeExact(live, info, MemorySegment.NULL, out), "vkCreateSemaphore");
            TimelineSemaphore semaphore = new TimelineSemaphore(this, out.get(JAVA_LONG, 0), exportable);
            open.add(semaphore);
            return semaphore;
        } catch (RuntimeException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** The {@code VkDevice}; refused once closed. */
    MemorySegment handle() {
        if (closed) {
            throw new IllegalStateException("the Vulkan device is closed");
        }
        return device;
    }

    /** {@code vkDestroySemaphore} of one of this device's semaphores, which it no longer tracks. */
    void destroy(TimelineSemaphore semaphore, long semaphoreHandle) {
        open.remove(semaphore);
        try {
            destroySemaphore.invokeExact(handle(), semaphoreHandle, MemorySegment.NULL);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** Destroys the semaphores still open (newest first), the device and the instance. Idempotent. */
    @Override
    public void close() {
        if (!closed) {
            List.copyOf(open).reversed().forEach(TimelineSemaphore::close);
            closed = true;
            invokeVoid(destroyDevice, device);
            invokeVoid(destroyInstance, instance);
        }
    }

    /** A {@code vkDestroy*(handle, NULL)}. */
    private static void invokeVoid(MethodHandle destroy, MemorySegment handle) {
        try {
            destroy.invokeExact(handle, MemorySegment.NULL);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }
}
