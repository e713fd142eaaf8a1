package dev.javaep.cpu.kernel;

import dev.javaep.spi.Attribute;
import dev.javaep.spi.DeclineCode;
import dev.javaep.spi.NodeSupport;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Chooses the Java kernel for an ONNX node, or none. The decision uses only what is known before
 * shapes are: op type, domain, opset version, element types and attributes. A node we cannot run
 * exactly as ONNX specifies is declined, so ORT leaves it to another execution provider.
 */
public final class CpuKernels {
    private static final System.Logger LOG = System.getLogger(CpuKernels.class.getName());

    /** An inclusive range of op schema versions. */
    private record Versions(int oldest, int newest) {
        boolean contain(int sinceVersion) {
            return sinceVersion >= oldest && sinceVersion <= newest;
        }
    }

    /**
     * Op schema versions we implement, per op type. Older versions have different
     * semantics (e.g. Add before 7 had a "broadcast" attribute); newer ones might, so we decline them
     * until someone has read their spec.
     */
    private static final Map<String, Versions> VERSIONS = Map.ofEntries(
            Map.entry("Add", new Versions(7, 14)),
            Map.entry("Sub", new Versions(7, 14)),
            Map.entry("Mul", new Versions(7, 14)),
            Map.entry("Div", new Versions(7, 14)),
            Map.entry("Relu", new Versions(6, 14)),
            Map.entry("Sigmoid", new Versions(6, 13)),
            Map.entry("Tanh", new Versions(6, 13)),
            Map.entry("Identity", new Versions(1, 25)),
            Map.entry("MatMul", new Versions(1, 13)),
            Map.entry("Gemm", new Versions(7, 13)),
            Map.entry("Softmax", new Versions(1, 13)));

    private static final Set<String> SUPPORTED_OP_TYPES = Collections.unmodifiableSortedSet(new TreeSet<>(VERSIONS.keySet()));

    private static final Map<String, Class<? extends Attribute>> NO_ATTRIBUTES = Map.of();
    private static final Map<String, Class<? extends Attribute>> GEMM_ATTRIBUTES = Map.of(
            "alpha", Attribute.FloatValue.class,
            "beta", Attribute.FloatValue.class,
            "transA", Attribute.IntValue.class,
            "transB", Attribute.IntValue.class);
    private static final Map<String, Class<? extends Attribute>> SOFTMAX_ATTRIBUTES = Map.of(
            "axis", Attribute.IntValue.class);

    private CpuKernels() {}

    /**
     * The kernel for this node, or empty when javaep cannot run it (op, domain, opset, element
     * types, attributes). Never throws.
     */
    public static Optional<CpuKernel> forNode(Node node) {
        try {
            return Optional.ofNullable(select(node));
        } catch (RuntimeException e) {
            // A malformed node description is a reason to decline, not to fail the session.
            LOG.log(System.Logger.Level.DEBUG, () -> "javaep: declining node " + node + ": " + e, e);
            return Optional.empty();
        }
    }

    /**
     * Whether JavaCpu runs {@code node}, and if not, why (the decline codes are shared by every Java EP).
     * Never throws.
     */
    public static NodeSupport support(Node node) {
        if (node == null || node.opType() == null) {
            return NodeSupport.declined(DeclineCode.UNREADABLE, "no op type");
        }
        if (!node.isOnnxDomain()) {
            return NodeSupport.declined(DeclineCode.DOMAIN, "domain " + node.domain() + " is not the ONNX domain");
        }
        Versions versions = VERSIONS.get(node.opType());
        if (versions == null) {
            return NodeSupport.declined(DeclineCode.OP_TYPE, node.opType() + " is not in JavaCpuExecutionProvider's op set "
                    + SUPPORTED_OP_TYPES);
        }
        if (!versions.contain(node.sinceVersion())) {
            return NodeSupport.declined(DeclineCode.OPSET, node.opType() + " opset " + node.sinceVersion()
                    + " is outside the versions implemented (" + versions.oldest() + ".." + versions.newest() + ")");
        }
        for (var attribute : node.attributes().values()) {
            if (attribute instanceof Attribute.Unreadable(var name, var type, var reason)) {
                return NodeSupport.declined(DeclineCode.ATTRIBUTE, "attribute " + name + " cannot be read: " + reason);
            }
        }
        return forNode(node).isPresent() ? NodeSupport.compiled()
                : NodeSupport.declined(DeclineCode.ELEMENT_TYPE, "the kernel does not take these element types, "
                        + "input/output counts or attributes: inputs " + node.inputs() + ", outputs " + node.outputs()
                        + ", attributes " + node.attributes().keySet());
    }

    /** The op types this EP knows, in alphabetical order, for documentation/logging. */
    public static Set<String> supportedOpTypes() {
        return SUPPORTED_OP_TYPES;
    }

    private static CpuKernel select(Node node) {
        if (node == null || node.opType() == null || !node.isOnnxDomain()) {
            return null;
        }
        Versions versions = VERSIONS.get(node.opType());
        if (versions == null || !versions.contain(node.sinceVersion())) {
            return null;
        }
        return switch (node.opType()) {
            case "Add" -> binary(node, ArithmeticOp.ADD);
            case "Sub" -> binary(node, ArithmeticOp.SUB);
            case "Mul" -> binary(node, ArithmeticOp.MUL);
            case "Div" -> binary(node, ArithmeticOp.DIV);
            case "Relu" -> unary(node, UnaryFunction.RELU);
            case "Sigmoid" -> unary(node, UnaryFunction.SIGMOID);
            case "Tanh" -> unary(node, UnaryFunction.TANH);
            case "Identity" -> identity(node);
            case "MatMul" -> matMul(node);
            case "Gemm" -> gemm(node);
            case "Softmax" -> softmax(node);
            default -> null;
        };
    }

    private static CpuKernel binary(Node node, ArithmeticOp op) {
        ElementType t = NodeChecks.inputType(node, 0);
        boolean fits = NodeChecks.presentInputCount(node) == 2 && NodeChecks.outputCount(node) == 1
                && ElementwiseBinary.SUPPORTED_TYPES.contains(t)
                && NodeChecks.inputType(node, 1) == t && NodeChecks.outputType(node, 0) == t
                && NodeChecks.attributesAre(node, NO_ATTRIBUTES);
        return fits ? new ElementwiseBinary(op, t) : null;
    }

    private static CpuKernel unary(Node node, UnaryFunction function) {
        ElementType t = NodeChecks.inputType(node, 0);
        boolean fits = NodeChecks.presentInputCount(node) == 1 && NodeChecks.outputCount(node) == 1
                && (t == ElementType.FLOAT || t == ElementType.DOUBLE) && NodeChecks.outputType(node, 0) == t
                && NodeChecks.attributesAre(node, NO_ATTRIBUTES);
        return fits ? new ElementwiseUnary(function, t) : null;
    }

    private static CpuKernel identity(Node node) {
        ElementType t = NodeChecks.inputType(node, 0);
        boolean fits = NodeChecks.presentInputCount(node) == 1 && NodeChecks.outputCount(node) == 1
                && t != null && t.byteSize() > 0 && NodeChecks.outputType(node, 0) == t
                && NodeChecks.attributesAre(node, NO_ATTRIBUTES);
        return fits ? new IdentityKernel() : null;
    }

    private static CpuKernel matMul(Node node) {
        boolean fits = NodeChecks.presentInputCount(node) == 2 && NodeChecks.outputCount(node) == 1
                && allFloat(node, 2) && NodeChecks.attributesAre(node, NO_ATTRIBUTES);
        return fits ? new MatMulKernel() : null;
    }

    private static CpuKernel gemm(Node node) {
        int inputs = NodeChecks.presentInputCount(node);
        boolean fits = (inputs == 2 || inputs == 3) && NodeChecks.outputCount(node) == 1
                && allFloat(node, 2)
                && (inputs == 2 || NodeChecks.inputType(node, 2) == ElementType.FLOAT)
                && NodeChecks.attributesAre(node, GEMM_ATTRIBUTES);
        if (!fits) {
            return null;
        }
        return new GemmKernel(
                node.floatAttribute("alpha", 1f),
                node.floatAttribute("beta", 1f),
                node.intAttribute("transA", 0) != 0,
                node.intAttribute("transB", 0) != 0);
    }

    private static CpuKernel softmax(Node node) {
        boolean fits = NodeChecks.presentInputCount(node) == 1 && NodeChecks.outputCount(node) == 1
                && allFloat(node, 1) && NodeChecks.attributesAre(node, SOFTMAX_ATTRIBUTES);
        if (!fits) {
            return null;
        }
        long axis = node.intAttribute("axis", SoftmaxKernel.defaultAxis(node.sinceVersion()));
        int rank = NodeChecks.inputRank(node, 0);
        if (rank >= 0 && (axis < -rank || axis >= rank)) {
            return null; // an axis outside the input's rank: ORT reports the error better than we could
        }
        return new SoftmaxKernel(axis, node.sinceVersion() < 13);
    }

    /** Whether the first {@code inputs} inputs and the output are float32 tensors. */
    private static boolean allFloat(Node node, int inputs) {
        for (int i = 0; i < inputs; i++) {
            if (NodeChecks.inputType(node, i) != ElementType.FLOAT) {
                return false;
            }
        }
        return NodeChecks.outputType(node, 0) == ElementType.FLOAT;
    }
}
