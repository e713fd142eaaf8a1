package dev.javaep.cpu.kernel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.javaep.spi.ElementType;
import java.lang.foreign.Arena;
import org.junit.jupiter.api.Test;

class HostTensorTest {

    @Test
    void dataMustCoverExactlyTheElements() {
        try (Arena arena = Arena.ofConfined()) {
            assertThrows(IllegalArgumentException.class,
                    () -> new HostTensor(ElementType.FLOAT, new long[] {2, 3}, arena.allocate(20)));
            assertThrows(IllegalArgumentException.class,
                    () -> new HostTensor(ElementType.FLOAT, new long[] {2, -3}, arena.allocate(24)));
            HostTensor t = HostTensor.allocate(arena, ElementType.INT64, 2, 3);
            assertEquals(48, t.data().byteSize());
            assertEquals(6, t.elementCount());
            assertEquals(0, t.data().address() % 8, "8-byte aligned like ORT's buffers");
        }
    }

    @Test
    void shapeIsCopied() {
        try (Arena arena = Arena.ofConfined()) {
            long[] shape = {2, 2};
            HostTensor t = new HostTensor(ElementType.UINT8, shape, arena.allocate(4));
            shape[0] = 99;
            assertArrayEquals(new long[] {2, 2}, t.shape());
        }
    }
}
