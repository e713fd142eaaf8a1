package dev.javaep.cuda.kernel.tensor;

import dev.javaep.cuda.CudaDevice;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.ops.TensorOps;

/** Gather along an axis: the output is data's shape with the axis replaced by the indices' shape. */
final class GatherNode extends IndexGatherNode {
    GatherNode(CudaDevice device, long axis) {
        super(device, "Gather", axis, "javaep_gather", TensorSources.GATHER);
    }

    @Override
    Plan plan(Tensor data, Tensor indices) {
        TensorOps.Gathering g = TensorOps.gather(data.shape(), indices.shape(), axis);
        return new Plan(g.outputShape(), g.axisDim(),
                (args, n) -> args.i64(g.axisDim()).i64(g.inner()).i64(g.indexCount()).i64(n));
    }
}
