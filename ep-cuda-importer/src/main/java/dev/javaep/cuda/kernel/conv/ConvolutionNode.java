package dev.javaep.cuda.kernel.conv;

import dev.javaep.cuda.CudaDevice;
import dev.javaep.cuda.kernel.CudaKernelLibrary;
import dev.javaep.cuda.kernel.CudaNode;
import dev.javaep.cuda.kernel.KernelArguments;
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

    /** How a resolved convolution is computed on the device; every input is checked and Y allocated before. */
    interface Algorithm {
        void queue(CudaKernelLibrary kernels, long stream, ConvGeometry g, ElementType type, Tensor x, Tensor w, Tensor b,
                   Tensor y);
    }

    /** {@link ConvSources}' direct kernels: one thread per output element (per block of output channels for Conv). */
    static final Algorithm DIRECT = (kernels, stream, g, type, x, w, b, y) -> {
        long blocked = g.outChannelsPerGroup() > 1 ? ConvSources.CHANNELS_PER_THREAD : 1;
        long threads = g.batch() * g.group() * Math.ceilDiv(g.outChannelsPerGroup(), blocked) * g.outputSpatialSize();
        kernels.launch(ConvSources.conv(type, blocked > 1), kernels.linear(threads), 0, stream, arguments(g, x, w, b, y));
    };

    /** The gather formulation of ConvTranspose: each output element sums the inputs whose taps land on it. */
    static final Algorithm TRANSPOSED_DIRECT = (kernels, stream, g, type, x, w, b, y) ->
            kernels.launch(ConvSources.convTranspose(type), kernels.linear(y.elementCount()), 0, stream,
                    arguments(g, x, w, b, y));

    private final ConvAttributes attributes;
    private final boolean transposed;
    private final ElementType type;
    private final Algorithm algorithm;

    ConvolutionNode(CudaDevice device, ConvAttributes attributes, boolean transposed, ElementType type, ConvBackend backend) {
        super(device, attributes.op());
        this.attributes = attributes;
        this.transposed = transposed;
        this.type = type;
        Algorithm direct = transposed ? TRANSPOSED_DIRECT : DIRECT;
        this.algorithm = backend == ConvBackend.CUDNN && ConvBackend.cudnn().isPresent()
                ? new CudnnConvolution(ConvBackend.cudnn().orElseThrow(), transposed, direct, ConvBackend.tf32())
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
