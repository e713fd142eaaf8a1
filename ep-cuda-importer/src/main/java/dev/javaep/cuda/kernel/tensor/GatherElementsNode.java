package dev.javaep.cuda.kernel.tensor;

import dev.javaep.cuda.CudaDevice;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.ops.TensorOps;

/** GatherElements along an axis (rank <= 8): the output has the indices' shape. */
final class GatherElementsNode extends IndexGatherNode {
    GatherElementsNode(CudaDevice device, long axis) {
        super(device, "GatherElements", axis, "javaep_gather_elements", TensorSources.GATHER_ELEMENTS);
    }

    @Override
    Plan plan(Tensor data, Tensor indices) {
        int a = TensorOps.gatherElementsAxis(data.shape(), indices.shape(), axis);
        int rank = data.shape().length;
        if (rank > Launches.MAX_RANK) {
            throw new IllegalArgumentException(op + ": JavaCuda gathers from tensors of rank <= 8, this one has rank " + rank);
        }
        return new Plan(indices.shape(), data.shape()[a], (args, n) -> args.longs(indices.shape(), Launches.MAX_RANK)
                .longs(TensorOps.contiguousStrides(data.shape()), Launches.MAX_RANK).i32(rank).i32(a).i64(data.shape()[a])
                .i64(n));
    }
}
