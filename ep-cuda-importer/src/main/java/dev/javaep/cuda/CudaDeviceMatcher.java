package dev.javaep.cuda;

import dev.javaep.cuda.driver.CudaDeviceInfo;
import dev.javaep.spi.HardwareDevice;
import dev.javaep.spi.HardwareDeviceType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Pairs CUDA devices with ORT's hardware devices: by PCI bus id (Linux, ORT's "pci_bus_id"
 * metadata) or LUID (Windows, ORT's "LUID" metadata). A CUDA device ORT did not report — a cloud VM
 * without DRM nodes, say — becomes a device the EP describes itself.
 */
final class CudaDeviceMatcher {
    static final String PCI_BUS_ID = "pci_bus_id";
    static final String LUID = "LUID";

    private CudaDeviceMatcher() {}

    /** ORT's device for {@code cuda}, if its discovery reported it. */
    static Optional<HardwareDevice> ortDeviceFor(CudaDeviceInfo cuda, List<HardwareDevice> ortDevices) {
        return ortDevices.stream()
                .filter(d -> d.type() == HardwareDeviceType.GPU && d.vendorId() == HardwareDevice.VENDOR_NVIDIA)
                .filter(d -> samePciBus(cuda, d) || sameLuid(cuda, d))
                .findFirst();
    }

    private static boolean samePciBus(CudaDeviceInfo cuda, HardwareDevice device) {
        String busId = device.metadata().get(PCI_BUS_ID);
        return busId != null && CudaDeviceInfo.normalizePciBusId(busId).equals(cuda.pciBusId());
    }

    private static boolean sameLuid(CudaDeviceInfo cuda, HardwareDevice device) {
        String luid = device.metadata().get(LUID);
        if (luid == null || cuda.luid().isEmpty()) {
            return false;
        }
        try {
            return Long.parseUnsignedLong(luid.trim()) == cuda.luid().getAsLong();
        } catch (NumberFormatException e) {
            return false;
        }
    }

    /** The device as the EP describes it to ORT when ORT's discovery missed it. */
    static HardwareDevice foundByCuda(CudaDeviceInfo cuda) {
        Map<String, String> metadata = new HashMap<>();
        metadata.put(PCI_BUS_ID, cuda.pciBusId());
        metadata.put("Discrete", "1");
        metadata.put("Description", cuda.name());
        metadata.put("javaep.discovered_by", "cuda");
        cuda.luid().ifPresent(l -> metadata.put(LUID, Long.toUnsignedString(l)));
        return HardwareDevice.foundByEp(HardwareDeviceType.GPU, HardwareDevice.VENDOR_NVIDIA, pciDeviceId(cuda.pciBusId()),
                "NVIDIA", metadata);
    }

    /** The PCI device id (e.g. 0x2335 for an H200) from sysfs, 0 where sysfs is not readable. */
    static int pciDeviceId(String pciBusId) {
        Path file = Path.of("/sys/bus/pci/devices", pciBusId.toLowerCase(Locale.ROOT), "device");
        try {
            String text = Files.readString(file).trim();
            return Integer.parseInt(text.startsWith("0x") ? text.substring(2) : text, 16);
        } catch (IOException | NumberFormatException | SecurityException e) {
            return 0;
        }
    }
}
