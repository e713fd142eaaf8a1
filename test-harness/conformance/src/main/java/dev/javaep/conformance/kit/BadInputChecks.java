package dev.javaep.conformance.kit;

import dev.javaep.harness.onnx.Dim;
import dev.javaep.harness.onnx.OnnxModelWriter;
import dev.javaep.harness.onnx.OnnxTensorData;
import dev.javaep.host.Session;
import dev.javaep.host.TensorData;
import dev.javaep.spi.ElementType;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Malformed models and wrong inputs, with the EP first and CPU fallback on: each must end in a status (or, for empty
 * tensors, a correct empty result), never in a crash. The crash itself is what the child JVM reports.
 */
final class BadInputChecks {
    private BadInputChecks() {}

    static CheckGroup group() {
        return new CheckGroup("bad-input", "malformed models and wrong inputs: a status, never a crash", List.of(
                new Check("bad-input.truncated-model", "a model cut in half is refused with a status",
                        c -> expectStatus("a truncated model", () -> create(c, Arrays.copyOf(KitContext.addModel(),
                                KitContext.addModel().length / 2)))),
                new Check("bad-input.wrong-types", "Add of float and int64 inputs is refused with a status",
                        c -> expectStatus("Add(float, int64)", () -> create(c, new OnnxModelWriter("wrong_types")
                                .input("a", ElementType.FLOAT, Dim.of(2)).input("b", ElementType.INT64, Dim.of(2))
                                .output("y", ElementType.FLOAT, Dim.of(2)).node("Add", List.of("a", "b"), List.of("y"))
                                .toByteArray()))),
                new Check("bad-input.missing-initializer", "a node reading a value nothing produces is refused with a status",
                        c -> expectStatus("a missing initializer", () -> create(c, new OnnxModelWriter("missing")
                                .input("a", ElementType.FLOAT, Dim.of(2)).output("y", ElementType.FLOAT, Dim.of(2))
                                .node("Add", List.of("a", "w"), List.of("y")).toByteArray()))),
                new Check("bad-input.absurd-dims", "Expand to 2^40 × 2^40 elements ends in a status, not a crash",
                        BadInputChecks::absurdDims),
                new Check("bad-input.run-wrong-type", "Run with int64 where float is declared ends in a status",
                        c -> runExpectingStatus(c, "int64 inputs", Map.of("a", int64s(1, 2), "b", int64s(3, 4)))),
                new Check("bad-input.run-wrong-shape", "Run with shapes that do not broadcast ([2] + [3]) ends in a status",
                        c -> runExpectingStatus(c, "[2] + [3]", Map.of("a", TensorData.ofFloats(new long[] {2}, 1, 2),
                                "b", TensorData.ofFloats(new long[] {3}, 1, 2, 3)))),
                new Check("bad-input.empty-tensor", "Add of two empty tensors gives an empty tensor (or a status)",
                        BadInputChecks::emptyTensor)));
    }

    private static void create(KitContext context, byte[] model) {
        context.session(model, true).close();
    }

    private static String expectStatus(String what, Runnable action) {
        try {
            action.run();
        } catch (Check.Failed | Check.Skipped e) {
            throw e;
        } catch (RuntimeException e) {
            return "status: " + CapabilityChecks.firstLine(e.getMessage());
        }
        throw Check.fail(what + " was accepted");
    }

    private static String absurdDims(KitContext context) {
        long huge = 1L << 40;
        ByteBuffer shape = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN).putLong(huge).putLong(huge);
        byte[] model = new OnnxModelWriter("absurd_dims")
                .input("x", ElementType.FLOAT, Dim.of(1))
                .output("y", ElementType.FLOAT, Dim.param("H"), Dim.param("W"))
                .initializer(new OnnxTensorData("shape", ElementType.INT64, new long[] {2}, shape.array()))
                .node("Expand", List.of("x", "shape"), List.of("y"))
                .toByteArray();
        return expectStatus("Expand to 2^80 elements", () -> {
            try (Session session = context.session(model, true)) {
                session.run(Map.of("x", TensorData.ofFloats(new long[] {1}, 1)));
            }
        });
    }

    private static String runExpectingStatus(KitContext context, String what, Map<String, TensorData> inputs) {
        try (Session session = context.session(KitContext.addModel(), true)) {
            return expectStatus("Run with " + what, () -> session.run(inputs));
        }
    }

    private static String emptyTensor(KitContext context) {
        try (Session session = context.session(KitContext.addModel(), true)) {
            Map<String, TensorData> out;
            try {
                out = session.run(Map.of("a", TensorData.ofFloats(new long[] {0}), "b", TensorData.ofFloats(new long[] {0})));
            } catch (RuntimeException e) {
                return "status: " + CapabilityChecks.firstLine(e.getMessage());
            }
            TensorData y = out.get("y");
            if (y == null || !Arrays.equals(y.shape(), new long[] {0})) {
                throw Check.fail("Add([] , []) gave " + y);
            }
            return "empty result";
        }
    }

    private static TensorData int64s(long... values) {
        ByteBuffer data = ByteBuffer.allocate(values.length * 8).order(ByteOrder.LITTLE_ENDIAN);
        for (long v : values) {
            data.putLong(v);
        }
        return new TensorData(ElementType.INT64, new long[] {values.length}, data.array());
    }
}
