package dev.javaep.examples.vulkan;

import static org.lwjgl.vulkan.KHRExternalMemoryFd.vkGetMemoryFdKHR;
import static org.lwjgl.vulkan.VK10.VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
import static org.lwjgl.vulkan.VK10.VK_BUFFER_USAGE_TRANSFER_DST_BIT;
import static org.lwjgl.vulkan.VK10.VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
import static org.lwjgl.vulkan.VK10.VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
import static org.lwjgl.vulkan.VK10.VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
import static org.lwjgl.vulkan.VK10.VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
import static org.lwjgl.vulkan.VK10.VK_NULL_HANDLE;
import static org.lwjgl.vulkan.VK10.VK_SHARING_MODE_EXCLUSIVE;
import static org.lwjgl.vulkan.VK10.VK_WHOLE_SIZE;
import static org.lwjgl.vulkan.VK10.vkAllocateMemory;
import static org.lwjgl.vulkan.VK10.vkBindBufferMemory;
import static org.lwjgl.vulkan.VK10.vkCreateBuffer;
import static org.lwjgl.vulkan.VK10.vkDestroyBuffer;
import static org.lwjgl.vulkan.VK10.vkFreeMemory;
import static org.lwjgl.vulkan.VK10.vkGetBufferMemoryRequirements;
import static org.lwjgl.vulkan.VK10.vkMapMemory;
import static org.lwjgl.vulkan.VK10.vkUnmapMemory;
import static org.lwjgl.vulkan.VK11.VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import org.lwjgl.PointerBuffer;
import org.lwjgl.system.MemoryStack;
import org.lwjgl.vulkan.VkBufferCreateInfo;
import org.lwjgl.vulkan.VkDevice;
import org.lwjgl.vulkan.VkExportMemoryAllocateInfo;
import org.lwjgl.vulkan.VkExternalMemoryBufferCreateInfo;
import org.lwjgl.vulkan.VkMemoryAllocateInfo;
import org.lwjgl.vulkan.VkMemoryGetFdInfoKHR;
import org.lwjgl.vulkan.VkMemoryRequirements;

/**
 * A Vulkan buffer bound at offset 0 of its own memory allocation, made by
 * {@link VulkanContext#createBuffer}. The allocation is never dedicated
 * ({@code VkMemoryDedicatedAllocateInfo} is not used): importers of the exported fd (CUDA's
 * {@code cuImportExternalMemory}, javaep's importers) map it as a non-dedicated allocation, and a
 * dedicated one would have to be imported with the dedicated flag.
 */
public final class VulkanBuffer implements AutoCloseable {
    /** Every buffer can be copied from, copied to and bound as a storage buffer. */
    static final int USAGE =
            VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;

    /** Where a buffer's memory lives. */
    public enum Placement {
        /** GPU memory; prefers a type that is not host-visible (VRAM rather than the BAR window). */
        DEVICE_LOCAL(VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT),
        /**
         * Host-visible and host-coherent memory, persistently mapped ({@link #mapped()}); prefers a type
         * that is not device-local (system memory rather than the BAR window). On lavapipe every type is both.
         */
        HOST_VISIBLE(VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);

        private final int requiredFlags;
        private final int avoidedFlags;

        Placement(int requiredFlags, int avoidedFlags) {
            this.requiredFlags = requiredFlags;
            this.avoidedFlags = avoidedFlags;
        }

        int requiredFlags() {
            return requiredFlags;
        }

        /** A memory type with these property flags is the one to take when several qualify. */
        boolean preferred(int propertyFlags) {
            return (propertyFlags & avoidedFlags) == 0;
        }
    }

    private final VulkanContext context;
    private final long size;
    private final long allocationSize;
    private final Placement placement;
    private final boolean exportable;
    private final int memoryTypeIndex;
    private final long buffer;
    private final long memory;
    /** Owns the Java view of the mapping, so it is unusable after {@link #close} instead of dangling. */
    private final Arena mappingScope;
    private final MemorySegment mapped;
    private final AtomicBoolean closed = new AtomicBoolean();

    private VulkanBuffer(VulkanContext context, long size, long allocationSize, Placement placement, boolean exportable,
            int memoryTypeIndex, long buffer, long memory, Arena mappingScope, MemorySegment mapped) {
        this.context = context;
        this.size = size;
        this.allocationSize = allocationSize;
        this.placement = placement;
        this.exportable = exportable;
        this.memoryTypeIndex = memoryTypeIndex;
        this.buffer = buffer;
        this.memory = memory;
        this.mappingScope = mappingScope;
        this.mapped = mapped;
    }

    static VulkanBuffer create(VulkanContext context, long size, Placement placement, boolean exportable) {
        Objects.requireNonNull(placement, "placement");
        if (size <= 0) {
            throw new IllegalArgumentException("a buffer needs at least one byte, not " + size);
        }
        VkDevice device = context.vkDevice();
        try (MemoryStack stack = MemoryStack.stackPush()) {
            VkBufferCreateInfo info = VkBufferCreateInfo.calloc(stack).sType$Default()
                    .size(size)
                    .usage(USAGE)
                    .sharingMode(VK_SHARING_MODE_EXCLUSIVE);
            if (exportable) {
                info.pNext(VkExternalMemoryBufferCreateInfo.calloc(stack).sType$Default()
                        .handleTypes(VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT));
            }
            LongBuffer handle = stack.mallocLong(1);
            VulkanException.check(vkCreateBuffer(device, info, null, handle), "vkCreateBuffer");
            long buffer = handle.get(0);
            long memory = VK_NULL_HANDLE;
            try {
                // Asked of the buffer created with the external-memory info: export can narrow the allowed types.
                VkMemoryRequirements requirements = VkMemoryRequirements.malloc(stack);
                vkGetBufferMemoryRequirements(device, buffer, requirements);
                int memoryTypeIndex = context.memoryTypeIndex(requirements.memoryTypeBits(), placement);
                VkMemoryAllocateInfo allocate = VkMemoryAllocateInfo.calloc(stack).sType$Default()
                        .allocationSize(requirements.size())
                        .memoryTypeIndex(memoryTypeIndex);
                if (exportable) {
                    allocate.pNext(VkExportMemoryAllocateInfo.calloc(stack).sType$Default()
                            .handleTypes(VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT));
                }
                VulkanException.check(vkAllocateMemory(device, allocate, null, handle), "vkAllocateMemory");
                memory = handle.get(0);
                VulkanException.check(vkBindBufferMemory(device, buffer, memory, 0), "vkBindBufferMemory");
                Arena mappingScope = null;
                MemorySegment mapped = MemorySegment.NULL;
                if (placement == Placement.HOST_VISIBLE) {
                    PointerBuffer address = stack.mallocPointer(1);
                    VulkanException.check(vkMapMemory(device, memory, 0, VK_WHOLE_SIZE, 0, address), "vkMapMemory");
                    mappingScope = Arena.ofShared();
                    mapped = MemorySegment.ofAddress(address.get(0)).reinterpret(size, mappingScope, null);
                }
                return new VulkanBuffer(context, size, requirements.size(), placement, exportable, memoryTypeIndex,
                        buffer, memory, mappingScope, mapped);
            } catch (RuntimeException | Error e) {
                vkDestroyBuffer(device, buffer, null);
                if (memory != VK_NULL_HANDLE) {
                    vkFreeMemory(device, memory, null); // also unmaps
                }
                throw e;
            }
        }
    }

    /** The buffer's size in bytes, as asked for. */
    public long size() {
        return size;
    }

    /**
     * The size of its memory allocation ({@code VkMemoryRequirements.size}), at least {@link #size()}:
     * what an importer of the exported fd must give as the memory's size (CUDA requires the exact value).
     */
    public long allocationSize() {
        return allocationSize;
    }

    public Placement placement() {
        return placement;
    }

    public boolean isExportable() {
        return exportable;
    }

    /** The index of the memory type the allocation uses. */
    public int memoryTypeIndex() {
        return memoryTypeIndex;
    }

    /**
     * Exports the memory as a POSIX fd ({@code vkGetMemoryFdKHR}, OPAQUE_FD). Each call returns a new fd,
     * which the caller owns: close it, or hand it to an importer that takes ownership (CUDA does on success).
     */
    public int exportOpaqueFd() {
        ensureOpen();
        if (!exportable) {
            throw new IllegalStateException("this buffer was created non-exportable; create it with exportable = true");
        }
        try (MemoryStack stack = MemoryStack.stackPush()) {
            VkMemoryGetFdInfoKHR info = VkMemoryGetFdInfoKHR.calloc(stack).sType$Default()
                    .memory(memory)
                    .handleType(VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT);
            IntBuffer fd = stack.mallocInt(1);
            VulkanException.check(vkGetMemoryFdKHR(context.vkDevice(), info, fd), "vkGetMemoryFdKHR");
            return fd.get(0);
        }
    }

    /**
     * The persistent host mapping of a {@link Placement#HOST_VISIBLE} buffer, {@link #size()} bytes long and
     * coherent (no flushes). Host writes are seen by later submissions; device writes are seen once a
     * submission that made them has signalled a semaphore the host waited on. Unusable after {@link #close}.
     */
    public MemorySegment mapped() {
        ensureOpen();
        if (placement != Placement.HOST_VISIBLE) {
            throw new IllegalStateException("a " + placement + " buffer is not mapped; copy through a HOST_VISIBLE one");
        }
        return mapped;
    }

    /** Writes {@code values} at the start of the host mapping. */
    public void writeFloats(float[] values) {
        checkFloatCount(values.length);
        MemorySegment.copy(values, 0, mapped(), ValueLayout.JAVA_FLOAT, 0, values.length);
    }

    /** Reads {@code count} floats from the start of the host mapping. */
    public float[] readFloats(int count) {
        checkFloatCount(count);
        float[] values = new float[count];
        MemorySegment.copy(mapped(), ValueLayout.JAVA_FLOAT, 0, values, 0, count);
        return values;
    }

    /** Destroys the buffer, then frees its memory (unmapping it). Fds exported earlier stay valid: they hold the memory. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        VkDevice device = context.vkDevice();
        if (mappingScope != null) {
            mappingScope.close();
            vkUnmapMemory(device, memory);
        }
        vkDestroyBuffer(device, buffer, null);
        vkFreeMemory(device, memory, null);
        context.forget(this);
    }

    @Override
    public String toString() {
        return "VulkanBuffer[" + size + " bytes, allocation " + allocationSize + ", " + placement
                + (exportable ? ", exportable" : "") + (closed.get() ? ", closed" : "") + "]";
    }

    VulkanContext context() {
        return context;
    }

    long handle() {
        return buffer;
    }

    void ensureOpen() {
        if (closed.get()) {
            throw new IllegalStateException("the Vulkan buffer is closed");
        }
        context.ensureOpen();
    }

    private void checkFloatCount(int count) {
        if (count < 0 || (long) count * Float.BYTES > size) {
            throw new IndexOutOfBoundsException(count + " floats do not fit in a buffer of " + size + " bytes");
        }
    }
}
