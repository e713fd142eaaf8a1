package dev.javaep.spi.ops;

import dev.javaep.spi.Node;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * The index of the ONNX ops javaep describes: each op's schema lives in the file of its family (one
 * constant per range of opset versions whose meaning is the same; facts from the ONNX operator spec, a
 * version split where arity, attributes or semantics change), beside the attribute and shape rules every
 * backend shares. Backends list which schemas they run, for which types, in their kernel tables.
 *
 * <p>To add an op: its schema in the family's {@code *Ops} file and in that file's {@code SCHEMAS}, then
 * one row per backend that implements it, in the family's kernel table (JavaCpu:
 * {@code dev.javaep.cpu.kernel.<family>.<Family>Kernels}; JavaCuda:
 * {@code dev.javaep.cuda.kernel.<family>.<Family>Kernels}). docs/writing-an-ep.md walks through one.
 */
public final class OnnxOps {
    private OnnxOps() {}

    /** Every schema of every family, for tables and docs. */
    public static List<OpSchema> all() {
        return Stream.of(ElementwiseOps.SCHEMAS, TensorOps.SCHEMAS, MatMulOps.SCHEMAS, ReductionOps.SCHEMAS,
                        ConvOps.SCHEMAS, PoolOps.SCHEMAS, NormalizationOps.SCHEMAS, SamplingOps.SCHEMAS)
                .flatMap(List::stream).toList();
    }

    /**
     * The constant of an enum that a string attribute names in lower case ({@code "reflect"} for {@code REFLECT}), or
     * {@code fallback} when the node has no such attribute; a name of none of them is malformed.
     */
    static <E extends Enum<E>> E lowerCaseNamed(Node node, String attribute, E fallback) {
        String value = node.stringAttribute(attribute, fallback.name().toLowerCase(Locale.ROOT));
        for (E constant : fallback.getDeclaringClass().getEnumConstants()) {
            if (constant.name().toLowerCase(Locale.ROOT).equals(value)) {
                return constant;
            }
        }
        throw new IllegalArgumentException(node.opType() + ": unknown " + attribute + " '" + value + "'");
    }

    /**
     * A string attribute ONNX allows two values for, read as a flag: false for {@code off} (the default), true for
     * {@code on}; anything else is malformed.
     */
    static boolean twoValued(Node node, String attribute, String off, String on) {
        String value = node.stringAttribute(attribute, off);
        if (value.equals(off) || value.equals(on)) {
            return value.equals(on);
        }
        throw new IllegalArgumentException(node.opType() + ": " + attribute + " is '" + value + "', ONNX allows '" + off
                + "' and '" + on + "'");
    }
}
