package dev.javaep.cpu.kernel.matmul;

import dev.javaep.spi.Tensor;
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

    /**
     * A float32 buffer for a float16 tensor of {@code shape} (a heap array: it is made once per plan and reused
     * every Run, and the kernel threads read and write heap segments as they do native ones).
     */
    static MemorySegment buffer(long[] shape) {
        return MemorySegment.ofArray(new float[Math.toIntExact(Tensor.elementCount(shape))]);
    }

    /** {@code wide = half}, element by element; {@code wide} is a {@link #buffer} of half's shape. */
    static MemorySegment widen(Tensor half, MemorySegment wide) {
        MemorySegment from = half.data();
        long n = half.elementCount();
        for (long i = 0; i < n; i++) {
            wide.setAtIndex(F, i, Float.float16ToFloat(from.getAtIndex(S, i)));
        }
        return wide;
    }

    /** {@code half = round(wide)}, element by element. */
    static void narrow(MemorySegment wide, Tensor half) {
        MemorySegment to = half.data();
        long n = half.elementCount();
        for (long i = 0; i < n; i++) {
            to.setAtIndex(S, i, Float.floatToFloat16(wide.getAtIndex(F, i)));
        }
    }
}
