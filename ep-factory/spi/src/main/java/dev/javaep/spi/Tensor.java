package dev.javaep.spi;

import java.lang.foreign.MemorySegment;

/**
 * A tensor a kernel reads or writes during {@code Compute}. For host tensors {@link #data()} covers
 * exactly the tensor's bytes; for device tensors it is a zero-length segment whose address is the
 * device pointer (never dereference it on the host).
 */
public interface Tensor {
    ElementType elementType();

    long[] shape();

    MemorySegment data();

    default long elementCount() {
        return elementCount(shape());
    }

    /** How many elements a tensor of {@code shape} holds (1 for a scalar); an overflow throws. */
    static long elementCount(long[] shape) {
        long n = 1;
        for (long d : shape) {
            n = Math.multiplyExact(n, d);
        }
        return n;
    }

    default long byteSize() {
        return Math.multiplyExact(elementCount(), elementType().byteSize());
    }
}
