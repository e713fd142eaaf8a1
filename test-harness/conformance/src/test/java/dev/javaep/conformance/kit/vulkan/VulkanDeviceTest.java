package dev.javaep.conformance.kit.vulkan;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.javaep.host.FileDescriptors;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The kit's Vulkan binding on whatever driver the loader finds: lavapipe on CPU machines (CI installs
 * mesa-vulkan-drivers), NVIDIA's on the GPU machine. Skips, with the loader's reason, where there is no Vulkan.
 * Lavapipe (Mesa 22.3) cannot export timeline semaphores as OPAQUE_FD: there the export is checked to be refused
 * with a reason, and everything else (create, signal, wait, counter, close) runs.
 */
class VulkanDeviceTest {
    private static VulkanDevice openOrSkip() {
        try {
            return VulkanDevice.open(Optional.empty(), false);
        } catch (VulkanUnavailableException e) {
            assumeTrue(false, "no Vulkan here: " + e.getMessage());
            throw e;
        }
    }

    @Test
    void timelineSignalsWaitsAndCountsFromTheHost() {
        try (VulkanDevice vulkan = openOrSkip()) {
            System.out.println("[vulkan] " + vulkan.describe());
            TimelineSemaphore timeline = vulkan.createTimeline(5, false);
            assertEquals(5, timeline.value());
            assertTrue(timeline.await(5, 0), "a value already reached needs no wait");
            long start = System.nanoTime();
            assertFalse(timeline.await(6, TimeUnit.MILLISECONDS.toNanos(50)), "nobody signals 6");
            assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(40), "the wait lasted its timeout");
            timeline.signal(7);
            assertEquals(7, timeline.value());
            assertTrue(timeline.await(6, 0));
            Thread signaller = Thread.ofPlatform().start(() -> {
                sleep(30);
                timeline.signal(9);
            });
            assertTrue(timeline.await(9, TimeUnit.SECONDS.toNanos(10)), "a signal from another thread ends the wait");
            join(signaller);
            timeline.close();
            assertThrows(IllegalStateException.class, timeline::value, "closed");
        }
    }

    @Test
    void exportIsOpaqueFdWhereTheDriverCanAndARefusalWithAReasonWhereItCannot() {
        try (VulkanDevice vulkan = openOrSkip()) {
            if (!vulkan.exportsOpaqueFdTimelines()) {
                VulkanUnavailableException refused = assertThrows(VulkanUnavailableException.class,
                        () -> vulkan.createTimeline(0, true));
                System.out.println("[vulkan] no OPAQUE_FD timeline export here: " + refused.getMessage());
                assertTrue(refused.getMessage().contains(vulkan.describe()), refused.getMessage());
                VulkanUnavailableException noExporter = assertThrows(VulkanUnavailableException.class,
                        () -> VulkanDevice.open(Optional.empty(), true));
                assertTrue(noExporter.getMessage().contains("no Vulkan device exports timeline semaphores as OPAQUE_FD"),
                        noExporter.getMessage());
                return;
            }
            try (TimelineSemaphore timeline = vulkan.createTimeline(3, true)) {
                List<Integer> fds = List.of(timeline.exportOpaqueFd(), timeline.exportOpaqueFd(), timeline.exportOpaqueFd());
                System.out.println("[vulkan] OPAQUE_FD exports " + fds + ": " + FileDescriptors.target(fds.getFirst()).orElse("?"));
                fds.forEach(FileDescriptors::close); // throws for one that was not open
                assertEquals(3, java.util.Set.copyOf(fds).size(), "each export is a new fd: " + fds);
                assertEquals(3, timeline.value(), "OPAQUE_FD export leaves the payload alone");
                timeline.signal(4);
                assertTrue(timeline.await(4, 0));
            }
        }
    }

    @Test
    void theDeviceIsFoundAgainByUuidAndAnUnknownUuidIsRefusedWithTheListing() {
        byte[] uuid;
        try (VulkanDevice vulkan = openOrSkip()) {
            uuid = vulkan.deviceUuid();
        }
        try (VulkanDevice again = VulkanDevice.open(Optional.of(uuid), false)) {
            assertArrayEquals(uuid, again.deviceUuid());
        }
        byte[] unknown = new byte[16];
        Arrays.fill(unknown, (byte) 0xEE);
        VulkanUnavailableException refused = assertThrows(VulkanUnavailableException.class,
                () -> VulkanDevice.open(Optional.of(unknown), false));
        assertTrue(refused.getMessage().startsWith("no Vulkan device has UUID eeeeeeee"), refused.getMessage());
        assertTrue(refused.getMessage().contains(java.util.HexFormat.of().formatHex(uuid)), "lists the devices: " + refused.getMessage());
    }

    @Test
    void closingLeavesNoFdsAndRefusesFurtherUse() {
        openOrSkip().close(); // the loader's and driver's one-time setup, outside the count
        List<Integer> before = FileDescriptors.open();
        VulkanDevice vulkan = openOrSkip();
        vulkan.createTimeline(0, false); // left open: close() destroys it
        vulkan.close();
        vulkan.close(); // idempotent
        assertEquals(before, FileDescriptors.open(), "fds after close");
        assertThrows(IllegalStateException.class, () -> vulkan.createTimeline(0, false));
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void join(Thread thread) {
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
