package dev.javaep.spi;

import java.util.Optional;

/**
 * {@code OrtExternalMemoryHandleType}: what kind of allocation an app hands to an
 * {@link ExternalResourceImporter}, and what {@link ExternalMemoryDescriptor#nativeHandle()} holds.
 */
public enum ExternalMemoryType {
    /** A shared NT HANDLE from {@code ID3D12Device::CreateSharedHandle} of a committed resource (a dedicated allocation). */
    D3D12_RESOURCE(0, 24, NativeHandleKind.WIN32_HANDLE),
    /** A shared NT HANDLE of an {@code ID3D12Heap}. */
    D3D12_HEAP(1, 24, NativeHandleKind.WIN32_HANDLE),
    /** A HANDLE from {@code vkGetMemoryWin32HandleKHR} (non-dedicated allocation). ORT 30 calls it MEMORY_WIN32. */
    VK_MEMORY_WIN32(2, 24, NativeHandleKind.WIN32_HANDLE),
    /**
     * A POSIX fd from {@code vkGetMemoryFdKHR} or {@code cuMemExportToShareableHandle} (non-dedicated);
     * also memfd/shared-memory fds for host-memory EPs. ORT 30 calls it MEMORY_OPAQUE_FD.
     */
    VK_MEMORY_OPAQUE_FD(3, 24, NativeHandleKind.FILE_DESCRIPTOR),
    /** A host pointer to memory the app owns (ORT API 30 and later). */
    HOST_ALLOCATION(4, 30, NativeHandleKind.HOST_POINTER);

    /** How the descriptor's {@code native_handle} is to be read. */
    public enum NativeHandleKind {
        /** A Win32 HANDLE; javaep never closes it (the app does). */
        WIN32_HANDLE,
        /** {@code (void*)(intptr_t)fd}; ownership passes to the importer on success only. */
        FILE_DESCRIPTOR,
        /** An address in this process. */
        HOST_POINTER
    }

    private final int ortValue;
    private final int sinceApi;
    private final NativeHandleKind handleKind;

    ExternalMemoryType(int ortValue, int sinceApi, NativeHandleKind handleKind) {
        this.ortValue = ortValue;
        this.sinceApi = sinceApi;
        this.handleKind = handleKind;
    }

    public int ortValue() {
        return ortValue;
    }

    /** The first ORT API version that has this value. */
    public int sinceApi() {
        return sinceApi;
    }

    public NativeHandleKind handleKind() {
        return handleKind;
    }

    public static Optional<ExternalMemoryType> fromOrt(int value) {
        for (ExternalMemoryType type : values()) {
            if (type.ortValue == value) {
                return Optional.of(type);
            }
        }
        return Optional.empty();
    }
}
