package dev.javaep.cpu.kernel.tensor;

import dev.javaep.cpu.kernel.TestTensors;
import dev.javaep.cpu.kernel.HostTensor;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.javaep.spi.ElementType;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class IdentityKernelTest {

    @ParameterizedTest
    @EnumSource(value = ElementType.class, names = {"FLOAT", "INT64", "BOOL", "FLOAT16", "COMPLEX128", "UINT8"})
    void copiesEveryByte(ElementType type) {
        try (Arena arena = Arena.ofConfined()) {
            var k = new IdentityKernel();
            HostTensor x = TestTensors.misaligned(arena, type, 3, 5);
            for (long i = 0; i < x.byteSize(); i++) {
                x.data().set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + 1));
            }
            HostTensor y = TestTensors.misaligned(arena, type, k.outputShapes(new long[][] {x.shape()})[0]);
            k.compute(List.of(x), List.of(y));
            assertArrayEquals(x.data().toArray(ValueLayout.JAVA_BYTE), y.data().toArray(ValueLayout.JAVA_BYTE));
        }
    }

    @ParameterizedTest
    @EnumSource(value = ElementType.class, names = {"INT32"})
    void refusesAnOutputOfAnotherType(ElementType type) {
        try (Arena arena = Arena.ofConfined()) {
            HostTensor x = TestTensors.misaligned(arena, type, 4);
            HostTensor y = TestTensors.misaligned(arena, ElementType.FLOAT, 4);
            assertThrows(IllegalArgumentException.class, () -> new IdentityKernel().compute(List.of(x), List.of(y)));
        }
    }
}
