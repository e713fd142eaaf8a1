package dev.javaep.examples.vulkan;

import static org.lwjgl.vulkan.KHRExternalSemaphoreFd.vkGetSemaphoreFdKHR;
import static org.lwjgl.vulkan.VK10.VK_SUCCESS;
import static org.lwjgl.vulkan.VK10.VK_TIMEOUT;
import static org.lwjgl.vulkan.VK10.vkCreateSemaphore;
import static org.lwjgl.vulkan.VK10.vkDestroySemaphore;
import static org.lwjgl.vulkan.VK11.VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
import static org.lwjgl.vulkan.VK12.VK_SEMAPHORE_TYPE_TIMELINE;
import static org.lwjgl.vulkan.VK12.vkGetSemaphoreCounterValue;
import static org.lwjgl.vulkan.VK12.vkSignalSemaphore;
import static org.lwjgl.vulkan.VK12.vkWaitSemaphores;

import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.util.concurrent.atomic.AtomicBoolean;
import org.lwjgl.system.MemoryStack;
import org.lwjgl.vulkan.VkDevice;
import org.lwjgl.vulkan.VkExportSemaphoreCreateInfo;
import org.lwjgl.vulkan.VkSemaphoreCreateInfo;
import org.lwjgl.vulkan.VkSemaphoreGetFdInfoKHR;
import org.lwjgl.vulkan.VkSemaphoreSignalInfo;
import org.lwjgl.vulkan.VkSemaphoreTypeCreateInfo;
import org.lwjgl.vulkan.VkSemaphoreWaitInfo;

/**
 * A Vulkan timeline semaphore made by {@link VulkanContext#createTimelineSemaphore}: a 64-bit counter that
 * queue submissions ({@link VulkanContext#submit}) and the host signal and wait on, and that another API
 * (CUDA's {@code TIMELINE_SEMAPHORE_FD}, ORT's external semaphore import) can import from its OPAQUE_FD.
 */
public final class TimelineSemaphore implements AutoCloseable {
    private final VulkanContext context;
    private final long handle;
    private final boolean exportable;
    private final AtomicBoolean closed = new AtomicBoolean();

    TimelineSemaphore(VulkanContext context, long handle, boolean exportable) {
        this.context = context;
        this.handle = handle;
        this.exportable = exportable;
    }

    static long createHandle(VkDevice device, long initialValue, boolean exportable) {
        if (initialValue < 0) {
            throw new IllegalArgumentException("a timeline starts at a value >= 0, not " + initialValue);
        }
        try (MemoryStack stack = MemoryStack.stackPush()) {
            VkSemaphoreTypeCreateInfo type = VkSemaphoreTypeCreateInfo.calloc(stack).sType$Default()
                    .semaphoreType(VK_SEMAPHORE_TYPE_TIMELINE)
                    .initialValue(initialValue);
            VkSemaphoreCreateInfo info = VkSemaphoreCreateInfo.calloc(stack).sType$Default().pNext(type);
            if (exportable) { // LWJGL's typed pNext prepends to the chain: export -> type
                info.pNext(VkExportSemaphoreCreateInfo.calloc(stack).sType$Default()
                        .handleTypes(VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT));
            }
            LongBuffer semaphore = stack.mallocLong(1);
            VulkanException.check(vkCreateSemaphore(device, info, null, semaphore), "vkCreateSemaphore");
            return semaphore.get(0);
        }
    }

    static long counterValue(VkDevice device, long semaphore) {
        try (MemoryStack stack = MemoryStack.stackPush()) {
            LongBuffer value = stack.mallocLong(1);
            VulkanException.check(vkGetSemaphoreCounterValue(device, semaphore, value), "vkGetSemaphoreCounterValue");
            return value.get(0);
        }
    }

    public boolean isExportable() {
        return exportable;
    }

    /**
     * Exports the semaphore as a POSIX fd ({@code vkGetSemaphoreFdKHR}, OPAQUE_FD). OPAQUE_FD export has no
     * side effect on the semaphore (unlike SYNC_FD); each call returns a new fd, which the caller owns.
     */
    public int exportOpaqueFd() {
        ensureOpen();
        if (!exportable) {
            throw new IllegalStateException("this semaphore was created non-exportable; create it with exportable = true");
        }
        try (MemoryStack stack = MemoryStack.stackPush()) {
            VkSemaphoreGetFdInfoKHR info = VkSemaphoreGetFdInfoKHR.calloc(stack).sType$Default()
                    .semaphore(handle)
                    .handleType(VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT);
            IntBuffer fd = stack.mallocInt(1);
            VulkanException.check(vkGetSemaphoreFdKHR(context.vkDevice(), info, fd), "vkGetSemaphoreFdKHR");
            return fd.get(0);
        }
    }

    /** The current counter value ({@code vkGetSemaphoreCounterValue}); does not block. */
    public long value() {
        ensureOpen();
        return counterValue(context.vkDevice(), handle);
    }

    /** Sets the counter to {@code value} from the host; it must be greater than the current value. */
    public void signalFromHost(long value) {
        ensureOpen();
        try (MemoryStack stack = MemoryStack.stackPush()) {
            VkSemaphoreSignalInfo info = VkSemaphoreSignalInfo.calloc(stack).sType$Default()
                    .semaphore(handle)
                    .value(value);
            VulkanException.check(vkSignalSemaphore(context.vkDevice(), info), "vkSignalSemaphore");
        }
    }

    /**
     * Blocks until the counter reaches {@code value} or {@code timeoutNanos} pass ({@code vkWaitSemaphores}).
     *
     * @return true if the value was reached, false on timeout
     */
    public boolean waitOnHost(long value, long timeoutNanos) {
        ensureOpen();
        return waitForValue(context.vkDevice(), handle, value, timeoutNanos);
    }

    static boolean waitForValue(VkDevice device, long semaphore, long value, long timeoutNanos) {
        try (MemoryStack stack = MemoryStack.stackPush()) {
            VkSemaphoreWaitInfo info = VkSemaphoreWaitInfo.calloc(stack).sType$Default()
                    .semaphoreCount(1)
                    .pSemaphores(stack.longs(semaphore))
                    .pValues(stack.longs(value));
            int result = vkWaitSemaphores(device, info, Math.max(0, timeoutNanos));
            if (result == VK_TIMEOUT) {
                return false;
            }
            VulkanException.check(result, "vkWaitSemaphores");
            return result == VK_SUCCESS;
        }
    }

    /** Destroys the semaphore; no pending submission may still wait on or signal it. Exported fds stay valid. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        vkDestroySemaphore(context.vkDevice(), handle, null);
        context.forget(this);
    }

    @Override
    public String toString() {
        return "TimelineSemaphore[" + (exportable ? "exportable" : "not exportable") + (closed.get() ? ", closed" : "") + "]";
    }

    /** The timeline point {@code value} of this semaphore, for {@link VulkanContext#submit}. */
    public SemaphoreValue at(long value) {
        return new SemaphoreValue(this, value);
    }

    VulkanContext context() {
        return context;
    }

    /** "semaphore >= value (now n)", for messages about pending waits. */
    static String describeWait(SemaphoreValue wait) {
        TimelineSemaphore semaphore = wait.semaphore();
        String now = semaphore.closed.get() ? "closed"
                : "now " + counterValue(semaphore.context.vkDevice(), semaphore.handle);
        return semaphore + " >= " + wait.value() + " (" + now + ")";
    }

    long handle() {
        return handle;
    }

    void ensureOpen() {
        if (closed.get()) {
            throw new IllegalStateException("the timeline semaphore is closed");
        }
        context.ensureOpen();
    }
}
