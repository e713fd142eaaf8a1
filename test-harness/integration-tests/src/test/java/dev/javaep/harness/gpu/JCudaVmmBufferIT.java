package dev.javaep.harness.gpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.javaep.examples.jcuda.JCudaApp;
import dev.javaep.examples.jcuda.JCudaUnavailableException;
import dev.javaep.examples.jcuda.VmmBuffer;
import dev.javaep.harness.FloatRamp;
import dev.javaep.host.FileDescriptors;
import java.util.Arrays;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The JCuda app that owns GPU buffers, on its own (no ORT): VMM allocations it can write and read, and
 * POSIX fds exported from them. Skips, with JCuda's reason, where there is no NVIDIA driver.
 */
@Tag("gpu")
class JCudaVmmBufferIT {
    private static final int FLOATS = 1000;

    /** Device 0, or a visible skip. */
    private static JCudaApp app() {
        try {
            return JCudaApp.open(0);
        } catch (JCudaUnavailableException e) {
            assumeTrue(false, "GPU test skipped: JCuda is not usable here (" + e.getMessage() + ")");
            throw new AssertionError(e);
        }
    }

    @Test
    void writesExportsAValidFdAndReadsBack() {
        try (JCudaApp app = app(); VmmBuffer buffer = app.allocate((long) FLOATS * Float.BYTES)) {
            System.out.println("[JCudaVmmBufferIT] " + app + ": " + buffer);
            assertEquals(16, app.deviceUuid().length);
            assertTrue(buffer.size() >= buffer.requestedBytes(), "rounded up, never down");
            assertEquals(0, buffer.size() % (64 * 1024), "a granularity multiple (at least 64 KiB on any CUDA GPU)");

            float[] values = FloatRamp.of(FLOATS, 1, 0.5f);
            buffer.writeFloats(values);

            int fd = buffer.exportFd();
            try {
                assertTrue(FileDescriptors.isOpen(fd), "exported fd " + fd + " is open");
                String target = FileDescriptors.target(fd).orElseThrow();
                System.out.println("[JCudaVmmBufferIT] exported fd " + fd + " -> " + target);
            } finally {
                FileDescriptors.close(fd);
            }

            assertArrayEquals(values, buffer.readFloats(FLOATS), "exporting does not disturb the contents");
        }
    }

    @Test
    void eachExportIsANewFdOfItsOwn() {
        try (JCudaApp app = app(); VmmBuffer buffer = app.allocate(1)) {
            int first = buffer.exportFd();
            int second = buffer.exportFd();
            try {
                assertNotEquals(first, second);
                assertTrue(FileDescriptors.isOpen(first) && FileDescriptors.isOpen(second));
            } finally {
                FileDescriptors.close(first);
            }
            assertTrue(FileDescriptors.isOpen(second), "closing one export leaves the other open");
            FileDescriptors.close(second);
        }
    }

    @Test
    void fillAndOffsetsCoverTheWholeAllocation() {
        try (JCudaApp app = app(); VmmBuffer buffer = app.allocate(4096)) {
            buffer.fill(2.5f);
            int floats = (int) (buffer.size() / Float.BYTES);
            float[] expected = new float[16];
            Arrays.fill(expected, 2.5f);
            assertArrayEquals(expected, buffer.readFloats(buffer.size() - 16L * Float.BYTES, 16), "fill reaches the rounded end");

            float[] tail = FloatRamp.of(8, -3, 0.5f);
            buffer.writeFloats(1024, tail);
            assertArrayEquals(tail, buffer.readFloats(1024, tail.length));
            assertEquals(2.5f, buffer.readFloats(1024 - Float.BYTES, 1)[0], "writes at an offset leave the bytes before alone");
            assertThrows(IndexOutOfBoundsException.class, () -> buffer.readFloats(floats + 1));
        }
    }

    @Test
    void closingTheAppClosesItsBuffers() {
        VmmBuffer buffer;
        try (JCudaApp app = app()) {
            buffer = app.allocate(1 << 20);
            buffer.writeFloats(new float[] {1, 2, 3});
        }
        assertThrows(IllegalStateException.class, buffer::exportFd, "the app closed the buffer with it");
        buffer.close(); // idempotent
    }
}
