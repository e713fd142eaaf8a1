package dev.javaep.cpu.kernel.matmul;

import dev.javaep.cpu.kernel.HostTensor;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Tensor;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Float16 MatMul and Gemm on the float32 product: operands are widened into float32 copies, the product is
 * accumulated in float32, and the result is rounded to float16 once (ONNX Runtime's CPU EP also computes half
 * products in float32 through MLAS).
 */
final class Float16Copies {
    private static final ValueLayout.OfShort S = ValueLayout.JAVA_SHORT_UNALIGNED;
    private static final ValueLayout.OfFloat F = ValueLayout.JAVA_FLOAT_UNALIGNED;

    private Float16Copies() {}

    /** A float32 copy of a float16 tensor, in {@code arena}. */
    static HostTensor widened(Arena arena, Tensor half) {
        HostTensor wide = HostTensor.allocate(arena, ElementType.FLOAT, half.shape());
        MemorySegment from = half.data();
        MemorySegment to = wide.data();
        long n = half.elementCount();
        for (long i = 0; i < n; i++) {
            to.setAtIndex(F, i, Float.float16ToFloat(from.getAtIndex(S, i)));
        }
        return wide;
    }

    /** A zero-filled float32 tensor shaped like {@code half}, for the product before it is rounded. */
    static HostTensor scratch(Arena arena, Tensor half) {
        return HostTensor.allocate(arena, ElementType.FLOAT, half.shape());
    }

    /** {@code half = round(wide)}, element by element. */
    static void narrow(Tensor wide, Tensor half) {
        MemorySegment from = wide.data();
        MemorySegment to = half.data();
        long n = half.elementCount();
        for (long i = 0; i < n; i++) {
            to.setAtIndex(S, i, Float.floatToFloat16(from.getAtIndex(F, i)));
        }
    }
}
