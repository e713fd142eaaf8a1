package dev.javaep.cuda.kernel.normalization;

import dev.javaep.cuda.CudaDevice;
import dev.javaep.cuda.kernel.CudaKernelLibrary;
import dev.javaep.cuda.kernel.CudaNode;
import dev.javaep.cuda.kernel.KernelArguments;
import dev.javaep.spi.KernelContext;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.ops.NormalizationOps.BatchNorm;
import dev.javaep.spi.ops.NormalizationOps.ChannelLayout;

/** BatchNormalization in inference, float32 or float16 (each of X, scale/B, mean/var on its own). */
final class BatchNormalizationNode extends CudaNode {
    private final BatchNorm rule;

    BatchNormalizationNode(CudaDevice device, BatchNorm rule) {
        super(device, "BatchNormalization");
        this.rule = rule;
    }

    @Override
    protected void run(KernelContext context, CudaKernelLibrary kernels, long stream) {
        Tensor x = context.input(0);
        Tensor scale = context.input(1);
        Tensor bias = context.input(2);
        Tensor mean = context.input(3);
        Tensor variance = context.input(4);
        ChannelLayout layout = rule.layout(x.shape(), scale.shape(), bias.shape(), mean.shape(), variance.shape());
        Tensor y = context.output(0, x.shape());
        if (scale.elementType() != bias.elementType() || mean.elementType() != variance.elementType()) {
            throw new IllegalArgumentException(op + ": scale and B, mean and var must share their types");
        }
        long n = layout.elements();
        if (n == 0) {
            return;
        }
        kernels.launch(NormalizationSources.batchNorm(x.elementType(), scale.elementType(), mean.elementType()),
                kernels.linear(n), 0, stream, KernelArguments.begin().u64(address(y)).u64(address(x))
                        .u64(address(scale)).u64(address(bias)).u64(address(mean)).u64(address(variance)).i64(n)
                        .i64(layout.channels()).i64(layout.inner()).i32(layout.perElement() ? 1 : 0).f32(rule.epsilon()));
    }
}
