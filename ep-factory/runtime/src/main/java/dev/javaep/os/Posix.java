package dev.javaep.os;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * The few libc calls importers need for file descriptors apps hand over: {@code dup}, {@code close},
 * {@code fstat}, {@code mmap}, {@code munmap}. Linux x86-64 only ({@link #AVAILABLE}): the
 * {@code struct stat} offsets below are that ABI's.
 */
public final class Posix {
    private Posix() {}

    public static final boolean AVAILABLE = System.getProperty("os.name", "").equals("Linux")
            && System.getProperty("os.arch", "").equals("amd64");

    private static final int PROT_READ = 0x1;
    private static final int PROT_WRITE = 0x2;
    private static final int MAP_SHARED = 0x1;
    private static final int S_IFMT = 0xF000;
    private static final int S_IFREG = 0x8000;
    private static final int EBADF = 9;
    /** {@code struct stat} on x86-64 Linux: 144 bytes, st_mode (u32) at 24, st_size (i64) at 48. */
    private static final long STAT_SIZE = 144;
    private static final long ST_MODE = 24;
    private static final long ST_SIZE = 48;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");

    private static final MethodHandle DUP = bind("dup", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    private static final MethodHandle CLOSE = bind("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    private static final MethodHandle FSTAT = bind("fstat", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
    private static final MethodHandle MMAP = bind("mmap",
            FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG));
    private static final MethodHandle MUNMAP = bind("munmap", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle STRERROR = bind("strerror", FunctionDescriptor.of(ADDRESS, JAVA_INT));

    private static MethodHandle bind(String name, FunctionDescriptor descriptor) {
        if (!AVAILABLE) {
            return null;
        }
        MemorySegment symbol = LINKER.defaultLookup().find(name)
                .orElseThrow(() -> new UnsatisfiedLinkError("libc has no " + name));
        return name.equals("strerror") ? LINKER.downcallHandle(symbol, descriptor)
                : LINKER.downcallHandle(symbol, descriptor, CAPTURE_ERRNO);
    }

    /** What {@code fstat} says of an fd. */
    public record FileStatus(boolean regularFile, long size) {}

    /** An error of a libc call, with errno's text. */
    public static final class PosixException extends RuntimeException {
        private final int errno;

        PosixException(String call, int errno) {
            super(call + " failed: " + describe(errno) + " (errno " + errno + ")");
            this.errno = errno;
        }

        public int errno() {
            return errno;
        }
    }

    public static int dup(int fd) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CALL_STATE);
            int result = (int) requireAvailable(DUP).invokeExact(state, fd);
            if (result < 0) {
                throw new PosixException("dup(" + fd + ")", errno(state));
            }
            return result;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public static void close(int fd) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CALL_STATE);
            if ((int) requireAvailable(CLOSE).invokeExact(state, fd) != 0) {
                throw new PosixException("close(" + fd + ")", errno(state));
            }
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public static FileStatus fstat(int fd) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CALL_STATE);
            MemorySegment stat = arena.allocate(STAT_SIZE, 8);
            if ((int) requireAvailable(FSTAT).invokeExact(state, fd, stat) != 0) {
                throw new PosixException("fstat(" + fd + ")", errno(state));
            }
            int mode = stat.get(JAVA_INT, ST_MODE);
            return new FileStatus((mode & S_IFMT) == S_IFREG, stat.get(JAVA_LONG, ST_SIZE));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** Whether {@code fd} is an open descriptor of this process ({@code fstat} does not answer EBADF). */
    public static boolean isOpen(int fd) {
        try {
            fstat(fd);
            return true;
        } catch (PosixException e) {
            if (e.errno() == EBADF) {
                return false;
            }
            throw e;
        }
    }

    /** {@code mmap(NULL, length, PROT_READ|PROT_WRITE, MAP_SHARED, fd, 0)}: the address. */
    public static long mapShared(int fd, long length) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CALL_STATE);
            MemorySegment address = (MemorySegment) requireAvailable(MMAP).invokeExact(state, MemorySegment.NULL, length,
                    PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0L);
            if (address.address() == -1L) { // MAP_FAILED
                throw new PosixException("mmap(fd " + fd + ", " + length + " bytes)", errno(state));
            }
            return address.address();
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public static void unmap(long address, long length) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CALL_STATE);
            if ((int) requireAvailable(MUNMAP).invokeExact(state, MemorySegment.ofAddress(address), length) != 0) {
                throw new PosixException("munmap", errno(state));
            }
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static int errno(MemorySegment state) {
        return (int) ERRNO.get(state, 0L);
    }

    private static String describe(int errno) {
        try {
            MemorySegment text = (MemorySegment) requireAvailable(STRERROR).invokeExact(errno);
            return text.reinterpret(256).getString(0);
        } catch (Throwable t) {
            return "error " + errno;
        }
    }

    private static MethodHandle requireAvailable(MethodHandle handle) {
        if (handle == null) {
            throw new UnsupportedOperationException("javaep: POSIX file descriptors are supported on Linux x86-64 only");
        }
        return handle;
    }

    private static RuntimeException rethrow(Throwable t) {
        return switch (t) {
            case RuntimeException e -> e;
            case Error e -> throw e;
            default -> new IllegalStateException(t);
        };
    }
}
