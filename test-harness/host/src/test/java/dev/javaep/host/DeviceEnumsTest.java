package dev.javaep.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.EnumSet;
import java.util.Map;
import java.util.function.IntFunction;
import java.util.function.ToIntFunction;
import org.junit.jupiter.api.Test;

/** The C values of the memory enums (onnxruntime_c_api.h, unchanged since 1.23): ORT reads them as ints. */
class DeviceEnumsTest {

    @Test
    void valuesAreOrtsAndRoundTrip() {
        assertValues(MemoryDeviceType.class, MemoryDeviceType::value, MemoryDeviceType::of, Map.of(
                MemoryDeviceType.CPU, 0, MemoryDeviceType.GPU, 1, MemoryDeviceType.FPGA, 2, MemoryDeviceType.NPU, 3));
        assertValues(DeviceMemoryType.class, DeviceMemoryType::value, DeviceMemoryType::of, Map.of(
                DeviceMemoryType.DEFAULT, 0, DeviceMemoryType.HOST_ACCESSIBLE, 5));
        assertValues(AllocatorType.class, AllocatorType::value, AllocatorType::of, Map.of(
                AllocatorType.INVALID, -1, AllocatorType.DEVICE, 0, AllocatorType.ARENA, 1, AllocatorType.READ_ONLY, 2));
    }

    /** Every constant of {@code type} has its C value, and {@code of} finds it by that value. */
    private static <E extends Enum<E>> void assertValues(Class<E> type, ToIntFunction<E> value, IntFunction<E> of,
                                                         Map<E, Integer> expected) {
        assertEquals(EnumSet.allOf(type), EnumSet.copyOf(expected.keySet()), type + ": a constant without its C value here");
        expected.forEach((constant, c) -> {
            assertEquals(c, value.applyAsInt(constant), constant::toString);
            assertEquals(constant, of.apply(c));
        });
    }

    @Test
    void unknownValuesAreRefusedWithTheirNumber() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> DeviceMemoryType.of(1));
        assertEquals("unknown OrtDeviceMemoryType 1", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> MemoryDeviceType.of(4));
        assertThrows(IllegalArgumentException.class, () -> AllocatorType.of(3));
    }
}
