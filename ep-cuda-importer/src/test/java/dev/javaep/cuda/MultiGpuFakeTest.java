package dev.javaep.cuda;

import static dev.javaep.cuda.driver.FakeCuda.DeviceStat.CONTEXT_CALLS;
import static dev.javaep.cuda.driver.FakeCuda.DeviceStat.CONTEXT_RETAINS;
import static dev.javaep.cuda.driver.FakeCuda.DeviceStat.FOREIGN_FREES;
import static dev.javaep.cuda.driver.FakeCuda.DeviceStat.LIVE_DEVICE_ALLOCATIONS;
import static dev.javaep.cuda.driver.FakeCuda.DeviceStat.LIVE_PINNED_ALLOCATIONS;
import static dev.javaep.cuda.driver.FakeCuda.DeviceStat.PEER_ACCESS_ENABLED;
import static dev.javaep.cuda.driver.FakeCuda.DeviceStat.PEER_COPIES_DIRECT;
import static dev.javaep.cuda.driver.FakeCuda.DeviceStat.PEER_COPIES_STAGED;
import static dev.javaep.cuda.driver.FakeCuda.DeviceStat.WRONG_CONTEXT;
import static dev.javaep.cuda.kernel.Groups.fused;
import static dev.javaep.cuda.kernel.Groups.group;
import static dev.javaep.cuda.kernel.Groups.node;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.javaep.cuda.driver.FakeCuda;
import dev.javaep.cuda.driver.FakeCuda.DeviceStat;
import dev.javaep.cuda.kernel.DeviceRunContext;
import dev.javaep.os.Posix;
import dev.javaep.spi.CompiledNode;
import dev.javaep.spi.DataTransfer;
import dev.javaep.spi.DeviceAllocator;
import dev.javaep.spi.DeviceOffer;
import dev.javaep.spi.DeviceStream;
import dev.javaep.spi.ExecutionProvider;
import dev.javaep.spi.ExternalMemoryDescriptor;
import dev.javaep.spi.ExternalMemoryType;
import dev.javaep.spi.ExternalResourceImporter;
import dev.javaep.spi.FactoryContext;
import dev.javaep.spi.HardwareDevice;
import dev.javaep.spi.HardwareDeviceType;
import dev.javaep.spi.ImportedMemory;
import dev.javaep.spi.MemoryKind;
import dev.javaep.spi.MemoryLocation;
import dev.javaep.spi.StreamNotification;
import java.io.FileInputStream;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Several GPUs in one host (issue 18), against the stand-in libcuda's two devices (ordinals 0 and 1), which
 * records per device the calls made in its context, its live allocations and its context's retains: one EP
 * device per GPU with its own memory infos; an EP, allocators and streams for device 1 that never call in device
 * 0's context; copies between the two GPUs, direct where peer access is possible and staged by the driver where
 * not; teardown in either order; and an import of the other GPU's export refused with both UUIDs named.
 * {@code MultiGpuTest} (tagged gpu) makes the same checks on two real GPUs.
 */
class MultiGpuFakeTest {
    private static final List<HardwareDevice> ORT_GPUS = List.of(ortGpu("0000:3b:00.0"), ortGpu("0000:3c:00.0"));

    private static FakeCuda fake;
    private JavaCudaExecutionProviderFactory factory;
    private List<DeviceOffer> offers;
    /** Each device's counters when the test began: the stand-in's state is the process's, shared with other classes. */
    private long[][] before;

    @BeforeAll
    static void buildFake() {
        fake = FakeCuda.build();
    }

    @BeforeEach
    void twoGpus() {
        fake.loseContext(0);
        fake.setPeerCapable(true);
        fake.resetDeviceCounters();
        before = snapshot();
        factory = new JavaCudaExecutionProviderFactory();
        factory.initialize(new FactoryContext("javaep", 29, "1.29.0", (level, message) -> { }), fake::driver, null);
        offers = factory.supportedDevices(ORT_GPUS);
    }

    @AfterEach
    void close() {
        factory.close();
        fake.setPeerCapable(true);
    }

    private static HardwareDevice ortGpu(String pciBusId) {
        return new HardwareDevice(HardwareDeviceType.GPU, HardwareDevice.VENDOR_NVIDIA, 0x2335, "NVIDIA",
                Map.of("pci_bus_id", pciBusId), 1L);
    }

    private static long[][] snapshot() {
        long[][] stats = new long[3][DeviceStat.values().length];
        for (int device = 0; device < 3; device++) {
            for (DeviceStat stat : DeviceStat.values()) {
                stats[device][stat.ordinal()] = fake.deviceStat(stat, device);
            }
        }
        return stats;
    }

    /** How much {@code stat} grew on {@code device} (2: with no context current) since the test began. */
    private long delta(DeviceStat stat, int device) {
        return fake.deviceStat(stat, device) - before[device][stat.ordinal()];
    }

    private static MemoryLocation gpu(int ordinal) {
        return new MemoryLocation(HardwareDeviceType.GPU, MemoryKind.DEVICE, HardwareDevice.VENDOR_NVIDIA, ordinal);
    }

    private ExecutionProvider epFor(int ordinal) {
        return factory.createExecutionProvider(List.of(offers.get(ordinal).device()), Map.of());
    }

    /** The stand-in's closing an allocator ends at cuMemPoolTrimTo, which it lacks on purpose; the frees came first. */
    private static void closeAllocator(DeviceAllocator allocator) {
        try {
            allocator.close();
        } catch (UnsupportedOperationException e) {
            assertTrue(e.getMessage().contains("cuMemPoolTrimTo"), e.getMessage());
        }
    }

    @Test
    void oneEpDevicePerGpuEachWithMemoryInfosOfItsOwnDeviceId() {
        assertEquals(2, offers.size(), "one OrtEpDevice per GPU");
        for (int ordinal = 0; ordinal < 2; ordinal++) {
            DeviceOffer offer = offers.get(ordinal);
            assertEquals(ORT_GPUS.get(ordinal), offer.device(), "paired with ORT's device by PCI bus id");
            assertEquals(Integer.toString(ordinal), offer.metadata().get("cuda.device_id"));
            assertEquals(Integer.toString(ordinal), offer.options().get("device_id"));
            assertEquals(2, offer.memorySpaces().size());
            for (var space : offer.memorySpaces()) {
                assertEquals(ordinal, space.location().deviceId(), space.toString());
                assertEquals(HardwareDeviceType.GPU, space.location().deviceType());
            }
        }
        assertNotEquals(offers.get(0).metadata().get("cuda.uuid"), offers.get(1).metadata().get("cuda.uuid"));
        assertNotEquals(offers.get(0).metadata().get("pci_bus_id"), offers.get(1).metadata().get("pci_bus_id"));
    }

    @Test
    void anEpOnDevice1AllocatesStreamsAndLaunchesOnlyInDevice1sContext() {
        ExecutionProvider ep = epFor(1);
        DeviceAllocator memory = factory.createAllocator(offers.get(1).memorySpaces().get(0));
        DeviceAllocator pinned = factory.createAllocator(offers.get(1).memorySpaces().get(1));
        assertEquals(MemoryKind.HOST_ACCESSIBLE, offers.get(1).memorySpaces().get(1).location().kind());
        DeviceStream stream = factory.createStream(gpu(1));
        long plain = memory.allocate(256);
        long ordered = memory.allocate(256, stream.handle());
        long host = pinned.allocate(64);
        assertEquals(2, delta(LIVE_DEVICE_ALLOCATIONS, 1), "both allocations on device 1");
        assertEquals(1, delta(LIVE_PINNED_ALLOCATIONS, 1));

        CompiledNode add = ep.compile(group(node("Add", List.of("x", "y"), "out")), fused(List.of("x", "y"), List.of("out")));
        try (CudaDevice app = CudaDevice.open(fake.driver(), 1)) {
            app.makeCurrent(); // the run context's own buffers: the app's, on the Run's device
            try (DeviceRunContext run = new DeviceRunContext(app.driver(), stream.handle(), 1,
                    new float[][] {{1, 2, 3, 4}, {10, 20, 30, 40}}, new long[][] {{4}, {4}})) {
                add.compute(run);
                assertArrayEquals(new float[] {11, 22, 33, 44}, run.output(0), "the launch ran on device 1's stream");
            }
        }
        StreamNotification notification = stream.createNotification();
        notification.activate();
        notification.waitOnHost();
        notification.close();
        stream.flush();
        ep.synchronize();

        memory.free(plain);
        memory.free(ordered);
        pinned.free(host);
        stream.close();
        closeAllocator(memory);
        pinned.close();

        assertTrue(delta(CONTEXT_CALLS, 1) > 0, "the work was done in device 1's context");
        assertEquals(0, delta(CONTEXT_CALLS, 0), "no call in device 0's context");
        assertEquals(0, delta(CONTEXT_CALLS, 2), "no call without a context");
        for (int d = 0; d < 3; d++) {
            assertEquals(0, delta(WRONG_CONTEXT, d), "no launch, allocation or record on another device's stream");
            assertEquals(0, delta(FOREIGN_FREES, d));
        }
        assertEquals(0, delta(LIVE_DEVICE_ALLOCATIONS, 1));
        assertEquals(0, delta(LIVE_PINNED_ALLOCATIONS, 1));
    }

    @Test
    void theStandInRefusesALaunchOnAnotherDevicesStream() {
        // What the test above relies on: the stand-in does notice a call in the wrong context.
        DeviceStream stream = factory.createStream(gpu(1));
        try (CudaDevice device0 = CudaDevice.open(fake.driver(), 0)) {
            device0.makeCurrent();
            assertThrows(RuntimeException.class, () -> device0.driver().memAllocAsync(16, stream.handle()));
            assertEquals(1, delta(WRONG_CONTEXT, 0));
        }
        stream.close();
    }

    private static MemorySegment bytes(long address, long size) {
        return MemorySegment.ofAddress(address).reinterpret(size); // the stand-in's device memory is host memory
    }

    /** Copies 64 floats device 0 → device 1 → device 0 through the factory's data transfer and checks them. */
    private void roundTrip(long streamHandle) {
        DataTransfer transfer = factory.dataTransfer().orElseThrow();
        DeviceAllocator memory0 = factory.createAllocator(offers.get(0).memorySpaces().get(0));
        DeviceAllocator memory1 = factory.createAllocator(offers.get(1).memorySpaces().get(0));
        long size = 64 * Float.BYTES;
        long a = memory0.allocate(size);
        long b = memory1.allocate(size);
        long c = memory0.allocate(size);
        IntStream.range(0, 64).forEach(i -> bytes(a, size).setAtIndex(ValueLayout.JAVA_FLOAT, i, i * 0.5f));
        transfer.copy(List.of(new DataTransfer.Copy(a, gpu(0), b, gpu(1), size, streamHandle)));
        transfer.copy(List.of(new DataTransfer.Copy(b, gpu(1), c, gpu(0), size, streamHandle)));
        assertArrayEquals(bytes(a, size).toArray(ValueLayout.JAVA_FLOAT), bytes(c, size).toArray(ValueLayout.JAVA_FLOAT));
        assertEquals(16f, bytes(b, size).getAtIndex(ValueLayout.JAVA_FLOAT, 32));
        memory0.free(a);
        memory0.free(c);
        memory1.free(b);
        closeAllocator(memory0);
        closeAllocator(memory1);
    }

    @Test
    void canCopyAnswersTrueForBothDirectionsBetweenTheGpusAndFalseForAnUnknownOne() {
        DataTransfer transfer = factory.dataTransfer().orElseThrow();
        assertTrue(transfer.canCopy(gpu(0), gpu(1)));
        assertTrue(transfer.canCopy(gpu(1), gpu(0)));
        assertTrue(transfer.canCopy(MemoryLocation.HOST, gpu(1)));
        assertFalse(transfer.canCopy(gpu(0), gpu(2)), "no device 2");
        assertFalse(transfer.canCopy(gpu(2), gpu(1)));
    }

    @Test
    void copiesBetweenGpusGoDirectlyWherePeerAccessIsPossible() {
        DeviceStream stream1 = factory.createStream(gpu(1));
        roundTrip(stream1.handle());
        roundTrip(0L);
        stream1.close();
        assertEquals(4, delta(PEER_COPIES_DIRECT, 0) + delta(PEER_COPIES_DIRECT, 1), "all four copies direct");
        assertEquals(0, delta(PEER_COPIES_STAGED, 0) + delta(PEER_COPIES_STAGED, 1));
        // Each copy runs in its stream's device's context; without a stream, in the destination's.
        assertEquals(3, delta(PEER_COPIES_DIRECT, 1), "two on device 1's stream, one into device 1 without a stream");
        assertEquals(1, delta(PEER_COPIES_DIRECT, 0), "one into device 0 without a stream");
        assertEquals(0b10, fake.deviceStat(PEER_ACCESS_ENABLED, 0) & 0b10, "device 0 maps device 1's memory");
        assertEquals(0b01, fake.deviceStat(PEER_ACCESS_ENABLED, 1) & 0b01, "device 1 maps device 0's memory");
        for (int d = 0; d < 3; d++) {
            assertEquals(0, delta(WRONG_CONTEXT, d));
        }
    }

    @Test
    void copiesBetweenGpusWithoutPeerAccessAreStagedByTheDriver() {
        fake.setPeerCapable(false);
        DeviceStream stream0 = factory.createStream(gpu(0));
        roundTrip(stream0.handle());
        roundTrip(0L);
        stream0.close();
        assertEquals(0, delta(PEER_COPIES_DIRECT, 0) + delta(PEER_COPIES_DIRECT, 1));
        assertEquals(4, delta(PEER_COPIES_STAGED, 0) + delta(PEER_COPIES_STAGED, 1));
        assertEquals(3, delta(PEER_COPIES_STAGED, 0), "two on device 0's stream, one into device 0 without a stream");
    }

    @ParameterizedTest(name = "device {0}''s session released first")
    @ValueSource(ints = {0, 1})
    void teardownInEitherOrderReleasesEverythingOnBothDevices(int first) {
        List<List<AutoCloseable>> sessions = new ArrayList<>();
        for (int ordinal = 0; ordinal < 2; ordinal++) {
            epFor(ordinal);
            DeviceAllocator memory = factory.createAllocator(offers.get(ordinal).memorySpaces().get(0));
            DeviceAllocator pinned = factory.createAllocator(offers.get(ordinal).memorySpaces().get(1));
            DeviceStream stream = factory.createStream(gpu(ordinal));
            memory.allocate(1024, stream.handle()); // left for the allocator's close to return
            memory.allocate(512);
            pinned.allocate(128);
            sessions.add(List.of(stream, () -> closeAllocator(memory), pinned));
        }
        roundTrip(0L); // peer access between the two contexts, released with them
        for (int d = 0; d < 2; d++) {
            assertEquals(2, delta(LIVE_DEVICE_ALLOCATIONS, d));
            assertEquals(1, delta(LIVE_PINNED_ALLOCATIONS, d));
            assertEquals(1, delta(CONTEXT_RETAINS, d), "one primary context retain per device");
        }
        int second = 1 - first;
        release(sessions.get(first));
        assertEquals(0, delta(LIVE_DEVICE_ALLOCATIONS, first));
        assertEquals(0, delta(LIVE_PINNED_ALLOCATIONS, first));
        assertEquals(2, delta(LIVE_DEVICE_ALLOCATIONS, second), "the other session's memory is untouched");
        release(sessions.get(second));
        factory.close();
        for (int d = 0; d < 2; d++) {
            assertEquals(0, delta(LIVE_DEVICE_ALLOCATIONS, d), "device " + d);
            assertEquals(0, delta(LIVE_PINNED_ALLOCATIONS, d), "device " + d);
            assertEquals(0, delta(CONTEXT_RETAINS, d), "device " + d + "'s primary context released");
            assertEquals(0, delta(FOREIGN_FREES, d));
        }
    }

    private static void release(List<AutoCloseable> session) {
        for (AutoCloseable c : session) {
            try {
                c.close();
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        }
    }

    private static int openExport(Path dir, String name, long size) throws IOException {
        Path file = dir.resolve(name);
        Files.write(file, new byte[(int) size]);
        try (FileInputStream in = new FileInputStream(file.toFile())) {
            // an fd the test owns, as a Vulkan export would be
            return Posix.dup(CudaExternalResourceImporterTest.fdOpenOn(file));
        }
    }

    @Test
    void anExportOfDevice1IsImportedByDevice1AndRefusedByDevice0NamingBothUuids(@TempDir Path dir) throws IOException {
        assumeTrue(Posix.AVAILABLE, "POSIX fds: Linux x86-64 only");
        ExternalResourceImporter importer0 = factory.createImporter(offers.get(0)).orElseThrow();
        ExternalResourceImporter importer1 = factory.createImporter(offers.get(1)).orElseThrow();
        String uuid0 = offers.get(0).metadata().get("cuda.uuid");
        String uuid1 = offers.get(1).metadata().get("cuda.uuid");

        int refusedFd = openExport(dir, "vk-buffer-a", 4096);
        fake.exportedBy(refusedFd, 1);
        var descriptor = new ExternalMemoryDescriptor(ExternalMemoryType.VK_MEMORY_OPAQUE_FD, refusedFd, 4096, 0);
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> importer0.importMemory(descriptor));
        String message = refused.getMessage();
        System.out.println("[MultiGpuFakeTest] " + message);
        assertTrue(message.contains("CUDA device 0 (" + uuid0 + ")"), message);
        assertTrue(message.contains("device 1 " + uuid1), message);
        assertTrue(message.contains("cuda.uuid") && message.contains("deviceUUID"), message);
        Posix.close(refusedFd); // a refused import leaves the fd the app's

        int fd = openExport(dir, "vk-buffer-b", 4096);
        fake.exportedBy(fd, 1);
        try (ImportedMemory memory = importer1.importMemory(
                new ExternalMemoryDescriptor(ExternalMemoryType.VK_MEMORY_OPAQUE_FD, fd, 4096, 0))) {
            assertEquals(4096, memory.byteSize(), "device 1's importer maps device 1's export");
        }
    }
}
