package dev.javaep.cpu.kernel;

import dev.javaep.spi.ElementType;
import dev.javaep.spi.Tensor;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Objects;

/**
 * A tensor in host memory whose {@link #data()} covers exactly its bytes (native, little-endian).
 * The shape is copied on construction; callers must not mutate the array {@link #shape()} returns.
 */
public record HostTensor(ElementType elementType, long[] shape, MemorySegment data) implements Tensor {

    public HostTensor {
        Objects.requireNonNull(elementType, "elementType");
        Objects.requireNonNull(data, "data");
        shape = Shapes.checked(shape).clone();
        if (elementType.byteSize() > 0) {
            long expected = Math.multiplyExact(Shapes.elementCount(shape), elementType.byteSize());
            if (data.byteSize() != expected) {
                throw new IllegalArgumentException("HostTensor " + elementType + Arrays.toString(shape) + " needs "
                        + expected + " bytes but its segment has " + data.byteSize());
            }
        }
    }

    /**
     * Allocates a zero-filled tensor in {@code arena}, aligned to 8 bytes (the alignment ORT
     * guarantees at least, so kernels are exercised under the same assumptions).
     */
    public static HostTensor allocate(Arena arena, ElementType elementType, long... shape) {
        if (elementType.byteSize() == 0) {
            throw new IllegalArgumentException("cannot allocate a host tensor of " + elementType
                    + ": its elements are not whole bytes");
        }
        long bytes = Math.multiplyExact(Shapes.elementCount(Shapes.checked(shape)), elementType.byteSize());
        return new HostTensor(elementType, shape, arena.allocate(bytes, 8));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof HostTensor t && elementType == t.elementType && Arrays.equals(shape, t.shape)
                && data.equals(t.data);
    }

    @Override
    public int hashCode() {
        return (elementType.hashCode() * 31 + Arrays.hashCode(shape)) * 31 + data.hashCode();
    }

    @Override
    public String toString() {
        return "HostTensor[" + elementType + Arrays.toString(shape) + " @0x" + Long.toHexString(data.address()) + "]";
    }
}
