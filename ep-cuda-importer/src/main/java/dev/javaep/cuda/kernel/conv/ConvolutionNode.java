package dev.javaep.cuda.kernel.conv;

import dev.javaep.cuda.CudaDevice;
import dev.javaep.cuda.kernel.CudaKernelLibrary;
import dev.javaep.cuda.kernel.CudaNode;
import dev.javaep.cuda.kernel.CudaSubgraphProgram;
import dev.javaep.cuda.kernel.KernelArguments;
import dev.javaep.cuda.kernel.elementwise.ElementwiseKernels.FusableActivation;
import dev.javaep.cuda.kernel.ptx.LaunchShape;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.KernelContext;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.ops.ConvOps.ConvAttributes;
import dev.javaep.spi.ops.ConvOps.ConvGeometry;

/**
 * Conv or ConvTranspose on float32 or float16: the geometry from the op layer, Y requested with its shape, then one
 * {@link Algorithm} queues the work: cuDNN ({@link CudnnConvolution}, algorithm and workspace per geometry) or the
 * direct kernels of {@link ConvSources}, as {@link ConvBackend} chose when the node was compiled.
 */
final class ConvolutionNode extends CudaNode implements CudaSubgraphProgram.StepKind {
    /** The epilogue parameters of a kernel without an activation (one array, not one per launch). */
    private static final float[] NO_PARAMS = {};

    /**
     * How a resolved convolution is computed on the device; every input is checked and Y allocated before. {@code z}:
     * the residual a following Add adds before the activation (Y's shape), or null.
     */
    interface Algorithm {
        void queue(CudaKernelLibrary kernels, long stream, ConvGeometry g, ElementType type, Tensor x, Tensor w, Tensor b,
                   Tensor z, Tensor y);
    }

    /**
     * {@link ConvSources}' direct kernels: one thread per output element (per block of output channels for Conv), the
     * bias and {@code activation} (null: none) applied before the store; with a residual, the bias before the store and
     * the residual and activation in one pass after.
     */
    static Algorithm direct(FusableActivation activation) {
        return (kernels, stream, g, type, x, w, b, z, y) -> {
            FusableActivation inKernel = z == null ? activation : null;
            long blocked = g.outChannelsPerGroup() > 1 ? ConvSources.CHANNELS_PER_THREAD : 1;
            long threads = g.batch() * g.group() * Math.ceilDiv(g.outChannelsPerGroup(), blocked) * g.outputSpatialSize();
            kernels.launch(ConvSources.conv(type, blocked > 1, inKernel), kernels.linear(threads), 0, stream,
                    arguments(g, x, w, b, y).floats(inKernel == null ? NO_PARAMS : inKernel.params(), 8));
            if (z != null) {
                biasActivation(kernels, stream, g, type, null, z, y, activation);
            }
        };
    }

    /** The gather formulation of ConvTranspose (each output element sums the inputs whose taps land on it), then {@code activation}. */
    static Algorithm transposedDirect(FusableActivation activation) {
        return (kernels, stream, g, type, x, w, b, z, y) -> {
            kernels.launch(ConvSources.convTranspose(type), kernels.linear(y.elementCount()), 0, stream,
                    arguments(g, x, w, b, y));
            if (activation != null || z != null) {
                biasActivation(kernels, stream, g, type, null, z, y, activation);
            }
        };
    }

    /**
     * {@code y = activation(y + b + z)} in place, one pass over Y ({@link ConvSources#biasActivation}): the epilogue of a
     * convolution that computed Y without them. {@code b}, {@code z} (a residual of Y's shape) or {@code activation} may
     * be null (not all three).
     */
    static void biasActivation(CudaKernelLibrary kernels, long stream, ConvGeometry g, ElementType type, Tensor b, Tensor z,
                               Tensor y, FusableActivation activation) {
        long planes = g.batch() * g.outChannels();
        long spatial = g.outputSpatialSize();
        long perVector = 16 / type.byteSize();
        boolean vectors = spatial % perVector == 0 && aligned16(address(y), z == null ? 0 : address(z));
        long perPlane = vectors ? spatial / perVector : spatial;
        int gridY = (int) Math.min(planes, LaunchShape.MAX_GRID_YZ);
        // as many blocks as a 1-D kernel over the whole of Y would get, spread over the planes
        int blocks = kernels.linear(Math.multiplyExact(planes, perPlane)).gridX();
        int gridX = (int) Math.max(1, Math.min(Math.ceilDiv(perPlane, LaunchShape.LINEAR_BLOCK), blocks / gridY));
        kernels.launch(ConvSources.biasActivation(type, activation),
                new LaunchShape(gridX, gridY, 1, LaunchShape.LINEAR_BLOCK, 1, 1), 0, stream,
                KernelArguments.begin().u64(address(y)).u64(b == null ? 0 : address(b)).u64(z == null ? 0 : address(z))
                        .i64(planes).i64(spatial)
                        .i64(g.outChannels()).i32(vectors ? 1 : 0)
                        .floats(activation == null ? NO_PARAMS : activation.params(), 8));
    }

    private final ConvAttributes attributes;
    private final boolean transposed;
    private final ElementType type;
    private final Algorithm algorithm;
    private final boolean residual;

    /**
     * {@code activation}: applied to Y after the bias, in the same kernel or one epilogue pass (null: none);
     * {@code epilogue} says whether a residual comes as input 3 and whether cuDNN's fused call may run the activation.
     */
    ConvolutionNode(CudaDevice device, ConvAttributes attributes, boolean transposed, ElementType type, ConvBackend backend,
                    FusableActivation activation, ConvEpilogue epilogue) {
        super(device, attributes.op() + (epilogue.residual() ? "+Add" : "")
                + (activation == null ? "" : "+" + activation.name()));
        this.attributes = attributes;
        this.transposed = transposed;
        this.type = type;
        this.residual = epilogue.residual();
        Algorithm direct = transposed ? transposedDirect(activation) : direct(activation);
        this.algorithm = backend == ConvBackend.CUDNN && ConvBackend.cudnn().isPresent()
                ? new CudnnConvolution(ConvBackend.cudnn().orElseThrow(), transposed, direct, ConvBackend.tf32(), activation,
                        epilogue.cudnnRelu())
                : direct;
    }

    /**
     * What a fused Conv step does after the convolution besides the bias and activation: {@code residual}, add input 3
     * (a following Add's other input, of Y's shape); {@code cudnnRelu}, the activation is ReLU and cuDNN's
     * {@code cudnnConvolutionBiasActivationForward} may compute all of it in one call.
     */
    record ConvEpilogue(boolean residual, boolean cudnnRelu) {
        static final ConvEpilogue NONE = new ConvEpilogue(false, false);
    }

    /** How this node computes, for the step profile: cuDNN's fused call, cuDNN + an epilogue pass, or a direct kernel. */
    @Override
    public String stepKind() {
        if (algorithm instanceof CudnnConvolution cudnn) {
            String kind = cudnn.kind();
            return kind != null ? kind : "cuDNN conv";
        }
        return "direct conv kernel";
    }

    /** Which algorithm this node runs: the cuDNN one or a direct kernel. */
    boolean usesCudnn() {
        return algorithm instanceof CudnnConvolution;
    }

    @Override
    public void close() {
        if (algorithm instanceof CudnnConvolution cudnn) {
            device.makeCurrent();
            cudnn.close();
        }
    }

    @Override
    protected void run(KernelContext context, CudaKernelLibrary kernels, long stream) {
        Tensor x = typed(context, 0, "X");
        Tensor w = typed(context, 1, "W");
        Tensor b = context.inputCount() > 2 && context.input(2) != null ? typed(context, 2, "B") : null;
        Tensor z = residual ? typed(context, 3, "the residual") : null;
        ConvGeometry g = transposed
                ? ConvGeometry.transposed(attributes, x.shape(), w.shape(), b == null ? null : b.shape())
                : ConvGeometry.of(attributes, x.shape(), w.shape(), b == null ? null : b.shape());
        Tensor y = context.output(0, g.outputShape());
        if (y.elementCount() == 0) {
            return;
        }
        if (z != null && !java.util.Arrays.equals(z.shape(), y.shape())) {
            // the planner fused only equal static shapes; a Run that brings others is a bug to report, not to broadcast
            throw new IllegalStateException(op + ": the residual is " + shape(z.shape()) + ", Y is " + shape(y.shape()));
        }
        algorithm.queue(kernels, stream, g, type, x, w, b, z, y);
    }

    private Tensor typed(KernelContext context, int index, String name) {
        Tensor t = context.input(index);
        if (t == null) {
            throw new IllegalArgumentException(op + ": input " + name + " is missing");
        }
        if (t.elementType() != type) {
            throw new IllegalArgumentException(op + ": input " + name + " is " + t.elementType() + ", the kernel is " + type);
        }
        return t;
    }

    private static KernelArguments arguments(ConvGeometry g, Tensor x, Tensor w, Tensor b, Tensor y) {
        return KernelArguments.begin().u64(address(y)).u64(address(x)).u64(address(w)).u64(b == null ? 0 : address(b))
                .longs(WindowArguments.of(g), WindowArguments.LONGS);
    }
}
