package dev.javaep.spi;

/**
 * Why an EP leaves a node to other EPs: one machine-readable code per reason, shared by every Java
 * EP, so logs, tests and the conformance kit can count declines without parsing messages.
 */
public enum DeclineCode {
    /** The node's domain is not one the EP implements (e.g. {@code com.microsoft}). */
    DOMAIN,
    /** The EP has no kernel for this op type. */
    OP_TYPE,
    /** The EP knows the op but not this opset version of it. */
    OPSET,
    /** An input or output has an element type the kernel does not handle. */
    ELEMENT_TYPE,
    /** An input or output is not a tensor (sequence, map, optional). */
    NOT_A_TENSOR,
    /** The node has an attribute the kernel does not read, or a value it does not implement. */
    ATTRIBUTE,
    /** Wrong number of inputs or outputs for the op. */
    ARITY,
    /** A shape the kernel cannot handle (rank, a dimension, an axis outside the rank). */
    SHAPE,
    /** A value the kernel needs at compile time (weights, axes, shapes) is not a constant initializer. */
    NOT_CONSTANT,
    /** The node is already assigned to another execution provider. */
    ASSIGNED_ELSEWHERE,
    /** The running ONNX Runtime cannot run this node on the EP (a known defect of that version); upgrading ORT helps. */
    RUNTIME,
    /** javaep could not read the node from ORT's graph (the reason names what failed). */
    UNREADABLE,
    /** The EP asked for its per-op kernel, but ORT found no registered kernel matching the node. */
    NO_KERNEL,
    /** Judging the node threw: a bug in the EP, contained to this node. */
    INTERNAL_ERROR
}
