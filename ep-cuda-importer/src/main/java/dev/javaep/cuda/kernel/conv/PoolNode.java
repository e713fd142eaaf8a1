package dev.javaep.cuda.kernel.conv;

import dev.javaep.cuda.CudaDevice;
import dev.javaep.cuda.kernel.CudaKernelLibrary;
import dev.javaep.cuda.kernel.CudaNode;
import dev.javaep.cuda.kernel.KernelArguments;
import dev.javaep.cuda.kernel.ptx.LaunchShape;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.KernelContext;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.ops.PoolOps.MaxPoolIndices;
import dev.javaep.spi.ops.PoolOps.PoolAttributes;
import dev.javaep.spi.ops.PoolOps.PoolGeometry;

/**
 * MaxPool/AveragePool ({@code attributes} set: one thread per output element; MaxPool's Indices output when
 * {@code indices} is set) and GlobalMaxPool/GlobalAveragePool ({@code attributes} null: one block per (n, c) plane),
 * float32 and float16.
 */
final class PoolNode extends CudaNode {
    private final boolean max;
    private final PoolAttributes attributes;
    private final ElementType type;
    private final MaxPoolIndices indices;

    PoolNode(CudaDevice device, String op, boolean max, PoolAttributes attributes, ElementType type,
             MaxPoolIndices indices) {
        super(device, op);
        this.max = max;
        this.attributes = attributes;
        this.type = type;
        this.indices = indices;
    }

    @Override
    protected void run(KernelContext context, CudaKernelLibrary kernels, long stream) {
        Tensor x = context.input(0);
        if (x == null || x.elementType() != type) {
            throw new IllegalArgumentException(op + ": input X is " + (x == null ? "missing" : x.elementType())
                    + ", the kernel is " + type);
        }
        PoolGeometry g = attributes == null ? PoolGeometry.global(op, x.shape()) : PoolGeometry.of(attributes, x.shape());
        Tensor y = context.output(0, g.outputShape());
        Tensor argmax = indices != null && context.outputCount() > 1 ? context.output(1, g.outputShape()) : null;
        if (argmax != null && argmax.elementType() != ElementType.INT64) {
            throw new IllegalArgumentException(op + ": Indices is " + argmax.elementType() + ", the kernel writes int64");
        }
        if (y.elementCount() == 0) {
            return;
        }
        if (attributes == null) {
            long planes = Math.multiplyExact(g.batch(), g.channels());
            LaunchShape shape = new LaunchShape((int) Math.min(planes, Integer.MAX_VALUE), 1, 1, ConvSources.BLOCK, 1, 1);
            kernels.launch(ConvSources.globalPool(type, max), shape, 0, stream, KernelArguments.begin()
                    .u64(address(y)).u64(address(x)).i64(planes).i64(g.inputSpatialSize()));
        } else {
            kernels.launch(ConvSources.pool(type, max), kernels.linear(y.elementCount()), 0, stream, KernelArguments.begin()
                    .u64(address(y)).u64(address(x)).u64(argmax == null ? 0 : address(argmax))
                    .longs(WindowArguments.of(g, attributes.countIncludePad(), indices != null && indices.columnMajor()),
                            WindowArguments.LONGS));
        }
    }
}
