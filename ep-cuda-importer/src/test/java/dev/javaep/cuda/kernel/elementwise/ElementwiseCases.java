package dev.javaep.cuda.kernel.elementwise;

import dev.javaep.cpu.kernel.CpuKernel;
import dev.javaep.cpu.kernel.CpuKernels;
import dev.javaep.cpu.kernel.HostTensor;
import dev.javaep.spi.Attribute;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
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

/**
 * A sample of the elementwise family's ops and types (float16, float32, the integers, bool; contiguous, scalar and
 * broadcast operands, rank 8 after merging, an empty tensor), with seeded random inputs and JavaCpu's results as
 * the reference a JavaCuda run is compared with.
 */
final class ElementwiseCases {
    private static final ElementType F16 = ElementType.FLOAT16;
    private static final ElementType F32 = ElementType.FLOAT;
    private static final ElementType F64 = ElementType.DOUBLE;
    private static final ElementType I8 = ElementType.INT8;
    private static final ElementType U8 = ElementType.UINT8;
    private static final ElementType I32 = ElementType.INT32;
    private static final ElementType I64 = ElementType.INT64;
    private static final ElementType U64 = ElementType.UINT64;
    private static final ElementType B = ElementType.BOOL;

    private ElementwiseCases() {}

    /**
     * One node: its op, opset, input types (null for an omitted optional input) and shapes, output type, attributes.
     *
     * @param positive whether float inputs must be positive (Log, Sqrt)
     */
    record Case(String op, int opset, List<ElementType> types, List<long[]> shapes, ElementType output,
                List<Attribute> attributes, boolean positive) {
        Node node() {
            List<ValueInfo> inputs = new ArrayList<>();
            for (int i = 0; i < types.size(); i++) {
                inputs.add(types.get(i) == null ? null : new ValueInfo("x" + i, types.get(i), shapes.get(i), true));
            }
            Map<String, Attribute> map = new HashMap<>();
            attributes.forEach(a -> map.put(a.name(), a));
            return new Node(1, op + "_case", op, "", opset, inputs, List.of(new ValueInfo("y", output, null, true)), map);
        }

        @Override
        public String toString() {
            StringBuilder s = new StringBuilder(op + "-" + opset + "(");
            for (int i = 0; i < types.size(); i++) {
                s.append(i == 0 ? "" : ", ").append(types.get(i) == null ? "-" : types.get(i) + Arrays.toString(shapes.get(i)));
            }
            return s.append(") -> ").append(output).append(attributes.isEmpty() ? "" : " " + attributes).toString();
        }
    }

    private static final List<Case> CASES = new ArrayList<>();

    private static void add(String op, int opset, ElementType in, ElementType out, long[][] shapes, Attribute... attributes) {
        List<ElementType> types = new ArrayList<>();
        for (long[] s : shapes) {
            types.add(s == null ? null : in);
        }
        CASES.add(new Case(op, opset, types, Arrays.asList(shapes), out, List.of(attributes), op.equals("Log") || op.equals("Sqrt")));
    }

    private static void mixed(String op, int opset, List<ElementType> types, ElementType out, long[]... shapes) {
        CASES.add(new Case(op, opset, types, Arrays.asList(shapes), out, List.of(), false));
    }

    private static long[][] shapes(long[]... s) {
        return s;
    }

    private static long[] s(long... dims) {
        return dims;
    }

    static {
        long[][] bias = shapes(s(2, 3, 4), s(4));
        long[][] outer = shapes(s(3, 1), s(1, 5));
        long[][] scalar = shapes(s(7, 9), s());
        long[][] same = shapes(s(1000), s(1000));
        long[][] one = shapes(s(3, 5, 7));
        // arithmetic (float32 Add/Sub/Mul/Div run the PTX kernels; the rest the template)
        add("Add", 14, F16, F16, bias);
        add("Add", 14, F32, F32, bias);
        add("Add", 14, F16, F16, shapes(s(1 << 20), s(1 << 20)));
        add("Add", 14, F16, F16, shapes(s(0, 4), s(4)));
        add("Sub", 14, I64, I64, outer);
        add("Mul", 14, I32, I32, scalar);
        add("Mul", 14, U8, U8, bias);
        add("Div", 14, F16, F16, same);
        add("Div", 14, I64, I64, bias);
        add("Add", 14, F16, F16, shapes(s(2, 1, 2, 1, 2, 1, 2, 1), s(1, 2, 1, 2, 1, 2, 1, 2)));
        mixed("Pow", 15, List.of(F32, I32), F32, s(2, 3, 4), s(4));
        mixed("Pow", 15, List.of(I64, I64), I64, s(3, 4), s(3, 4));
        mixed("Pow", 15, List.of(F16, F16), F16, s(5, 6), s(6));
        add("Mod", 13, I64, I64, bias);
        add("Mod", 13, I32, I32, outer, new Attribute.IntValue("fmod", 1));
        add("Mod", 13, F16, F16, same, new Attribute.IntValue("fmod", 1));
        add("Mod", 13, U64, U64, bias);
        // variadic
        long[][] three = shapes(s(2, 1, 4), s(3, 1), s());
        add("Max", 13, F32, F32, three);
        add("Min", 13, F16, F16, three);
        add("Sum", 13, F16, F16, three);
        add("Mean", 13, F32, F32, three);
        add("Max", 13, I64, I64, outer);
        add("Min", 13, U8, U8, shapes(s(4, 4)));
        add("Sum", 13, F32, F32, shapes(s(5), s(5), s(5), s(5), s(5), s(5), s(5), s(5)));
        // Clip
        add("Clip", 6, F32, F32, one, new Attribute.FloatValue("min", -0.5f), new Attribute.FloatValue("max", 1.5f));
        add("Clip", 13, F16, F16, shapes(s(3, 5, 7), s(), s()));
        add("Clip", 13, I64, I64, shapes(s(3, 5, 7), null, s()));
        add("Clip", 13, I8, I8, shapes(s(3, 5, 7), s(1)));
        // activations and unary math
        add("Relu", 14, F16, F16, one);
        add("Relu", 14, I32, I32, one);
        add("Sigmoid", 13, F16, F16, one);
        add("Tanh", 13, F16, F16, one);
        add("LeakyRelu", 16, F32, F32, one, new Attribute.FloatValue("alpha", 0.2f));
        add("Elu", 6, F16, F16, one);
        add("Selu", 6, F32, F32, one);
        add("Celu", 12, F32, F32, one, new Attribute.FloatValue("alpha", 1.5f));
        add("HardSigmoid", 6, F16, F16, one);
        add("HardSwish", 14, F32, F32, one);
        add("Gelu", 20, F32, F32, one);
        add("Gelu", 20, F16, F16, one, new Attribute.StringValue("approximate", "tanh"));
        add("Softplus", 1, F32, F32, one);
        add("Softsign", 1, F16, F16, one);
        add("Mish", 18, F32, F32, one);
        add("Exp", 13, F16, F16, one);
        add("Log", 13, F32, F32, one);
        add("Sqrt", 13, F16, F16, one);
        add("Reciprocal", 13, F32, F32, one);
        add("Floor", 13, F16, F16, one);
        add("Ceil", 13, F32, F32, one);
        add("Round", 11, F32, F32, one);
        add("Neg", 13, I64, I64, one);
        add("Abs", 13, I32, I32, one);
        add("Abs", 13, F16, F16, one);
        add("Sign", 13, F32, F32, one);
        add("Sign", 13, I64, I64, one);
        add("Erf", 13, F32, F32, one);
        add("Sin", 7, F16, F16, one);
        add("Cos", 7, F32, F32, one);
        add("Not", 1, B, B, one);
        add("PRelu", 16, F32, F32, shapes(s(2, 3, 4, 4), s(3, 1, 1)));
        add("PRelu", 16, I64, I64, shapes(s(3, 4), s(4)));
        // comparisons and logic
        add("Equal", 13, I64, B, bias);
        add("Equal", 13, B, B, outer);
        add("Less", 13, F16, B, bias);
        add("Greater", 13, I32, B, scalar);
        add("LessOrEqual", 16, F32, B, outer);
        add("GreaterOrEqual", 16, I64, B, same);
        add("And", 7, B, B, bias);
        add("Or", 7, B, B, outer);
        add("Xor", 7, B, B, scalar);
        // Where, broadcast three ways
        for (ElementType t : List.of(F32, F16, I64, B, U8)) {
            mixed("Where", 16, List.of(B, t, t), t, s(2, 1, 1), s(1, 3, 1), s(4));
        }
        mixed("Where", 16, List.of(B, F32, F32), F32, s(256, 512), s(256, 512), s());
        // Cast
        for (ElementType[] c : new ElementType[][] {{F32, F16}, {F16, F32}, {F32, I32}, {F32, I64}, {F32, U8}, {F32, I8},
                {F32, B}, {I64, F32}, {I32, F16}, {I64, I32}, {B, F32}, {U8, F32}, {F64, F32}, {F32, F64}, {F16, I64},
                {I8, I64}, {I64, B}, {U64, F32}}) {
            CASES.add(new Case("Cast", 19, List.of(c[0]), List.<long[]>of(s(3, 5, 7)), c[1],
                    List.of(new Attribute.IntValue("to", c[1].onnxValue())), false));
        }
    }

    static List<Case> all() {
        return List.copyOf(CASES);
    }

    /** Seeded random inputs as little-endian bytes (null for an omitted input); integer divisors are never 0. */
    static byte[][] inputs(Case c) {
        Random random = new Random(c.toString().hashCode());
        byte[][] data = new byte[c.types().size()][];
        for (int i = 0; i < data.length; i++) {
            ElementType t = c.types().get(i);
            if (t == null) {
                continue;
            }
            int n = Math.toIntExact(Arrays.stream(c.shapes().get(i)).reduce(1, Math::multiplyExact));
            ByteBuffer b = ByteBuffer.allocate(n * t.byteSize()).order(ByteOrder.LITTLE_ENDIAN);
            boolean divisor = i == 1 && (c.op().equals("Div") || c.op().equals("Mod"));
            boolean exponent = i == 1 && c.op().equals("Pow");
            for (int k = 0; k < n; k++) {
                double f = random.nextDouble() * 6 - 3;
                if (c.positive()) {
                    f = Math.abs(f) + 0.01;
                }
                if (k % 17 == 3 && !c.positive()) {
                    f = Math.rint(f) + 0.5; // ties for Round, exact halves for Floor/Ceil
                }
                long v = exponent ? random.nextInt(7) - 1 : random.nextInt(41) - 20;
                if (divisor && v == 0) {
                    v = 7;
                }
                switch (t) {
                    case FLOAT -> b.putFloat(f == 0 && divisor ? 1 : (float) f);
                    case FLOAT16 -> b.putShort(Float.floatToFloat16((float) f));
                    case DOUBLE -> b.putDouble(f);
                    case BOOL -> b.put((byte) random.nextInt(2));
                    case INT8 -> b.put((byte) v);
                    case UINT8 -> b.put((byte) (Math.abs(v) + (divisor ? 1 : 0)));
                    case INT32 -> b.putInt((int) v);
                    case INT64 -> b.putLong(v);
                    case UINT64 -> b.putLong(Math.abs(v) + (divisor ? 1 : 0) + (k % 5 == 0 ? Long.MIN_VALUE : 0));
                    default -> throw new IllegalArgumentException(t.toString());
                }
            }
            data[i] = b.array();
        }
        return data;
    }

    /** An output: its shape and little-endian bytes. */
    record Result(long[] shape, byte[] data) {}

    /** JavaCpu's output for these inputs: the reference. */
    static Result onCpu(Case c, byte[][] inputs) {
        Node node = c.node();
        CpuKernel kernel = CpuKernels.forNode(node).orElseThrow(() -> new AssertionError(c + ": JavaCpu declines: "
                + CpuKernels.support(node)));
        try (Arena arena = Arena.ofConfined()) {
            List<HostTensor> tensors = new ArrayList<>();
            for (int i = 0; i < inputs.length; i++) {
                tensors.add(inputs[i] == null ? null : new HostTensor(c.types().get(i), c.shapes().get(i),
                        arena.allocate(Math.max(1, inputs[i].length), 8).asSlice(0, inputs[i].length)
                                .copyFrom(MemorySegment.ofArray(inputs[i]))));
            }
            long[] shape = kernel.outputShapes(tensors)[0];
            HostTensor out = HostTensor.allocate(arena, c.output(), shape);
            kernel.compute(tensors, List.of(out));
            return new Result(shape, out.data().toArray(ValueLayout.JAVA_BYTE));
        }
    }

    /**
     * Null when {@code actual} matches {@code expected}, else what differs: integers, bool and float64 (Cast only)
     * exactly; float32 within 4e-6 relative (CUDA's float functions against JavaCpu's double ones); float16 within
     * one unit in the last place; NaN matches NaN.
     */
    static String compare(Case c, Result expected, Result actual) {
        if (!Arrays.equals(expected.shape(), actual.shape())) {
            return "shape " + Arrays.toString(actual.shape()) + ", expected " + Arrays.toString(expected.shape());
        }
        ByteBuffer e = ByteBuffer.wrap(expected.data()).order(ByteOrder.LITTLE_ENDIAN);
        ByteBuffer a = ByteBuffer.wrap(actual.data()).order(ByteOrder.LITTLE_ENDIAN);
        ElementType t = c.output();
        int n = expected.data().length / t.byteSize();
        int wrong = 0;
        String first = null;
        for (int i = 0; i < n; i++) {
            boolean ok;
            String shown;
            if (t == F32 || t == F16) {
                double ev = t == F32 ? e.getFloat(i * 4) : Float.float16ToFloat(e.getShort(i * 2));
                double av = t == F32 ? a.getFloat(i * 4) : Float.float16ToFloat(a.getShort(i * 2));
                double tolerance = t == F32 ? 4e-6 * Math.abs(ev) + 1e-6 : Math.max(Math.ulp((float) ev) * 8192, 0x1p-24);
                ok = Double.isNaN(ev) ? Double.isNaN(av) : Math.abs(av - ev) <= tolerance || ev == av;
                shown = av + ", expected " + ev;
            } else {
                ok = true;
                for (int k = 0; k < t.byteSize(); k++) {
                    ok &= e.get(i * t.byteSize() + k) == a.get(i * t.byteSize() + k);
                }
                shown = "bytes differ (" + t + ")";
            }
            if (!ok) {
                wrong++;
                if (first == null) {
                    first = "element " + i + ": " + shown;
                }
            }
        }
        return wrong == 0 ? null : wrong + " of " + n + " elements differ, first " + first;
    }
}
