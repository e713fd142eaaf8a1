package com.example.minimalep;

import dev.javaep.spi.KernelContext;
import dev.javaep.spi.OpKernel;
import dev.javaep.spi.Tensor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** y = max(x, 0) over float tensors of any shape. */
final class ReluKernel implements OpKernel {
    @Override
    public void compute(KernelContext context) {
        Tensor x = context.input(0);
        Tensor y = context.output(0, x.shape()); // ORT allocates it; data() is a MemorySegment over its bytes
        MemorySegment in = x.data();
        MemorySegment out = y.data();
        for (long i = 0, n = x.elementCount(); i < n; i++) {
            // Math.max keeps NaN and turns -0 into 0, as ORT's own Relu does
            out.setAtIndex(ValueLayout.JAVA_FLOAT, i, Math.max(in.getAtIndex(ValueLayout.JAVA_FLOAT, i), 0f));
        }
    }
}
