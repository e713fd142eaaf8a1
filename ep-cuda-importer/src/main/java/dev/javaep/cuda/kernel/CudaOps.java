package dev.javaep.cuda.kernel;

import dev.javaep.cuda.CudaDevice;
import dev.javaep.cuda.kernel.ptx.CudaKernel.BinaryOp;
import dev.javaep.cuda.kernel.ptx.CudaKernel.UnaryOp;
import dev.javaep.spi.CompiledNode;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import dev.javaep.spi.NodeSupport;
import dev.javaep.spi.ops.KernelTable;
import dev.javaep.spi.ops.OnnxOps;
import dev.javaep.spi.ops.OpSchema;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * JavaCuda's kernel table: the {@link OnnxOps} schema versions it runs, for which element types (float32;
 * Identity copies any fixed-size type), and the compiled node for each. Pure Java on the node record: it
 * decides without a GPU. A node is refused, never half-run.
 */
public final class CudaOps {
    private static final Set<ElementType> FLOAT = Set.of(ElementType.FLOAT);
    private static final Set<ElementType> FIXED_SIZE = EnumSet.copyOf(OnnxOps.IDENTITY.types().get("V").stream()
            .filter(t -> t.byteSize() > 0).toList());

    /** What a row makes for a node: the compiled node, once the device is known. */
    private interface NodeKernel extends Function<CudaDevice, CompiledNode> {}

    private static final KernelTable<NodeKernel> TABLE = new KernelTable<>("JavaCudaExecutionProvider", List.of(
            binary(OnnxOps.ADD, BinaryOp.ADD), binary(OnnxOps.SUB, BinaryOp.SUB),
            binary(OnnxOps.MUL, BinaryOp.MUL), binary(OnnxOps.DIV, BinaryOp.DIV),
            unary(OnnxOps.RELU, UnaryOp.RELU), unary(OnnxOps.SIGMOID, UnaryOp.SIGMOID), unary(OnnxOps.TANH, UnaryOp.TANH),
            new KernelTable.Row<>(OnnxOps.IDENTITY, "V", FIXED_SIZE, node -> IdentityNode::new),
            new KernelTable.Row<>(OnnxOps.MATMUL, "T", FLOAT, node -> device ->
                    new MatrixProductNode(device, MatrixProductNode.Kind.MATMUL, 1f, 0f, false, false)),
            new KernelTable.Row<>(OnnxOps.GEMM_7, "T", FLOAT, CudaOps::gemm),
            new KernelTable.Row<>(OnnxOps.GEMM_11, "T", FLOAT, CudaOps::gemm),
            new KernelTable.Row<>(OnnxOps.SOFTMAX_1, "T", FLOAT, CudaOps::softmax),
            new KernelTable.Row<>(OnnxOps.SOFTMAX_13, "T", FLOAT, CudaOps::softmax)));

    private CudaOps() {}

    /** The table itself, for documentation and tests. */
    public static KernelTable<?> table() {
        return TABLE;
    }

    /** Whether the EP runs {@code node}, and if not, why. Never throws; needs no GPU. */
    public static NodeSupport support(Node node) {
        return TABLE.support(node);
    }

    /** The compiled node for a supported {@code node} on {@code device}. */
    public static CompiledNode compile(Node node, CudaDevice device) {
        return switch (TABLE.select(node)) {
            case KernelTable.Selection.Selected<NodeKernel>(OpSchema schema, NodeKernel kernel) -> kernel.apply(device);
            case KernelTable.Selection.Declined<NodeKernel>(NodeSupport.Declined d) -> throw new IllegalArgumentException(
                    "javaep: JavaCudaExecutionProvider cannot compile " + node + ": " + d.reason());
        };
    }

    private static KernelTable.Row<NodeKernel> binary(OpSchema schema, BinaryOp op) {
        return new KernelTable.Row<>(schema, "T", FLOAT, node -> device -> new ElementwiseBinaryNode(device, op));
    }

    private static KernelTable.Row<NodeKernel> unary(OpSchema schema, UnaryOp op) {
        return new KernelTable.Row<>(schema, "T", FLOAT, node -> device -> new ElementwiseUnaryNode(device, op));
    }

    private static NodeKernel gemm(Node node) {
        float alpha = node.floatAttribute("alpha", 1f);
        float beta = node.floatAttribute("beta", 1f);
        boolean transA = node.intAttribute("transA", 0) != 0;
        boolean transB = node.intAttribute("transB", 0) != 0;
        return device -> new MatrixProductNode(device, MatrixProductNode.Kind.GEMM, alpha, beta, transA, transB);
    }

    private static NodeKernel softmax(Node node) {
        long axis = node.intAttribute("axis", node.sinceVersion() < 13 ? 1L : -1L);
        boolean coerceTo2d = node.sinceVersion() < 13;
        return device -> new SoftmaxNode(device, axis, coerceTo2d);
    }
}
