package dev.javaep.cpu.kernel.tensor;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.cpu.kernel.CpuKernel;
import dev.javaep.cpu.kernel.CpuKernels;
import dev.javaep.cpu.kernel.HostTensor;
import dev.javaep.cpu.kernel.PlannedKernel;
import dev.javaep.cpu.kernel.TestNodes;
import dev.javaep.cpu.kernel.TestTensors;
import dev.javaep.spi.Attribute;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import dev.javaep.spi.NodeSupport;
import dev.javaep.spi.TensorValue;
import dev.javaep.spi.ops.KernelTable;
import dev.javaep.spi.ops.OpSchema;
import dev.javaep.spi.ops.TensorOps;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * JavaCpu's tensor-op kernels as the EP selects them (through {@link CpuKernels}), on misaligned tensors, for
 * element sizes 1 to 16 bytes, against index formulas written out here independently of the strided copies.
 */
class TensorKernelsTest {
    private static final List<ElementType> SIZES = List.of(ElementType.BOOL, ElementType.BFLOAT16, ElementType.INT32,
            ElementType.DOUBLE, ElementType.COMPLEX128);

    private final Arena arena = Arena.ofConfined();
    private final Random random = new Random(7);

    @AfterEach
    void close() {
        arena.close();
    }

    private HostTensor randomTensor(ElementType type, long... shape) {
        HostTensor t = TestTensors.misaligned(arena, type, shape);
        byte[] bytes = new byte[(int) t.byteSize()];
        random.nextBytes(bytes);
        MemorySegment.copy(MemorySegment.ofArray(bytes), 0, t.data(), 0, bytes.length);
        return t;
    }

    private HostTensor longs(long[] values, long... shape) {
        return TestTensors.integers(arena, ElementType.INT64, values, shape);
    }

    private static Attribute a(String name, long value) {
        return new Attribute.IntValue(name, value);
    }

    private static Attribute ints(String name, long... values) {
        return new Attribute.IntList(name, Arrays.stream(values).boxed().toList());
    }

    private static Attribute a(String name, String value) {
        return new Attribute.StringValue(name, value);
    }

    /** A node of the input tensors' types. */
    private static Node node(String op, int opset, List<HostTensor> inputs, List<ElementType> outputs, Attribute... attributes) {
        List<ElementType> inputTypes = inputs.stream().map(t -> t == null ? null : t.elementType()).toList();
        return TestNodes.node(op, opset, inputTypes, outputs, attributes);
    }

    /**
     * Runs the node's kernel as the compiled program does: a {@link PlannedKernel} is planned for the inputs, its
     * plan gives the output shapes (allocated misaligned) and computes; the plan then computes a second time into
     * fresh outputs, as on the next Run of the same shapes, and both Runs must write the same bytes.
     */
    private List<HostTensor> run(String op, int opset, List<HostTensor> inputs, List<ElementType> outputTypes, Attribute... attributes) {
        Node node = node(op, opset, inputs, outputTypes, attributes);
        CpuKernel kernel = CpuKernels.forNode(node).orElseThrow(() -> new AssertionError(node + ": " + CpuKernels.support(node)));
        if (!(kernel instanceof PlannedKernel planned)) {
            List<HostTensor> outputs = outputs(kernel.outputShapes(inputs), outputTypes);
            kernel.compute(inputs, outputs);
            return outputs;
        }
        PlannedKernel.Plan plan = planned.plan(inputs);
        List<HostTensor> first = outputs(plan.outputShapes(), outputTypes);
        plan.compute(inputs, first);
        List<HostTensor> again = outputs(plan.outputShapes(), outputTypes);
        plan.compute(inputs, again);
        for (int i = 0; i < first.size(); i++) {
            assertArrayEquals(first.get(i).data().toArray(ValueLayout.JAVA_BYTE), again.get(i).data().toArray(ValueLayout.JAVA_BYTE),
                    op + ": output " + i + " of the plan's second Run");
        }
        return again;
    }

    private List<HostTensor> outputs(long[][] shapes, List<ElementType> types) {
        List<HostTensor> outputs = new ArrayList<>();
        for (int i = 0; i < shapes.length; i++) {
            outputs.add(TestTensors.misaligned(arena, types.get(i), shapes[i]));
        }
        return outputs;
    }

    private HostTensor run1(String op, int opset, List<HostTensor> inputs, Attribute... attributes) {
        return run(op, opset, inputs, List.of(inputs.getFirst().elementType()), attributes).getFirst();
    }

    /** Element {@code i}'s bytes. */
    private static byte[] element(HostTensor t, long i) {
        int size = t.elementType().byteSize();
        return t.data().asSlice(i * size, size).toArray(ValueLayout.JAVA_BYTE);
    }

    private static long[] unravel(long i, long[] shape) {
        long[] idx = new long[shape.length];
        for (int k = shape.length - 1; k >= 0; k--) {
            idx[k] = i % shape[k];
            i /= shape[k];
        }
        return idx;
    }

    private static long ravel(long[] idx, long[] shape) {
        long i = 0;
        for (int k = 0; k < shape.length; k++) {
            i = i * shape[k] + idx[k];
        }
        return i;
    }

    /** Every output element equals the input element {@code source} maps its coordinates to. */
    private static void assertGathered(HostTensor x, HostTensor y, java.util.function.Function<long[], long[]> source) {
        for (long i = 0; i < y.elementCount(); i++) {
            long[] from = source.apply(unravel(i, y.shape()));
            assertArrayEquals(element(x, ravel(from, x.shape())), element(y, i), "output " + Arrays.toString(unravel(i, y.shape())));
        }
    }

    @Test
    void everySchemaOfTheFamilyHasAJavaCpuRow() {
        Set<OpSchema> rows = CpuKernels.table().rows().stream().map(KernelTable.Row::schema).collect(Collectors.toSet());
        for (OpSchema schema : TensorOps.SCHEMAS) {
            assertTrue(rows.contains(schema), schema.describe());
        }
    }

    @Test
    void transposeSliceExpandTileMoveElementsOfEverySize() {
        for (ElementType t : SIZES) {
            HostTensor x = randomTensor(t, 2, 3, 4);
            HostTensor y = run1("Transpose", 13, List.of(x), ints("perm", 1, 2, 0));
            assertArrayEquals(new long[] {3, 4, 2}, y.shape());
            assertGathered(x, y, o -> new long[] {o[2], o[0], o[1]});
            assertGathered(x, run1("Transpose", 1, List.of(x)), o -> new long[] {o[2], o[1], o[0]});

            HostTensor sliced = run1("Slice", 13, List.of(x, longs(new long[] {-1, 3}, 2), longs(new long[] {Long.MIN_VALUE, 0}, 2),
                    longs(new long[] {0, -1}, 2), longs(new long[] {-1, -2}, 2)));
            assertArrayEquals(new long[] {2, 3, 2}, sliced.shape());
            assertGathered(x, sliced, o -> new long[] {1 - o[0], o[1], 3 - 2 * o[2]});
            HostTensor v1 = run1("Slice", 1, List.of(x), ints("starts", 1), ints("ends", 100), ints("axes", 1));
            assertGathered(x, v1, o -> new long[] {o[0], o[1] + 1, o[2]});

            HostTensor column = randomTensor(t, 3, 1);
            HostTensor expanded = run1("Expand", 13, List.of(column, longs(new long[] {2, 1, 4}, 3)));
            assertArrayEquals(new long[] {2, 3, 4}, expanded.shape());
            assertGathered(column, expanded, o -> new long[] {o[1], 0});

            HostTensor tiled = run1("Tile", 13, List.of(column, longs(new long[] {2, 3}, 2)));
            assertArrayEquals(new long[] {6, 3}, tiled.shape());
            assertGathered(column, tiled, o -> new long[] {o[0] % 3, 0});
        }
    }

    @Test
    void viewsKeepTheBytes() {
        HostTensor x = randomTensor(ElementType.FLOAT16, 2, 1, 6);
        HostTensor r = run1("Reshape", 14, List.of(x, longs(new long[] {0, -1, 3}, 3)));
        assertArrayEquals(new long[] {2, 2, 3}, r.shape());
        assertArrayEquals(x.data().toArray(ValueLayout.JAVA_BYTE), r.data().toArray(ValueLayout.JAVA_BYTE));
        assertArrayEquals(new long[] {2, 6}, run1("Squeeze", 13, List.of(x)).shape());
        assertArrayEquals(new long[] {2, 6}, run1("Squeeze", 11, List.of(x), ints("axes", -2)).shape());
        assertArrayEquals(new long[] {2, 1, 1, 6}, run1("Unsqueeze", 13, List.of(x, longs(new long[] {-2}, 1))).shape());
        assertArrayEquals(new long[] {2, 6}, run1("Flatten", 13, List.of(x)).shape());
        assertArrayEquals(new long[] {2, 1, 6}, run1("Reshape", 1, List.of(x), ints("shape", 2, 1, -1)).shape());
        // the shape rule says which input it needs when it has only shapes
        CpuKernel reshape = CpuKernels.forNode(node("Reshape", 14, List.of(x, longs(new long[] {12}, 1)),
                List.of(ElementType.FLOAT16))).orElseThrow();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> reshape.outputShapes(new long[][] {{2, 1, 6}, {1}}));
        assertTrue(e.getMessage().contains("values of input 1"), e.getMessage());
    }

    @Test
    void concatThenSplitIsTheIdentity() {
        for (ElementType t : SIZES) {
            HostTensor a = randomTensor(t, 2, 3, 2);
            HostTensor b = randomTensor(t, 2, 0, 2);
            HostTensor c = randomTensor(t, 2, 4, 2);
            HostTensor joined = run1("Concat", 13, List.of(a, b, c), a("axis", -2));
            assertArrayEquals(new long[] {2, 7, 2}, joined.shape());
            for (long i = 0; i < joined.elementCount(); i++) {
                long[] o = unravel(i, joined.shape());
                HostTensor from = o[1] < 3 ? a : c;
                long[] at = {o[0], o[1] < 3 ? o[1] : o[1] - 3, o[2]};
                assertArrayEquals(element(from, ravel(at, from.shape())), element(joined, i));
            }
            List<HostTensor> parts = run("Split", 13, List.of(joined, longs(new long[] {3, 0, 4}, 3)), List.of(t, t, t), a("axis", 1));
            for (int i = 0; i < 3; i++) {
                HostTensor expected = List.of(a, b, c).get(i);
                assertArrayEquals(expected.shape(), parts.get(i).shape());
                assertArrayEquals(expected.data().toArray(ValueLayout.JAVA_BYTE), parts.get(i).data().toArray(ValueLayout.JAVA_BYTE));
            }
            List<HostTensor> thirds = run("Split", 18, List.of(joined), List.of(t, t, t), a("axis", 1), a("num_outputs", 3));
            assertEquals(List.of(3L, 3L, 1L), thirds.stream().map(p -> p.shape()[1]).toList());
        }
    }

    private HostTensor floats(float... values) {
        return TestTensors.floats(arena, values, values.length);
    }

    @Test
    void padInEveryModeMatchesNumpy() {
        HostTensor x = floats(1, 2, 3);
        HostTensor pads = longs(new long[] {2, 2}, 2);
        assertArrayEquals(new float[] {3, 2, 1, 2, 3, 2, 1}, TestTensors.toFloats(run1("Pad", 19, List.of(x, pads), a("mode", "reflect"))));
        assertArrayEquals(new float[] {1, 1, 1, 2, 3, 3, 3}, TestTensors.toFloats(run1("Pad", 19, List.of(x, pads), a("mode", "edge"))));
        assertArrayEquals(new float[] {2, 3, 1, 2, 3, 1, 2}, TestTensors.toFloats(run1("Pad", 19, List.of(x, pads), a("mode", "wrap"))));
        assertArrayEquals(new float[] {9, 9, 1, 2, 3, 9, 9}, TestTensors.toFloats(run1("Pad", 13, List.of(x, pads,
                TestTensors.floats(arena, new float[] {9})))));
        assertArrayEquals(new float[] {0, 1}, TestTensors.toFloats(run1("Pad", 13, List.of(x, longs(new long[] {1, -2}, 2)))),
                "a negative pad crops");
        assertArrayEquals(new float[] {0.5f, 1, 2, 3}, TestTensors.toFloats(run1("Pad", 2, List.of(x), ints("pads", 1, 0),
                new Attribute.FloatValue("value", 0.5f))));
        // 2-D, pads on the last axis only (opset 18's axes), reflect rows
        HostTensor m = TestTensors.floats(arena, new float[] {1, 2, 3, 4, 5, 6}, 2, 3);
        assertArrayEquals(new float[] {2, 1, 2, 3, 2, 5, 4, 5, 6, 5}, TestTensors.toFloats(run1("Pad", 18,
                Arrays.asList(m, longs(new long[] {1, 1}, 2), null, longs(new long[] {-1}, 1)), a("mode", "reflect"))));
        NodeSupport wrap18 = CpuKernels.support(node("Pad", 18, List.of(x, pads), List.of(ElementType.FLOAT), a("mode", "wrap")));
        assertTrue(wrap18 instanceof NodeSupport.Declined d && d.reason().contains("opset 19"), wrap18.toString());
        for (ElementType t : SIZES) {
            HostTensor r = randomTensor(t, 2, 3, 4);
            HostTensor p = run1("Pad", 19, List.of(r, longs(new long[] {1, 0, 3, 0, 2, 5}, 6)), a("mode", "reflect"));
            assertArrayEquals(new long[] {3, 5, 12}, p.shape());
            assertGathered(r, p, o -> new long[] {TensorOps.PadMode.REFLECT.sourceIndex(o[0] - 1, 2),
                    TensorOps.PadMode.REFLECT.sourceIndex(o[1], 3),
                    TensorOps.PadMode.REFLECT.sourceIndex(o[2] - 3, 4)});
        }
    }

    @Test
    void depthToSpaceAndSpaceToDepth() {
        for (ElementType t : SIZES) {
            long b = 2;
            HostTensor x = randomTensor(t, 2, 8, 3, 2);
            long c = 8 / (b * b);
            HostTensor dcr = run1("DepthToSpace", 13, List.of(x), a("blocksize", b));
            HostTensor crd = run1("DepthToSpace", 13, List.of(x), a("blocksize", b), a("mode", "CRD"));
            assertArrayEquals(new long[] {2, 2, 6, 4}, dcr.shape());
            assertGathered(x, dcr, o -> new long[] {o[0], (o[2] % b * b + o[3] % b) * c + o[1], o[2] / b, o[3] / b});
            assertGathered(x, crd, o -> new long[] {o[0], o[1] * b * b + o[2] % b * b + o[3] % b, o[2] / b, o[3] / b});
            HostTensor back = run1("SpaceToDepth", 13, List.of(dcr), a("blocksize", b));
            assertArrayEquals(x.data().toArray(ValueLayout.JAVA_BYTE), back.data().toArray(ValueLayout.JAVA_BYTE),
                    "SpaceToDepth undoes DepthToSpace (DCR)");
        }
    }

    @Test
    void gatherGatherElementsScatterND() {
        for (ElementType t : SIZES) {
            HostTensor x = randomTensor(t, 3, 4, 2);
            HostTensor indices = TestTensors.integers(arena, ElementType.INT32, new long[] {-1, 0, 3, 1, 1, -4}, 2, 3);
            HostTensor g = run1("Gather", 13, List.of(x, indices), a("axis", 1));
            assertArrayEquals(new long[] {3, 2, 3, 2}, g.shape());
            long[] idx = {3, 0, 3, 1, 1, 0};
            assertGathered(x, g, o -> new long[] {o[0], idx[(int) (o[1] * 3 + o[2])], o[3]});
            HostTensor e = longs(new long[] {2, -1, 0, 1}, 1, 2, 2);
            HostTensor ge = run1("GatherElements", 13, List.of(x, e), a("axis", 0));
            long[] rows = {2, 2, 0, 1};
            assertGathered(x, ge, o -> new long[] {rows[(int) (o[1] * 2 + o[2])], o[1], o[2]});
            HostTensor updates = randomTensor(t, 2, 2);
            HostTensor s = run1("ScatterND", 13, List.of(x, longs(new long[] {1, 3, -3, 0}, 2, 2), updates));
            for (long i = 0; i < x.elementCount(); i++) {
                long[] at = unravel(i, x.shape());
                long u = at[0] == 1 && at[1] == 3 ? at[2] : at[0] == 0 && at[1] == 0 ? 2 + at[2] : -1;
                assertArrayEquals(u < 0 ? element(x, i) : element(updates, u), element(s, i));
            }
        }
        HostTensor x = floats(1, 2, 3, 4);
        assertThrows(IllegalArgumentException.class, () -> run1("Gather", 13, List.of(x, longs(new long[] {4}, 1))));
        HostTensor twice = longs(new long[] {1, 1, 3}, 3, 1);
        HostTensor updates = floats(10, 20, 30);
        assertArrayEquals(new float[] {1, 32, 3, 34}, TestTensors.toFloats(run1("ScatterND", 16, List.of(x, twice, updates),
                a("reduction", "add"))), "repeated indices reduce in order");
        assertArrayEquals(new float[] {1, 400, 3, 120}, TestTensors.toFloats(run1("ScatterND", 16, List.of(x, twice, updates),
                a("reduction", "mul"))));
        assertArrayEquals(new float[] {1, 20, 3, 30}, TestTensors.toFloats(run1("ScatterND", 18, List.of(x, twice, updates),
                a("reduction", "max"))));
        assertArrayEquals(new float[] {1, 2, 3, 4}, TestTensors.toFloats(run1("ScatterND", 18, List.of(x, twice, updates),
                a("reduction", "min"))));
        NodeSupport max16 = CpuKernels.support(node("ScatterND", 16, List.of(x, twice, updates), List.of(ElementType.FLOAT),
                a("reduction", "max")));
        assertTrue(max16 instanceof NodeSupport.Declined d && d.reason().contains("opset 18"), max16.toString());
    }

    @Test
    void shapeSizeAndTheGenerators() {
        HostTensor x = randomTensor(ElementType.UINT8, 2, 3, 4, 5);
        assertArrayEquals(new long[] {2, 3, 4, 5}, TestTensors.toIntegers(run1Typed("Shape", 13, List.of(x), ElementType.INT64)));
        assertArrayEquals(new long[] {3, 4}, TestTensors.toIntegers(run1Typed("Shape", 15, List.of(x), ElementType.INT64,
                a("start", 1), a("end", -1))));
        HostTensor size = run1Typed("Size", 13, List.of(x), ElementType.INT64);
        assertArrayEquals(new long[0], size.shape());
        assertArrayEquals(new long[] {120}, TestTensors.toIntegers(size));

        ByteBuffer seven = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(7).flip();
        HostTensor filled = run1Typed("ConstantOfShape", 13, List.of(longs(new long[] {2, 3}, 2)), ElementType.INT32,
                new Attribute.TensorAttribute("value", new TensorValue(ElementType.INT32, new long[] {1}, seven)));
        assertArrayEquals(new long[] {7, 7, 7, 7, 7, 7}, TestTensors.toIntegers(filled));
        HostTensor zeros = run1Typed("ConstantOfShape", 13, List.of(longs(new long[0], 0)), ElementType.FLOAT);
        assertArrayEquals(new long[0], zeros.shape(), "an empty shape: a scalar");
        assertArrayEquals(new float[] {0}, TestTensors.toFloats(zeros));
        HostTensor constant = run("Constant", 13, List.of(), List.of(ElementType.INT64), ints("value_ints", 4, -2)).getFirst();
        assertArrayEquals(new long[] {4, -2}, TestTensors.toIntegers(constant));

        HostTensor ints = run1Typed("Range", 11, List.of(longs(new long[] {10}), longs(new long[] {-7}), longs(new long[] {-5})),
                ElementType.INT64);
        assertArrayEquals(new long[] {10, 5, 0, -5}, TestTensors.toIntegers(ints));
        HostTensor fs = run1Typed("Range", 11, List.of(TestTensors.floats(arena, new float[] {1}),
                TestTensors.floats(arena, new float[] {2}), TestTensors.floats(arena, new float[] {0.25f})), ElementType.FLOAT);
        assertArrayEquals(new float[] {1, 1.25f, 1.5f, 1.75f}, TestTensors.toFloats(fs));
    }

    private HostTensor run1Typed(String op, int opset, List<HostTensor> inputs, ElementType output, Attribute... attributes) {
        return run(op, opset, inputs, List.of(output), attributes).getFirst();
    }

    @Test
    void declinesWhatItCannotRunExactly() {
        HostTensor x = floats(1, 2);
        assertTrue(CpuKernels.support(node("Concat", 13, List.of(x, x), List.of(ElementType.FLOAT))) instanceof NodeSupport.Declined d
                && d.reason().contains("axis is required"));
        assertTrue(CpuKernels.support(node("DepthToSpace", 13, List.of(x), List.of(ElementType.FLOAT), a("blocksize", 2),
                a("mode", "XYZ"))) instanceof NodeSupport.Declined);
        assertTrue(CpuKernels.support(node("Pad", 13, List.of(x, longs(new long[] {1, 1}, 2)), List.of(ElementType.FLOAT),
                a("mode", "mirror"))) instanceof NodeSupport.Declined);
        HostTensor int4 = new HostTensor(ElementType.INT4, new long[] {2}, arena.allocate(1));
        assertTrue(CpuKernels.support(node("Transpose", 13, List.of(int4), List.of(ElementType.INT4))) instanceof NodeSupport.Declined,
                "4-bit elements are not whole bytes");
        assertTrue(CpuKernels.support(node("Shape", 13, List.of(int4), List.of(ElementType.INT64))).isSupported(),
                "Shape reads only the shape");
    }
}
