package dev.javaep.cpu.kernel.elementwise;

import dev.javaep.cpu.kernel.CpuKernel;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import dev.javaep.spi.ops.ElementwiseOps;
import dev.javaep.spi.ops.ElementwiseOps.Activation;
import dev.javaep.spi.ops.KernelRows;
import dev.javaep.spi.ops.KernelTable;
import dev.javaep.spi.ops.OnnxTypes;
import dev.javaep.spi.ops.OpSchema;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * JavaCpu's rows for {@link ElementwiseOps}: one row per schema version, with the types JavaCpu implements that the
 * version allows. Float16 computes through float lanes ({@link Lanes}); Add/Sub/Mul/Div on float32 and float64 keep
 * their lane-free loops ({@link ElementwiseBinary}, which runs the integers' on long lanes), Relu/Sigmoid/Tanh on
 * float32 and float64 theirs ({@link ElementwiseUnary}). The ops whose types follow from the float types alone are
 * {@link KernelRows#addMathRows}, as on JavaCuda.
 */
public final class ElementwiseKernels {
    private static final ElementType F16 = ElementType.FLOAT16;
    private static final ElementType F32 = ElementType.FLOAT;
    private static final ElementType F64 = ElementType.DOUBLE;
    private static final ElementType BOOL = ElementType.BOOL;

    private static final Set<ElementType> FLOATS = Set.of(F16, F32, F64);
    private static final Set<ElementType> NUMBERS = OnnxTypes.union(FLOATS, OnnxTypes.INTEGERS);
    private static final Set<ElementType> CAST_TYPES = OnnxTypes.union(NUMBERS, Set.of(BOOL));

    private ElementwiseKernels() {}

    public static List<KernelTable.Row<CpuKernel>> rows() {
        List<KernelTable.Row<CpuKernel>> rows = new ArrayList<>();
        Set<ElementType> arithmeticTypes = OnnxTypes.union(ElementwiseBinary.SUPPORTED_TYPES, Set.of(F16));
        add(rows, ElementwiseOps.ADD, arithmeticTypes, node -> arithmetic(node, ArithmeticOp.ADD));
        add(rows, ElementwiseOps.SUB, arithmeticTypes, node -> arithmetic(node, ArithmeticOp.SUB));
        add(rows, ElementwiseOps.MUL, arithmeticTypes, node -> arithmetic(node, ArithmeticOp.MUL));
        add(rows, ElementwiseOps.DIV, arithmeticTypes, node -> arithmetic(node, ArithmeticOp.DIV));
        add(rows, ElementwiseOps.POW, Set.of(ElementType.INT32, ElementType.INT64, F16, F32, F64), ElementwiseKernels::pow);
        add(rows, ElementwiseOps.MOD, NUMBERS, node -> {
            ElementType t = type(node);
            return new BinaryKernel("Mod", ElementwiseOps.fmod(node, t) ? BinaryMath.FMOD : BinaryMath.MOD, t, t, t);
        });
        for (List<OpSchema> variadic : List.of(ElementwiseOps.MIN, ElementwiseOps.MAX, ElementwiseOps.SUM, ElementwiseOps.MEAN)) {
            add(rows, variadic, NUMBERS, node -> VariadicKernel.of(node.opType(), type(node)));
        }
        add(rows, ElementwiseOps.CLIP, NUMBERS, node -> {
            float[] bounds = ElementwiseOps.clipBounds(node);
            return new ClipKernel(type(node), ElementwiseOps.clipBoundsAreAttributes(node), bounds[0], bounds[1]);
        });

        add(rows, ElementwiseOps.RELU, OnnxTypes.union(FLOATS, KernelRows.SIGNED_INTEGERS), ElementwiseKernels::fastUnary);
        add(rows, ElementwiseOps.SIGMOID, FLOATS, ElementwiseKernels::fastUnary);
        add(rows, ElementwiseOps.TANH, FLOATS, ElementwiseKernels::fastUnary);
        KernelRows.addMathRows(rows, FLOATS, ElementwiseKernels::unary, ElementwiseKernels::binary);
        add(rows, ElementwiseOps.WHERE, KernelRows.WORD_SIZED, node -> new WhereKernel(node.outputs().getFirst().elementType()));
        KernelRows.addEach(rows, ElementwiseOps.CAST, "T1", CAST_TYPES, node -> {
            ElementType to = ElementwiseOps.castTarget(node);
            if (!CAST_TYPES.contains(to)) {
                throw new UnsupportedOperationException("Cast to " + to + " is not implemented by JavaCpu");
            }
            return new CastKernel(node.inputs().getFirst().elementType(), to);
        });
        return List.copyOf(rows);
    }

    /** The node's T (its first input's type: every elementwise op here binds T to input 0, but Where, which binds B). */
    private static ElementType type(Node node) {
        return node.inputs().getFirst().elementType();
    }

    private static CpuKernel arithmetic(Node node, ArithmeticOp op) {
        ElementType t = type(node);
        return t == F16 ? new BinaryKernel(op.opType(), BinaryMath.of(op.opType()), t, t, t) : new ElementwiseBinary(op, t);
    }

    private static CpuKernel pow(Node node) {
        ElementType base = type(node);
        ElementType exponent = node.inputs().get(1).elementType();
        if (!NUMBERS.contains(exponent)) {
            throw new UnsupportedOperationException("Pow with a " + exponent + " exponent is not implemented by JavaCpu");
        }
        return new BinaryKernel("Pow", BinaryMath.POW, base, exponent, base);
    }

    private static CpuKernel binary(Node node) {
        ElementType t = type(node);
        return new BinaryKernel(node.opType(), BinaryMath.of(node.opType()), t, t, node.outputs().getFirst().elementType());
    }

    private static CpuKernel unary(Node node) {
        return new UnaryKernel(node.opType(), UnaryMath.of(node.opType(), node.opType().equals("Gelu") && ElementwiseOps.geluTanh(node)),
                Activation.of(node), type(node));
    }

    /** Relu, Sigmoid, Tanh: the lane-free kernel where it exists (float32, float64), the lane kernel otherwise. */
    private static CpuKernel fastUnary(Node node) {
        ElementType t = type(node);
        if (t == F32 || t == F64) {
            return new ElementwiseUnary(switch (node.opType()) {
                case "Relu" -> UnaryFunction.RELU;
                case "Sigmoid" -> UnaryFunction.SIGMOID;
                default -> UnaryFunction.TANH;
            }, t);
        }
        return unary(node);
    }

    private static void add(List<KernelTable.Row<CpuKernel>> rows, List<OpSchema> versions, Set<ElementType> types,
                            Function<Node, CpuKernel> kernel) {
        KernelRows.addEach(rows, versions, "T", types, kernel);
    }
}
