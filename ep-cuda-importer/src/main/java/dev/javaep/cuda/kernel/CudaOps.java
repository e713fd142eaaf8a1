package dev.javaep.cuda.kernel;

import dev.javaep.cuda.CudaDevice;
import dev.javaep.cuda.kernel.ptx.CudaKernel.BinaryOp;
import dev.javaep.cuda.kernel.ptx.CudaKernel.UnaryOp;
import dev.javaep.spi.Attribute;
import dev.javaep.spi.CompiledNode;
import dev.javaep.spi.DeclineCode;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import dev.javaep.spi.ValueInfo;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The ops JavaCudaExecutionProvider runs (the op set of JavaCpuExecutionProvider, float32), which
 * nodes qualify, and the compiled node for each. A node is refused, never half-run: anything this
 * EP cannot run exactly (another element type, an attribute it does not read) stays with other EPs.
 */
public final class CudaOps {
    private static final Map<String, BinaryOp> BINARY = Arrays.stream(BinaryOp.values())
            .collect(Collectors.toUnmodifiableMap(BinaryOp::opType, op -> op));
    private static final Map<String, UnaryOp> UNARY = Arrays.stream(UnaryOp.values())
            .collect(Collectors.toUnmodifiableMap(UnaryOp::opType, op -> op));

    private CudaOps() {}

    /** Whether the EP runs {@code node}, and if not, why. */
    public record Support(boolean supported, DeclineCode code, String reason) {
        static final Support YES = new Support(true, null, "");

        static Support no(DeclineCode code, String reason) {
            return new Support(false, code, reason);
        }

        /** This answer if it is "no", otherwise the next check's. */
        Support and(java.util.function.Supplier<Support> next) {
            return supported ? next.get() : this;
        }
    }

    /**
     * Whether the EP runs {@code node}: pure Java on the node record, no GPU needed. Never throws: a node
     * shaped in a way these checks did not foresee is declined ({@link DeclineCode#INTERNAL_ERROR}, with
     * what failed), so one odd node never costs the session the rest of the graph.
     */
    public static Support support(Node node) {
        try {
            return check(node);
        } catch (RuntimeException e) {
            return Support.no(DeclineCode.INTERNAL_ERROR, "judging the node failed: " + e);
        }
    }

    private static Support check(Node node) {
        if (node == null || node.opType() == null) {
            return Support.no(DeclineCode.UNREADABLE, "the node has no op type");
        }
        if (!node.isOnnxDomain()) {
            return Support.no(DeclineCode.DOMAIN, "domain " + node.domain());
        }
        if (node.inputs() == null || node.outputs() == null) {
            return Support.no(DeclineCode.UNREADABLE, "the node's inputs or outputs are unknown");
        }
        for (int i = 0; i < node.outputs().size(); i++) {
            if (node.outputs().get(i) == null) {
                // Every kernel writes each of its outputs: one ORT leaves out has no buffer to write to.
                return Support.no(DeclineCode.ARITY, "output " + i + " is omitted");
            }
        }
        String op = node.opType();
        if (BINARY.containsKey(op)) {
            return floatTensors(node, 2, 1).and(() -> attributes(node, Map.of()));
        }
        if (UNARY.containsKey(op)) {
            return floatTensors(node, 1, 1).and(() -> attributes(node, Map.of()));
        }
        return switch (op) {
            case "Identity" -> identity(node);
            case "Softmax" -> floatTensors(node, 1, 1).and(() -> attributes(node, Map.of("axis", Attribute.IntValue.class)));
            case "MatMul" -> floatTensors(node, 2, 1).and(() -> attributes(node, Map.of()));
            case "Gemm" -> gemm(node);
            default -> Support.no(DeclineCode.OP_TYPE, "op " + op + " is not in JavaCudaExecutionProvider's op set");
        };
    }

    private static Support identity(Node node) {
        if (node.inputs().size() != 1 || node.outputs().size() != 1 || node.inputs().getFirst() == null) {
            return Support.no(DeclineCode.ARITY, "Identity needs one input and one output");
        }
        ValueInfo in = node.inputs().getFirst();
        if (!in.isTensor() || in.elementType() == null || in.elementType().byteSize() == 0) {
            return Support.no(DeclineCode.ELEMENT_TYPE, "Identity of " + (in.isTensor() ? in.elementType() : "a non-tensor") + " (device copies need fixed-size elements)");
        }
        return Support.YES;
    }

    private static Support gemm(Node node) {
        int inputs = node.inputs().size();
        if (inputs < 2 || inputs > 3) {
            return Support.no(DeclineCode.ARITY, "Gemm needs 2 or 3 inputs");
        }
        Support types = floatTensors(node, inputs, 1);
        if (!types.supported()) {
            return types;
        }
        return attributes(node, Map.of("alpha", Attribute.FloatValue.class, "beta", Attribute.FloatValue.class,
                "transA", Attribute.IntValue.class, "transB", Attribute.IntValue.class));
    }

    /** Every input (optional trailing ones may be omitted) and output is a float32 tensor. */
    private static Support floatTensors(Node node, int maxInputs, int outputs) {
        if (node.inputs().isEmpty() || node.inputs().size() > maxInputs || node.outputs().size() != outputs) {
            return Support.no(DeclineCode.ARITY, node.opType() + " with " + node.inputs().size() + " inputs and " + node.outputs().size() + " outputs");
        }
        for (List<ValueInfo> values : List.of(node.inputs(), node.outputs())) {
            for (ValueInfo v : values) {
                if (v == null) {
                    continue;
                }
                if (!v.isTensor() || v.elementType() != ElementType.FLOAT) {
                    return Support.no(v.isTensor() ? DeclineCode.ELEMENT_TYPE : DeclineCode.NOT_A_TENSOR, v.name() + " is " + (v.isTensor() ? v.elementType() : "not a tensor") + "; the kernels are float32");
                }
            }
        }
        return Support.YES;
    }

    private static Support attributes(Node node, Map<String, Class<? extends Attribute>> expected) {
        if (node.attributes() == null) {
            return Support.YES;
        }
        for (Map.Entry<String, Attribute> e : node.attributes().entrySet()) {
            if (e.getValue() instanceof Attribute.Unreadable unreadable) {
                return Support.no(DeclineCode.ATTRIBUTE, "attribute " + e.getKey() + " could not be read: " + unreadable.reason());
            }
            Class<? extends Attribute> kind = e.getKey() == null ? null : expected.get(e.getKey());
            if (kind == null || !kind.isInstance(e.getValue())) {
                return Support.no(DeclineCode.ATTRIBUTE, "attribute " + e.getKey() + " is not one the kernel reads");
            }
        }
        return Support.YES;
    }

    /** The compiled node for a supported {@code node} on {@code device}. */
    public static CompiledNode compile(Node node, CudaDevice device) {
        Support support = support(node);
        if (!support.supported()) {
            throw new IllegalArgumentException("javaep: JavaCudaExecutionProvider cannot compile " + node.opType()
                    + " '" + node.name() + "': " + support.reason());
        }
        String op = node.opType();
        if (BINARY.containsKey(op)) {
            return new ElementwiseBinaryNode(device, BINARY.get(op));
        }
        if (UNARY.containsKey(op)) {
            return new ElementwiseUnaryNode(device, UNARY.get(op));
        }
        return switch (op) {
            case "Identity" -> new IdentityNode(device);
            case "Softmax" -> new SoftmaxNode(device, softmaxAxis(node), node.sinceVersion() < 13);
            case "MatMul" -> new MatrixProductNode(device, MatrixProductNode.Kind.MATMUL, 1f, 0f, false, false);
            case "Gemm" -> new MatrixProductNode(device, MatrixProductNode.Kind.GEMM, floatAttr(node, "alpha", 1f),
                    floatAttr(node, "beta", 1f), intAttr(node, "transA", 0) != 0, intAttr(node, "transB", 0) != 0);
            default -> throw new IllegalStateException(op);
        };
    }

    private static long softmaxAxis(Node node) {
        return node.attribute("axis").map(a -> ((Attribute.IntValue) a).value()).orElse(node.sinceVersion() < 13 ? 1L : -1L);
    }

    private static float floatAttr(Node node, String name, float fallback) {
        return node.attribute(name).map(a -> ((Attribute.FloatValue) a).value()).orElse(fallback);
    }

    private static long intAttr(Node node, String name, long fallback) {
        return node.attribute(name).map(a -> ((Attribute.IntValue) a).value()).orElse(fallback);
    }
}
