package dev.javaep.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** The C values of the memory enums (onnxruntime_c_api.h, unchanged since 1.23): ORT reads them as ints. */
class DeviceEnumsTest {

    @Test
    void valuesAreOrtsAndRoundTrip() {
        assertEquals(0, MemoryDeviceType.CPU.value());
        assertEquals(1, MemoryDeviceType.GPU.value());
        assertEquals(2, MemoryDeviceType.FPGA.value());
        assertEquals(3, MemoryDeviceType.NPU.value());
        assertEquals(0, DeviceMemoryType.DEFAULT.value());
        assertEquals(5, DeviceMemoryType.HOST_ACCESSIBLE.value());
        assertEquals(-1, AllocatorType.INVALID.value());
        assertEquals(0, AllocatorType.DEVICE.value());
        assertEquals(1, AllocatorType.ARENA.value());
        assertEquals(2, AllocatorType.READ_ONLY.value());
        for (MemoryDeviceType t : MemoryDeviceType.values()) {
            assertEquals(t, MemoryDeviceType.of(t.value()));
        }
        for (DeviceMemoryType t : DeviceMemoryType.values()) {
            assertEquals(t, DeviceMemoryType.of(t.value()));
        }
        for (AllocatorType t : AllocatorType.values()) {
            assertEquals(t, AllocatorType.of(t.value()));
        }
    }

    @Test
    void unknownValuesAreRefusedWithTheirNumber() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> DeviceMemoryType.of(1));
        assertEquals("unknown OrtDeviceMemoryType 1", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> MemoryDeviceType.of(4));
        assertThrows(IllegalArgumentException.class, () -> AllocatorType.of(3));
    }
}
