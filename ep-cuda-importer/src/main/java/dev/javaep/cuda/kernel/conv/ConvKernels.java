package dev.javaep.cuda.kernel.conv;

import dev.javaep.cuda.driver.Nvrtc;
import dev.javaep.cuda.kernel.CudaKernelFactory;
import dev.javaep.cuda.kernel.CudaKernelLibrary;
import dev.javaep.cuda.kernel.elementwise.ElementwiseKernels;
import dev.javaep.cuda.kernel.elementwise.ElementwiseKernels.FusableActivation;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import dev.javaep.spi.ops.ConvOps;
import dev.javaep.spi.ops.ConvOps.ConvAttributes;
import dev.javaep.spi.ops.KernelTable;
import dev.javaep.spi.ops.OpSchema;
import dev.javaep.spi.ops.PoolOps;
import dev.javaep.spi.ops.PoolOps.MaxPoolIndices;
import dev.javaep.spi.ops.PoolOps.PoolAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * JavaCuda's rows for {@link ConvOps} and {@link PoolOps}: every version of Conv, ConvTranspose, MaxPool (with its
 * Indices output), AveragePool, GlobalAveragePool and GlobalMaxPool on float32 and float16, 1 to 3 spatial axes, as
 * CUDA C kernels compiled by NVRTC ({@link ConvSources}); declined where NVRTC is not installed. Conv and ConvTranspose
 * run through cuDNN where it is installed ({@link ConvBackend}; a geometry cuDNN cannot take uses the direct kernels).
 */
public final class ConvKernels {
    private static final Set<ElementType> FLOATS = Set.of(ElementType.FLOAT, ElementType.FLOAT16);

    private ConvKernels() {}

    public static List<KernelTable.Row<CudaKernelFactory>> rows() {
        List<KernelTable.Row<CudaKernelFactory>> rows = new ArrayList<>();
        for (OpSchema s : List.of(ConvOps.CONV_1, ConvOps.CONV_11, ConvOps.CONV_22)) {
            rows.add(new KernelTable.Row<>(s, "T", FLOATS, node -> conv(node, false)));
        }
        for (OpSchema s : List.of(ConvOps.CONV_TRANSPOSE_1, ConvOps.CONV_TRANSPOSE_11, ConvOps.CONV_TRANSPOSE_22)) {
            rows.add(new KernelTable.Row<>(s, "T", FLOATS, node -> conv(node, true)));
        }
        for (OpSchema s : List.of(PoolOps.MAX_POOL_1, PoolOps.MAX_POOL_8, PoolOps.MAX_POOL_10, PoolOps.MAX_POOL_12,
                PoolOps.MAX_POOL_22)) {
            rows.add(new KernelTable.Row<>(s, "T", FLOATS, node -> pool(node, true)));
        }
        for (OpSchema s : List.of(PoolOps.AVERAGE_POOL_1, PoolOps.AVERAGE_POOL_7, PoolOps.AVERAGE_POOL_10,
                PoolOps.AVERAGE_POOL_19, PoolOps.AVERAGE_POOL_22)) {
            rows.add(new KernelTable.Row<>(s, "T", FLOATS, node -> pool(node, false)));
        }
        for (OpSchema s : List.of(PoolOps.GLOBAL_AVERAGE_POOL_1, PoolOps.GLOBAL_AVERAGE_POOL_22)) {
            rows.add(new KernelTable.Row<>(s, "T", FLOATS, node -> globalPool(node, false)));
        }
        for (OpSchema s : List.of(PoolOps.GLOBAL_MAX_POOL_1, PoolOps.GLOBAL_MAX_POOL_22)) {
            rows.add(new KernelTable.Row<>(s, "T", FLOATS, node -> globalPool(node, true)));
        }
        return List.copyOf(rows);
    }

    private static CudaKernelFactory conv(Node node, boolean transposed) {
        return conv(node, transposed, null, ConvolutionNode.ConvEpilogue.NONE);
    }

    private static CudaKernelFactory conv(Node node, boolean transposed, FusableActivation activation,
                                          ConvolutionNode.ConvEpilogue epilogue) {
        ConvAttributes attributes = ConvAttributes.of(node);
        requireRank(node, Math.max(node.input(0).rank(), node.input(1).rank()) - 2);
        requireCompiler(node);
        ElementType type = node.input(0).elementType();
        return device -> new ConvolutionNode(device, attributes, transposed, type, ConvBackend.selected(), activation,
                epilogue);
    }

    /**
     * The kernel of {@code producer} (a Conv or ConvTranspose on float32/float16) followed by {@code activation} (its
     * only reader, a {@link ElementwiseKernels#fusableActivation}) as one compiled node: the activation applied in the
     * convolution's epilogue instead of a pass of its own. Empty when the pair does not fuse. The caller (the group's
     * planning) has checked that nothing else reads the convolution's output.
     */
    public static Optional<CudaKernelFactory> fusedWithActivation(Node producer, Node activation) {
        return fusedWithActivation(producer, activation, false);
    }

    /**
     * As {@link #fusedWithActivation(Node, Node)}; {@code cudnnCall}: a ReLU after a Conv with a bias may run as cuDNN's
     * {@code cudnnConvolutionBiasActivationForward} (where cuDNN runs the Conv and times that call faster).
     */
    public static Optional<CudaKernelFactory> fusedWithActivation(Node producer, Node activation, boolean cudnnCall) {
        boolean conv = producer.opType().equals("Conv");
        if (!fusableConvolution(producer, conv || producer.opType().equals("ConvTranspose"))
                || activation.input(0) == null || activation.input(0).elementType() != producer.input(0).elementType()) {
            return Optional.empty();
        }
        ConvolutionNode.ConvEpilogue epilogue = new ConvolutionNode.ConvEpilogue(false, cudnnCall && conv && isRelu(activation));
        try {
            return ElementwiseKernels.fusableActivation(activation).map(a -> conv(producer, !conv, a, epilogue));
        } catch (RuntimeException e) {
            return Optional.empty(); // either node alone is declined the same way; nothing to fuse
        }
    }

    /**
     * The kernel of a Conv, the Add that alone reads its output and the activation that alone reads the Add's, as one
     * compiled node whose inputs are the Conv's three (B null where the Conv has none) and then the Add's other input,
     * the residual: {@code y = activation(conv(x, w) + b + residual)}, in cuDNN's fused call ({@code cudnnCall}, ReLU
     * with a bias) or the convolution and one epilogue pass. The caller (the group's planning) has checked the readers,
     * that the residual exists before the Conv runs and that it has the Conv output's static shape.
     */
    public static Optional<CudaKernelFactory> fusedWithResidual(Node conv, Node add, Node activation, boolean cudnnCall) {
        if (!conv.opType().equals("Conv") || !fusableConvolution(conv, true) || !add.isOnnxDomain()
                || !add.opType().equals("Add") || add.inputs().size() != 2 || add.input(0) == null || add.input(1) == null
                || add.input(0).elementType() != conv.input(0).elementType()
                || add.input(1).elementType() != conv.input(0).elementType()
                || activation.input(0) == null || activation.input(0).elementType() != conv.input(0).elementType()) {
            return Optional.empty();
        }
        ConvolutionNode.ConvEpilogue epilogue = new ConvolutionNode.ConvEpilogue(true, cudnnCall && isRelu(activation));
        try {
            return ElementwiseKernels.fusableActivation(activation).map(a -> conv(conv, false, a, epilogue));
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    private static boolean fusableConvolution(Node producer, boolean convolution) {
        return producer.isOnnxDomain() && convolution && producer.inputs().size() >= 2 && producer.input(0) != null
                && producer.input(1) != null && FLOATS.contains(producer.input(0).elementType());
    }

    private static boolean isRelu(Node activation) {
        return activation.isOnnxDomain() && activation.opType().equals("Relu");
    }

    private static CudaKernelFactory pool(Node node, boolean max) {
        PoolAttributes attributes = PoolAttributes.of(node);
        requireRank(node, attributes.kernelShape().length);
        requireCompiler(node);
        ElementType type = node.input(0).elementType();
        String op = node.opType();
        MaxPoolIndices indices = max ? MaxPoolIndices.of(node) : null;
        return device -> new PoolNode(device, op, max, attributes, type, indices);
    }

    private static CudaKernelFactory globalPool(Node node, boolean max) {
        requireCompiler(node);
        ElementType type = node.input(0).elementType();
        String op = node.opType();
        return device -> new PoolNode(device, op, max, null, type, null);
    }

    private static void requireRank(Node node, int spatialAxes) {
        if (spatialAxes > WindowArguments.MAX_RANK) {
            throw new UnsupportedOperationException(node.opType() + ": JavaCuda takes 1 to " + WindowArguments.MAX_RANK
                    + " spatial axes, the node has " + spatialAxes);
        }
    }

    private static void requireCompiler(Node node) {
        if (!CudaKernelLibrary.compilesSources()) {
            throw new UnsupportedOperationException(node.opType() + " runs as a CUDA C kernel compiled at run time: "
                    + Nvrtc.absenceReason());
        }
    }
}
