package dev.javaep.cuda.kernel.tensor;

import dev.javaep.cuda.CudaDevice;
import dev.javaep.cuda.kernel.CudaKernelContext;
import dev.javaep.cuda.kernel.CudaKernelLibrary;
import dev.javaep.cuda.kernel.CudaNode;
import dev.javaep.cuda.kernel.KernelArguments;
import dev.javaep.cuda.kernel.KernelSlot;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.KernelContext;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.ops.TensorOps;
import dev.javaep.spi.ops.TensorOps.ScatterReduction;
import java.util.Set;

/**
 * ScatterND: the data copied to the output, then one kernel over the elements of a slice that applies every
 * index tuple in order (deterministic, repeated indices reduce in order). Reductions compute on float, half,
 * double, int32 and int64. Index tuples on the host are checked there; device-only ones out of range are skipped.
 */
final class ScatterNDNode extends CudaNode {
    static final Set<ElementType> REDUCIBLE = Set.of(ElementType.FLOAT, ElementType.FLOAT16, ElementType.DOUBLE,
            ElementType.INT32, ElementType.INT64);

    private final ScatterReduction reduction;
    private final ElementType type;
    private final KernelSlot kernel;

    ScatterNDNode(CudaDevice device, ScatterReduction reduction, ElementType type) {
        super(device, "ScatterND");
        this.reduction = reduction;
        this.type = type;
        this.kernel = new KernelSlot(unused -> TensorSources.scatterND(type, reduction));
    }

    @Override
    protected void run(KernelContext context, CudaKernelLibrary kernels, long stream) {
        Tensor data = context.input(0);
        Tensor indices = context.input(1);
        Tensor updates = context.input(2);
        TensorOps.Scatter s = TensorOps.scatterND(data.shape(), indices.shape(), updates.shape());
        if (s.depth() > Launches.MAX_RANK) {
            throw new IllegalArgumentException(op + ": JavaCuda takes index tuples of at most 8 coordinates, these have " + s.depth());
        }
        if (context instanceof CudaKernelContext cuda && cuda.hasHostValue(1)) {
            long[] values = cuda.hostInput(1).longs();
            for (int i = 0; i < values.length; i++) {
                TensorOps.index(op, values[i], s.dataShape()[(int) (i % s.depth())]);
            }
        }
        Tensor y = context.output(0, data.shape());
        long bytes = data.byteSize();
        if (bytes > 0 && address(y) != address(data)) {
            kernels.driver().memcpyDtoDAsync(address(y), address(data), bytes, stream);
        }
        if (s.tuples() == 0 || s.sliceSize() == 0) {
            return;
        }
        kernel.launch(kernels, 0, kernels.linear(s.sliceSize()), 0, stream,
                KernelArguments.begin().u64(address(y)).u64(address(updates)).u64(address(indices))
                        .longs(java.util.Arrays.copyOf(s.dataShape(), (int) s.depth()), Launches.MAX_RANK)
                        .longs(s.strides(), Launches.MAX_RANK).i32((int) s.depth()).i64(s.tuples()).i64(s.sliceSize()));
    }
}
