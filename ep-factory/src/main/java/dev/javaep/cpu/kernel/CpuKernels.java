package dev.javaep.cpu.kernel;

import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import dev.javaep.spi.NodeSupport;
import dev.javaep.spi.ops.KernelTable;
import dev.javaep.spi.ops.OnnxOps;
import dev.javaep.spi.ops.OpSchema;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * JavaCpu's kernel table: which {@link OnnxOps} schema versions it runs, for which element types, and the
 * kernel for a node. The decision uses only what is known before shapes are: op type, domain, opset
 * version, element types and attributes. A node javaep cannot run exactly as ONNX specifies is declined,
 * with a shared {@link dev.javaep.spi.DeclineCode}, so ORT leaves it to another execution provider.
 */
public final class CpuKernels {
    private static final Set<ElementType> FLOAT = Set.of(ElementType.FLOAT);
    private static final Set<ElementType> FLOAT_DOUBLE = Set.of(ElementType.FLOAT, ElementType.DOUBLE);
    private static final Set<ElementType> FIXED_SIZE = EnumSet.copyOf(OnnxOps.IDENTITY.types().get("V").stream()
            .filter(t -> t.byteSize() > 0).toList());

    private static final KernelTable<CpuKernel> TABLE = new KernelTable<>("JavaCpuExecutionProvider", List.of(
            binary(OnnxOps.ADD, ArithmeticOp.ADD), binary(OnnxOps.SUB, ArithmeticOp.SUB),
            binary(OnnxOps.MUL, ArithmeticOp.MUL), binary(OnnxOps.DIV, ArithmeticOp.DIV),
            unary(OnnxOps.RELU, UnaryFunction.RELU), unary(OnnxOps.SIGMOID, UnaryFunction.SIGMOID),
            unary(OnnxOps.TANH, UnaryFunction.TANH),
            new KernelTable.Row<>(OnnxOps.IDENTITY, "V", FIXED_SIZE, node -> new IdentityKernel()),
            new KernelTable.Row<>(OnnxOps.MATMUL, "T", FLOAT, node -> new MatMulKernel()),
            new KernelTable.Row<>(OnnxOps.GEMM_7, "T", FLOAT, CpuKernels::gemm),
            new KernelTable.Row<>(OnnxOps.GEMM_11, "T", FLOAT, CpuKernels::gemm),
            new KernelTable.Row<>(OnnxOps.SOFTMAX_1, "T", FLOAT, CpuKernels::softmax),
            new KernelTable.Row<>(OnnxOps.SOFTMAX_13, "T", FLOAT, CpuKernels::softmax)));

    private CpuKernels() {}

    /** The table itself, for documentation and tests. */
    public static KernelTable<CpuKernel> table() {
        return TABLE;
    }

    /** Whether JavaCpu runs {@code node}, and if not, why. Never throws. */
    public static NodeSupport support(Node node) {
        return TABLE.support(node);
    }

    /** The kernel for this node, or empty when JavaCpu cannot run it. Never throws. */
    public static Optional<CpuKernel> forNode(Node node) {
        return TABLE.select(node) instanceof KernelTable.Selection.Selected<CpuKernel>(var schema, var kernel)
                ? Optional.of(kernel) : Optional.empty();
    }

    /** The op types this EP knows, in alphabetical order, for documentation/logging. */
    public static Set<String> supportedOpTypes() {
        return TABLE.opTypes();
    }

    private static KernelTable.Row<CpuKernel> binary(OpSchema schema, ArithmeticOp op) {
        return new KernelTable.Row<>(schema, "T", ElementwiseBinary.SUPPORTED_TYPES,
                node -> new ElementwiseBinary(op, schema.typeOf(node, "T")));
    }

    private static KernelTable.Row<CpuKernel> unary(OpSchema schema, UnaryFunction function) {
        return new KernelTable.Row<>(schema, "T", FLOAT_DOUBLE, node -> new ElementwiseUnary(function, schema.typeOf(node, "T")));
    }

    private static CpuKernel gemm(Node node) {
        return new GemmKernel(node.floatAttribute("alpha", 1f), node.floatAttribute("beta", 1f),
                node.intAttribute("transA", 0) != 0, node.intAttribute("transB", 0) != 0);
    }

    private static CpuKernel softmax(Node node) {
        long axis = node.intAttribute("axis", SoftmaxKernel.defaultAxis(node.sinceVersion()));
        int rank = node.input(0).rank();
        if (rank >= 0 && (axis < -rank || axis >= rank)) {
            throw new IllegalArgumentException("Softmax axis " + axis + " is outside the input's rank " + rank);
        }
        return new SoftmaxKernel(axis, node.sinceVersion() < 13);
    }
}
