package dev.javaep.bridge;

import dev.javaep.bridge.events.CopyTensorsEvent;
import dev.javaep.ort.OrtApi;
import dev.javaep.ort.OrtDataTransferImplStruct;
import dev.javaep.ort.OrtEpApi;
import dev.javaep.spi.DataTransfer;
import dev.javaep.spi.FlightRecorder;
import dev.javaep.spi.MemoryLocation;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.util.ArrayList;
import java.util.List;

/** An {@code OrtDataTransferImpl} in front of one {@link DataTransfer}. */
final class DataTransferBridge extends StructBridge {
    private static final CallbackStruct<OrtDataTransferImplStruct, DataTransferBridge> STRUCT =
            new CallbackStruct<>(OrtDataTransferImplStruct.class, MethodHandles.lookup());

    private final DataTransfer transfer;
    private final String epName;

    private DataTransferBridge(DataTransfer transfer, OrtRuntime runtime, String epName) {
        super(STRUCT, runtime);
        this.transfer = transfer;
        this.epName = epName;
        STRUCT.register(this);
    }

    /** @param epName the factory's EP, for the {@link CopyTensorsEvent} */
    static MemorySegment create(DataTransfer transfer, OrtRuntime runtime, String epName) {
        return new DataTransferBridge(transfer, runtime, epName).struct;
    }

    // ---- upcalls (behind UpcallGuard) ------------------------------------------------------------

    static void release(MemorySegment self) {
        STRUCT.releaseAndClose(self);
    }

    /** Fail-closed: anything unreadable or unknown is "cannot copy" (the guard turns a throw into false). */
    static boolean canCopy(MemorySegment self, MemorySegment source, MemorySegment destination) {
        DataTransferBridge bridge = STRUCT.get(self);
        OrtEpApi epApi = bridge.runtime.epApi();
        return bridge.transfer.canCopy(MemoryLocations.of(epApi, source), MemoryLocations.of(epApi, destination));
    }

    static MemorySegment copyTensors(MemorySegment self, MemorySegment sources, MemorySegment destinations,
                                     MemorySegment streams, long count) {
        long start = BridgeStatistics.start();
        CopyTensorsEvent event = FlightRecorder.AVAILABLE ? CopyTensorsEvent.beginIfRecorded() : null;
        DataTransferBridge bridge = STRUCT.get(self);
        OrtApi api = bridge.runtime.api();
        OrtEpApi epApi = bridge.runtime.epApi();
        long bytes = count * ValueLayout.ADDRESS.byteSize();
        MemorySegment src = sources.reinterpret(bytes);
        MemorySegment dst = destinations.reinterpret(bytes);
        MemorySegment streamArray = streams.equals(MemorySegment.NULL) ? MemorySegment.NULL : streams.reinterpret(bytes);
        List<DataTransfer.Copy> copies = new ArrayList<>((int) count);
        for (long i = 0; i < count; i++) {
            MemorySegment from = src.getAtIndex(ValueLayout.ADDRESS, i);
            MemorySegment to = dst.getAtIndex(ValueLayout.ADDRESS, i);
            long size = api.tensorSizeInBytes(from);
            long destinationSize = api.tensorSizeInBytes(to);
            if (size != destinationSize) {
                throw new IllegalArgumentException("javaep: CopyTensors #" + i + ": source has " + size
                        + " bytes, destination " + destinationSize);
            }
            MemoryLocation fromLocation = MemoryLocations.of(epApi, epApi.valueMemoryDevice(from));
            MemoryLocation toLocation = MemoryLocations.of(epApi, epApi.valueMemoryDevice(to));
            long stream = streamArray.equals(MemorySegment.NULL) ? 0L
                    : api.syncStreamHandle(streamArray.getAtIndex(ValueLayout.ADDRESS, i));
            copies.add(new DataTransfer.Copy(api.tensorMutableData(from).address(), fromLocation,
                    api.tensorMutableData(to).address(), toLocation, size, stream));
        }
        bridge.transfer.copy(copies);
        if (event != null && CopyTensorsEvent.accepted(event)) {
            commit(event, bridge.epName, copies);
        }
        BridgeStatistics.record(BridgeStatistics.Callback.COPY_TENSORS, start);
        return MemorySegment.NULL;
    }

    private static void commit(CopyTensorsEvent event, String epName, List<DataTransfer.Copy> copies) {
        long bytes = 0;
        String direction = null;
        for (DataTransfer.Copy copy : copies) {
            bytes += copy.bytes();
            String thisDirection = direction(copy);
            direction = direction == null || direction.equals(thisDirection) ? thisDirection : "MIXED";
        }
        DataTransfer.Copy first = copies.isEmpty() ? null : copies.getFirst();
        String device = first == null ? "" : describe(first.sourceLocation().isHost() ? first.destinationLocation()
                : first.sourceLocation());
        if (event != null) {
            CopyTensorsEvent.commit(event, epName, copies.size(), bytes, direction == null ? "" : direction, device,
                    first == null ? 0L : first.streamHandle());
        }
    }

    private static String direction(DataTransfer.Copy copy) {
        boolean fromHost = copy.sourceLocation().isHost();
        boolean toHost = copy.destinationLocation().isHost();
        return fromHost ? (toHost ? "HOST_TO_HOST" : "HOST_TO_DEVICE") : toHost ? "DEVICE_TO_HOST" : "DEVICE_TO_DEVICE";
    }

    private static String describe(MemoryLocation location) {
        return location.deviceType() + " " + location.deviceId() + " (vendor 0x" + Integer.toHexString(location.vendorId())
                + ", " + location.kind() + ")";
    }
}
