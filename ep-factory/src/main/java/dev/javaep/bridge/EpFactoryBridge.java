package dev.javaep.bridge;

import dev.javaep.ort.OrtApi;
import dev.javaep.ort.OrtEpFactoryStruct;
import dev.javaep.spi.DeviceOffer;
import dev.javaep.spi.ExecutionProvider;
import dev.javaep.spi.ExecutionProviderFactory;
import dev.javaep.spi.HardwareDevice;
import dev.javaep.spi.HardwareDeviceType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;

/** An {@code OrtEpFactory} in front of one {@link ExecutionProviderFactory}. */
public final class EpFactoryBridge {
    private static final HandleRegistry<EpFactoryBridge> REGISTRY = new HandleRegistry<>("OrtEpFactory");
    private static final CallbackStruct<OrtEpFactoryStruct> STRUCT = new CallbackStruct<>(OrtEpFactoryStruct.class,
            OrtEpFactoryStruct.SIZE, slot -> Upcalls.find(MethodHandles.lookup(), EpFactoryBridge.class, slot));
    private static final EnumSet<OrtEpFactoryStruct> IMPLEMENTED = EnumSet.of(OrtEpFactoryStruct.GetName,
            OrtEpFactoryStruct.GetVendor, OrtEpFactoryStruct.GetSupportedDevices, OrtEpFactoryStruct.CreateEp,
            OrtEpFactoryStruct.ReleaseEp, OrtEpFactoryStruct.GetVendorId, OrtEpFactoryStruct.GetVersion,
            OrtEpFactoryStruct.CreateDataTransfer, OrtEpFactoryStruct.IsStreamAware);

    private final ExecutionProviderFactory factory;
    private final OrtRuntime runtime;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment name;
    private final MemorySegment vendor;
    private final MemorySegment version;
    private final int vendorId;
    private final MemorySegment struct;

    private EpFactoryBridge(ExecutionProviderFactory factory, OrtRuntime runtime) {
        this.factory = factory;
        this.runtime = runtime;
        // Read once: ORT asks for these often, and a factory that throws here is refused at registration.
        this.name = arena.allocateFrom(factory.name());
        this.vendor = arena.allocateFrom(factory.vendor());
        this.version = arena.allocateFrom(factory.version());
        this.vendorId = factory.vendorId();
        this.struct = STRUCT.allocate(arena, runtime.apiVersion(), IMPLEMENTED);
        REGISTRY.register(struct, this);
    }

    /** Builds the native factory struct ORT will use for {@code factory}. */
    public static MemorySegment create(ExecutionProviderFactory factory, OrtRuntime runtime) {
        return new EpFactoryBridge(factory, runtime).struct;
    }

    /** {@code ReleaseEpFactory}: closes the Java factory and frees the struct. */
    public static void release(MemorySegment pointer) {
        EpFactoryBridge bridge = REGISTRY.remove(pointer);
        if (bridge == null) {
            throw new IllegalArgumentException("javaep: ReleaseEpFactory got a factory javaep did not create");
        }
        try {
            bridge.factory.close();
        } finally {
            bridge.arena.close();
        }
    }

    private OrtApi api() {
        return runtime.api();
    }

    private HardwareDevice hardwareDevice(MemorySegment device) {
        OrtApi api = api();
        return new HardwareDevice(HardwareDeviceType.fromOrt(api.hardwareDeviceType(device)),
                api.hardwareDeviceVendorId(device), api.hardwareDeviceId(device), api.hardwareDeviceVendor(device),
                Map.copyOf(api.hardwareDeviceMetadata(device)), device.address());
    }

    private List<HardwareDevice> hardwareDevices(MemorySegment array, long count) {
        MemorySegment devices = array.reinterpret(count * ValueLayout.ADDRESS.byteSize());
        List<HardwareDevice> result = new ArrayList<>((int) count);
        for (long i = 0; i < count; i++) {
            result.add(hardwareDevice(devices.getAtIndex(ValueLayout.ADDRESS, i)));
        }
        return result;
    }

    // ---- upcalls (behind UpcallGuard) ------------------------------------------------------------

    static MemorySegment getName(MemorySegment self) {
        return REGISTRY.get(self).name;
    }

    static MemorySegment getVendor(MemorySegment self) {
        return REGISTRY.get(self).vendor;
    }

    static MemorySegment getVersion(MemorySegment self) {
        return REGISTRY.get(self).version;
    }

    static int getVendorId(MemorySegment self) {
        return REGISTRY.get(self).vendorId;
    }

    static MemorySegment getSupportedDevices(MemorySegment self, MemorySegment devices, long numDevices,
                                             MemorySegment epDevicesOut, long maxEpDevices, MemorySegment numOut) {
        EpFactoryBridge bridge = REGISTRY.get(self);
        MemorySegment count = numOut.reinterpret(ValueLayout.JAVA_LONG.byteSize());
        count.set(ValueLayout.JAVA_LONG, 0, 0L);
        List<DeviceOffer> offers = bridge.factory.supportedDevices(bridge.hardwareDevices(devices, numDevices));
        if (offers.size() > maxEpDevices) {
            BridgeLog.logger().warning("javaep: " + bridge.factory.name() + " offered " + offers.size()
                    + " devices, ORT takes at most " + maxEpDevices + "; the rest are dropped");
            offers = offers.subList(0, (int) maxEpDevices);
        }
        MemorySegment out = epDevicesOut.reinterpret(maxEpDevices * ValueLayout.ADDRESS.byteSize());
        List<MemorySegment> created = new ArrayList<>();
        try {
            for (DeviceOffer offer : offers) {
                created.add(bridge.createEpDevice(self, offer));
            }
        } catch (RuntimeException | Error e) {
            // ORT owns EP devices only once returned; free the ones made before the failure.
            created.forEach(d -> bridge.runtime.epApi().releaseEpDevice(d));
            throw e;
        }
        for (int i = 0; i < created.size(); i++) {
            out.setAtIndex(ValueLayout.ADDRESS, i, created.get(i));
        }
        count.set(ValueLayout.JAVA_LONG, 0, created.size());
        return MemorySegment.NULL;
    }

    private MemorySegment createEpDevice(MemorySegment self, DeviceOffer offer) {
        OrtApi api = api();
        MemorySegment metadata = api.createKeyValuePairs(offer.metadata());
        MemorySegment options = api.createKeyValuePairs(offer.options());
        try {
            return runtime.epApi().createEpDevice(self, MemorySegment.ofAddress(offer.device().handle()), metadata, options);
        } finally {
            api.releaseKeyValuePairs(metadata);
            api.releaseKeyValuePairs(options);
        }
    }

    static MemorySegment createEp(MemorySegment self, MemorySegment devices, MemorySegment metadataPairs, long numDevices,
                                  MemorySegment sessionOptions, MemorySegment logger, MemorySegment epOut) {
        EpFactoryBridge bridge = REGISTRY.get(self);
        MemorySegment out = epOut.reinterpret(ValueLayout.ADDRESS.byteSize());
        out.set(ValueLayout.ADDRESS, 0, MemorySegment.NULL);
        Map<String, String> options = bridge.api().sessionConfigEntries(sessionOptions);
        ExecutionProvider provider = bridge.factory.createExecutionProvider(
                bridge.hardwareDevices(devices, numDevices), Map.copyOf(options));
        if (!provider.name().equals(bridge.factory.name())) {
            provider.close();
            throw new IllegalStateException("javaep: EP name '" + provider.name() + "' differs from its factory's name '"
                    + bridge.factory.name() + "'; ORT requires them to match");
        }
        out.set(ValueLayout.ADDRESS, 0, EpBridge.create(provider, bridge.runtime, true));
        return MemorySegment.NULL;
    }

    static void releaseEp(MemorySegment self, MemorySegment ep) {
        EpBridge.release(ep);
    }

    static MemorySegment createDataTransfer(MemorySegment self, MemorySegment dataTransferOut) {
        // Host-memory EPs need no data transfer: ORT copies host memory itself.
        dataTransferOut.reinterpret(ValueLayout.ADDRESS.byteSize()).set(ValueLayout.ADDRESS, 0, MemorySegment.NULL);
        return MemorySegment.NULL;
    }

    static boolean isStreamAware(MemorySegment self) {
        return false;
    }
}
