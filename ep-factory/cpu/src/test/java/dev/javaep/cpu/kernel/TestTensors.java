package dev.javaep.cpu.kernel;

import dev.javaep.spi.ElementType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Function;

/**
 * Builds and reads host tensors for kernel tests. Every tensor is placed at an odd address so that
 * a kernel using an aligned layout (instead of the *_UNALIGNED ones) fails here, not in production.
 */
public final class TestTensors {
    private TestTensors() {}

    /** A zero-filled tensor at a deliberately misaligned address. */
    public static HostTensor misaligned(Arena arena, ElementType type, long... shape) {
        long bytes = Shapes.elementCount(shape) * type.byteSize();
        MemorySegment data = arena.allocate(bytes + 1, 8).asSlice(1, bytes);
        return new HostTensor(type, shape, data);
    }

    public static HostTensor floats(Arena arena, float[] values, long... shape) {
        HostTensor t = misaligned(arena, ElementType.FLOAT, shape);
        MemorySegment.copy(values, 0, t.data(), ValueLayout.JAVA_FLOAT_UNALIGNED, 0, values.length);
        return t;
    }

    public static HostTensor doubles(Arena arena, double[] values, long... shape) {
        HostTensor t = misaligned(arena, ElementType.DOUBLE, shape);
        MemorySegment.copy(values, 0, t.data(), ValueLayout.JAVA_DOUBLE_UNALIGNED, 0, values.length);
        return t;
    }

    /** An integer tensor holding the low bits of each value. */
    public static HostTensor integers(Arena arena, ElementType type, long[] values, long... shape) {
        HostTensor t = misaligned(arena, type, shape);
        for (int i = 0; i < values.length; i++) {
            setInteger(t, i, values[i]);
        }
        return t;
    }

    /**
     * Runs a one-input kernel as the EP does (output shape from the input's, then compute) on float32 {@code x} of
     * {@code shape}, into a misaligned output of {@code outputType}; returns what {@code read} takes from the output.
     */
    public static <T> T runOnFloats(CpuKernel kernel, ElementType outputType, Function<HostTensor, T> read, float[] x,
                                    long... shape) {
        try (Arena arena = Arena.ofConfined()) {
            HostTensor in = floats(arena, x, shape);
            HostTensor out = misaligned(arena, outputType, kernel.outputShapes(new long[][] {shape})[0]);
            kernel.compute(List.of(in), List.of(out));
            return read.apply(out);
        }
    }

    public static float[] toFloats(HostTensor t) {
        return t.data().toArray(ValueLayout.JAVA_FLOAT_UNALIGNED);
    }

    public static double[] toDoubles(HostTensor t) {
        return t.data().toArray(ValueLayout.JAVA_DOUBLE_UNALIGNED);
    }

    /** Integer elements widened to long: sign-extended for signed types, zero-extended for unsigned. */
    public static long[] toIntegers(HostTensor t) {
        long[] out = new long[(int) t.elementCount()];
        for (int i = 0; i < out.length; i++) {
            out[i] = getInteger(t, i);
        }
        return out;
    }

    public static long getInteger(HostTensor t, long i) {
        MemorySegment d = t.data();
        return switch (t.elementType()) {
            case INT8 -> d.getAtIndex(ValueLayout.JAVA_BYTE, i);
            case UINT8 -> Byte.toUnsignedLong(d.getAtIndex(ValueLayout.JAVA_BYTE, i));
            case INT16 -> d.getAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, i);
            case UINT16 -> Short.toUnsignedLong(d.getAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, i));
            case INT32 -> d.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i);
            case UINT32 -> Integer.toUnsignedLong(d.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i));
            case INT64, UINT64 -> d.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i);
            default -> throw new IllegalArgumentException(t.elementType().toString());
        };
    }

    public static void setInteger(HostTensor t, long i, long v) {
        MemorySegment d = t.data();
        switch (t.elementType().byteSize()) {
            case 1 -> d.setAtIndex(ValueLayout.JAVA_BYTE, i, (byte) v);
            case 2 -> d.setAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, i, (short) v);
            case 4 -> d.setAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i, (int) v);
            case 8 -> d.setAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i, v);
            default -> throw new IllegalArgumentException(t.elementType().toString());
        }
    }

    public static float[] randomFloats(Random random, long count) {
        float[] v = new float[(int) count];
        for (int i = 0; i < v.length; i++) {
            v[i] = random.nextFloat() * 4 - 2;
        }
        return v;
    }

    /**
     * The flat index into an input of shape {@code in} that numpy broadcasting reads for output
     * element {@code outIndex} of shape {@code out}: the obvious (slow, dividing) reference.
     */
    public static long broadcastSource(long outIndex, long[] out, long[] in) {
        long index = 0;
        long stride = 1;
        long rest = outIndex;
        for (int i = out.length - 1; i >= 0; i--) {
            long coordinate = rest % out[i];
            rest /= out[i];
            int j = i - (out.length - in.length);
            if (j >= 0) {
                if (in[j] != 1) {
                    index += coordinate * stride;
                }
                stride *= in[j];
            }
        }
        return index;
    }

    public static String shape(long... dims) {
        return Arrays.toString(dims);
    }
}
