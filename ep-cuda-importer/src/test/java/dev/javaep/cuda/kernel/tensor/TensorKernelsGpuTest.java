package dev.javaep.cuda.kernel.tensor;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.javaep.cpu.kernel.CpuKernel;
import dev.javaep.cpu.kernel.CpuKernels;
import dev.javaep.cpu.kernel.HostTensor;
import dev.javaep.cuda.kernel.CudaSubgraphProgram;
import dev.javaep.cuda.kernel.DeviceRunContext.Data;
import dev.javaep.cuda.kernel.DeviceRunContext;
import dev.javaep.cuda.kernel.GpuTest;
import dev.javaep.spi.Attribute;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Graph;
import dev.javaep.spi.Node;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.TensorValue;
import dev.javaep.spi.ValueInfo;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The family's CUDA C kernels on GPU 0 against JavaCpu's kernels on the same bytes (data movers are exact):
 * one node per group, compiled as the EP compiles it, for element sizes 1, 2, 4, 8 and 16; constants reach the
 * kernels as host values, non-constant index inputs from device memory. And a PyTorch-style dynamic Reshape
 * chain whose shape arithmetic runs on the host.
 */
@Tag("gpu")
class TensorKernelsGpuTest extends GpuTest {
    private static final List<ElementType> SIZES = List.of(ElementType.UINT8, ElementType.FLOAT16, ElementType.FLOAT,
            ElementType.INT64, ElementType.COMPLEX128);

    private final Random random = new Random(42);
    private int checked;


    // ---- building nodes --------------------------------------------------------------------------

    /** A node input: its graph value (with the value when it is a constant) and its data for the Run. */
    private record In(ValueInfo info, Data data) {}

    private Data randomData(ElementType type, long... shape) {
        long n = 1;
        for (long d : shape) {
            n *= d;
        }
        byte[] bytes = new byte[Math.toIntExact(n * type.byteSize())];
        random.nextBytes(bytes);
        return new Data(type, shape, bytes);
    }

    private static In tensor(String name, Data data) {
        return new In(new ValueInfo(name, data.type(), data.shape(), true), data);
    }

    private static In constant(String name, Data data) {
        return new In(new ValueInfo(name, data.type(), data.shape(), true, true,
                new TensorValue(data.type(), data.shape(), ByteBuffer.wrap(data.bytes()).order(ByteOrder.LITTLE_ENDIAN))), data);
    }

    private static In longs(String name, long... values) {
        return constant(name, Data.longs(values, values.length));
    }

    private static Data ints(long[] values, long... shape) {
        ByteBuffer b = ByteBuffer.allocate(values.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (long v : values) {
            b.putInt((int) v);
        }
        return new Data(ElementType.INT32, shape, b.array());
    }

    private static Attribute.IntValue attr(String name, long value) {
        return new Attribute.IntValue(name, value);
    }

    private static Attribute.IntList attr(String name, long... values) {
        return new Attribute.IntList(name, Arrays.stream(values).boxed().toList());
    }

    private static Attribute.StringValue attr(String name, String value) {
        return new Attribute.StringValue(name, value);
    }

    private static Map<String, Attribute> attrs(Attribute... attributes) {
        Map<String, Attribute> map = new HashMap<>();
        for (Attribute a : attributes) {
            map.put(a.name(), a);
        }
        return map;
    }

    /** Runs {@code op} on JavaCuda and JavaCpu and compares every output's shape and bytes. */
    private void check(String op, int opset, List<In> inputs, List<ElementType> outputTypes, Map<String, Attribute> attributes) {
        List<ValueInfo> outputs = new ArrayList<>();
        for (int i = 0; i < outputTypes.size(); i++) {
            outputs.add(new ValueInfo(op + "_out" + i, outputTypes.get(i), null, true));
        }
        Node node = new Node(checked, op + "_" + checked, op, "", opset, inputs.stream().map(In::info).toList(), outputs,
                attributes);
        String what = node + " " + inputs.stream().map(i -> i.data() == null ? "-" : i.data().type() + Arrays.toString(i.data().shape()))
                .toList();
        checked++;

        CpuKernel kernel = CpuKernels.forNode(node).orElseThrow(() -> new AssertionError(what + ": " + CpuKernels.support(node)));
        List<Data> expected = new ArrayList<>();
        try (Arena arena = Arena.ofConfined()) {
            List<Tensor> hostInputs = new ArrayList<>();
            for (In in : inputs) {
                if (in.data() == null) {
                    hostInputs.add(null); // an omitted optional input
                    continue;
                }
                HostTensor t = HostTensor.allocate(arena, in.data().type(), in.data().shape());
                MemorySegment.copy(MemorySegment.ofArray(in.data().bytes()), 0, t.data(), 0, t.byteSize());
                hostInputs.add(t);
            }
            long[][] shapes = kernel.outputShapes(hostInputs);
            List<HostTensor> hostOutputs = new ArrayList<>();
            for (int i = 0; i < shapes.length; i++) {
                hostOutputs.add(HostTensor.allocate(arena, outputTypes.get(i), shapes[i]));
            }
            kernel.compute(hostInputs, hostOutputs);
            for (HostTensor t : hostOutputs) {
                expected.add(new Data(t.elementType(), t.shape(), t.data().toArray(ValueLayout.JAVA_BYTE)));
            }
        }

        Node fused = new Node(1000 + checked, "JavaCuda_fused_" + checked, "JavaCuda_fused", "javaep", 1, node.inputs(),
                outputs, Map.of());
        CudaSubgraphProgram program = CudaSubgraphProgram.compile(new Graph("g", List.of(node), List.of(), List.of()), fused,
                device);
        try (DeviceRunContext c = new DeviceRunContext(driver, stream, outputTypes, inputs.stream().map(In::data).toList())) {
            program.compute(c);
            for (int i = 0; i < expected.size(); i++) {
                Data actual = c.data(i);
                assertArrayEquals(expected.get(i).shape(), actual.shape(), what + " output " + i + " shape");
                assertArrayEquals(expected.get(i).bytes(), actual.bytes(), what + " output " + i);
            }
        } finally {
            program.close();
        }
    }

    private void check(String op, int opset, List<In> inputs, ElementType outputType, Map<String, Attribute> attributes) {
        check(op, opset, inputs, List.of(outputType), attributes);
    }

    // ---- the data movers ---------------------------------------------------------------------------

    @Test
    void transposeSliceExpandTileForEveryElementSize() {
        for (ElementType t : SIZES) {
            check("Transpose", 13, List.of(tensor("x", randomData(t, 3, 4, 5))), t, attrs(attr("perm", 2, 0, 1)));
            check("Transpose", 13, List.of(tensor("x", randomData(t, 2, 3, 4, 5, 6))), t, attrs()); // reversed
            check("Slice", 13, List.of(tensor("x", randomData(t, 5, 6, 7)), longs("starts", -1, 1), longs("ends", -100, 6),
                    longs("axes", 0, -1), longs("steps", -2, 3)), t, attrs());
            check("Expand", 13, List.of(tensor("x", randomData(t, 3, 1)), longs("shape", 2, 1, 5)), t, attrs());
            check("Tile", 13, List.of(tensor("x", randomData(t, 2, 3)), longs("repeats", 3, 2)), t, attrs());
        }
        // int32 slice indices, and a copy of more than 8 dimensions after simplification (one launch per leading index)
        check("Slice", 13, List.of(tensor("x", randomData(ElementType.FLOAT, 10)), constant("starts", ints(new long[] {8}, 1)),
                constant("ends", ints(new long[] {1}, 1)), constant("axes", ints(new long[] {0}, 1)),
                constant("steps", ints(new long[] {-3}, 1))), ElementType.FLOAT, attrs());
        check("Tile", 13, List.of(tensor("x", randomData(ElementType.FLOAT, 2, 3, 2, 3, 2)), longs("repeats", 2, 3, 2, 2, 3)),
                ElementType.FLOAT, attrs());
        check("Transpose", 13, List.of(tensor("x", randomData(ElementType.FLOAT, 64, 96, 3))), ElementType.FLOAT,
                attrs(attr("perm", 2, 0, 1)));
    }

    @Test
    void concatSplitAndTheBlockMovers() {
        for (ElementType t : SIZES) {
            check("Concat", 13, List.of(tensor("a", randomData(t, 2, 3, 4)), tensor("b", randomData(t, 2, 1, 4)),
                    tensor("c", randomData(t, 2, 0, 4)), tensor("d", randomData(t, 2, 2, 4))), t, attrs(attr("axis", -2)));
            check("Split", 18, List.of(tensor("x", randomData(t, 2, 7, 3))), List.of(t, t, t),
                    attrs(attr("axis", 1), attr("num_outputs", 3)));
            check("Split", 13, List.of(tensor("x", randomData(t, 6, 2)), longs("split", 1, 0, 5)), List.of(t, t, t),
                    attrs(attr("axis", 0)));
            check("DepthToSpace", 13, List.of(tensor("x", randomData(t, 2, 8, 3, 5))), t,
                    attrs(attr("blocksize", 2), attr("mode", "CRD")));
            check("DepthToSpace", 13, List.of(tensor("x", randomData(t, 1, 18, 2, 2))), t,
                    attrs(attr("blocksize", 3), attr("mode", "DCR")));
            check("SpaceToDepth", 13, List.of(tensor("x", randomData(t, 2, 3, 4, 6))), t, attrs(attr("blocksize", 2)));
        }
    }

    @Test
    void padInEveryMode() {
        for (ElementType t : SIZES) {
            In x = tensor("x", randomData(t, 2, 3, 4));
            check("Pad", 19, List.of(x, longs("pads", 0, 2, 3, 1, 2, 3)), t, attrs(attr("mode", "reflect")));
            check("Pad", 19, List.of(x, longs("pads", 1, 0, 5, 0, 4, 1)), t, attrs(attr("mode", "edge")));
            check("Pad", 19, List.of(x, longs("pads", 0, 4, 6, 0, 5, 9)), t, attrs(attr("mode", "wrap")));
            check("Pad", 19, List.of(x, longs("pads", 1, -1, 2, 0, 2, -1), constant("value", randomData(t))), t,
                    attrs(attr("mode", "constant")));
            check("Pad", 18, List.of(x, longs("pads", 2, 3), new In(null, null), longs("axes", -1)), t, attrs());
        }
    }

    @Test
    void gatherGatherElementsAndScatterND() {
        for (ElementType t : SIZES) {
            In data = tensor("data", randomData(t, 3, 5, 4));
            check("Gather", 13, List.of(data, longs("indices", 4, -1, 0, -5)), t, attrs(attr("axis", 1)));
            check("Gather", 13, List.of(data, tensor("indices", ints(new long[] {2, -3, 1, 0, -1, 2}, 2, 3))), t,
                    attrs(attr("axis", 0)));
            check("GatherElements", 13, List.of(data, tensor("indices", Data.longs(new long[] {0, 2, -1, 1, 1, 0}, 1, 2, 3))), t,
                    attrs(attr("axis", 0)));
            check("ScatterND", 16, List.of(data, tensor("indices", Data.longs(new long[] {2, 1, 0, 4, 2, 1}, 3, 2)),
                    tensor("updates", randomData(t, 3, 4))), t, attrs());
        }
        Data floats = Data.floats(new float[] {1, 2, 3, 4, 5, 6, 7, 8}, 4, 2);
        for (String reduction : List.of("add", "mul", "max", "min")) {
            check("ScatterND", 18, List.of(tensor("data", floats), tensor("indices", Data.longs(new long[] {1, 3, 1}, 3, 1)),
                    tensor("updates", Data.floats(new float[] {0.5f, -2, 3, 4, -1, 9}, 3, 2))), ElementType.FLOAT,
                    attrs(attr("reduction", reduction)));
        }
    }

    @Test
    void generators() {
        ByteBuffer seven = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(7).flip();
        Map<String, Attribute> value = attrs(new Attribute.TensorAttribute("value",
                new TensorValue(ElementType.INT32, new long[] {1}, seven)));
        check("ConstantOfShape", 13, List.of(tensor("shape", Data.longs(new long[] {3, 1, 5}, 3))), ElementType.INT32, value);
        check("Range", 13, List.of(tensor("start", Data.floats(new float[] {-1.5f})), tensor("limit", Data.floats(new float[] {7})),
                tensor("delta", Data.floats(new float[] {0.25f}))), ElementType.FLOAT, attrs());
        check("Range", 13, List.of(tensor("start", Data.longs(new long[] {10})), tensor("limit", Data.longs(new long[] {-7})),
                tensor("delta", Data.longs(new long[] {-3}))), ElementType.INT64, attrs());
    }

    @Test
    void aPyTorchDynamicReshapeChain() {
        // y = x.view(x.size(0), x.size(1) * x.size(2), -1).transpose(1, 2): the shape is computed at run time
        Data x = randomData(ElementType.FLOAT, 2, 3, 4, 5);
        ValueInfo xv = new ValueInfo("x", ElementType.FLOAT, new long[] {-1, 3, 4, 5}, true);
        In zero = constant("zero", Data.longs(new long[] {0})); // a scalar index: Gather drops the axis
        In axes = longs("axes", 0);
        In minusOne = longs("minus_one", -1);
        In oneTwo = longs("one_two", 1, 2);
        List<ValueInfo> v = new ArrayList<>();
        for (String name : List.of("shape", "batch", "batch_1d", "hw", "c_h", "prod", "prod_1d", "target", "reshaped", "y")) {
            v.add(new ValueInfo(name, name.equals("reshaped") || name.equals("y") ? ElementType.FLOAT : ElementType.INT64, null, true));
        }
        List<Node> nodes = List.of(
                new Node(1, "shape", "Shape", "", 15, List.of(xv), List.of(v.get(0)), Map.of()),
                new Node(2, "batch", "Gather", "", 13, List.of(v.get(0), zero.info()), List.of(v.get(1)), Map.of()),
                new Node(3, "batch_1d", "Unsqueeze", "", 13, List.of(v.get(1), axes.info()), List.of(v.get(2)), Map.of()),
                new Node(4, "hw", "Gather", "", 13, List.of(v.get(0), oneTwo.info()), List.of(v.get(3)), Map.of()),
                new Node(5, "c_h", "Slice", "", 13, List.of(v.get(3), longs("s0", 0).info(), longs("s1", 1).info()),
                        List.of(v.get(4)), Map.of()),
                new Node(6, "prod", "Mul", "", 14, List.of(v.get(4), longs("h", 4).info()), List.of(v.get(5)), Map.of()),
                new Node(7, "prod_1d", "Identity", "", 13, List.of(v.get(5)), List.of(v.get(6)), Map.of()),
                new Node(8, "target", "Concat", "", 13, List.of(v.get(2), v.get(6), minusOne.info()), List.of(v.get(7)),
                        attrs(attr("axis", 0))),
                new Node(9, "reshaped", "Reshape", "", 14, List.of(xv, v.get(7)), List.of(v.get(8)), Map.of()),
                new Node(10, "y", "Transpose", "", 13, List.of(v.get(8)), List.of(v.get(9)), attrs(attr("perm", 0, 2, 1))));
        List<ValueInfo> fusedInputs = List.of(xv, zero.info(), axes.info(), oneTwo.info(), minusOne.info(),
                nodes.get(4).inputs().get(1), nodes.get(4).inputs().get(2), nodes.get(5).inputs().get(1));
        Node fused = new Node(99, "JavaCuda_fused_reshape", "JavaCuda_fused", "javaep", 1, fusedInputs, List.of(v.get(9)), Map.of());
        CudaSubgraphProgram program = CudaSubgraphProgram.compile(new Graph("g", nodes, List.of(), List.of()), fused, device);
        List<Data> data = new ArrayList<>(List.of(x, zero.data(), axes.data(), oneTwo.data(), minusOne.data(),
                Data.longs(new long[] {0}, 1), Data.longs(new long[] {1}, 1), Data.longs(new long[] {4}, 1)));
        for (int run = 0; run < 3; run++) {
            try (DeviceRunContext c = new DeviceRunContext(driver, stream, List.of(ElementType.FLOAT), data)) {
                program.compute(c);
                Data y = c.data(0);
                assertArrayEquals(new long[] {2, 5, 12}, y.shape());
                float[] in = x.toFloats();
                float[] out = y.toFloats();
                for (int b = 0; b < 2; b++) {
                    for (int k = 0; k < 12; k++) {
                        for (int w = 0; w < 5; w++) {
                            assertEquals(Float.floatToRawIntBits(in[(b * 12 + k) * 5 + w]),
                                    Float.floatToRawIntBits(out[(b * 5 + w) * 12 + k]));
                        }
                    }
                }
            }
        }
        assertEquals(true, program.toString().contains("(8 on the host)"), program.toString());
        program.close();
    }
}
