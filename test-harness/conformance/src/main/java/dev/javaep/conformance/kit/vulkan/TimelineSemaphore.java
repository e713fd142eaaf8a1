package dev.javaep.conformance.kit.vulkan;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A Vulkan timeline semaphore of a {@link VulkanDevice}: a 64-bit counter the host signals, waits on and reads, and
 * that an EP's importer can take as {@code VK_TIMELINE_SEMAPHORE_OPAQUE_FD} from {@link #exportOpaqueFd}.
 */
public final class TimelineSemaphore implements AutoCloseable {
    private final VulkanDevice device;
    private final long handle;
    private final boolean exportable;
    private boolean closed;

    TimelineSemaphore(VulkanDevice device, long handle, boolean exportable) {
        this.device = device;
        this.handle = handle;
        this.exportable = exportable;
    }

    /**
     * A new POSIX fd of the semaphore ({@code vkGetSemaphoreFdKHR}, OPAQUE_FD), the caller's to pass on or close.
     * OPAQUE_FD export leaves the semaphore's payload alone (SYNC_FD would not); each call gives another fd.
     */
    public int exportOpaqueFd() {
        if (!exportable) {
            throw new IllegalStateException("the semaphore was created non-exportable");
        }
        try (Arena arena = Arena.ofConfined()) {
            // VkSemaphoreGetFdInfoKHR { sType, pNext, semaphore @16, handleType @24 }
            MemorySegment info = Vk.struct(arena, 32, Vk.SEMAPHORE_GET_FD_INFO_KHR, MemorySegment.NULL);
            info.set(JAVA_LONG, 16, live());
            info.set(JAVA_INT, 24, Vk.EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD);
            MemorySegment fd = arena.allocate(JAVA_INT);
            Vk.check((int) device.semaphoreFd.invokeExact(device.handle(), info, fd), "vkGetSemaphoreFdKHR");
            return fd.get(JAVA_INT, 0);
        } catch (RuntimeException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** The counter now ({@code vkGetSemaphoreCounterValue}); does not block. */
    public long value() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment value = arena.allocate(JAVA_LONG);
            Vk.check((int) device.counterValue.invokeExact(device.handle(), live(), value), "vkGetSemaphoreCounterValue");
            return value.get(JAVA_LONG, 0);
        } catch (RuntimeException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** Sets the counter to {@code value} from the host ({@code vkSignalSemaphore}); Vulkan wants it above the current one. */
    public void signal(long value) {
        try (Arena arena = Arena.ofConfined()) {
            // VkSemaphoreSignalInfo { sType, pNext, semaphore @16, value @24 }
            MemorySegment info = Vk.struct(arena, 32, Vk.SEMAPHORE_SIGNAL_INFO, MemorySegment.NULL);
            info.set(JAVA_LONG, 16, live());
            info.set(JAVA_LONG, 24, value);
            Vk.check((int) device.signalSemaphore.invokeExact(device.handle(), info), "vkSignalSemaphore");
        } catch (RuntimeException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /**
     * Blocks until the counter reaches {@code value} or {@code timeoutNanos} pass ({@code vkWaitSemaphores}).
     *
     * @return true when the value was reached, false on timeout
     */
    public boolean await(long value, long timeoutNanos) {
        try (Arena arena = Arena.ofConfined()) {
            // VkSemaphoreWaitInfo { sType, pNext, flags @16, semaphoreCount @20, pSemaphores @24, pValues @32 }
            MemorySegment info = Vk.struct(arena, 40, Vk.SEMAPHORE_WAIT_INFO, MemorySegment.NULL);
            info.set(JAVA_INT, 20, 1);
            info.set(ADDRESS, 24, arena.allocateFrom(JAVA_LONG, live()));
            info.set(ADDRESS, 32, arena.allocateFrom(JAVA_LONG, value));
            int result = (int) device.waitSemaphores.invokeExact(device.handle(), info, Math.max(0, timeoutNanos));
            if (result == Vk.TIMEOUT) {
                return false;
            }
            Vk.check(result, "vkWaitSemaphores");
            return true;
        } catch (RuntimeException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    private long live() {
        if (closed) {
            throw new IllegalStateException("the timeline semaphore is closed");
        }
        return handle;
    }

    /** {@code vkDestroySemaphore}; fds exported from it stay valid (an importer holds its own reference). Idempotent. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            device.destroy(this, handle);
        }
    }
}
