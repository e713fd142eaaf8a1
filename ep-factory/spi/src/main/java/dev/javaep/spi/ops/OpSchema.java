package dev.javaep.spi.ops;

import dev.javaep.spi.Attribute;
import dev.javaep.spi.DeclineCode;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import dev.javaep.spi.NodeSupport;
import dev.javaep.spi.ValueInfo;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * One ONNX op over a range of opset versions in which its meaning does not change, described once for
 * every backend: arity, attributes (with the kind each must have; an absent one means the op's default,
 * which the kernel takes from {@link Node#intAttribute} and friends), and the type constraints that bind
 * inputs and outputs together. {@link #check} says whether a node is this op as written, and if not, why,
 * with the shared {@link DeclineCode}s. Backends then say which of the allowed types they implement
 * ({@link KernelTable}).
 *
 * @param domain      {@code ""} for the ONNX domain
 * @param since       the first opset version of this schema (a node's {@code sinceVersion} must be in range)
 * @param last        the last one, inclusive
 * @param inputs      the type parameter of each input, in order; inputs past {@code minInputs} are optional
 * @param outputs     the type parameter of each output
 * @param attributes  attribute name → the {@link Attribute} variant it must be
 * @param types       type parameter → the element types ONNX allows for it
 * @param variadicInputs  whether the last input may repeat (Concat's inputs, Sum's): a node may have more inputs
 *                        than {@code inputs} lists, each bound to the last one's type parameter
 * @param variadicOutputs whether the last output may repeat (Split's outputs), the same way
 * @param minOutputs  how many outputs the node must have; outputs past it are optional (LayerNormalization's
 *                    Mean and InvStdDev) and may be omitted or left off the end
 */
public record OpSchema(String domain, String opType, int since, int last, int minInputs, List<String> inputs,
                       List<String> outputs, Map<String, Class<? extends Attribute>> attributes,
                       Map<String, Set<ElementType>> types, boolean variadicInputs, boolean variadicOutputs,
                       int minOutputs) {
    /** A schema whose inputs and outputs are exactly those listed (optional inputs past {@code minInputs}). */
    public OpSchema(String domain, String opType, int since, int last, int minInputs, List<String> inputs,
                    List<String> outputs, Map<String, Class<? extends Attribute>> attributes,
                    Map<String, Set<ElementType>> types) {
        this(domain, opType, since, last, minInputs, inputs, outputs, attributes, types, false, false, outputs.size());
    }

    /** A schema whose last input or output may repeat; every listed output is required. */
    public OpSchema(String domain, String opType, int since, int last, int minInputs, List<String> inputs,
                    List<String> outputs, Map<String, Class<? extends Attribute>> attributes,
                    Map<String, Set<ElementType>> types, boolean variadicInputs, boolean variadicOutputs) {
        this(domain, opType, since, last, minInputs, inputs, outputs, attributes, types, variadicInputs, variadicOutputs,
                outputs.size());
    }

    /** A schema whose outputs past {@code minOutputs} are optional. */
    public OpSchema(String domain, String opType, int since, int last, int minInputs, List<String> inputs,
                    List<String> outputs, Map<String, Class<? extends Attribute>> attributes,
                    Map<String, Set<ElementType>> types, int minOutputs) {
        this(domain, opType, since, last, minInputs, inputs, outputs, attributes, types, false, false, minOutputs);
    }

    public OpSchema {
        inputs = List.copyOf(inputs);
        outputs = List.copyOf(outputs);
        attributes = Map.copyOf(attributes);
        types = Map.copyOf(types);
        for (String parameter : concat(inputs, outputs)) {
            if (!types.containsKey(parameter)) {
                throw new IllegalArgumentException(opType + ": type parameter " + parameter + " has no constraint");
            }
        }
        if (minInputs > inputs.size() && !variadicInputs || since > last || minOutputs < 1 || minOutputs > outputs.size()
                || variadicInputs && inputs.isEmpty() || variadicOutputs && outputs.isEmpty()) {
            throw new IllegalArgumentException(opType + ": inconsistent schema");
        }
    }

    /** Whether this schema is the one for {@code node}'s op and opset version. */
    public boolean covers(Node node) {
        String nodeDomain = node.isOnnxDomain() ? "" : node.domain();
        return opType.equals(node.opType()) && domain.equals(nodeDomain)
                && node.sinceVersion() >= since && node.sinceVersion() <= last;
    }

    /** "Softmax-13", for messages. */
    public String describe() {
        return opType + "-" + since + (last == since ? "" : ".." + last);
    }

    /**
     * Empty when {@code node} is this op as the schema describes it; otherwise the reason it is not
     * (arity, attribute kinds, unreadable attributes, non-tensors, type-constraint violations).
     */
    public Optional<NodeSupport.Declined> check(Node node) {
        int present = node.inputs().size();
        while (present > 0 && node.inputs().get(present - 1) == null) {
            present--;
        }
        if (present < minInputs || node.inputs().size() > inputs.size() && !variadicInputs) {
            return decline(DeclineCode.ARITY, describe() + " takes " + minInputs + ".." + (variadicInputs ? "" : inputs.size())
                    + " inputs, the node has " + present);
        }
        for (int i = 0; i < minInputs; i++) {
            if (node.inputs().get(i) == null) {
                return decline(DeclineCode.ARITY, describe() + ": required input " + i + " is omitted");
            }
        }
        // (List.of(...).contains(null) throws: the node's lists may be immutable)
        boolean outputOmitted = node.outputs().stream().limit(variadicOutputs ? Long.MAX_VALUE : minOutputs)
                .anyMatch(java.util.Objects::isNull);
        boolean outputCountFits = node.outputs().size() >= minOutputs
                && (variadicOutputs || node.outputs().size() <= outputs.size());
        if (!outputCountFits || outputOmitted) {
            return decline(DeclineCode.ARITY, describe() + " has " + (minOutputs == outputs.size() ? "" : minOutputs + "..")
                    + outputs.size() + (variadicOutputs ? " or more" : "") + " output(s), the node "
                    + node.outputs().size() + (outputOmitted ? " with a required one omitted" : ""));
        }
        for (Map.Entry<String, Attribute> e : node.attributes().entrySet()) {
            if (e.getKey() == null || e.getValue() == null) {
                return decline(DeclineCode.ATTRIBUTE, "an attribute without a name or a value");
            }
            Class<? extends Attribute> kind = attributes.get(e.getKey());
            if (e.getValue() instanceof Attribute.Unreadable(var name, var type, var reason)) {
                return decline(DeclineCode.ATTRIBUTE, "attribute " + name + " cannot be read: " + reason);
            }
            if (kind == null) {
                return decline(DeclineCode.ATTRIBUTE, describe() + " has no attribute " + e.getKey());
            }
            if (!kind.isInstance(e.getValue())) {
                return decline(DeclineCode.ATTRIBUTE, "attribute " + e.getKey() + " is a " + e.getValue().getClass().getSimpleName()
                        + ", " + describe() + " expects a " + kind.getSimpleName());
            }
        }
        Map<String, ElementType> bound = new HashMap<>();
        Optional<NodeSupport.Declined> mismatch = bind(node.inputs(), inputs, "input", bound);
        return mismatch.isPresent() ? mismatch : bind(node.outputs(), outputs, "output", bound);
    }

    /** The element type the node binds to {@code parameter} (after a successful {@link #check}), or null. */
    public ElementType typeOf(Node node, String parameter) {
        for (int i = 0; i < node.inputs().size(); i++) {
            if (parameterAt(inputs, i).equals(parameter) && node.inputs().get(i) != null) {
                return node.inputs().get(i).elementType();
            }
        }
        for (int i = 0; i < node.outputs().size(); i++) {
            if (parameterAt(outputs, i).equals(parameter) && node.outputs().get(i) != null) {
                return node.outputs().get(i).elementType();
            }
        }
        return null;
    }

    private Optional<NodeSupport.Declined> bind(List<ValueInfo> values, List<String> parameters, String what,
                                                Map<String, ElementType> bound) {
        for (int i = 0; i < values.size(); i++) {
            ValueInfo value = values.get(i);
            if (value == null) {
                continue;
            }
            String parameter = parameterAt(parameters, i);
            if (!value.isTensor()) {
                return decline(DeclineCode.NOT_A_TENSOR, what + " " + i + " ('" + value.name() + "') is not a tensor");
            }
            if (value.elementType() == null || !types.get(parameter).contains(value.elementType())) {
                return decline(DeclineCode.ELEMENT_TYPE, what + " " + i + " is " + value.elementType() + "; "
                        + describe() + " allows " + parameter + " in " + types.get(parameter));
            }
            ElementType previous = bound.putIfAbsent(parameter, value.elementType());
            if (previous != null && previous != value.elementType()) {
                return decline(DeclineCode.ELEMENT_TYPE, what + " " + i + " is " + value.elementType() + " but "
                        + parameter + " is already " + previous);
            }
        }
        return Optional.empty();
    }

    /** The type parameter of input or output {@code index}; past the list, the last one's (a variadic tail). */
    private static String parameterAt(List<String> parameters, int index) {
        return parameters.get(Math.min(index, parameters.size() - 1));
    }

    private static Optional<NodeSupport.Declined> decline(DeclineCode code, String reason) {
        return Optional.of(new NodeSupport.Declined(code, reason));
    }

    private static List<String> concat(List<String> a, List<String> b) {
        return java.util.stream.Stream.concat(a.stream(), b.stream()).toList();
    }
}
