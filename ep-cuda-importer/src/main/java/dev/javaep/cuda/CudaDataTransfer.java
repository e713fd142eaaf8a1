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
import java.util.concurrent.ConcurrentHashMap;

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
    private final Map<Integer, CudaDevice> devices;
    /**
     * Whether copies between two ordinals go directly, decided once per pair: keyed by {@link #pair} (a long, boxed
     * only on the first copy between the two; copies within one GPU never look here).
     */
    private final Map<Long, Boolean> peerAccess = new ConcurrentHashMap<>();
    /** The pairs decided so far, as {@link #pair} values: what a copy reads before the map (no boxing, no lambda). */
    private volatile long[] directPairs = new long[0];
    private volatile long[] stagedPairs = new long[0];

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
            CudaDevice device = devices.get(streamDevice != null ? streamDevice.ordinal()
                    : ours(to) ? to.deviceId() : from.deviceId());
            CudaMemcpyEvent event = FlightRecorder.AVAILABLE ? CudaMemcpyEvent.beginIfRecorded() : null;
            if (betweenGpus) {
                CudaDevice source = devices.get(from.deviceId());
                CudaDevice destination = devices.get(to.deviceId());
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
     * a copy between them goes directly. Asked once per pair: peer access lasts as long as the contexts.
     */
    boolean enablePeerAccess(CudaDevice source, CudaDevice destination) {
        long pair = pair(source.ordinal(), destination.ordinal());
        if (contains(directPairs, pair)) {
            return true;
        }
        if (contains(stagedPairs, pair)) {
            return false;
        }
        boolean direct = peerAccess.computeIfAbsent(pair, p -> {
            boolean toDestination = enable(destination, source);
            boolean toSource = enable(source, destination);
            return toDestination || toSource;
        });
        synchronized (this) {
            if (direct) {
                directPairs = appended(directPairs, pair);
            } else {
                stagedPairs = appended(stagedPairs, pair);
            }
        }
        return direct;
    }

    /** Two ordinals as one value, the lower first. */
    private static long pair(int a, int b) {
        return (long) Math.min(a, b) << 32 | Math.max(a, b);
    }

    private static boolean contains(long[] pairs, long pair) {
        for (long p : pairs) {
            if (p == pair) {
                return true;
            }
        }
        return false;
    }

    private static long[] appended(long[] pairs, long pair) {
        if (contains(pairs, pair)) {
            return pairs;
        }
        long[] grown = java.util.Arrays.copyOf(pairs, pairs.length + 1);
        grown[pairs.length] = pair;
        return grown;
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
