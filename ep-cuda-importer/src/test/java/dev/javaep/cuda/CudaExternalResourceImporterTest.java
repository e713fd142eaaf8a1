package dev.javaep.cuda;

import static dev.javaep.cuda.driver.FakeCuda.K_FD;
import static dev.javaep.cuda.driver.FakeCuda.K_FENCE_VALUE;
import static dev.javaep.cuda.driver.FakeCuda.K_HANDLE;
import static dev.javaep.cuda.driver.FakeCuda.K_OFFSET;
import static dev.javaep.cuda.driver.FakeCuda.K_SIZE;
import static dev.javaep.cuda.driver.FakeCuda.K_STREAM;
import static dev.javaep.cuda.driver.FakeCuda.K_TYPE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.cuda.driver.CudaDriver;
import dev.javaep.cuda.driver.CudaHandleTypes;
import dev.javaep.cuda.driver.FakeCuda;
import dev.javaep.os.Posix;
import dev.javaep.spi.DeviceStream;
import dev.javaep.spi.ExternalMemoryDescriptor;
import dev.javaep.spi.ExternalMemoryType;
import dev.javaep.spi.ExternalSemaphoreDescriptor;
import dev.javaep.spi.ExternalSemaphoreType;
import dev.javaep.spi.ImportedMemory;
import dev.javaep.spi.ImportedSemaphore;
import dev.javaep.spi.StreamNotification;
import java.io.FileInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The CUDA importer's handle mapping and calls for both OSes, against the stand-in libcuda (which
 * records what the driver was given). The Windows paths run here with {@code windows = true}: the
 * same classes would run on Windows, where D3D12 itself cannot be exercised in CI.
 */
class CudaExternalResourceImporterTest {
    private static FakeCuda fake;
    private static CudaDevice device;

    @BeforeAll
    static void fakeDevice() {
        fake = FakeCuda.build();
        CudaDriver driver = fake.driver();
        device = new CudaDevice(driver, driver.deviceInfo(0));
    }

    @Test
    void windowsImportsD3D12AndVulkanWin32HandlesOnly() {
        var importer = new CudaExternalResourceImporter(device, true);
        assertTrue(importer.canImportMemory(ExternalMemoryType.D3D12_RESOURCE));
        assertTrue(importer.canImportMemory(ExternalMemoryType.D3D12_HEAP));
        assertTrue(importer.canImportMemory(ExternalMemoryType.VK_MEMORY_WIN32));
        assertFalse(importer.canImportMemory(ExternalMemoryType.VK_MEMORY_OPAQUE_FD));
        assertFalse(importer.canImportMemory(ExternalMemoryType.HOST_ALLOCATION));
        assertTrue(importer.canImportSemaphore(ExternalSemaphoreType.D3D12_FENCE));
        assertTrue(importer.canImportSemaphore(ExternalSemaphoreType.VK_TIMELINE_SEMAPHORE_WIN32));
        assertFalse(importer.canImportSemaphore(ExternalSemaphoreType.VK_TIMELINE_SEMAPHORE_OPAQUE_FD));
        assertThrows(UnsupportedOperationException.class, () -> importer.importMemory(
                new ExternalMemoryDescriptor(ExternalMemoryType.VK_MEMORY_OPAQUE_FD, 5, 4096, 0)));
    }

    @Test
    void linuxImportsOpaqueFdsOnly() {
        var importer = new CudaExternalResourceImporter(device, false);
        assertEquals(Posix.AVAILABLE, importer.canImportMemory(ExternalMemoryType.VK_MEMORY_OPAQUE_FD));
        assertFalse(importer.canImportMemory(ExternalMemoryType.D3D12_RESOURCE));
        assertFalse(importer.canImportMemory(ExternalMemoryType.D3D12_HEAP));
        assertFalse(importer.canImportMemory(ExternalMemoryType.VK_MEMORY_WIN32));
        assertEquals(Posix.AVAILABLE, importer.canImportSemaphore(ExternalSemaphoreType.VK_TIMELINE_SEMAPHORE_OPAQUE_FD));
        assertFalse(importer.canImportSemaphore(ExternalSemaphoreType.D3D12_FENCE));
        UnsupportedOperationException refused = assertThrows(UnsupportedOperationException.class, () -> importer.importMemory(
                new ExternalMemoryDescriptor(ExternalMemoryType.D3D12_RESOURCE, 0x1234, 4096, 0)));
        assertTrue(refused.getMessage().contains("D3D12_RESOURCE"), refused.getMessage());
    }

    @Test
    void d3d12ResourceIsADedicatedImportMappedFromTheOffset() {
        var importer = new CudaExternalResourceImporter(device, true);
        try (ImportedMemory memory = importer.importMemory(
                new ExternalMemoryDescriptor(ExternalMemoryType.D3D12_RESOURCE, 0x1234, 8192, 256))) {
            assertEquals(CudaHandleTypes.MEMORY_D3D12_RESOURCE, fake.last(K_TYPE));
            assertEquals(0x1234, fake.last(K_HANDLE));
            assertEquals(256, fake.last(K_OFFSET));
            assertEquals(8192 - 256, fake.last(K_SIZE));
            assertEquals(0xD0000000L + 256, memory.address());
            assertEquals(8192 - 256, memory.byteSize());
        }
    }

    @Test
    void importFlagsFollowTheAllocationKind() {
        var importer = new CudaExternalResourceImporter(device, true);
        assertEquals(1, CudaExternalHandleType.of(ExternalMemoryType.D3D12_RESOURCE).orElseThrow().flags());
        assertEquals(0, CudaExternalHandleType.of(ExternalMemoryType.D3D12_HEAP).orElseThrow().flags());
        assertEquals(0, CudaExternalHandleType.of(ExternalMemoryType.VK_MEMORY_WIN32).orElseThrow().flags());
        assertEquals(0, CudaExternalHandleType.of(ExternalMemoryType.VK_MEMORY_OPAQUE_FD).orElseThrow().flags());
        try (ImportedMemory heap = importer.importMemory(
                new ExternalMemoryDescriptor(ExternalMemoryType.D3D12_HEAP, 0x77, 65536, 0))) {
            assertEquals(65536, heap.byteSize());
        }
        try (ImportedMemory vulkan = importer.importMemory(
                new ExternalMemoryDescriptor(ExternalMemoryType.VK_MEMORY_WIN32, 0x78, 4096, 0))) {
            assertEquals(4096, vulkan.byteSize());
        }
        assertEquals(CudaHandleTypes.MEMORY_OPAQUE_WIN32, fake.last(K_TYPE));
        assertEquals(0x78, fake.last(K_HANDLE));
    }

    @Test
    void fenceWaitAndSignalRunOnTheOrtStreamsCuStream() {
        var importer = new CudaExternalResourceImporter(device, true);
        CudaStream stream = new CudaStream(device);
        try (ImportedSemaphore fence = importer.importSemaphore(
                new ExternalSemaphoreDescriptor(ExternalSemaphoreType.D3D12_FENCE, 0x99))) {
            assertEquals(CudaHandleTypes.SEMAPHORE_D3D12_FENCE, fake.last(K_TYPE));
            assertEquals(0x99, fake.last(K_HANDLE));
            importer.waitSemaphore(fence, stream, 41);
            assertEquals(41, fake.last(K_FENCE_VALUE));
            assertEquals(stream.handle(), fake.last(K_STREAM));
            importer.signalSemaphore(fence, stream, 0xFFFF_FFFF_FFL);
            assertEquals(0xFFFF_FFFF_FFL, fake.last(K_FENCE_VALUE));
        } finally {
            stream.close();
        }
    }

    @Test
    void aStreamOfAnotherEpIsRefused() {
        var importer = new CudaExternalResourceImporter(device, true);
        DeviceStream foreign = new DeviceStream() {
            @Override public long handle() { return 0x5; }
            @Override public StreamNotification createNotification() { throw new UnsupportedOperationException(); }
            @Override public void flush() {}
            @Override public void close() {}
        };
        try (ImportedSemaphore fence = importer.importSemaphore(
                new ExternalSemaphoreDescriptor(ExternalSemaphoreType.VK_TIMELINE_SEMAPHORE_WIN32, 0x98))) {
            assertEquals(CudaHandleTypes.SEMAPHORE_TIMELINE_SEMAPHORE_WIN32, fake.last(K_TYPE));
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> importer.waitSemaphore(fence, foreign, 1));
            assertTrue(e.getMessage().contains("another device"), e.getMessage());
        }
    }

    @Test
    void theDriverGetsADuplicateAndTheAppsFdIsClosedOnlyAfterSuccess() throws IOException {
        org.junit.jupiter.api.Assumptions.assumeTrue(Posix.AVAILABLE, "POSIX fds: Linux x86-64 only");
        var importer = new CudaExternalResourceImporter(device, false);
        Path file = Files.createTempFile("javaep-fd", ".bin");
        try (FileInputStream in = new FileInputStream(file.toFile())) {
            int appFd = Posix.dup(fdOpenOn(file));
            try (ImportedMemory memory = importer.importMemory(
                    new ExternalMemoryDescriptor(ExternalMemoryType.VK_MEMORY_OPAQUE_FD, appFd, 4096, 0))) {
                assertEquals(CudaHandleTypes.MEMORY_OPAQUE_FD, fake.last(K_TYPE));
                assertNotEquals(appFd, fake.last(K_FD), "the driver must be given a duplicate");
                assertFalse(pointsAt(appFd, file), "after success the app's fd belongs to the import, which closed it");
                assertEquals(4096, memory.byteSize());
            }
            int notOpen = 1 << 20;
            IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> importer.importMemory(
                    new ExternalMemoryDescriptor(ExternalMemoryType.VK_MEMORY_OPAQUE_FD, notOpen, 4096, 0)));
            assertTrue(refused.getMessage().contains("not an open file descriptor"), refused.getMessage());
        } finally {
            Files.deleteIfExists(file);
        }
    }

    @Test
    void releaseWaitsForJavaepsLiveStreamsAndTheNullStreamNotTheWholeContext() {
        CudaDriver driver = device.driver();
        CudaDevice other = new CudaDevice(driver, driver.deviceInfo(1));
        var importer = new CudaExternalResourceImporter(device, true);
        CudaStream ours = new CudaStream(device);
        CudaStream otherGpus = new CudaStream(other);
        try {
            ImportedMemory memory = importer.importMemory(
                    new ExternalMemoryDescriptor(ExternalMemoryType.D3D12_HEAP, 0x79, 4096, 0));
            fake.resetSynchronizations();
            memory.close();
            List<Long> synced = fake.synchronizations();
            assertFalse(synced.contains(FakeCuda.CONTEXT), "no cuCtxSynchronize: " + synced);
            assertTrue(synced.contains(ours.handle()), "the device's live stream may still use the range: " + synced);
            assertTrue(synced.contains(0L), "the NULL stream, where a node without ORT's stream launches: " + synced);
            assertTrue(synced.contains(otherGpus.handle()), "a copy between GPUs may read the range on the other GPU's"
                    + " stream: " + synced);
            assertEquals(device.contextHandle(), fake.last(FakeCuda.K_CTX), "this device current again for the unmap");
        } finally {
            ours.close();
            otherGpus.close();
            other.close();
        }
        // A released stream was synchronized by its close: the next release does not wait for it again.
        try (ImportedMemory memory = importer.importMemory(
                new ExternalMemoryDescriptor(ExternalMemoryType.D3D12_HEAP, 0x7a, 4096, 0))) {
            fake.resetSynchronizations();
        }
        List<Long> synced = fake.synchronizations();
        assertFalse(synced.contains(ours.handle()) || synced.contains(otherGpus.handle()), "closed streams: " + synced);
        assertTrue(synced.contains(0L), synced.toString());
    }

    /** An fd this process has open on {@code file} (the JDK does not expose its own). */
    static int fdOpenOn(Path file) throws IOException {
        try (var fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.map(p -> Integer.parseInt(p.getFileName().toString())).filter(fd -> pointsAt(fd, file))
                    .findFirst().orElseThrow();
        }
    }

    private static boolean pointsAt(int fd, Path file) {
        try {
            return Files.readSymbolicLink(Path.of("/proc/self/fd/" + fd)).equals(file.toAbsolutePath());
        } catch (IOException e) {
            return false;
        }
    }
}
