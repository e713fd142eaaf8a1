package dev.javaep.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.cuda.driver.CudaDeviceInfo;
import dev.javaep.spi.HardwareDevice;
import dev.javaep.spi.HardwareDeviceType;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class CudaDeviceMatcherTest {
    private static final CudaDeviceInfo H200 = new CudaDeviceInfo(0, 0, "NVIDIA H200", new byte[16], "0000:00:06.0",
            OptionalLong.of(0x0000_0001_0000_1234L), 9, 0, 150L << 30, 132, 3_201_000, 6144);

    private static HardwareDevice ort(Map<String, String> metadata) {
        return new HardwareDevice(HardwareDeviceType.GPU, HardwareDevice.VENDOR_NVIDIA, 0x2335, "", metadata, 42L);
    }

    @Test
    void matchesOrtsGpuByPciBusIdInAnyCase() {
        HardwareDevice device = ort(Map.of("pci_bus_id", "0000:00:06.0"));
        assertEquals(device, CudaDeviceMatcher.ortDeviceFor(H200, List.of(device)).orElseThrow());
        assertTrue(CudaDeviceMatcher.ortDeviceFor(H200, List.of(ort(Map.of("pci_bus_id", "00000000:00:06.0")))).isPresent());
        assertFalse(CudaDeviceMatcher.ortDeviceFor(H200, List.of(ort(Map.of("pci_bus_id", "0000:65:00.0")))).isPresent());
    }

    @Test
    void matchesByLuidOnWindows() {
        assertTrue(CudaDeviceMatcher.ortDeviceFor(H200, List.of(ort(Map.of("LUID", Long.toUnsignedString(0x0000_0001_0000_1234L)))))
                .isPresent());
        assertFalse(CudaDeviceMatcher.ortDeviceFor(H200, List.of(ort(Map.of("LUID", "not a number")))).isPresent());
    }

    @Test
    void aGpuOrtMissedIsDescribedByTheEp() {
        HardwareDevice device = CudaDeviceMatcher.foundByCuda(H200);
        assertFalse(device.discoveredByOrt());
        assertEquals(HardwareDeviceType.GPU, device.type());
        assertEquals(HardwareDevice.VENDOR_NVIDIA, device.vendorId());
        assertEquals("0000:00:06.0", device.metadata().get("pci_bus_id"));
        assertEquals("cuda", device.metadata().get("javaep.discovered_by"));
    }
}
