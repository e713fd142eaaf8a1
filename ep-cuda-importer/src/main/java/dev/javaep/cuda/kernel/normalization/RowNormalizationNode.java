package dev.javaep.cuda.kernel.normalization;

import dev.javaep.cuda.CudaDevice;
import dev.javaep.cuda.kernel.CudaKernelLibrary;
import dev.javaep.cuda.kernel.CudaNode;
import dev.javaep.cuda.kernel.KernelArguments;
import dev.javaep.cuda.kernel.KernelSlot;
import dev.javaep.cuda.kernel.ptx.LaunchShape;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.KernelContext;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.ops.NormalizationOps.RowLayout;
import dev.javaep.spi.ops.NormalizationOps.RowNormalization;

/**
 * InstanceNormalization, LayerNormalization, GroupNormalization in float32 or float16: one block per row of the
 * {@link RowLayout} (LayerNormalization's Mean and InvStdDev written when asked for).
 */
final class RowNormalizationNode extends CudaNode {
    /** Rows this long get 1024 threads, shorter ones 256 (a block per row: long rows are few). */
    private static final long LONG_ROW = 16384;
    /** Blocks launched at most; a grid-stride loop takes the remaining rows. */
    private static final long MAX_BLOCKS = 65535;

    private final RowNormalization rule;
    private final KernelSlot kernel = new KernelSlot(k -> NormalizationSources.rowNorm(KernelSlot.type(k, 0)));

    RowNormalizationNode(CudaDevice device, RowNormalization rule) {
        super(device, rule.op());
        this.rule = rule;
    }

    @Override
    protected void run(KernelContext context, CudaKernelLibrary kernels, long stream) {
        Tensor x = context.input(0);
        Tensor scale = context.input(1);
        Tensor bias = context.inputCount() > 2 ? context.input(2) : null;
        RowLayout layout = rule.layout(x.shape(), scale.shape(), bias == null ? null : bias.shape());
        if (scale.elementType() != x.elementType() || (bias != null && bias.elementType() != x.elementType())) {
            throw new IllegalArgumentException(op + ": scale and bias must have X's type " + x.elementType());
        }
        Tensor y = context.output(0, x.shape());
        Tensor mean = statistics(context, 1, layout);
        Tensor inverse = statistics(context, 2, layout);
        if (layout.rows() == 0) {
            return;
        }
        int threads = layout.length() >= LONG_ROW ? 1024 : 256;
        LaunchShape shape = new LaunchShape((int) Math.min(layout.rows(), MAX_BLOCKS), 1, 1, threads, 1, 1);
        KernelArguments args = KernelArguments.begin().u64(address(y)).u64(address(x)).u64(address(scale))
                .u64(bias == null ? 0 : address(bias)).u64(mean == null ? 0 : address(mean))
                .u64(inverse == null ? 0 : address(inverse)).i64(layout.rows()).i64(layout.groups()).i64(layout.length())
                .i64(layout.scale().groupStride()).i64(layout.scale().divisor())
                .i64(bias == null ? 0 : layout.bias().groupStride()).i64(bias == null ? 1 : layout.bias().divisor())
                .f32(rule.epsilon());
        kernel.launch(kernels, KernelSlot.key(x.elementType()), shape, 0, stream, args);
    }

    /** LayerNormalization's Mean or InvStdDev output when the node has it (float32: the stash type). */
    private Tensor statistics(KernelContext context, int index, RowLayout layout) {
        if (layout.statisticsShape() == null || context.outputCount() <= index) {
            return null;
        }
        Tensor t = context.output(index, layout.statisticsShape());
        if (t != null && t.elementType() != ElementType.FLOAT) {
            throw new IllegalArgumentException(op + ": output " + index + " is " + t.elementType() + ", the kernel writes float32");
        }
        return t;
    }
}
