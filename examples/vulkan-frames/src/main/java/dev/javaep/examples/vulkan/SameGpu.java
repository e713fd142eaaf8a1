package dev.javaep.examples.vulkan;

import dev.javaep.cuda.driver.CudaDriver;
import dev.javaep.host.EpDevice;
import dev.javaep.host.OrtEnvironment;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/**
 * The GPU that ORT's JavaCuda EP device, this process's CUDA driver and Vulkan all see (equal UUIDs): the EP device,
 * that GPU's CUDA ordinal and UUID, and a Vulkan device on it, which the caller closes.
 */
record SameGpu(EpDevice epDevice, int cudaOrdinal, String uuid, VulkanContext vulkan) {
    static final String CUDA_EP = "JavaCudaExecutionProvider";

    /**
     * The first JavaCuda EP device whose GPU Vulkan also sees and can export buffer memory from as OPAQUE_FD (and,
     * with {@code timelineSemaphores}, timeline semaphores too).
     *
     * @throws InteropBenchmark.Unavailable naming why each EP device was refused
     */
    static SameGpu find(OrtEnvironment env, CudaDriver driver, boolean timelineSemaphores)
            throws InteropBenchmark.Unavailable {
        List<EpDevice> devices = env.epDevices().stream().filter(d -> d.epName().equals(CUDA_EP)).toList();
        if (devices.isEmpty()) {
            throw new InteropBenchmark.Unavailable("the javaep library offers no " + CUDA_EP
                    + " device (`javaep devices` lists what it offers)");
        }
        List<String> refusals = new ArrayList<>();
        for (EpDevice device : devices) {
            String uuid = device.epMetadata().getOrDefault("cuda.uuid", "");
            if (!uuid.matches("GPU-[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}")) {
                refusals.add(device + " has no cuda.uuid metadata");
                continue;
            }
            int ordinal = cudaOrdinal(driver, uuid);
            if (ordinal < 0) {
                refusals.add(uuid + ": no CUDA device of this process has that UUID");
                continue;
            }
            VulkanContext vulkan;
            try {
                vulkan = VulkanContext.open(Optional.of(HexFormat.of().parseHex(uuid.substring(4).replace("-", ""))));
            } catch (VulkanUnavailableException e) {
                refusals.add(uuid + ": " + e.getMessage());
                continue;
            }
            if (vulkan.supportsOpaqueFdMemoryExport() && (!timelineSemaphores || vulkan.supportsTimelineSemaphoreExport())) {
                return new SameGpu(device, ordinal, uuid, vulkan);
            }
            refusals.add(vulkan.describe() + " cannot export " + (timelineSemaphores
                    ? "both buffer memory and timeline semaphores" : "buffer memory") + " as OPAQUE_FD");
            vulkan.close();
        }
        throw new InteropBenchmark.Unavailable("no Vulkan device is the GPU of a " + CUDA_EP + " device: "
                + String.join("; ", refusals));
    }

    /** The CUDA ordinal of the device with {@code uuid} ({@code GPU-…}), or -1. */
    private static int cudaOrdinal(CudaDriver driver, String uuid) {
        for (int ordinal = 0; ordinal < driver.deviceCount(); ordinal++) {
            if (driver.deviceInfo(ordinal).uuidString().equalsIgnoreCase(uuid)) {
                return ordinal;
            }
        }
        return -1;
    }
}
