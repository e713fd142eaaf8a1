package dev.javaep.cuda.driver;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemoryLayout.PathElement;
import java.lang.foreign.StructLayout;
import java.lang.foreign.UnionLayout;

/**
 * The {@code cuda.h} structs javaep fills, as FFM layouts with named byte offsets (x86-64 Linux and
 * Windows x64 lay them out the same: fixed-width fields and pointers only). The {@code reserved}
 * words must be zero, so callers zero the whole struct before setting fields. Sizes and offsets are
 * checked against {@code cuda-interop.md} and, where gcc and {@code cuda.h} exist, against gcc.
 */
public final class CudaStructs {
    private CudaStructs() {}

    private static MemoryLayout reserved(int words) {
        return MemoryLayout.sequenceLayout(words, JAVA_INT).withName("reserved");
    }

    /** {@code union { int fd; struct { void *handle; const void *name; } win32; const void *nvSci...; }}: 16 bytes. */
    private static UnionLayout handleUnion(String nvSciName) {
        return MemoryLayout.unionLayout(
                JAVA_INT.withName("fd"),
                MemoryLayout.structLayout(ADDRESS.withName("handle"), ADDRESS.withName("name")).withName("win32"),
                ADDRESS.withName(nvSciName)).withName("handle");
    }

    /** {@code CUDA_EXTERNAL_MEMORY_HANDLE_DESC}: 104 bytes. */
    public static final StructLayout EXTERNAL_MEMORY_HANDLE_DESC = MemoryLayout.structLayout(
            JAVA_INT.withName("type"),
            MemoryLayout.paddingLayout(4),
            handleUnion("nvSciBufObject"),
            JAVA_LONG.withName("size"),
            JAVA_INT.withName("flags"),
            reserved(16),
            MemoryLayout.paddingLayout(4)).withName("CUDA_EXTERNAL_MEMORY_HANDLE_DESC");

    public static final long EXTERNAL_MEMORY_HANDLE_DESC_TYPE = offset(EXTERNAL_MEMORY_HANDLE_DESC, "type");
    public static final long EXTERNAL_MEMORY_HANDLE_DESC_FD = offset(EXTERNAL_MEMORY_HANDLE_DESC, "handle", "fd");
    public static final long EXTERNAL_MEMORY_HANDLE_DESC_WIN32_HANDLE = offset(EXTERNAL_MEMORY_HANDLE_DESC, "handle", "win32", "handle");
    public static final long EXTERNAL_MEMORY_HANDLE_DESC_WIN32_NAME = offset(EXTERNAL_MEMORY_HANDLE_DESC, "handle", "win32", "name");
    public static final long EXTERNAL_MEMORY_HANDLE_DESC_SIZE = offset(EXTERNAL_MEMORY_HANDLE_DESC, "size");
    public static final long EXTERNAL_MEMORY_HANDLE_DESC_FLAGS = offset(EXTERNAL_MEMORY_HANDLE_DESC, "flags");
    public static final long EXTERNAL_MEMORY_HANDLE_DESC_RESERVED = offset(EXTERNAL_MEMORY_HANDLE_DESC, "reserved");

    /** {@code CUDA_EXTERNAL_MEMORY_BUFFER_DESC}: 88 bytes; {@code flags} must be 0. */
    public static final StructLayout EXTERNAL_MEMORY_BUFFER_DESC = MemoryLayout.structLayout(
            JAVA_LONG.withName("offset"),
            JAVA_LONG.withName("size"),
            JAVA_INT.withName("flags"),
            reserved(16),
            MemoryLayout.paddingLayout(4)).withName("CUDA_EXTERNAL_MEMORY_BUFFER_DESC");

    public static final long EXTERNAL_MEMORY_BUFFER_DESC_OFFSET = offset(EXTERNAL_MEMORY_BUFFER_DESC, "offset");
    public static final long EXTERNAL_MEMORY_BUFFER_DESC_SIZE = offset(EXTERNAL_MEMORY_BUFFER_DESC, "size");
    public static final long EXTERNAL_MEMORY_BUFFER_DESC_FLAGS = offset(EXTERNAL_MEMORY_BUFFER_DESC, "flags");
    public static final long EXTERNAL_MEMORY_BUFFER_DESC_RESERVED = offset(EXTERNAL_MEMORY_BUFFER_DESC, "reserved");

    /** {@code CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC}: 96 bytes. */
    public static final StructLayout EXTERNAL_SEMAPHORE_HANDLE_DESC = MemoryLayout.structLayout(
            JAVA_INT.withName("type"),
            MemoryLayout.paddingLayout(4),
            handleUnion("nvSciSyncObj"),
            JAVA_INT.withName("flags"),
            reserved(16),
            MemoryLayout.paddingLayout(4)).withName("CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC");

    public static final long EXTERNAL_SEMAPHORE_HANDLE_DESC_TYPE = offset(EXTERNAL_SEMAPHORE_HANDLE_DESC, "type");
    public static final long EXTERNAL_SEMAPHORE_HANDLE_DESC_FD = offset(EXTERNAL_SEMAPHORE_HANDLE_DESC, "handle", "fd");
    public static final long EXTERNAL_SEMAPHORE_HANDLE_DESC_WIN32_HANDLE = offset(EXTERNAL_SEMAPHORE_HANDLE_DESC, "handle", "win32", "handle");
    public static final long EXTERNAL_SEMAPHORE_HANDLE_DESC_WIN32_NAME = offset(EXTERNAL_SEMAPHORE_HANDLE_DESC, "handle", "win32", "name");
    public static final long EXTERNAL_SEMAPHORE_HANDLE_DESC_FLAGS = offset(EXTERNAL_SEMAPHORE_HANDLE_DESC, "flags");
    public static final long EXTERNAL_SEMAPHORE_HANDLE_DESC_RESERVED = offset(EXTERNAL_SEMAPHORE_HANDLE_DESC, "reserved");

    /** {@code union { void *fence; unsigned long long reserved; } nvSciSync}. */
    private static UnionLayout nvSciSync() {
        return MemoryLayout.unionLayout(ADDRESS.withName("fence"), JAVA_LONG.withName("reserved")).withName("nvSciSync");
    }

    /** {@code CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS}: 144 bytes; {@code params} is 72. */
    public static final StructLayout EXTERNAL_SEMAPHORE_SIGNAL_PARAMS = MemoryLayout.structLayout(
            MemoryLayout.structLayout(
                    MemoryLayout.structLayout(JAVA_LONG.withName("value")).withName("fence"),
                    nvSciSync(),
                    MemoryLayout.structLayout(JAVA_LONG.withName("key")).withName("keyedMutex"),
                    reserved(12)).withName("params"),
            JAVA_INT.withName("flags"),
            reserved(16),
            MemoryLayout.paddingLayout(4)).withName("CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS");

    public static final long EXTERNAL_SEMAPHORE_SIGNAL_PARAMS_FENCE_VALUE = offset(EXTERNAL_SEMAPHORE_SIGNAL_PARAMS, "params", "fence", "value");
    public static final long EXTERNAL_SEMAPHORE_SIGNAL_PARAMS_KEYED_MUTEX_KEY = offset(EXTERNAL_SEMAPHORE_SIGNAL_PARAMS, "params", "keyedMutex", "key");
    public static final long EXTERNAL_SEMAPHORE_SIGNAL_PARAMS_FLAGS = offset(EXTERNAL_SEMAPHORE_SIGNAL_PARAMS, "flags");
    public static final long EXTERNAL_SEMAPHORE_SIGNAL_PARAMS_RESERVED = offset(EXTERNAL_SEMAPHORE_SIGNAL_PARAMS, "reserved");

    /** {@code CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS}: 144 bytes; {@code params} is 72. */
    public static final StructLayout EXTERNAL_SEMAPHORE_WAIT_PARAMS = MemoryLayout.structLayout(
            MemoryLayout.structLayout(
                    MemoryLayout.structLayout(JAVA_LONG.withName("value")).withName("fence"),
                    nvSciSync(),
                    MemoryLayout.structLayout(
                            JAVA_LONG.withName("key"),
                            JAVA_INT.withName("timeoutMs"),
                            MemoryLayout.paddingLayout(4)).withName("keyedMutex"),
                    reserved(10)).withName("params"),
            JAVA_INT.withName("flags"),
            reserved(16),
            MemoryLayout.paddingLayout(4)).withName("CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS");

    public static final long EXTERNAL_SEMAPHORE_WAIT_PARAMS_FENCE_VALUE = offset(EXTERNAL_SEMAPHORE_WAIT_PARAMS, "params", "fence", "value");
    public static final long EXTERNAL_SEMAPHORE_WAIT_PARAMS_KEYED_MUTEX_KEY = offset(EXTERNAL_SEMAPHORE_WAIT_PARAMS, "params", "keyedMutex", "key");
    public static final long EXTERNAL_SEMAPHORE_WAIT_PARAMS_KEYED_MUTEX_TIMEOUT_MS = offset(EXTERNAL_SEMAPHORE_WAIT_PARAMS, "params", "keyedMutex", "timeoutMs");
    public static final long EXTERNAL_SEMAPHORE_WAIT_PARAMS_FLAGS = offset(EXTERNAL_SEMAPHORE_WAIT_PARAMS, "flags");
    public static final long EXTERNAL_SEMAPHORE_WAIT_PARAMS_RESERVED = offset(EXTERNAL_SEMAPHORE_WAIT_PARAMS, "reserved");

    /** {@code CUuuid}: {@code char bytes[16]}. */
    public static final long UUID_BYTES = 16;
    /** {@code cuDeviceGetLuid} writes 8 bytes: a Windows {@code LUID} ({@code DWORD LowPart; LONG HighPart}). */
    public static final long LUID_BYTES = 8;

    private static long offset(MemoryLayout layout, String... path) {
        PathElement[] elements = new PathElement[path.length];
        for (int i = 0; i < path.length; i++) {
            elements[i] = groupElement(path[i]);
        }
        return layout.byteOffset(elements);
    }
}
