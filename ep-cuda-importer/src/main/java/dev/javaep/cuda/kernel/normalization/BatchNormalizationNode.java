package dev.javaep.cuda.kernel.normalization;

import dev.javaep.cuda.CudaDevice;
import dev.javaep.cuda.kernel.CudaKernelLibrary;
import dev.javaep.cuda.kernel.CudaNode;
import dev.javaep.cuda.kernel.KernelArguments;
import dev.javaep.cuda.kernel.KernelSlot;
import dev.javaep.cuda.kernel.ptx.LaunchShape;
import dev.javaep.spi.KernelContext;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.ops.NormalizationOps.BatchNorm;
import dev.javaep.spi.ops.NormalizationOps.ChannelLayout;

/**
 * BatchNormalization, float32 or float16 (each of X, scale/B, mean/var on its own): in inference one thread per
 * element; in training mode one block per channel, which takes the batch statistics and writes the running ones.
 */
final class BatchNormalizationNode extends CudaNode {
    /** Threads per channel's block in training mode (a multiple of 32: the block sum reduces by warps). */
    private static final int THREADS = 256;
    /** Blocks launched at most in training mode; a grid-stride loop takes the remaining channels. */
    private static final long MAX_BLOCKS = 65535;

    private final BatchNorm rule;
    private final KernelSlot inferenceKernel = new KernelSlot(k -> NormalizationSources.batchNorm(KernelSlot.type(k, 0),
            KernelSlot.type(k, 1), KernelSlot.type(k, 2)));
    private final KernelSlot trainingKernel = new KernelSlot(k -> NormalizationSources.batchNormTraining(KernelSlot.type(k, 0),
            KernelSlot.type(k, 1), KernelSlot.type(k, 2)));

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
        if (rule.training()) {
            training(context, kernels, stream, layout, x, scale, bias, mean, variance, y);
            return;
        }
        long n = layout.elements();
        if (n == 0) {
            return;
        }
        inferenceKernel.launch(kernels, KernelSlot.key(x.elementType(), scale.elementType(), mean.elementType()),
                kernels.linear(n), 0, stream, KernelArguments.begin().u64(address(y)).u64(address(x))
                        .u64(address(scale)).u64(address(bias)).u64(address(mean)).u64(address(variance)).i64(n)
                        .i64(layout.channels()).i64(layout.inner()).i32(layout.perElement() ? 1 : 0).f32(rule.epsilon()));
    }

    private void training(KernelContext context, CudaKernelLibrary kernels, long stream, ChannelLayout layout, Tensor x,
                          Tensor scale, Tensor bias, Tensor mean, Tensor variance, Tensor y) {
        Tensor runningMean = context.outputCount() > 1 ? context.output(1, mean.shape()) : null;
        Tensor runningVar = context.outputCount() > 2 ? context.output(2, variance.shape()) : null;
        for (Tensor running : new Tensor[] {runningMean, runningVar}) {
            if (running != null && running.elementType() != mean.elementType()) {
                throw new IllegalArgumentException(op + ": running_mean and running_var must have mean's type "
                        + mean.elementType() + ", one is " + running.elementType());
            }
        }
        if (layout.channels() == 0) {
            return;
        }
        LaunchShape shape = new LaunchShape((int) Math.min(layout.channels(), MAX_BLOCKS), 1, 1, THREADS, 1, 1);
        trainingKernel.launch(kernels, KernelSlot.key(x.elementType(), scale.elementType(), mean.elementType()),
                shape, 0, stream, KernelArguments.begin().u64(address(y)).u64(address(x)).u64(address(scale))
                        .u64(address(bias)).u64(address(mean)).u64(address(variance))
                        .u64(runningMean == null ? 0 : address(runningMean))
                        .u64(runningVar == null ? 0 : address(runningVar)).i64(layout.outer()).i64(layout.channels())
                        .i64(layout.inner()).f32(rule.epsilon()).f32(rule.momentum()));
    }
}
