package dev.javaep.spi.ops;

import dev.javaep.spi.DeclineCode;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import dev.javaep.spi.NodeSupport;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * One backend's kernels: rows of (schema, the element types the backend implements for the schema's
 * type parameter that selects the kernel, what makes the kernel for a node). Selection is: an
 * {@link OpSchema} covers the node (else {@link DeclineCode#OP_TYPE} or {@link DeclineCode#OPSET}), the
 * node is that op as written ({@link OpSchema#check}), and this backend has the node's types. Every Java
 * EP built on it declines with the same codes and messages; adding an op to a backend is a row.
 *
 * @param <K> what a row makes for a node: a kernel, or a factory of one
 */
public final class KernelTable<K> {
    /**
     * @param typeParameter the schema's type parameter whose binding picks the kernel (e.g. "T")
     * @param types         the element types this backend implements for it
     * @param kernel        makes the kernel for a node the row accepts; may throw for an attribute value the
     *                      backend does not implement (the node is then declined with the message)
     */
    public record Row<K>(OpSchema schema, String typeParameter, Set<ElementType> types, Function<Node, K> kernel) {
        public Row {
            types = Set.copyOf(types);
            if (!schema.types().containsKey(typeParameter)) {
                throw new IllegalArgumentException(schema.describe() + " has no type parameter " + typeParameter);
            }
            if (!schema.types().get(typeParameter).containsAll(types)) {
                throw new IllegalArgumentException(schema.describe() + ": " + types + " is not within " + typeParameter + " "
                        + schema.types().get(typeParameter));
            }
        }
    }

    /** The decision for one node: the row's kernel, or why not. */
    public sealed interface Selection<K> {
        record Selected<K>(OpSchema schema, K kernel) implements Selection<K> {}

        record Declined<K>(NodeSupport.Declined decline) implements Selection<K> {}
    }

    private final String backend;
    private final List<Row<K>> rows;

    /** @param backend the EP's name, for messages */
    public KernelTable(String backend, List<Row<K>> rows) {
        this.backend = backend;
        this.rows = List.copyOf(rows);
    }

    public List<Row<K>> rows() {
        return rows;
    }

    /** The op types this backend has kernels for, sorted. */
    public Set<String> opTypes() {
        Set<String> ops = new TreeSet<>();
        rows.forEach(r -> ops.add(r.schema().opType()));
        return Collections.unmodifiableSet(ops);
    }

    /** The kernel for {@code node}, or a decline that says which of op, opset, form and types failed. Never throws. */
    public Selection<K> select(Node node) {
        try {
            return choose(node);
        } catch (RuntimeException e) {
            return new Selection.Declined<>(new NodeSupport.Declined(DeclineCode.INTERNAL_ERROR,
                    "judging the node failed: " + e));
        }
    }

    /** {@link #select} as the SPI's answer for a compiled-group backend. */
    public NodeSupport support(Node node) {
        return switch (select(node)) {
            case Selection.Selected<K> s -> NodeSupport.compiled();
            case Selection.Declined<K>(NodeSupport.Declined d) -> d;
        };
    }

    private Selection<K> choose(Node node) {
        if (node == null || node.opType() == null) {
            return declined(DeclineCode.UNREADABLE, "the node has no op type");
        }
        if (node.inputs() == null || node.outputs() == null) {
            return declined(DeclineCode.UNREADABLE, "the node's inputs or outputs are unknown");
        }
        String domain = node.isOnnxDomain() ? "" : node.domain();
        List<Row<K>> sameOp = new ArrayList<>();
        for (Row<K> row : rows) {
            if (row.schema().opType().equals(node.opType()) && row.schema().domain().equals(domain)) {
                sameOp.add(row);
            }
        }
        if (sameOp.isEmpty()) {
            return declined(node.isOnnxDomain() ? DeclineCode.OP_TYPE : DeclineCode.DOMAIN,
                    (node.isOnnxDomain() ? node.opType() : domain + "." + node.opType()) + " is not in " + backend
                            + "'s op set " + opTypes());
        }
        Optional<Row<K>> covering = sameOp.stream().filter(r -> r.schema().covers(node)).findFirst();
        if (covering.isEmpty()) {
            return declined(DeclineCode.OPSET, node.opType() + " opset " + node.sinceVersion() + " is not implemented by "
                    + backend + " (it has " + sameOp.stream().map(r -> r.schema().describe()).distinct().toList() + ")");
        }
        Row<K> row = covering.get();
        Optional<NodeSupport.Declined> malformed = row.schema().check(node);
        if (malformed.isPresent()) {
            return new Selection.Declined<>(malformed.get());
        }
        ElementType type = row.schema().typeOf(node, row.typeParameter());
        if (type == null || !row.types().contains(type)) {
            return declined(DeclineCode.ELEMENT_TYPE, backend + "'s " + row.schema().describe() + " kernel takes "
                    + row.typeParameter() + " in " + new TreeSet<>(row.types()) + ", the node has " + type);
        }
        try {
            return new Selection.Selected<>(row.schema(), row.kernel().apply(node));
        } catch (IllegalArgumentException | UnsupportedOperationException e) {
            return declined(DeclineCode.ATTRIBUTE, e.getMessage());
        }
    }

    private static <K> Selection<K> declined(DeclineCode code, String reason) {
        return new Selection.Declined<>(new NodeSupport.Declined(code, reason));
    }
}
