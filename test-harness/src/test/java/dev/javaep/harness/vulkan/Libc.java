package dev.javaep.harness.vulkan;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/** The few POSIX calls the tests make on exported fds (Linux, 64-bit), through FFM; errors carry errno. */
final class Libc {
    static final int PROT_READ = 1;
    static final int PROT_WRITE = 2;
    static final int MAP_SHARED = 1;
    static final int SEEK_SET = 0;
    static final int SEEK_END = 2;
    private static final int SC_PAGESIZE = 30;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO =
            CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final MethodHandle MMAP = function("mmap", FunctionDescriptor.of(ValueLayout.ADDRESS,
            ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
            ValueLayout.JAVA_LONG));
    private static final MethodHandle MUNMAP = function("munmap",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG));
    private static final MethodHandle CLOSE = function("close",
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
    private static final MethodHandle LSEEK = function("lseek",
            FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
    private static final MethodHandle SYSCONF = function("sysconf",
            FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));

    private Libc() {}

    /** {@code mmap(NULL, length, protection, flags, fd, offset)}, as a segment of {@code length} bytes. */
    static MemorySegment mmap(long length, int protection, int flags, int fd, long offset) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CALL_STATE);
            MemorySegment address = (MemorySegment) MMAP.invokeExact(state, MemorySegment.NULL, length, protection, flags,
                    fd, offset);
            if (address.address() == -1L) {
                throw failure("mmap(fd " + fd + ", length " + length + ", offset " + offset + ")", state);
            }
            return address.reinterpret(length);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    static void munmap(MemorySegment mapping) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CALL_STATE);
            if ((int) MUNMAP.invokeExact(state, mapping, mapping.byteSize()) != 0) {
                throw failure("munmap", state);
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    static void close(int fd) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CALL_STATE);
            if ((int) CLOSE.invokeExact(state, fd) != 0) {
                throw failure("close(" + fd + ")", state);
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** The size of the file behind {@code fd}; leaves its offset at 0 (shared with dup'ed fds, e.g. the driver's). */
    static long fileSize(int fd) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CALL_STATE);
            long size = (long) LSEEK.invokeExact(state, fd, 0L, SEEK_END);
            if (size < 0) {
                throw failure("lseek(" + fd + ", 0, SEEK_END)", state);
            }
            if ((long) LSEEK.invokeExact(state, fd, 0L, SEEK_SET) < 0) {
                throw failure("lseek(" + fd + ", 0, SEEK_SET)", state);
            }
            return size;
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    static long pageSize() {
        try {
            return (long) SYSCONF.invokeExact(SC_PAGESIZE);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** What {@code fd} is, as the kernel names it: a path, "/memfd:NAME (deleted)", "anon_inode:sync_file"... */
    static String describeFd(int fd) {
        try {
            return Files.readSymbolicLink(Path.of("/proc/self/fd/" + fd)).toString();
        } catch (Exception e) {
            return "unknown (" + e + ")";
        }
    }

    /** How many fds this process has open ({@code /proc/self/fd}, less the one listing it). */
    static long openFileDescriptors() {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.count() - 1;
        } catch (Exception e) {
            throw new AssertionError("cannot list /proc/self/fd", e);
        }
    }

    private static MethodHandle function(String name, FunctionDescriptor descriptor) {
        MemorySegment symbol = LINKER.defaultLookup().find(name)
                .orElseThrow(() -> new AssertionError("libc has no " + name));
        return name.equals("sysconf")
                ? LINKER.downcallHandle(symbol, descriptor)
                : LINKER.downcallHandle(symbol, descriptor, Linker.Option.captureCallState("errno"));
    }

    private static IllegalStateException failure(String call, MemorySegment state) {
        int errno = (int) ERRNO.get(state, 0L);
        return new IllegalStateException(call + " failed: errno " + errno);
    }
}
