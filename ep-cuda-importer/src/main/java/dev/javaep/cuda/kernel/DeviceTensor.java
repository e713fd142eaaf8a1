package dev.javaep.cuda.kernel;

import dev.javaep.spi.ElementType;
import dev.javaep.spi.Tensor;
import java.lang.foreign.MemorySegment;

/** A tensor in device memory the EP owns (a compiled group's intermediate): {@link #data()} is a zero-length segment at the device address. */
public record DeviceTensor(ElementType elementType, long[] shape, MemorySegment data) implements Tensor {
    public static DeviceTensor at(long address, ElementType elementType, long[] shape) {
        return new DeviceTensor(elementType, shape, MemorySegment.ofAddress(address));
    }
}
