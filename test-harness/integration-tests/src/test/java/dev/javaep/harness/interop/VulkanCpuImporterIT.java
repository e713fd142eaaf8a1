package dev.javaep.harness.interop;

import static dev.javaep.harness.interop.CpuImporterIT.HEIGHT;
import static dev.javaep.harness.interop.CpuImporterIT.IMAGE_BYTES;
import static dev.javaep.harness.interop.CpuImporterIT.WIDTH;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.javaep.examples.vulkan.TimelineSemaphore;
import dev.javaep.examples.vulkan.VulkanBuffer;
import dev.javaep.examples.vulkan.VulkanBuffer.Placement;
import dev.javaep.examples.vulkan.VulkanContext;
import dev.javaep.examples.vulkan.VulkanUnavailableException;
import dev.javaep.harness.JavaepRegistration;
import dev.javaep.harness.interop.ImportedImageRun.ExportedBuffer;
import dev.javaep.host.ExternalResourceImporter;
import dev.javaep.host.Session;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A Vulkan app (LWJGL on lavapipe, software Vulkan) hands its buffers to JavaCpuExecutionProvider
 * through the real ORT: Vulkan writes the input, {@code Run} reads it and writes its output straight into
 * the second Vulkan buffer, and Vulkan copies that out and sees the values. No byte passes through the
 * host binding. Skips where Vulkan is missing, or is not lavapipe (a GPU's fds are device memory, which
 * the GPU's own EP imports: see the gpu-tagged tests).
 */
class VulkanCpuImporterIT {
    private static final long TIMEOUT = TimeUnit.SECONDS.toNanos(20);

    @RegisterExtension
    static final JavaepRegistration JAVAEP = CpuImporterIT.JAVAEP;

    private static VulkanContext lavapipeOrSkip() {
        VulkanContext context;
        try {
            context = VulkanContext.open();
        } catch (VulkanUnavailableException e) {
            assumeTrue(false, "Vulkan test skipped: " + e.getMessage());
            throw new AssertionError(e);
        }
        if (!context.driverName().contains("llvmpipe")) {
            String name = context.describe();
            context.close();
            assumeTrue(false, "the CPU EP imports host-mappable fds (lavapipe's); this Vulkan is " + name);
        }
        return context;
    }

    @Test
    void vulkanBuffersAreTheSessionsInputAndOutput() {
        float[] pixels = CpuImporterIT.image(5);
        try (VulkanContext vulkan = lavapipeOrSkip();
             VulkanBuffer upload = vulkan.createBuffer(IMAGE_BYTES, Placement.HOST_VISIBLE, false);
             VulkanBuffer readback = vulkan.createBuffer(IMAGE_BYTES, Placement.HOST_VISIBLE, false);
             VulkanBuffer input = vulkan.createBuffer(IMAGE_BYTES, Placement.DEVICE_LOCAL, true);
             VulkanBuffer output = vulkan.createBuffer(IMAGE_BYTES, Placement.DEVICE_LOCAL, true);
             TimelineSemaphore done = vulkan.createTimelineSemaphore(0, false);
             ExternalResourceImporter importer = CpuImporterIT.importer();
             Session session = CpuImporterIT.normalizeSession()) {
            System.out.println("[VulkanCpuImporterIT] " + vulkan.describe());
            // The app renders its frame: a Vulkan transfer into its input buffer.
            upload.writeFloats(pixels);
            vulkan.submit(c -> c.copy(upload, 0, input, 0, IMAGE_BYTES).fill(output, 0, IMAGE_BYTES, 0),
                    List.of(), List.of(done.at(1)));
            assertTrue(done.waitOnHost(1, TIMEOUT), "Vulkan upload");

            ImportedImageRun.run(session, importer, null, new long[] {HEIGHT, WIDTH, 4},
                    new ExportedBuffer(input.exportOpaqueFd(), input.allocationSize()),
                    new ExportedBuffer(output.exportOpaqueFd(), output.allocationSize()));
            // Vulkan reads the output buffer ORT wrote.
            vulkan.submit(c -> c.copy(output, 0, readback, 0, IMAGE_BYTES), List.of(), List.of(done.at(2)));
            assertTrue(done.waitOnHost(2, TIMEOUT), "Vulkan readback");
            CpuImporterIT.assertClose(CpuImporterIT.normalized(pixels), readback.readFloats(pixels.length),
                    "what Vulkan reads back from its output buffer");
            System.out.println("[VulkanCpuImporterIT] Vulkan wrote " + pixels.length + " floats, ORT read them and wrote"
                    + " the normalized image into the second Vulkan buffer; Vulkan read it back: equal");
        }
    }
}
