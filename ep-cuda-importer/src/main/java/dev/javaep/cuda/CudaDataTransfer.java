package dev.javaep.cuda;

import dev.javaep.cuda.events.CudaMemcpyEvent;
import dev.javaep.spi.DataTransfer;
import dev.javaep.spi.FlightRecorder;
import dev.javaep.spi.HardwareDevice;
import dev.javaep.spi.HardwareDeviceType;
import dev.javaep.spi.MemoryLocation;
import java.util.List;
import java.util.Map;

/**
 * Copies host↔GPU and GPU↔GPU (within a device, and between devices through unified addressing)
 * with cuMemcpyAsync on the stream ORT names; without a stream the copy completes before returning.
 * Fail-closed: only host memory and memory of this factory's devices are accepted.
 */
final class CudaDataTransfer implements DataTransfer {
    private final Map<Integer, CudaDevice> devices;

    CudaDataTransfer(Map<Integer, CudaDevice> devicesByOrdinal) {
        this.devices = Map.copyOf(devicesByOrdinal);
    }

    @Override
    public boolean canCopy(MemoryLocation source, MemoryLocation destination) {
        if (source.isHost() && destination.isHost()) {
            return false; // ORT's own CPU copy is the right tool
        }
        return (source.isHost() || ours(source)) && (destination.isHost() || ours(destination));
    }

    private boolean ours(MemoryLocation location) {
        return location.deviceType() == HardwareDeviceType.GPU && location.vendorId() == HardwareDevice.VENDOR_NVIDIA
                && devices.containsKey(location.deviceId());
    }

    @Override
    public void copy(List<Copy> copies) {
        for (Copy copy : copies) {
            if (!canCopy(copy.sourceLocation(), copy.destinationLocation())) {
                throw new IllegalArgumentException("javaep: JavaCuda cannot copy " + copy.sourceLocation() + " → "
                        + copy.destinationLocation());
            }
            CudaTransferCounters.count(copy.sourceLocation(), copy.destinationLocation(), copy.bytes());
            if (copy.bytes() == 0) {
                continue;
            }
            CudaDevice device = devices.get(ours(copy.destinationLocation())
                    ? copy.destinationLocation().deviceId() : copy.sourceLocation().deviceId());
            device.makeCurrent();
            CudaMemcpyEvent event = FlightRecorder.AVAILABLE ? CudaMemcpyEvent.beginIfRecorded() : null;
            device.driver().memcpyAsync(copy.destination(), copy.source(), copy.bytes(), copy.streamHandle());
            if (copy.streamHandle() == 0) {
                device.driver().streamSynchronize(0L);
            }
            if (event != null) {
                CudaMemcpyEvent.commit(event, copy.bytes(), direction(copy), device.ordinal(), copy.streamHandle(),
                        "CopyTensors");
            }
        }
    }

    private static CudaMemcpyEvent.Direction direction(Copy copy) {
        return copy.sourceLocation().isHost() ? CudaMemcpyEvent.Direction.HOST_TO_DEVICE
                : copy.destinationLocation().isHost() ? CudaMemcpyEvent.Direction.DEVICE_TO_HOST
                : CudaMemcpyEvent.Direction.DEVICE_TO_DEVICE;
    }
}
