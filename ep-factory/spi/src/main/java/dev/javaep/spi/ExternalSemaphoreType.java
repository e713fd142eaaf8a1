package dev.javaep.spi;

import java.util.Optional;

/** {@code OrtExternalSemaphoreType}: a 64-bit timeline (a D3D12 fence or a Vulkan timeline semaphore). */
public enum ExternalSemaphoreType {
    /** A shared NT HANDLE of an {@code ID3D12Fence} created with D3D12_FENCE_FLAG_SHARED. */
    D3D12_FENCE(0, ExternalMemoryType.NativeHandleKind.WIN32_HANDLE),
    /** A HANDLE from {@code vkGetSemaphoreWin32HandleKHR} of a timeline semaphore. */
    VK_TIMELINE_SEMAPHORE_WIN32(1, ExternalMemoryType.NativeHandleKind.WIN32_HANDLE),
    /** An fd from {@code vkGetSemaphoreFdKHR} (OPAQUE_FD) of a timeline semaphore. */
    VK_TIMELINE_SEMAPHORE_OPAQUE_FD(2, ExternalMemoryType.NativeHandleKind.FILE_DESCRIPTOR);

    private final int ortValue;
    private final ExternalMemoryType.NativeHandleKind handleKind;

    ExternalSemaphoreType(int ortValue, ExternalMemoryType.NativeHandleKind handleKind) {
        this.ortValue = ortValue;
        this.handleKind = handleKind;
    }

    public int ortValue() {
        return ortValue;
    }

    public ExternalMemoryType.NativeHandleKind handleKind() {
        return handleKind;
    }

    public static Optional<ExternalSemaphoreType> fromOrt(int value) {
        for (ExternalSemaphoreType type : values()) {
            if (type.ortValue == value) {
                return Optional.of(type);
            }
        }
        return Optional.empty();
    }
}
