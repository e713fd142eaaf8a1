package dev.javaep.bridge;

import dev.javaep.ort.OrtApi;
import dev.javaep.ort.OrtEpFactoryStruct;
import dev.javaep.spi.DataTransfer;
import dev.javaep.spi.DeviceAllocator;
import dev.javaep.spi.DeviceOffer;
import dev.javaep.spi.EpLog;
import dev.javaep.spi.ExecutionProvider;
import dev.javaep.spi.ExecutionProviderFactory;
import dev.javaep.spi.ExternalResourceImporter;
import dev.javaep.spi.HardwareDevice;
import dev.javaep.spi.HardwareDeviceType;
import dev.javaep.spi.MemoryKind;
import dev.javaep.spi.MemoryLocation;
import dev.javaep.spi.MemorySpace;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** An {@code OrtEpFactory} in front of one {@link ExecutionProviderFactory}. */
public final class EpFactoryBridge extends StructBridge {
    private static final EnumSet<OrtEpFactoryStruct> IMPLEMENTED = EnumSet.of(OrtEpFactoryStruct.GetName,
            OrtEpFactoryStruct.GetVendor, OrtEpFactoryStruct.GetSupportedDevices, OrtEpFactoryStruct.CreateEp,
            OrtEpFactoryStruct.ReleaseEp, OrtEpFactoryStruct.GetVendorId, OrtEpFactoryStruct.GetVersion,
            OrtEpFactoryStruct.CreateDataTransfer, OrtEpFactoryStruct.IsStreamAware,
            OrtEpFactoryStruct.CreateAllocator, OrtEpFactoryStruct.ReleaseAllocator,
            OrtEpFactoryStruct.CreateSyncStreamForDevice, OrtEpFactoryStruct.CreateExternalResourceImporterForDevice);
    private static final CallbackStruct<OrtEpFactoryStruct, EpFactoryBridge> STRUCT =
            new CallbackStruct<>(OrtEpFactoryStruct.class, MethodHandles.lookup(), IMPLEMENTED);

    private final ExecutionProviderFactory factory;
    private final MemorySegment name;
    private final MemorySegment vendor;
    private final MemorySegment version;
    private final int vendorId;
    /** One {@code OrtMemoryInfo} per memory space offered; ORT keeps the pointers, so they live until the factory is released. */
    private final Map<MemorySpace, MemorySegment> memoryInfos = new ConcurrentHashMap<>();
    /** Devices the factory found that ORT did not; created once, released with the factory (after ORT's EP devices). */
    private final Map<HardwareDevice, MemorySegment> createdDevices = new ConcurrentHashMap<>();
    /** What was offered per {@code OrtHardwareDevice} address, for CreateEp. */
    private final Map<Long, DeviceOffer> offers = new ConcurrentHashMap<>();
    /** What was offered per {@code OrtEpDevice} address, for importers. */
    private final Map<Long, DeviceOffer> offersByEpDevice = new ConcurrentHashMap<>();
    /** ORT's CPU memory info, for tensors over memory a host EP imported; made on first use. */
    private volatile MemorySegment cpuMemoryInfo;

    private EpFactoryBridge(ExecutionProviderFactory factory, OrtRuntime runtime) {
        super(STRUCT, runtime);
        this.factory = factory;
        // Read once: ORT asks for these often, and a factory that throws here is refused at registration.
        this.name = arena.allocateFrom(factory.name());
        this.vendor = arena.allocateFrom(factory.vendor());
        this.version = arena.allocateFrom(factory.version());
        this.vendorId = factory.vendorId();
        STRUCT.register(this);
    }

    /** Builds the native factory struct ORT will use for {@code factory}. */
    public static MemorySegment create(ExecutionProviderFactory factory, OrtRuntime runtime) {
        return new EpFactoryBridge(factory, runtime).struct;
    }

    /** {@code ReleaseEpFactory}: closes the Java factory and frees the struct. */
    public static void release(MemorySegment pointer) {
        EpFactoryBridge bridge = STRUCT.removeKnown(pointer);
        try {
            bridge.factory.close();
        } finally {
            bridge.memoryInfos.values().forEach(bridge.api()::releaseMemoryInfo);
            if (bridge.cpuMemoryInfo != null) {
                bridge.api().releaseMemoryInfo(bridge.cpuMemoryInfo);
            }
            bridge.createdDevices.values().forEach(bridge.runtime.epApi()::releaseHardwareDevice);
            bridge.arena.close();
            if (STRUCT.isEmpty()) {
                // ORT's default logger belongs to its environment, which the host may release next while this JVM
                // (and code that logs, such as a JavaCuda kernel compiled later) lives on: stop using it with the
                // last factory; the next registration installs the new environment's logger.
                EpLog.useOrtLogger(null);
            }
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
        return STRUCT.get(self).name;
    }

    static MemorySegment getVendor(MemorySegment self) {
        return STRUCT.get(self).vendor;
    }

    static MemorySegment getVersion(MemorySegment self) {
        return STRUCT.get(self).version;
    }

    static int getVendorId(MemorySegment self) {
        return STRUCT.get(self).vendorId;
    }

    static MemorySegment getSupportedDevices(MemorySegment self, MemorySegment devices, long numDevices,
                                             MemorySegment epDevicesOut, long maxEpDevices, MemorySegment numOut) {
        EpFactoryBridge bridge = STRUCT.get(self);
        MemorySegment count = numOut.reinterpret(ValueLayout.JAVA_LONG.byteSize());
        count.set(ValueLayout.JAVA_LONG, 0, 0L);
        List<DeviceOffer> offers = bridge.factory.supportedDevices(bridge.hardwareDevices(devices, numDevices));
        if (offers.size() > maxEpDevices) {
            EpLog.warning("javaep: " + bridge.factory.name() + " offered " + offers.size()
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
        MemorySegment hardwareDevice = hardwareDeviceFor(offer.device());
        MemorySegment metadata = api.createKeyValuePairs(offer.metadata());
        MemorySegment options = api.createKeyValuePairs(offer.options());
        MemorySegment epDevice;
        try {
            epDevice = runtime.epApi().createEpDevice(self, hardwareDevice, metadata, options);
        } finally {
            api.releaseKeyValuePairs(metadata);
            api.releaseKeyValuePairs(options);
        }
        try {
            for (MemorySpace space : offer.memorySpaces()) {
                runtime.epApi().addAllocatorInfo(epDevice, memoryInfo(space));
            }
        } catch (RuntimeException | Error e) {
            runtime.epApi().releaseEpDevice(epDevice);
            throw e;
        }
        offers.put(hardwareDevice.address(), offer);
        offersByEpDevice.put(epDevice.address(), offer);
        return epDevice;
    }

    /** ORT's device, or for a device ORT did not discover, one created with {@code CreateHardwareDevice}. */
    private MemorySegment hardwareDeviceFor(HardwareDevice device) {
        if (device.discoveredByOrt()) {
            return MemorySegment.ofAddress(device.handle());
        }
        return createdDevices.computeIfAbsent(device, d -> {
            MemorySegment metadata = api().createKeyValuePairs(d.metadata());
            try {
                return runtime.epApi().createHardwareDevice(MemoryLocations.ortDeviceType(d.type()), d.vendorId(),
                        d.deviceId(), d.vendor(), metadata);
            } finally {
                api().releaseKeyValuePairs(metadata);
            }
        });
    }

    private MemorySegment memoryInfo(MemorySpace space) {
        MemoryLocation location = space.location();
        // OrtDeviceAllocator (0): ORT uses the allocator as given, without an arena of its own.
        return memoryInfos.computeIfAbsent(space, s -> api().createMemoryInfoV2(s.name(),
                MemoryLocations.ortDeviceType(location.deviceType()), location.vendorId(), location.deviceId(),
                location.kind().ortValue(), s.alignment(), 0));
    }

    private Optional<Map.Entry<MemorySpace, MemorySegment>> spaceAt(MemoryLocation location) {
        return memoryInfos.entrySet().stream().filter(e -> e.getKey().location().equals(location)).findFirst();
    }

    static MemorySegment createEp(MemorySegment self, MemorySegment devices, MemorySegment metadataPairs, long numDevices,
                                  MemorySegment sessionOptions, MemorySegment logger, MemorySegment epOut) {
        EpFactoryBridge bridge = STRUCT.get(self);
        MemorySegment out = epOut.reinterpret(ValueLayout.ADDRESS.byteSize());
        out.set(ValueLayout.ADDRESS, 0, MemorySegment.NULL);
        Map<String, String> options = bridge.api().sessionConfigEntries(sessionOptions);
        List<HardwareDevice> selected = bridge.hardwareDevices(devices, numDevices);
        ExecutionProvider provider = bridge.factory.createExecutionProvider(selected, Map.copyOf(options));
        if (!provider.name().equals(bridge.factory.name())) {
            provider.close();
            throw new IllegalStateException("javaep: EP name '" + provider.name() + "' differs from its factory's name '"
                    + bridge.factory.name() + "'; ORT requires them to match");
        }
        // Kernels see host memory unless one of the selected devices was offered with device memory.
        List<DeviceOffer> offers = selected.stream().map(d -> bridge.offers.get(d.handle())).filter(Objects::nonNull).toList();
        KernelMemory memory = offers.stream().allMatch(DeviceOffer::usesHostMemory) ? KernelMemory.HOST
                : new KernelMemory(false, offers.stream().flatMap(o -> o.memorySpaces().stream()).map(MemorySpace::location).toList());
        out.set(ValueLayout.ADDRESS, 0, EpBridge.create(provider, bridge.runtime, memory));
        return MemorySegment.NULL;
    }

    static void releaseEp(MemorySegment self, MemorySegment ep) {
        EpBridge.release(ep);
    }

    static MemorySegment createDataTransfer(MemorySegment self, MemorySegment dataTransferOut) {
        EpFactoryBridge bridge = STRUCT.get(self);
        MemorySegment out = dataTransferOut.reinterpret(ValueLayout.ADDRESS.byteSize());
        out.set(ValueLayout.ADDRESS, 0, MemorySegment.NULL);
        // Host-memory EPs have none (NULL): ORT copies host memory itself.
        Optional<DataTransfer> transfer = bridge.factory.dataTransfer();
        if (transfer.isPresent()) {
            out.set(ValueLayout.ADDRESS, 0, DataTransferBridge.create(transfer.get(), bridge.runtime, bridge.factory.name()));
        }
        return MemorySegment.NULL;
    }

    static boolean isStreamAware(MemorySegment self) {
        return STRUCT.get(self).factory.streamAware();
    }

    /**
     * ORT asks for one allocator per memory info the factory registered (at registration, for the
     * shared allocators, and per session). Never answers NULL with success: ORT 1.29 and older
     * dereference it.
     */
    static MemorySegment createAllocator(MemorySegment self, MemorySegment memoryInfo, MemorySegment allocatorOptions,
                                         MemorySegment allocatorOut) {
        EpFactoryBridge bridge = STRUCT.get(self);
        MemorySegment out = allocatorOut.reinterpret(ValueLayout.ADDRESS.byteSize());
        out.set(ValueLayout.ADDRESS, 0, MemorySegment.NULL);
        MemoryLocation location = MemoryLocations.of(bridge.runtime.epApi(),
                bridge.runtime.epApi().memoryInfoMemoryDevice(memoryInfo));
        Map.Entry<MemorySpace, MemorySegment> space = bridge.spaceAt(location).orElseThrow(() ->
                new IllegalArgumentException("javaep: " + bridge.factory.name() + " has no memory at " + location
                        + "; it offers " + bridge.memoryInfos.keySet()));
        DeviceAllocator allocator = bridge.factory.createAllocator(space.getKey());
        try {
            out.set(ValueLayout.ADDRESS, 0, AllocatorBridge.create(allocator, space.getValue(), bridge.runtime));
        } catch (RuntimeException | Error e) {
            allocator.close();
            throw e;
        }
        return MemorySegment.NULL;
    }

    static void releaseAllocator(MemorySegment self, MemorySegment allocator) {
        if (!allocator.equals(MemorySegment.NULL)) {
            AllocatorBridge.release(allocator);
        }
    }

    static MemorySegment createSyncStreamForDevice(MemorySegment self, MemorySegment memoryDevice,
                                                   MemorySegment streamOptions, MemorySegment streamOut) {
        EpFactoryBridge bridge = STRUCT.get(self);
        MemorySegment out = streamOut.reinterpret(ValueLayout.ADDRESS.byteSize());
        out.set(ValueLayout.ADDRESS, 0, MemorySegment.NULL);
        MemoryLocation location = MemoryLocations.of(bridge.runtime.epApi(), memoryDevice);
        var stream = bridge.factory.createStream(location);
        try {
            out.set(ValueLayout.ADDRESS, 0, SyncStreamBridge.create(stream, bridge.runtime));
        } catch (RuntimeException | Error e) {
            stream.close();
            throw e;
        }
        return MemorySegment.NULL;
    }

    static MemorySegment createExternalResourceImporterForDevice(MemorySegment self, MemorySegment epDevice,
                                                                 MemorySegment importerOut) {
        EpFactoryBridge bridge = STRUCT.get(self);
        MemorySegment out = importerOut.reinterpret(ValueLayout.ADDRESS.byteSize());
        out.set(ValueLayout.ADDRESS, 0, MemorySegment.NULL);
        DeviceOffer offer = bridge.offersByEpDevice.get(epDevice.address());
        if (offer == null) {
            throw new IllegalArgumentException("javaep: " + bridge.factory.name() + " did not create this OrtEpDevice");
        }
        Optional<ExternalResourceImporter> importer = bridge.factory.createImporter(offer);
        if (importer.isEmpty()) {
            return MemorySegment.NULL; // success with no importer: apps see "not supported"
        }
        try {
            out.set(ValueLayout.ADDRESS, 0, ImporterBridge.create(importer.get(), bridge.runtime, bridge.factory.name(),
                    epDevice, bridge.tensorMemoryInfo(offer)));
        } catch (RuntimeException | Error e) {
            importer.get().close();
            throw e;
        }
        return MemorySegment.NULL;
    }

    /** Where tensors over imported memory live: the device's memory space, or CPU memory for a host EP. */
    private MemorySegment tensorMemoryInfo(DeviceOffer offer) {
        Optional<MemorySpace> deviceSpace = offer.memorySpaces().stream()
                .filter(s -> s.location().kind() == MemoryKind.DEVICE).findFirst();
        if (deviceSpace.isPresent()) {
            return memoryInfo(deviceSpace.get());
        }
        synchronized (this) {
            if (cpuMemoryInfo == null) {
                cpuMemoryInfo = api().createCpuMemoryInfo(0 /* OrtDeviceAllocator */, 0 /* OrtMemTypeDefault */);
            }
            return cpuMemoryInfo;
        }
    }
}
