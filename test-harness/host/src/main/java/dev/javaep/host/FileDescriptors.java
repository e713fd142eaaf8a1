package dev.javaep.host;

import dev.javaep.os.Posix;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * POSIX file descriptors as apps pass them to importers (JCuda's {@code cuMemExportToShareableHandle},
 * Vulkan's {@code vkGetMemoryFdKHR}): whether one is still open, where it points, which are open, and
 * closing the ones nobody took. Whether an importer takes ownership of an fd is the EP's contract, and
 * these let tests check it. The calls are javaep's own {@link Posix}; Linux only.
 */
public final class FileDescriptors {
    private static final Path PROC_FDS = Path.of("/proc/self/fd");

    private FileDescriptors() {}

    /** Whether {@code fd} is an open descriptor of this process. */
    public static boolean isOpen(int fd) {
        return fd >= 0 && Posix.isOpen(fd);
    }

    /**
     * What {@code fd} refers to, as {@code /proc/self/fd} shows it ({@code /memfd:NAME (deleted)},
     * {@code /dev/nvidiactl}, {@code anon_inode:...}); empty when it is not open.
     */
    public static Optional<String> target(int fd) {
        try {
            return Optional.of(Files.readSymbolicLink(PROC_FDS.resolve(Integer.toString(fd))).toString());
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** The fds open now, without the one that lists them. */
    public static List<Integer> open() {
        List<Integer> listed;
        try (Stream<Path> fds = Files.list(PROC_FDS)) {
            listed = fds.map(p -> Integer.parseInt(p.getFileName().toString())).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        // The listing's own fd is closed by now: keep only what is still open.
        return listed.stream().filter(FileDescriptors::isOpen).toList();
    }

    /** {@code close(fd)}, for an fd no importer took; throws with errno's text when it was not open. */
    public static void close(int fd) {
        Posix.close(fd);
    }
}
