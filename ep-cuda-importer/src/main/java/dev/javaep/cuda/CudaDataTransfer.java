package dev.javaep.cuda;

import dev.javaep.cuda.driver.CudaDriver;
import dev.javaep.cuda.driver.CudaException;
import dev.javaep.cuda.events.CudaMemcpyEvent;
import dev.javaep.spi.DataTransfer;
import dev.javaep.spi.FlightRecorder;
import dev.javaep.spi.HardwareDevice;
import dev.javaep.spi.HardwareDeviceType;
import dev.javaep.spi.MemoryLocation;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * Copies host↔GPU and within a GPU with cuMemcpyAsync, and between two GPUs with cuMemcpyPeerAsync, on the
 * stream ORT names; without a stream the copy completes before returning. A copy runs with its stream's device
 * current (CUDA queues a copy on any device's stream, but the EP keeps every call in the stream's own context),
 * or, without a stream, the device side's (the destination's between two GPUs).
 *
 * <p>Between two GPUs, peer access is enabled once per pair where {@code cuDeviceCanAccessPeer} says the hardware
 * allows it (NVLink, PCIe P2P): the copy then goes directly. Otherwise cuMemcpyPeerAsync still works: the driver
 * stages it through host memory, as CUDA documents. So CanCopy is true for every pair of this factory's devices.
 * Fail-closed: only host memory and memory of this factory's devices are accepted.
 */
final class CudaDataTransfer implements DataTransfer {
    private static final int UNDECIDED = 0;
    private static final int DIRECT = 1;
    private static final int STAGED = 2;

    /** This factory's devices by ordinal (null where an ordinal is not one of them): looked up without boxing. */
    private final CudaDevice[] devices;
    /**
     * Per pair of ordinals {@code a < b}, at {@code a * devices.length + b}: {@link #DIRECT} or {@link #STAGED} once
     * the first copy between the two decided it, else {@link #UNDECIDED} (copies within one GPU never look here).
     * Read on every copy between GPUs; written once per pair, under the lock.
     */
    private final AtomicIntegerArray peerAccess;

    CudaDataTransfer(Map<Integer, CudaDevice> devicesByOrdinal) {
        int slots = devicesByOrdinal.keySet().stream().mapToInt(Integer::intValue).max().orElse(-1) + 1;
        this.devices = new CudaDevice[slots];
        devicesByOrdinal.forEach((ordinal, device) -> devices[ordinal] = device);
        this.peerAccess = new AtomicIntegerArray(slots * slots);
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
                && location.deviceId() >= 0 && location.deviceId() < devices.length
                && devices[location.deviceId()] != null;
    }

    @Override
    public void copy(List<Copy> copies) {
        for (int i = 0; i < copies.size(); i++) { // indexed: no iterator per call
            Copy copy = copies.get(i);
            MemoryLocation from = copy.sourceLocation();
            MemoryLocation to = copy.destinationLocation();
            if (!canCopy(from, to)) {
                throw new IllegalArgumentException("javaep: JavaCuda cannot copy " + from + " → " + to);
            }
            CudaTransferCounters.count(from, to, copy.bytes());
            if (copy.bytes() == 0) {
                continue;
            }
            boolean betweenGpus = ours(from) && ours(to) && from.deviceId() != to.deviceId();
            CudaDevice streamDevice = CudaStream.deviceOrNull(copy.streamHandle());
            CudaDevice device = devices[streamDevice != null ? streamDevice.ordinal()
                    : ours(to) ? to.deviceId() : from.deviceId()];
            CudaMemcpyEvent event = FlightRecorder.AVAILABLE ? CudaMemcpyEvent.beginIfRecorded() : null;
            if (betweenGpus) {
                CudaDevice source = devices[from.deviceId()];
                CudaDevice destination = devices[to.deviceId()];
                enablePeerAccess(source, destination);
                device.makeCurrent();
                device.driver().memcpyPeerAsync(copy.destination(), destination.contextHandle(), copy.source(),
                        source.contextHandle(), copy.bytes(), copy.streamHandle());
            } else {
                device.makeCurrent();
                device.driver().memcpyAsync(copy.destination(), copy.source(), copy.bytes(), copy.streamHandle());
            }
            if (copy.streamHandle() == 0) {
                device.driver().streamSynchronize(0L);
            }
            if (event != null) {
                CudaMemcpyEvent.commit(event, copy.bytes(), direction(copy), device.ordinal(), copy.streamHandle(),
                        "CopyTensors");
            }
        }
    }

    /**
     * Gives each of the two devices' contexts access to the other's memory where the hardware allows it; true when
     * a copy between them goes directly. Asked once per pair: peer access lasts as long as the contexts (and a
     * second cuCtxEnablePeerAccess would fail with PEER_ACCESS_ALREADY_ENABLED).
     */
    private boolean enablePeerAccess(CudaDevice source, CudaDevice destination) {
        int pair = Math.min(source.ordinal(), destination.ordinal()) * devices.length
                + Math.max(source.ordinal(), destination.ordinal());
        int decided = peerAccess.get(pair);
        if (decided == UNDECIDED) {
            synchronized (this) {
                decided = peerAccess.get(pair);
                if (decided == UNDECIDED) {
                    boolean toDestination = enable(destination, source);
                    boolean toSource = enable(source, destination);
                    decided = toDestination || toSource ? DIRECT : STAGED;
                    peerAccess.set(pair, decided);
                }
            }
        }
        return decided == DIRECT;
    }

    /** Lets {@code device}'s context access {@code peer}'s memory; false where the GPUs cannot (the copy is staged). */
    private static boolean enable(CudaDevice device, CudaDevice peer) {
        CudaDriver driver = device.driver();
        try {
            if (!driver.deviceCanAccessPeer(device.info().handle(), peer.info().handle())) {
                return false;
            }
            device.makeCurrent();
            driver.ctxEnablePeerAccess(peer.contextHandle());
            return true;
        } catch (CudaException e) {
            return false; // e.g. CUDA_ERROR_TOO_MANY_PEERS: the driver stages the copy instead
        }
    }

    private static CudaMemcpyEvent.Direction direction(Copy copy) {
        return copy.sourceLocation().isHost() ? CudaMemcpyEvent.Direction.HOST_TO_DEVICE
                : copy.destinationLocation().isHost() ? CudaMemcpyEvent.Direction.DEVICE_TO_HOST
                : CudaMemcpyEvent.Direction.DEVICE_TO_DEVICE;
    }
}
