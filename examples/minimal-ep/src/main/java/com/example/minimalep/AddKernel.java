package com.example.minimalep;

import dev.javaep.spi.Broadcasting;
import dev.javaep.spi.KernelContext;
import dev.javaep.spi.OpKernel;
import dev.javaep.spi.Tensor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** c = a + b over float tensors, with ONNX's multidirectional (numpy) broadcasting. */
final class AddKernel implements OpKernel {
    @Override
    public void compute(KernelContext context) {
        Tensor a = context.input(0);
        Tensor b = context.input(1);
        long[] shape = Broadcasting.multidirectional(a.shape(), b.shape());
        Tensor c = context.output(0, shape);
        int rank = shape.length;
        // Element strides of a and b in the output's index space: 0 where an input is stretched.
        long[] aStrides = Broadcasting.strides(a.shape(), rank);
        long[] bStrides = Broadcasting.strides(b.shape(), rank);
        MemorySegment in0 = a.data();
        MemorySegment in1 = b.data();
        MemorySegment out = c.data();
        long[] index = new long[rank];
        long ai = 0;
        long bi = 0;
        for (long i = 0, n = c.elementCount(); i < n; i++) {
            out.setAtIndex(ValueLayout.JAVA_FLOAT, i,
                    in0.getAtIndex(ValueLayout.JAVA_FLOAT, ai) + in1.getAtIndex(ValueLayout.JAVA_FLOAT, bi));
            // Next output index, row-major, carrying into outer dimensions.
            for (int d = rank - 1; d >= 0; d--) {
                ai += aStrides[d];
                bi += bStrides[d];
                if (++index[d] < shape[d]) {
                    break;
                }
                ai -= aStrides[d] * shape[d];
                bi -= bStrides[d] * shape[d];
                index[d] = 0;
            }
        }
    }
}
