package dev.javaep.conformance.kit;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.javaep.host.FileDescriptors;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A memfd the kit owns, filled with floats: the one real external-memory handle a host can make without a GPU API
 * (libc through FFM: the kit uses the host binding and libc, not javaep's runtime). {@link #export()} hands out a new fd of it, as {@code vkGetMemoryFdKHR} would; each file has a
 * name of its own, so {@link #refersToThis} tells its fds from any other.
 */
final class SharedMemoryFile implements AutoCloseable {
    private static final MethodHandle MEMFD_CREATE = libc("memfd_create", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle FTRUNCATE = libc("ftruncate", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG));
    private static final MethodHandle DUP = libc("dup", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    /** {@code pwrite}/{@code pread}: {@code ssize_t (int fd, void* buf, size_t count, off_t offset)}. */
    private static final MethodHandle PWRITE = libc("pwrite", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG));
    private static final MethodHandle PREAD = libc("pread", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG));
    private static final AtomicInteger FILES = new AtomicInteger();

    private final String name = "javaep-conformance-" + FILES.incrementAndGet();
    private final int fd;
    private final long size;

    /** A file of {@code values.length} floats holding {@code values}. */
    SharedMemoryFile(float[] values) {
        long size = (long) values.length * Float.BYTES;
        try (Arena arena = Arena.ofConfined()) {
            int created = (int) MEMFD_CREATE.invokeExact(arena.allocateFrom(name), 0);
            if (created < 0) {
                throw new IllegalStateException("memfd_create failed");
            }
            MemorySegment bytes = arena.allocateFrom(JAVA_FLOAT, values);
            if ((int) FTRUNCATE.invokeExact(created, size) != 0
                    || (long) PWRITE.invokeExact(created, bytes, size, 0L) != size) {
                FileDescriptors.close(created);
                throw new IllegalStateException("ftruncate/pwrite of a memfd failed");
            }
            fd = created;
        } catch (RuntimeException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
        this.size = size;
    }

    private static MethodHandle libc(String function, FunctionDescriptor descriptor) {
        Linker linker = Linker.nativeLinker();
        return linker.downcallHandle(linker.defaultLookup().findOrThrow(function), descriptor);
    }

    long size() {
        return size;
    }

    /** A new fd of this file (the caller's to pass on or close). */
    int export() {
        try {
            int copy = (int) DUP.invokeExact(fd);
            if (copy < 0) {
                throw new IllegalStateException("dup of a memfd failed");
            }
            return copy;
        } catch (RuntimeException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** Whether {@code someFd} is open on this file (and not on another that took its number). */
    boolean refersToThis(int someFd) {
        return FileDescriptors.target(someFd).map(t -> t.contains("/memfd:" + name + " ")).orElse(false);
    }

    /** The kit's own fd of the file: a caller's handle the importer must leave alone. */
    int ownFd() {
        return fd;
    }

    /** The floats as the file holds them now, read through the kit's own fd (which must therefore still work). */
    float[] floats() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment bytes = arena.allocate(size);
            if ((long) PREAD.invokeExact(fd, bytes, size, 0L) != size) {
                throw new IllegalStateException("pread of the kit's own memfd fd " + fd + " failed");
            }
            return bytes.toArray(JAVA_FLOAT);
        } catch (RuntimeException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    @Override
    public void close() {
        FileDescriptors.close(fd);
    }
}
