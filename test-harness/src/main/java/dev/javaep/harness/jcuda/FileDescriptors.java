package dev.javaep.harness.jcuda;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * POSIX file descriptors as apps pass them to importers ({@link VmmBuffer#exportFd()}, Vulkan's
 * {@code vkGetMemoryFdKHR}): whether one is still open, where it points, and closing the ones nobody
 * took. Whether an importer takes ownership of an fd is the EP's contract, and these let tests check it.
 * Linux only.
 */
public final class FileDescriptors {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CALL_STATE.varHandle(groupElement("errno"));
    private static final int F_GETFD = 1;
    private static final int EBADF = 9;

    // fcntl is variadic; F_GETFD passes no third argument
    private static final MethodHandle FCNTL = LINKER.downcallHandle(LINKER.defaultLookup().findOrThrow("fcntl"),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT), Linker.Option.firstVariadicArg(2),
            Linker.Option.captureCallState("errno"));
    private static final MethodHandle CLOSE = LINKER.downcallHandle(LINKER.defaultLookup().findOrThrow("close"),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT), Linker.Option.captureCallState("errno"));

    private FileDescriptors() {}

    /** Whether {@code fd} is an open descriptor of this process ({@code fcntl(fd, F_GETFD)} succeeds). */
    public static boolean isOpen(int fd) {
        if (fd < 0) {
            return false;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CALL_STATE);
            int result = (int) FCNTL.invokeExact(state, fd, F_GETFD);
            if (result != -1) {
                return true;
            }
            int errno = (int) ERRNO.get(state, 0L);
            if (errno == EBADF) {
                return false;
            }
            throw new IllegalStateException("javaep: fcntl(" + fd + ", F_GETFD) failed with errno " + errno);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /**
     * What {@code fd} refers to, as {@code /proc/self/fd} shows it (a CUDA export reads like
     * {@code /dev/nvidiactl} or {@code anon_inode:...}, depending on the driver); empty when it is not open.
     */
    public static Optional<String> target(int fd) {
        try {
            return Optional.of(Files.readSymbolicLink(Path.of("/proc/self/fd", Integer.toString(fd))).toString());
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /**
     * {@code close(fd)}, for an fd no importer took.
     *
     * @throws IllegalStateException with the errno when close fails (EBADF: it was not open)
     */
    public static void close(int fd) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CALL_STATE);
            int result = (int) CLOSE.invokeExact(state, fd);
            if (result != 0) {
                int errno = (int) ERRNO.get(state, 0L);
                throw new IllegalStateException("javaep: close(" + fd + ") failed with errno " + errno
                        + (errno == EBADF ? " (EBADF: not an open descriptor; did an importer take and close it?)" : ""));
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }
}
