package dev.javaep.conformance.kit.vulkan;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.Map;

/**
 * The Vulkan ABI facts the kit's binding uses (LP64): the loader, command lookup, result codes, structure types, and
 * a struct helper. Structs are written by byte offset, each noted where it is built; only the members the kit sets or
 * reads are named.
 */
final class Vk {
    static final int SUCCESS = 0;
    static final int TIMEOUT = 2;
    static final int INCOMPLETE = 5;
    static final int ERROR_INITIALIZATION_FAILED = -3;
    static final int ERROR_INCOMPATIBLE_DRIVER = -9;
    private static final Map<Integer, String> RESULT_NAMES = Map.ofEntries(Map.entry(0, "VK_SUCCESS"),
            Map.entry(1, "VK_NOT_READY"), Map.entry(2, "VK_TIMEOUT"), Map.entry(5, "VK_INCOMPLETE"),
            Map.entry(-1, "VK_ERROR_OUT_OF_HOST_MEMORY"), Map.entry(-2, "VK_ERROR_OUT_OF_DEVICE_MEMORY"),
            Map.entry(-3, "VK_ERROR_INITIALIZATION_FAILED"), Map.entry(-4, "VK_ERROR_DEVICE_LOST"),
            Map.entry(-6, "VK_ERROR_LAYER_NOT_PRESENT"), Map.entry(-7, "VK_ERROR_EXTENSION_NOT_PRESENT"),
            Map.entry(-8, "VK_ERROR_FEATURE_NOT_PRESENT"), Map.entry(-9, "VK_ERROR_INCOMPATIBLE_DRIVER"),
            Map.entry(-10, "VK_ERROR_TOO_MANY_OBJECTS"), Map.entry(-1000072003, "VK_ERROR_INVALID_EXTERNAL_HANDLE"));

    /** {@code VK_MAKE_API_VERSION(0, 1, 2, 0)}. */
    static final int API_VERSION_1_2 = (1 << 22) | (2 << 12);
    static final String EXTERNAL_SEMAPHORE_FD = "VK_KHR_external_semaphore_fd";
    static final int SEMAPHORE_TYPE_TIMELINE = 1;
    static final int EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD = 0x1;
    static final int EXTERNAL_SEMAPHORE_FEATURE_EXPORTABLE = 0x1;

    // VkStructureType values
    static final int APPLICATION_INFO = 0;
    static final int INSTANCE_CREATE_INFO = 1;
    static final int DEVICE_QUEUE_CREATE_INFO = 2;
    static final int DEVICE_CREATE_INFO = 3;
    static final int SEMAPHORE_CREATE_INFO = 9;
    static final int PHYSICAL_DEVICE_FEATURES_2 = 1000059000;
    static final int PHYSICAL_DEVICE_PROPERTIES_2 = 1000059001;
    static final int PHYSICAL_DEVICE_ID_PROPERTIES = 1000071004;
    static final int PHYSICAL_DEVICE_EXTERNAL_SEMAPHORE_INFO = 1000076000;
    static final int EXTERNAL_SEMAPHORE_PROPERTIES = 1000076001;
    static final int EXPORT_SEMAPHORE_CREATE_INFO = 1000077000;
    static final int SEMAPHORE_GET_FD_INFO_KHR = 1000079001;
    static final int PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES = 1000207000;
    static final int SEMAPHORE_TYPE_CREATE_INFO = 1000207002;
    static final int SEMAPHORE_WAIT_INFO = 1000207004;
    static final int SEMAPHORE_SIGNAL_INFO = 1000207005;

    private static final Linker LINKER = Linker.nativeLinker();
    private static MethodHandle getInstanceProcAddr;
    private static String loaderProblem;

    private Vk() {}

    /** {@code vkGetInstanceProcAddr} of the system's loader, loaded once; throws with the reason where there is none. */
    static synchronized MethodHandle getInstanceProcAddr() {
        if (getInstanceProcAddr == null && loaderProblem == null) {
            try {
                SymbolLookup loader = SymbolLookup.libraryLookup("libvulkan.so.1", Arena.global());
                getInstanceProcAddr = LINKER.downcallHandle(loader.findOrThrow("vkGetInstanceProcAddr"),
                        FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS));
            } catch (IllegalArgumentException | java.util.NoSuchElementException e) {
                loaderProblem = "no Vulkan loader: libvulkan.so.1 does not load (" + e.getMessage()
                        + "; Debian: apt-get install libvulkan1 mesa-vulkan-drivers)";
            }
        }
        if (getInstanceProcAddr == null) {
            throw new VulkanUnavailableException(loaderProblem);
        }
        return getInstanceProcAddr;
    }

    /** A command of {@code instance} (NULL: a global command) bound to {@code descriptor}. */
    static MethodHandle instanceCommand(MemorySegment instance, String name, FunctionDescriptor descriptor) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment pointer = (MemorySegment) getInstanceProcAddr().invokeExact(instance, arena.allocateFrom(name));
            return bind(pointer, name, descriptor);
        } catch (RuntimeException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** A device command through {@code vkGetDeviceProcAddr}. */
    static MethodHandle deviceCommand(MethodHandle getDeviceProcAddr, MemorySegment device, String name,
                                      FunctionDescriptor descriptor) {
        try (Arena arena = Arena.ofConfined()) {
            return bind((MemorySegment) getDeviceProcAddr.invokeExact(device, arena.allocateFrom(name)), name, descriptor);
        } catch (RuntimeException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    private static MethodHandle bind(MemorySegment pointer, String name, FunctionDescriptor descriptor) {
        if (pointer.equals(MemorySegment.NULL)) {
            throw new VulkanUnavailableException("the Vulkan loader has no " + name);
        }
        return LINKER.downcallHandle(pointer, descriptor);
    }

    /** A zeroed struct of {@code size} bytes with its {@code sType} (offset 0) and {@code pNext} (offset 8). */
    static MemorySegment struct(Arena arena, long size, int sType, MemorySegment next) {
        MemorySegment struct = arena.allocate(size, 8);
        struct.set(JAVA_INT, 0, sType);
        struct.set(ADDRESS, 8, next);
        return struct;
    }

    static String resultName(int result) {
        return RESULT_NAMES.getOrDefault(result, "VkResult " + result);
    }

    /** Throws unless {@code result} is VK_SUCCESS. */
    static void check(int result, String call) {
        if (result != SUCCESS) {
            throw new IllegalStateException(call + " returned " + resultName(result));
        }
    }

    static String version(int apiVersion) {
        return (apiVersion >>> 22 & 0x7F) + "." + (apiVersion >>> 12 & 0x3FF) + "." + (apiVersion & 0xFFF);
    }
}
