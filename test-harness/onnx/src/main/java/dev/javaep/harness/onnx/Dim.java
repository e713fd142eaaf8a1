package dev.javaep.harness.onnx;

import java.util.Objects;

/** One dimension of a graph input's or output's shape, as ONNX's TensorShapeProto.Dimension. */
public sealed interface Dim {

    /** A fixed size. */
    record Value(long size) implements Dim {
        public Value {
            if (size < 0) {
                throw new IllegalArgumentException("dimension size must not be negative: " + size);
            }
        }

        @Override
        public String toString() {
            return Long.toString(size);
        }
    }

    /** A symbolic size ("batch", "N"): unknown until run time, equal wherever the name recurs. */
    record Param(String name) implements Dim {
        public Param {
            Objects.requireNonNull(name, "name");
        }

        @Override
        public String toString() {
            return name;
        }
    }

    /** A size with neither a value nor a name. */
    record Unknown() implements Dim {
        @Override
        public String toString() {
            return "?";
        }
    }

    static Dim of(long size) {
        return new Value(size);
    }

    static Dim param(String name) {
        return new Param(name);
    }

    static Dim unknown() {
        return new Unknown();
    }
}
