package dev.javaep.cuda;

import dev.javaep.spi.ElementType;
import dev.javaep.spi.KernelContext;
import dev.javaep.spi.Tensor;
import java.lang.foreign.MemorySegment;
import java.util.function.LongFunction;

/** One Compute of a copy node on {@code computeStream}: the input given, the output made where {@code allocate} puts it. */
record CopyContext(Tensor in, LongFunction<MemorySegment> allocate, long computeStream, Tensor[] out) implements KernelContext {
    /** A tensor over memory the test owns (host or device: the copy kernels only read the address). */
    record Plain(ElementType elementType, long[] shape, MemorySegment data) implements Tensor {}

    CopyContext(Tensor in, LongFunction<MemorySegment> allocate, long computeStream) {
        this(in, allocate, computeStream, new Tensor[1]);
    }

    /** The output the copy made (null before its Compute). */
    Tensor output() {
        return out[0];
    }

    @Override
    public int inputCount() {
        return 1;
    }

    @Override
    public int outputCount() {
        return 1;
    }

    @Override
    public Tensor input(int index) {
        return in;
    }

    @Override
    public Tensor output(int index, long[] shape) {
        out[0] = new Plain(in.elementType(), shape, allocate.apply(in.byteSize()));
        return out[0];
    }
}
