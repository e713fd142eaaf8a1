package dev.javaep.harness.interop;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.javaep.os.Posix;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * A shared-memory buffer as a media pipeline owns one: a memfd, mapped here for the app's own reads
 * and writes. {@link #exportFd()} hands out a new fd (a dup), as {@code vkGetMemoryFdKHR} does.
 */
public final class MemFd implements AutoCloseable {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle MEMFD_CREATE = LINKER.downcallHandle(
            LINKER.defaultLookup().findOrThrow("memfd_create"), FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle FTRUNCATE = LINKER.downcallHandle(
            LINKER.defaultLookup().findOrThrow("ftruncate"), FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG));

    private final int fd;
    private final long size;
    private final MemorySegment mapping;

    public MemFd(long size) {
        try (Arena arena = Arena.ofConfined()) {
            int created = (int) MEMFD_CREATE.invokeExact(arena.allocateFrom("javaep-test"), 0);
            if (created < 0 || (int) FTRUNCATE.invokeExact(created, size) != 0) {
                throw new IllegalStateException("memfd_create/ftruncate failed");
            }
            this.fd = created;
        } catch (RuntimeException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
        this.size = size;
        this.mapping = MemorySegment.ofAddress(Posix.mapShared(fd, size)).reinterpret(size);
    }

    public int exportFd() {
        return Posix.dup(fd);
    }

    public long size() {
        return size;
    }

    public void writeFloats(long offset, float[] values) {
        MemorySegment.copy(values, 0, mapping, JAVA_FLOAT, offset, values.length);
    }

    public float[] readFloats(long offset, int count) {
        return mapping.asSlice(offset, (long) count * Float.BYTES).toArray(JAVA_FLOAT);
    }

    @Override
    public void close() {
        Posix.unmap(mapping.address(), size);
        Posix.close(fd);
    }
}
