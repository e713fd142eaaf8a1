package dev.javaep.harness.abi;

import static dev.javaep.harness.abi.Raw.call;
import static dev.javaep.harness.abi.Raw.ok;
import static dev.javaep.harness.abi.Raw.ortApi;
import static dev.javaep.harness.abi.Raw.pointer;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;

import dev.javaep.harness.onnx.Dim;
import dev.javaep.harness.onnx.OnnxModelWriter;
import dev.javaep.ort.OrtApiSlot;
import dev.javaep.spi.ElementType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Map;

/**
 * The model the session probes run: difference {N, 3} = minuend {N, 3} − subtrahend {3}, with inputs whose
 * difference shows which was taken for which (swapped inputs give negative numbers).
 */
final class SubProbeModel {
    static final float[] MINUEND = {10, 20, 30, 40, 50, 60};
    static final float[] SUBTRAHEND = {1, 2, 3};
    static final float[] DIFFERENCE = {9, 18, 27, 39, 48, 57};

    private SubProbeModel() {}

    static byte[] bytes(String graphName) {
        return new OnnxModelWriter(graphName)
                .input("minuend", ElementType.FLOAT, Dim.param("N"), Dim.of(3))
                .input("subtrahend", ElementType.FLOAT, Dim.of(3))
                .output("difference", ElementType.FLOAT, Dim.param("N"), Dim.of(3))
                .node("Sub", List.of("minuend", "subtrahend"), List.of("difference"))
                .toByteArray();
    }

    /**
     * One {@code Run} of {@code session} with {@link #MINUEND} and {@link #SUBTRAHEND} on the host, passed in the order
     * {@code inputOrder} names them (ORT matches inputs by name); returns the difference from the output ORT allocated.
     * Releases every value it made.
     */
    static float[] run(Arena arena, MemorySegment session, MemorySegment runOptions, String... inputOrder) {
        MemorySegment cpu = Raw.cpuInfo(arena);
        Map<String, MemorySegment> tensors = Map.of(
                "minuend", Raw.floatTensor(arena, cpu, arena.allocateFrom(JAVA_FLOAT, MINUEND), 2, 3),
                "subtrahend", Raw.floatTensor(arena, cpu, arena.allocateFrom(JAVA_FLOAT, SUBTRAHEND), 3));
        MemorySegment names = arena.allocate(ADDRESS, inputOrder.length);
        MemorySegment values = arena.allocate(ADDRESS, inputOrder.length);
        for (int i = 0; i < inputOrder.length; i++) {
            names.setAtIndex(ADDRESS, i, arena.allocateFrom(inputOrder[i]));
            values.setAtIndex(ADDRESS, i, tensors.get(inputOrder[i]));
        }
        MemorySegment output = Raw.pointerOut(arena, ortApi(), OrtApiSlot.Run, session, runOptions, names, values,
                (long) inputOrder.length, arena.allocateFrom(ADDRESS, arena.allocateFrom("difference")), 1L);
        float[] difference = Raw.pointerOut(arena, OrtApiSlot.GetTensorMutableData, output)
                .reinterpret(DIFFERENCE.length * JAVA_FLOAT.byteSize()).toArray(JAVA_FLOAT);
        call(ortApi(), OrtApiSlot.ReleaseValue, output);
        tensors.values().forEach(value -> call(ortApi(), OrtApiSlot.ReleaseValue, value));
        call(ortApi(), OrtApiSlot.ReleaseMemoryInfo, cpu);
        return difference;
    }
}
