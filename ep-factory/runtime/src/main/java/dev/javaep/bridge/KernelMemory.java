package dev.javaep.bridge;

import dev.javaep.spi.MemoryLocation;
import java.util.List;

/**
 * Where an EP's kernels read and write tensors: host memory (JavaCpu and other host EPs), or the
 * device memory spaces its selected devices were offered with (JavaCuda: DEVICE and pinned
 * HOST_ACCESSIBLE memory of one GPU). Used to check, at Compute, that ORT handed each input where
 * the kernel can read it: a host pointer handed to a GPU kernel faults the device, and the fault
 * kills the CUDA context for every session in the process.
 */
record KernelMemory(boolean host, List<MemoryLocation> deviceSpaces) {
    static final KernelMemory HOST = new KernelMemory(true, List.of());

    KernelMemory {
        deviceSpaces = List.copyOf(deviceSpaces);
    }

    /** Whether a kernel of this EP may read a tensor that lives at {@code location}. */
    boolean canRead(MemoryLocation location) {
        if (host) {
            return location.hostAccessible();
        }
        for (MemoryLocation space : deviceSpaces) {
            if (space.deviceType() == location.deviceType() && space.deviceId() == location.deviceId()
                    && (space.vendorId() == location.vendorId() || location.vendorId() == 0)) {
                return true; // DEVICE or HOST_ACCESSIBLE (pinned, device-mapped) memory of this device
            }
        }
        return false;
    }

    String describe() {
        return host ? "host memory" : deviceSpaces.stream().map(s -> s.deviceType() + " " + s.deviceId() + " " + s.kind())
                .distinct().toList().toString();
    }
}
