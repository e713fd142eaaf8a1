package dev.javaep.harness.vulkan;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.javaep.examples.vulkan.TimelineSemaphore;
import dev.javaep.examples.vulkan.VulkanBuffer;
import dev.javaep.examples.vulkan.VulkanBuffer.Placement;
import dev.javaep.examples.vulkan.VulkanContext;
import dev.javaep.examples.vulkan.VulkanUnavailableException;
import dev.javaep.harness.FloatRamp;
import dev.javaep.host.FileDescriptors;
import dev.javaep.os.Posix;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.lwjgl.vulkan.VK12;

/**
 * The Vulkan application the interop tests and benchmarks use, on a real driver: lavapipe on CPU machines
 * and CI, the NVIDIA driver on the GPU machine (the {@code gpu}-tagged tests, which run on any driver).
 * Skips with the reason when there is no Vulkan at all.
 *
 * <p>{@link #lavapipeExportsHostVisibleMemoryAsAMappableMemfd} checks, on lavapipe only, the premise of
 * javaep's CPU importer: an exported OPAQUE_FD is a memfd that can be mmap'ed and shares the buffer's bytes,
 * which (Mesa 22.3) start after a header, at file offset 4096, not at 0.
 */
class VulkanAppIT {
    private static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(20);
    private static final int FLOATS = 1024;

    private static VulkanContext openOrSkip() {
        try {
            return VulkanContext.open();
        } catch (VulkanUnavailableException e) {
            assumeTrue(false, "Vulkan test skipped: " + e.getMessage());
            throw new AssertionError(e);
        }
    }

    @Test
    @Tag("gpu")
    void opensADeviceAndFindsItAgainByUuid() {
        try (VulkanContext context = openOrSkip()) {
            byte[] uuid = context.deviceUuid();
            System.out.println("Vulkan device: " + context.deviceName() + "; driver: " + context.driverName() + " "
                    + context.driverInfo() + " (VkDriverId " + context.driverId() + "); Vulkan " + context.apiVersion()
                    + "; UUID " + HexFormat.of().formatHex(uuid) + "; queue family " + context.queueFamilyIndex());
            System.out.println("OPAQUE_FD export: buffer memory " + context.supportsOpaqueFdMemoryExport()
                    + ", timeline semaphores " + context.supportsTimelineSemaphoreExport());
            assertEquals(16, uuid.length, "deviceUUID is VK_UUID_SIZE bytes");
            assertTrue(context.supportsOpaqueFdMemoryExport(), "open() picks a device that exports buffer memory");

            try (VulkanContext same = VulkanContext.open(Optional.of(uuid))) {
                assertArrayEquals(uuid, same.deviceUuid());
                assertEquals(context.deviceName(), same.deviceName());
            }
            VulkanUnavailableException unknown = assertThrows(VulkanUnavailableException.class,
                    () -> VulkanContext.open(Optional.of(new byte[16])).close());
            System.out.println("an unknown UUID: " + unknown.getMessage());
        }
    }

    @Test
    @Tag("gpu")
    void submissionsOrderTransfersAndSignalTimelinesWithoutCpuWaits() {
        try (VulkanContext context = openOrSkip();
             VulkanBuffer staging = context.createBuffer(FLOATS * 4L, Placement.HOST_VISIBLE, false);
             VulkanBuffer device = context.createBuffer(FLOATS * 4L, Placement.DEVICE_LOCAL, true);
             VulkanBuffer readBack = context.createBuffer(FLOATS * 4L, Placement.HOST_VISIBLE, false);
             TimelineSemaphore done = context.createTimelineSemaphore(0, false)) {
            float[] input = FloatRamp.of(FLOATS, 1f, 0.25f);
            staging.writeFloats(input);
            long half = FLOATS / 2 * 4L;
            // Each command reads what the previous one wrote: upload, overwrite the upper half, download.
            context.submit(commands -> commands
                            .copy(staging, 0, device, 0, staging.size())
                            .fillFloats(device, half, FLOATS / 2, 7f)
                            .copy(device, 0, readBack, 0, device.size()),
                    List.of(), List.of(done.at(1)));
            // A second submission ordered after the first only through the timeline.
            context.submit(commands -> commands.fillFloats(staging, 0, FLOATS, -1f), List.of(done.at(1)), List.of(done.at(2)));
            assertTrue(done.waitOnHost(2, TIMEOUT_NANOS), "the submissions signal 2");
            assertEquals(2, done.value());

            float[] expected = input.clone();
            Arrays.fill(expected, FLOATS / 2, FLOATS, 7f);
            assertArrayEquals(expected, readBack.readFloats(FLOATS));
            float[] cleared = new float[FLOATS];
            Arrays.fill(cleared, -1f);
            assertArrayEquals(cleared, staging.readFloats(FLOATS));

            System.out.println("DEVICE_LOCAL exportable buffer: " + device + ", memory type " + device.memoryTypeIndex());
            assertTrue(device.allocationSize() >= device.size());
            int fd = device.exportOpaqueFd();
            try {
                assertTrue(fd >= 0, "vkGetMemoryFdKHR returns an fd");
                System.out.println("exported DEVICE_LOCAL memory fd: " + describe(fd));
            } finally {
                Posix.close(fd);
            }
            context.waitIdle();
            assertEquals(0, context.commandBuffersInFlight(), "waitIdle frees the completed command buffers");
        }
    }

    @Test
    @Tag("gpu")
    void aSubmissionWaitsForTheHostToSignal() {
        try (VulkanContext context = openOrSkip();
             VulkanBuffer buffer = context.createBuffer(64, Placement.HOST_VISIBLE, false);
             TimelineSemaphore timeline = context.createTimelineSemaphore(0, false)) {
            context.submit(commands -> commands.fill(buffer, 0, 64, 42), List.of(timeline.at(1)), List.of(timeline.at(2)));
            assertFalse(timeline.waitOnHost(2, TimeUnit.MILLISECONDS.toNanos(100)),
                    "the queue waits for value 1, which nobody signalled yet");
            assertEquals(0, timeline.value());
            timeline.signalFromHost(1);
            assertTrue(timeline.waitOnHost(2, TIMEOUT_NANOS), "the host's signal releases the submission");
            assertEquals(42, buffer.mapped().get(ValueLayout.JAVA_INT, 60));
            assertEquals(1, context.commandBuffersInFlight(), "freed lazily, on the next submit or waitIdle");
            context.submit(_ -> {}, List.of(), List.of());
            context.waitIdle();
            assertEquals(0, context.commandBuffersInFlight());
        }
    }

    @Test
    @Tag("gpu")
    void closeRefusesToDestroyUnderAWaitingSubmissionAndSucceedsOnceReleased() {
        VulkanContext context = openOrSkip();
        TimelineSemaphore never = context.createTimelineSemaphore(0, false);
        context.submit(_ -> {}, List.of(never.at(1)), List.of());
        IllegalStateException refused = assertThrows(IllegalStateException.class,
                () -> context.close(TimeUnit.MILLISECONDS.toNanos(100)));
        System.out.println("close under a waiting submission: " + refused.getMessage());
        assertTrue(refused.getMessage().contains(">= 1 (now 0)"), refused.getMessage());
        never.signalFromHost(1);
        context.close();
        assertThrows(IllegalStateException.class, () -> context.createTimelineSemaphore(0, false), "closed");
    }

    @Test
    @Tag("gpu")
    void timelineSemaphoresExportAsOpaqueFdWhereTheDriverCan() {
        try (VulkanContext context = openOrSkip()) {
            if (!context.supportsTimelineSemaphoreExport()) {
                System.out.println(context.driverName() + " " + context.driverInfo()
                        + ": timeline semaphores are NOT exportable as OPAQUE_FD (vkGetPhysicalDeviceExternalSemaphoreProperties)");
                UnsupportedOperationException refused = assertThrows(UnsupportedOperationException.class,
                        () -> context.createTimelineSemaphore(0, true));
                System.out.println("createTimelineSemaphore(0, true): " + refused.getMessage());
                return;
            }
            try (TimelineSemaphore semaphore = context.createTimelineSemaphore(5, true)) {
                int first = semaphore.exportOpaqueFd();
                int second = semaphore.exportOpaqueFd();
                try {
                    assertTrue(first >= 0 && second >= 0);
                    assertNotEquals(first, second, "each export is a new fd");
                    System.out.println(context.driverName() + ": timeline semaphore exported as OPAQUE_FD: "
                            + describe(first));
                } finally {
                    Posix.close(first);
                    Posix.close(second);
                }
                assertEquals(5, semaphore.value(), "OPAQUE_FD export leaves the payload alone");
                semaphore.signalFromHost(6);
                assertTrue(semaphore.waitOnHost(6, 0));
            }
        }
    }

    /**
     * Lavapipe only: the exported fd of HOST_VISIBLE memory is a memfd that maps the same bytes Vulkan
     * reads and writes, and where in the file those bytes start.
     */
    @Test
    void lavapipeExportsHostVisibleMemoryAsAMappableMemfd() {
        try (VulkanContext context = openOrSkip()) {
            assumeTrue(context.driverId() == VK12.VK_DRIVER_ID_MESA_LLVMPIPE,
                    "lavapipe-only test skipped: the device is " + context.describe());
            int bytes = FLOATS * 4;
            try (VulkanBuffer exported = context.createBuffer(bytes, Placement.HOST_VISIBLE, true);
                 VulkanBuffer source = context.createBuffer(bytes, Placement.HOST_VISIBLE, false);
                 VulkanBuffer readBack = context.createBuffer(bytes, Placement.HOST_VISIBLE, false);
                 TimelineSemaphore timeline = context.createTimelineSemaphore(0, false)) {
                float[] written = FloatRamp.of(FLOATS, 100f, 0.25f);
                Arrays.fill(written, FLOATS - 16, FLOATS, -1.5f);
                source.writeFloats(FloatRamp.of(FLOATS - 16, 100f, 0.25f));
                context.submit(commands -> commands
                                .fillFloats(exported, 0, FLOATS, -1.5f)
                                .copy(source, 0, exported, 0, (FLOATS - 16) * 4L),
                        List.of(), List.of(timeline.at(1)));
                assertTrue(timeline.waitOnHost(1, TIMEOUT_NANOS));
                assertArrayEquals(written, exported.readFloats(FLOATS), "Vulkan wrote the buffer");

                int fd = exported.exportOpaqueFd();
                try {
                    String kind = describe(fd);
                    long fileSize = Posix.fstat(fd).size();
                    System.out.println("lavapipe OPAQUE_FD of HOST_VISIBLE memory: " + kind + "; file size " + fileSize
                            + "; buffer size " + exported.size() + "; allocationSize " + exported.allocationSize());
                    assertTrue(kind.startsWith("/memfd:"), "the exported fd is a memfd: " + kind);
                    assertTrue(fileSize >= exported.allocationSize());

                    MemorySegment file = MemorySegment.ofAddress(Posix.mapShared(fd, fileSize)).reinterpret(fileSize);
                    try {
                        long dataOffset = find(file, exported.mapped());
                        assertTrue(dataOffset >= 0, "the mapping of the fd holds the bytes Vulkan wrote");
                        long headerSize = file.get(ValueLayout.JAVA_LONG, 0);
                        long headerOffset = file.get(ValueLayout.JAVA_LONG, 8);
                        System.out.println("the buffer's bytes start at offset " + dataOffset
                                + " of the memfd (header words: size " + headerSize
                                + ", data offset " + headerOffset + ", then 16 bytes "
                                + HexFormat.of().formatHex(file.asSlice(16, 16).toArray(ValueLayout.JAVA_BYTE))
                                + (dataOffset >= 8
                                        ? "; word before the data " + file.get(ValueLayout.JAVA_LONG, dataOffset - 8) : "")
                                + ")");
                        assertEquals(fileSize, headerSize, "Mesa's memory_header starts with the file size");
                        assertEquals(dataOffset, headerOffset, "Mesa's memory_header names the data offset");
                        float[] seenThroughFd = new float[FLOATS];
                        MemorySegment.copy(file, ValueLayout.JAVA_FLOAT, dataOffset, seenThroughFd, 0, FLOATS);
                        assertArrayEquals(written, seenThroughFd, "the fd's mapping sees Vulkan's writes");

                        float[] fromFd = FloatRamp.of(FLOATS, -300f, 0.25f);
                        MemorySegment.copy(fromFd, 0, file, ValueLayout.JAVA_FLOAT, dataOffset, FLOATS);
                        context.submit(commands -> commands.copy(exported, 0, readBack, 0, bytes),
                                List.of(), List.of(timeline.at(2)));
                        assertTrue(timeline.waitOnHost(2, TIMEOUT_NANOS));
                        assertArrayEquals(fromFd, readBack.readFloats(FLOATS), "a Vulkan copy reads what the fd's mapping wrote");
                        assertArrayEquals(fromFd, exported.readFloats(FLOATS), "the buffer's own mapping sees it too");
                    } finally {
                        Posix.unmap(file.address(), file.byteSize());
                    }
                } finally {
                    Posix.close(fd);
                }
            }
        }
    }

    /**
     * Lavapipe only: the layout of the exported memfd for sizes that are not page multiples: Mesa's
     * {@code memory_header} (file size, data offset) at offset 0, the buffer's bytes at the data offset.
     */
    @Test
    void lavapipeMemfdLayoutAtOtherSizes() {
        try (VulkanContext context = openOrSkip()) {
            assumeTrue(context.driverId() == VK12.VK_DRIVER_ID_MESA_LLVMPIPE,
                    "lavapipe-only test skipped: the device is " + context.describe());
            for (long size : new long[] {4, 1000, 4096 + 4, 1 << 20}) {
                try (VulkanBuffer buffer = context.createBuffer(size, Placement.HOST_VISIBLE, true)) {
                    buffer.mapped().fill((byte) 0x5a);
                    int fd = buffer.exportOpaqueFd();
                    try {
                        long fileSize = Posix.fstat(fd).size();
                        MemorySegment file = MemorySegment.ofAddress(Posix.mapShared(fd, fileSize)).reinterpret(fileSize);
                        try {
                            long headerSize = file.get(ValueLayout.JAVA_LONG, 0);
                            long dataOffset = file.get(ValueLayout.JAVA_LONG, 8);
                            System.out.println("lavapipe memfd: buffer " + size + " B, allocationSize "
                                    + buffer.allocationSize() + ", file " + fileSize + " B, data offset " + dataOffset);
                            assertEquals(fileSize, headerSize, "memory_header.size is the file size");
                            assertTrue(dataOffset + buffer.allocationSize() <= fileSize, "the allocation fits after the header");
                            assertEquals(-1, MemorySegment.mismatch(file, dataOffset, dataOffset + size, buffer.mapped(), 0, size),
                                    "the buffer's bytes are at the data offset");
                        } finally {
                            Posix.unmap(file.address(), file.byteSize());
                        }
                    } finally {
                        Posix.close(fd);
                    }
                }
            }
        }
    }

    @Test
    @Tag("gpu")
    void openExportSubmitCloseLeaksNoFileDescriptors() {
        try (VulkanContext probe = openOrSkip()) {
            System.out.println("fd leak check on " + probe.describe());
        }
        exchangeOnce(); // the first round loads drivers and may keep process-wide fds
        long before = FileDescriptors.open().size();
        for (int i = 0; i < 3; i++) {
            exchangeOnce();
        }
        long after = FileDescriptors.open().size();
        System.out.println("open fds before 3 rounds: " + before + ", after: " + after);
        assertEquals(before, after, "open, export, submit, close leaves no fd behind");
    }

    /** One round of what an interop test does: a context, exported memory and semaphore, a submission, close. */
    private static void exchangeOnce() {
        try (VulkanContext context = VulkanContext.open()) {
            VulkanBuffer buffer = context.createBuffer(4096, Placement.HOST_VISIBLE, true);
            TimelineSemaphore timeline = context.createTimelineSemaphore(0, context.supportsTimelineSemaphoreExport());
            Posix.close(buffer.exportOpaqueFd());
            if (timeline.isExportable()) {
                Posix.close(timeline.exportOpaqueFd());
            }
            context.submit(commands -> commands.fill(buffer, 0, 4096, 1), List.of(), List.of(timeline.at(1)));
            assertTrue(timeline.waitOnHost(1, TIMEOUT_NANOS));
            // buffer and timeline are left open on purpose: closing the context closes them.
        }
    }

    /** Where {@code needle}'s bytes start in {@code haystack} (4-byte aligned), or -1. */
    private static long find(MemorySegment haystack, MemorySegment needle) {
        for (long offset = 0; offset + needle.byteSize() <= haystack.byteSize(); offset += 4) {
            if (MemorySegment.mismatch(haystack, offset, offset + needle.byteSize(), needle, 0, needle.byteSize()) == -1) {
                return offset;
            }
        }
        return -1;
    }

    /** What {@code fd} is, as the kernel names it: a path, "/memfd:NAME (deleted)", "anon_inode:sync_file"... */
    private static String describe(int fd) {
        return FileDescriptors.target(fd).orElse("not open");
    }
}
