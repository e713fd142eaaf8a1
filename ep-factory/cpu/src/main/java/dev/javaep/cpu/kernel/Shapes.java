package dev.javaep.cpu.kernel;

import dev.javaep.spi.ElementType;
import dev.javaep.spi.Tensor;
import java.util.Arrays;
import java.util.List;

/** Shape arithmetic and the argument checks every kernel makes before it touches memory. */
public final class Shapes {
    private Shapes() {}

    /** The shape itself, after checking it is present and has no negative dimension. */
    public static long[] checked(long[] shape) {
        if (shape == null) {
            throw new IllegalArgumentException("missing shape");
        }
        for (long d : shape) {
            if (d < 0) {
                throw new IllegalArgumentException("negative dimension in shape " + Arrays.toString(shape));
            }
        }
        return shape;
    }

    /** The output shape of a one-input op whose output is shaped like its input (Identity, Cast, the unary math ops). */
    public static long[][] likeTheOnlyInput(String op, long[][] inputShapes) {
        if (inputShapes.length != 1) {
            throw new IllegalArgumentException(op + " takes 1 input, got " + inputShapes.length);
        }
        return new long[][] {checked(inputShapes[0]).clone()};
    }

    public static long elementCount(long[] shape) {
        long n = 1;
        for (long d : shape) {
            n = Math.multiplyExact(n, d);
        }
        return n;
    }

    /** Product of {@code shape[from..to)}. */
    public static long product(long[] shape, int from, int to) {
        long n = 1;
        for (int i = from; i < to; i++) {
            n = Math.multiplyExact(n, shape[i]);
        }
        return n;
    }

    /** {@code axis} in {@code [-rank, rank)} made non-negative, or an exception naming the op. */
    public static int normalizeAxis(long axis, int rank, String op) {
        if (axis < -rank || axis >= rank) {
            throw new IllegalArgumentException(op + ": axis " + axis + " is out of range for a tensor of rank " + rank
                    + (rank == 0 ? " (a scalar has no axis)" : " (allowed: " + -rank + " to " + (rank - 1) + ")"));
        }
        return (int) (axis < 0 ? axis + rank : axis);
    }

    /** The shapes of the given inputs, with {@code null} for omitted optional ones. */
    public static long[][] shapesOf(List<? extends Tensor> tensors) {
        long[][] shapes = new long[tensors.size()][];
        for (int i = 0; i < shapes.length; i++) {
            Tensor t = tensors.get(i);
            shapes[i] = t == null ? null : t.shape();
        }
        return shapes;
    }

    /** Fails unless the outputs were allocated with the expected shapes (protects against writing out of bounds). */
    public static void requireOutputShapes(String op, List<? extends Tensor> outputs, long[][] expected) {
        if (outputs.size() != expected.length) {
            throw new IllegalArgumentException(op + ": expected " + expected.length + " output(s), got " + outputs.size());
        }
        for (int i = 0; i < expected.length; i++) {
            requireOutputShape(op, i, outputs.get(i), expected[i]);
        }
    }

    /** {@link #requireOutputShapes} for a kernel of one output (without an array of one shape to allocate per call). */
    public static void requireOutputShape(String op, List<? extends Tensor> outputs, long[] expected) {
        if (outputs.size() != 1) {
            throw new IllegalArgumentException(op + ": expected 1 output(s), got " + outputs.size());
        }
        requireOutputShape(op, 0, outputs.get(0), expected);
    }

    /** Fails unless output {@code index} was allocated with the expected shape. */
    public static void requireOutputShape(String op, int index, Tensor output, long[] expected) {
        if (!Arrays.equals(output.shape(), expected)) {
            throw new IllegalArgumentException(op + ": output " + index + " was allocated with shape "
                    + Arrays.toString(output.shape()) + " but the inputs give " + Arrays.toString(expected));
        }
    }

    /** Fails unless the tensor has the element type the kernel was built for. */
    public static void requireType(String op, String role, Tensor tensor, ElementType expected) {
        if (tensor.elementType() != expected) {
            throw new IllegalArgumentException(op + ": " + role + " is " + tensor.elementType()
                    + " but the kernel was built for " + expected);
        }
    }

    /** {@link #requireType} for the input and the output of a one-input, one-output kernel. */
    public static void requireTypes(String op, Tensor x, ElementType inputType, Tensor y, ElementType outputType) {
        requireType(op, "input", x, inputType);
        requireType(op, "output", y, outputType);
    }

    /**
     * For a one-input, one-output kernel whose output has its input's type: both tensors are of {@code type} and the
     * only output was allocated with {@code shape}.
     */
    public static void requireOneToOne(String op, Tensor x, ElementType type, List<? extends Tensor> outputs, long[] shape) {
        requireTypes(op, x, type, outputs.getFirst(), type);
        requireOutputShape(op, outputs, shape);
    }
}
