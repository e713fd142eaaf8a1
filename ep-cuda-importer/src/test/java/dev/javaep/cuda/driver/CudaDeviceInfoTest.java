package dev.javaep.cuda.driver;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HexFormat;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class CudaDeviceInfoTest {

    private static final byte[] UUID = HexFormat.of().parseHex("5a1b2c3d4e5f60718293a4b5c6d7e8f9");

    private static CudaDeviceInfo h100(byte[] uuid) {
        return new CudaDeviceInfo(0, 0, "NVIDIA H100 80GB HBM3", uuid, "0000:65:00.0", OptionalLong.empty(),
                9, 0, 85_029_158_912L, 132, 2_619_000, 5120);
    }

    @Test
    void normalizesNvmlAndCudaFormsToSysfs() {
        assertEquals("0000:00:06.0", CudaDeviceInfo.normalizePciBusId("00000000:00:06.0"));
        assertEquals("0000:65:00.0", CudaDeviceInfo.normalizePciBusId("0000:65:00.0"));
        assertEquals("0000:3b:00.0", CudaDeviceInfo.normalizePciBusId("0000:3B:00.0"));
        assertEquals("0000:3b:00.0", CudaDeviceInfo.normalizePciBusId("00000000:3B:00.0"));
        assertEquals("0000:3b:00.0", CudaDeviceInfo.normalizePciBusId("3B:00.0"));
        assertEquals("0000:03:1f.7", CudaDeviceInfo.normalizePciBusId("0:3:1F.7"));
        assertEquals("0001:c1:00.0", CudaDeviceInfo.normalizePciBusId(" 00000001:C1:00.0\n"));
        // VMD and some hypervisors use domains beyond 16 bits: kept whole, as sysfs does
        assertEquals("10000:e1:00.0", CudaDeviceInfo.normalizePciBusId("00010000:E1:00.0"));
    }

    @Test
    void normalizedIdsMatchOrtsPciBusIdRegex() {
        String id = CudaDeviceInfo.normalizePciBusId("00000000:C1:00.0");
        assertTrue(id.matches("[0-9a-f]+:[0-9a-f]+:[0-9a-f]+[.][0-9a-f]+"), id);
    }

    @Test
    void rejectsWhatIsNotAPciAddress() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> CudaDeviceInfo.normalizePciBusId("GPU-0"));
        assertTrue(e.getMessage().contains("GPU-0"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> CudaDeviceInfo.normalizePciBusId("0000:65:00.8"));
        assertThrows(IllegalArgumentException.class, () -> CudaDeviceInfo.normalizePciBusId("0000:165:00.0"));
        assertThrows(IllegalArgumentException.class, () -> CudaDeviceInfo.normalizePciBusId(""));
        assertThrows(NullPointerException.class, () -> CudaDeviceInfo.normalizePciBusId(null));
    }

    @Test
    void uuidFormatsLikeNvidiaSmiAndVulkan() {
        CudaDeviceInfo info = h100(UUID);
        assertEquals("GPU-5a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9", info.uuidString());
        assertEquals("5a1b2c3d4e5f60718293a4b5c6d7e8f9", info.uuidHex());
        assertEquals(32, info.uuidHex().length());
    }

    @Test
    void uuidIsCopiedInAndOut() {
        byte[] bytes = UUID.clone();
        CudaDeviceInfo info = h100(bytes);
        bytes[0] = 0;
        assertArrayEquals(UUID, info.uuid());
        info.uuid()[1] = 0;
        assertArrayEquals(UUID, info.uuid());
        assertThrows(IllegalArgumentException.class, () -> h100(new byte[15]));
    }

    @Test
    void equalityComparesUuidContents() {
        assertEquals(h100(UUID.clone()), h100(UUID.clone()));
        assertEquals(h100(UUID.clone()).hashCode(), h100(UUID.clone()).hashCode());
        assertNotEquals(h100(UUID), h100(new byte[16]));
    }

    @Test
    void peakBandwidthIsDdrClockTimesBusBytes() {
        // H100 SXM: 2619 MHz x 5120 bit x 2 = 3.35 TB/s, the datasheet figure
        assertEquals(2.0 * 2_619_000_000.0 * 640, h100(UUID).peakMemoryBandwidthBytesPerSecond(), 1.0);
        assertEquals(3.35e12, h100(UUID).peakMemoryBandwidthBytesPerSecond(), 0.01e12);
    }

    @Test
    void toStringNamesTheDevice() {
        String text = h100(UUID).toString();
        assertTrue(text.contains("NVIDIA H100") && text.contains("GPU-5a1b2c3d") && text.contains("0000:65:00.0")
                && text.contains("sm_90"), text);
    }
}
