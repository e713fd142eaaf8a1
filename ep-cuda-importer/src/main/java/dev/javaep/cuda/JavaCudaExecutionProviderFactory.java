package dev.javaep.cuda;

import dev.javaep.cuda.driver.CudaDeviceInfo;
import dev.javaep.cuda.driver.CudaDriver;
import dev.javaep.cuda.driver.CudaException;
import dev.javaep.cuda.driver.CudaUnavailableException;
import dev.javaep.spi.DataTransfer;
import dev.javaep.spi.DeviceAllocator;
import dev.javaep.spi.DeviceOffer;
import dev.javaep.spi.DeviceStream;
import dev.javaep.spi.EpLogger;
import dev.javaep.spi.ExecutionProvider;
import dev.javaep.spi.ExecutionProviderFactory;
import dev.javaep.spi.ExternalResourceImporter;
import dev.javaep.spi.FactoryContext;
import dev.javaep.spi.HardwareDevice;
import dev.javaep.spi.HardwareDeviceType;
import dev.javaep.spi.JavaepVersion;
import dev.javaep.spi.MemoryKind;
import dev.javaep.spi.MemoryLocation;
import dev.javaep.spi.MemorySpace;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * JavaCudaExecutionProvider's factory: one EP device per CUDA device, each with device memory
 * ("JavaCuda") and pinned host memory ("JavaCudaPinned"). Without a driver or a GPU it offers no
 * devices and says why in ORT's log; the library and the other EPs work as before.
 */
public final class JavaCudaExecutionProviderFactory implements ExecutionProviderFactory {
    public static final String NAME = "JavaCudaExecutionProvider";
    public static final String DEVICE_MEMORY = "JavaCuda";
    public static final String PINNED_MEMORY = "JavaCudaPinned";

    private final Map<Integer, CudaDevice> devices = new LinkedHashMap<>();
    private EpLogger logger;
    private String unavailableReason = "not initialized";
    private CudaDataTransfer transfer;

    /** Loads the process's CUDA driver ({@link CudaDriver#load()}; tests hand in the stand-in libcuda). */
    @FunctionalInterface
    interface DriverLoader {
        CudaDriver load() throws CudaUnavailableException;
    }

    @Override
    public void initialize(FactoryContext context) {
        initialize(context, CudaDriver::load, System.getenv(CudaDriver.VISIBLE_DEVICES));
    }

    /**
     * @param visibleDevices the process's {@code CUDA_VISIBLE_DEVICES} (null when unset), which the reason names when
     *                       the driver sees no device
     */
    void initialize(FactoryContext context, DriverLoader loader, String visibleDevices) {
        this.logger = context.logger();
        try {
            CudaDriver driver = loader.load();
            for (int ordinal = 0; ordinal < driver.deviceCount(); ordinal++) {
                devices.put(ordinal, new CudaDevice(driver, driver.deviceInfo(ordinal)));
            }
            unavailableReason = devices.isEmpty()
                    ? "the CUDA driver reports no devices" + CudaDriver.noDeviceHint(visibleDevices) : null;
            transfer = new CudaDataTransfer(devices);
        } catch (CudaUnavailableException | CudaException e) {
            unavailableReason = e.getMessage();
        }
        if (unavailableReason != null) {
            logger.warning(NAME + " offers no devices: " + unavailableReason);
        } else {
            devices.values().forEach(d -> logger.info(NAME + ": " + d));
        }
    }

    /** Why no device is offered, or empty when CUDA devices were found. */
    public Optional<String> unavailableReason() {
        return Optional.ofNullable(unavailableReason);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String vendor() {
        return "javaep";
    }

    @Override
    public String version() {
        return JavaepVersion.VERSION;
    }

    @Override
    public List<DeviceOffer> supportedDevices(List<HardwareDevice> ortDevices) {
        List<DeviceOffer> offers = new ArrayList<>();
        for (CudaDevice device : devices.values()) {
            CudaDeviceInfo info = device.info();
            HardwareDevice hardware = CudaDeviceMatcher.ortDeviceFor(info, ortDevices)
                    .orElseGet(() -> CudaDeviceMatcher.foundByCuda(info));
            offers.add(new DeviceOffer(hardware, metadata(device), Map.of("device_id", Integer.toString(info.ordinal())),
                    List.of(memorySpace(info.ordinal(), MemoryKind.DEVICE), memorySpace(info.ordinal(), MemoryKind.HOST_ACCESSIBLE))));
        }
        return offers;
    }

    static MemorySpace memorySpace(int ordinal, MemoryKind kind) {
        MemoryLocation location = new MemoryLocation(HardwareDeviceType.GPU, kind, HardwareDevice.VENDOR_NVIDIA, ordinal);
        return new MemorySpace(kind == MemoryKind.DEVICE ? DEVICE_MEMORY : PINNED_MEMORY, location, 0);
    }

    /** What an app needs to pick the device matching its Vulkan/D3D12 adapter without guessing. */
    private Map<String, String> metadata(CudaDevice device) {
        CudaDeviceInfo info = device.info();
        Map<String, String> metadata = new LinkedHashMap<>();
        metadata.put("cuda.device_id", Integer.toString(info.ordinal()));
        metadata.put("cuda.uuid", info.uuidString());
        metadata.put("cuda.name", info.name());
        metadata.put("cuda.compute_capability", info.computeCapabilityMajor() + "." + info.computeCapabilityMinor());
        metadata.put("cuda.total_memory_bytes", Long.toString(info.totalMemoryBytes()));
        metadata.put("cuda.driver_version", Integer.toString(device.driver().driverVersion()));
        metadata.put(CudaDeviceMatcher.PCI_BUS_ID, info.pciBusId());
        info.luid().ifPresent(l -> metadata.put(CudaDeviceMatcher.LUID, Long.toUnsignedString(l)));
        return metadata;
    }

    @Override
    public ExecutionProvider createExecutionProvider(List<HardwareDevice> selected, Map<String, String> sessionOptions) {
        if (selected.size() != 1) {
            throw new IllegalArgumentException("javaep: " + NAME + " runs on exactly one device per session; "
                    + selected.size() + " were selected");
        }
        return new JavaCudaExecutionProvider(deviceFor(selected.getFirst()), sessionOptions);
    }

    /**
     * The importer of Vulkan/D3D12/CUDA-VMM memory and timeline semaphores for the offer's device; see
     * {@link CudaExternalResourceImporter}.
     */
    @Override
    public Optional<ExternalResourceImporter> createImporter(DeviceOffer offer) {
        return Optional.of(new CudaExternalResourceImporter(deviceFor(offer.device()),
                devices.values().stream().map(CudaDevice::info).toList()));
    }

    private CudaDevice deviceFor(HardwareDevice hardware) {
        String busId = hardware.metadata().get(CudaDeviceMatcher.PCI_BUS_ID);
        return devices.values().stream()
                .filter(d -> busId != null && CudaDeviceInfo.normalizePciBusId(busId).equals(d.info().pciBusId()))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("javaep: " + NAME + " has no CUDA device for "
                        + hardware.vendor() + " device " + hardware.metadata()));
    }

    private CudaDevice device(MemoryLocation location) {
        CudaDevice device = devices.get(location.deviceId());
        if (device == null || location.deviceType() != HardwareDeviceType.GPU) {
            throw new IllegalArgumentException("javaep: " + NAME + " has no device at " + location);
        }
        return device;
    }

    @Override
    public DeviceAllocator createAllocator(MemorySpace space) {
        CudaDevice device = device(space.location());
        return switch (space.location().kind()) {
            case DEVICE -> new CudaDeviceAllocator(device);
            case HOST_ACCESSIBLE -> new CudaPinnedAllocator(device);
        };
    }

    @Override
    public Optional<DataTransfer> dataTransfer() {
        return devices.isEmpty() ? Optional.empty() : Optional.of(transfer);
    }

    @Override
    public boolean streamAware() {
        return true;
    }

    @Override
    public DeviceStream createStream(MemoryLocation location) {
        return new CudaStream(device(location));
    }

    @Override
    public void close() {
        devices.values().forEach(CudaDevice::close);
        devices.clear();
    }
}
