package dev.javaep.cuda.kernel.conv;

import dev.javaep.cuda.CudaDevice;
import dev.javaep.cuda.kernel.CudaKernelLibrary;
import dev.javaep.cuda.kernel.CudaNode;
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
final class ConvolutionNode extends CudaNode {
    /** The epilogue parameters of a kernel without an activation (one array, not one per launch). */
    private static final float[] NO_PARAMS = {};

    /** How a resolved convolution is computed on the device; every input is checked and Y allocated before. */
    interface Algorithm {
        void queue(CudaKernelLibrary kernels, long stream, ConvGeometry g, ElementType type, Tensor x, Tensor w, Tensor b,
                   Tensor y);
    }

    /**
     * {@link ConvSources}' direct kernels: one thread per output element (per block of output channels for Conv), the
     * bias and {@code activation} (null: none) applied before the store.
     */
    static Algorithm direct(FusableActivation activation) {
        return (kernels, stream, g, type, x, w, b, y) -> {
            long blocked = g.outChannelsPerGroup() > 1 ? ConvSources.CHANNELS_PER_THREAD : 1;
            long threads = g.batch() * g.group() * Math.ceilDiv(g.outChannelsPerGroup(), blocked) * g.outputSpatialSize();
            kernels.launch(ConvSources.conv(type, blocked > 1, activation), kernels.linear(threads), 0, stream,
                    arguments(g, x, w, b, y).floats(activation == null ? NO_PARAMS : activation.params(), 8));
        };
    }

    /** The gather formulation of ConvTranspose (each output element sums the inputs whose taps land on it), then {@code activation}. */
    static Algorithm transposedDirect(FusableActivation activation) {
        return (kernels, stream, g, type, x, w, b, y) -> {
            kernels.launch(ConvSources.convTranspose(type), kernels.linear(y.elementCount()), 0, stream,
                    arguments(g, x, w, b, y));
            if (activation != null) {
                biasActivation(kernels, stream, g, type, null, y, activation);
            }
        };
    }

    /**
     * {@code y = activation(y + b)} in place, one pass over Y ({@link ConvSources#biasActivation}): the epilogue of a
     * convolution that computed Y without them. {@code b} or {@code activation} may be null (not both).
     */
    static void biasActivation(CudaKernelLibrary kernels, long stream, ConvGeometry g, ElementType type, Tensor b, Tensor y,
                               FusableActivation activation) {
        long planes = g.batch() * g.outChannels();
        long spatial = g.outputSpatialSize();
        long perVector = 16 / type.byteSize();
        boolean vectors = spatial % perVector == 0 && aligned16(address(y));
        long perPlane = vectors ? spatial / perVector : spatial;
        int gridY = (int) Math.min(planes, LaunchShape.MAX_GRID_YZ);
        // as many blocks as a 1-D kernel over the whole of Y would get, spread over the planes
        int blocks = kernels.linear(Math.multiplyExact(planes, perPlane)).gridX();
        int gridX = (int) Math.max(1, Math.min(Math.ceilDiv(perPlane, LaunchShape.LINEAR_BLOCK), blocks / gridY));
        kernels.launch(ConvSources.biasActivation(type, activation),
                new LaunchShape(gridX, gridY, 1, LaunchShape.LINEAR_BLOCK, 1, 1), 0, stream,
                KernelArguments.begin().u64(address(y)).u64(b == null ? 0 : address(b)).i64(planes).i64(spatial)
                        .i64(g.outChannels()).i32(vectors ? 1 : 0)
                        .floats(activation == null ? NO_PARAMS : activation.params(), 8));
    }

    private final ConvAttributes attributes;
    private final boolean transposed;
    private final ElementType type;
    private final Algorithm algorithm;

    /** {@code activation}: applied to Y after the bias, in the same kernel or one epilogue pass (null: none). */
    ConvolutionNode(CudaDevice device, ConvAttributes attributes, boolean transposed, ElementType type, ConvBackend backend,
                    FusableActivation activation) {
        super(device, activation == null ? attributes.op() : attributes.op() + "+" + activation.name());
        this.attributes = attributes;
        this.transposed = transposed;
        this.type = type;
        Algorithm direct = transposed ? transposedDirect(activation) : direct(activation);
        this.algorithm = backend == ConvBackend.CUDNN && ConvBackend.cudnn().isPresent()
                ? new CudnnConvolution(ConvBackend.cudnn().orElseThrow(), transposed, direct, ConvBackend.tf32(), activation)
                : direct;
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
        ConvGeometry g = transposed
                ? ConvGeometry.transposed(attributes, x.shape(), w.shape(), b == null ? null : b.shape())
                : ConvGeometry.of(attributes, x.shape(), w.shape(), b == null ? null : b.shape());
        Tensor y = context.output(0, g.outputShape());
        if (y.elementCount() == 0) {
            return;
        }
        algorithm.queue(kernels, stream, g, type, x, w, b, y);
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
