package dev.javaep.cpu.kernel.elementwise;

import static dev.javaep.cpu.kernel.TestNodes.kernel;
import static dev.javaep.cpu.kernel.TestNodes.node;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.cpu.kernel.CpuKernel;
import dev.javaep.cpu.kernel.CpuKernels;
import dev.javaep.spi.Attribute;
import dev.javaep.spi.DeclineCode;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import dev.javaep.spi.NodeSupport;
import dev.javaep.spi.ops.ElementwiseOps;
import dev.javaep.spi.ops.KernelTable;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** JavaCpu's elementwise rows through the whole table: which kernel a node gets, and which nodes are declined why. */
class ElementwiseKernelsTest {
    private static final ElementType F = ElementType.FLOAT;
    private static final ElementType H = ElementType.FLOAT16;
    private static final ElementType B = ElementType.BOOL;

    private static DeclineCode declined(Node node) {
        return assertInstanceOf(NodeSupport.Declined.class, CpuKernels.support(node), node::toString).code();
    }

    @Test
    void nodesGetTheKernelOfTheirOpTypeAndAttributes() {
        assertEquals(new BinaryKernel("Mod", BinaryMath.FMOD, F, F, F), kernel(node("Mod", 13, List.of(F, F), F,
                new Attribute.IntValue("fmod", 1))));
        assertEquals(new BinaryKernel("Mod", BinaryMath.MOD, ElementType.INT8, ElementType.INT8, ElementType.INT8),
                kernel(node("Mod", 10, List.of(ElementType.INT8, ElementType.INT8), ElementType.INT8)));
        assertEquals(UnaryMath.GELU_TANH, ((UnaryKernel) kernel(node("Gelu", 20, List.of(H), H,
                new Attribute.StringValue("approximate", "tanh")))).function());
        assertEquals(UnaryMath.GELU, ((UnaryKernel) kernel(node("Gelu", 20, List.of(F), F))).function());
        assertEquals(0.01f, ((UnaryKernel) kernel(node("LeakyRelu", 16, List.of(F), F))).parameters().alpha());
        assertEquals(new ClipKernel(F, true, -Float.MAX_VALUE, 6), kernel(node("Clip", 6, List.of(F), F, new Attribute.FloatValue("max", 6))));
        assertEquals(new ClipKernel(ElementType.INT64, false, -Float.MAX_VALUE, Float.MAX_VALUE),
                kernel(node("Clip", 13, Arrays.asList(ElementType.INT64, null, ElementType.INT64), ElementType.INT64)));
        assertEquals(new CastKernel(H, ElementType.INT64), kernel(node("Cast", 21, List.of(H), ElementType.INT64,
                new Attribute.IntValue("to", ElementType.INT64.onnxValue()), new Attribute.IntValue("saturate", 1))));
        assertEquals(new BinaryKernel("Pow", BinaryMath.POW, ElementType.INT32, F, ElementType.INT32),
                kernel(node("Pow", 15, List.of(ElementType.INT32, F), ElementType.INT32)));
        assertEquals(new WhereKernel(H), kernel(node("Where", 16, List.of(B, H, H), H)));
        assertEquals(new BinaryKernel("Equal", BinaryMath.EQUAL, B, B, B), kernel(node("Equal", 19, List.of(B, B), B)));
        assertEquals(VariadicKernel.of("Mean", H), kernel(node("Mean", 13, List.of(H, H, H), H)));
        assertEquals(new BinaryKernel("Add", BinaryMath.ADD, H, H, H), kernel(node("Add", 14, List.of(H, H), H)));
        assertEquals(new ElementwiseBinary(ArithmeticOp.ADD, F), kernel(node("Add", 7, List.of(F, F), F)), "float32 keeps its loops");
        assertInstanceOf(ElementwiseUnary.class, kernel(node("Relu", 14, List.of(F), F)));
        assertInstanceOf(UnaryKernel.class, kernel(node("Relu", 14, List.of(ElementType.INT32), ElementType.INT32)));
    }

    @Test
    void malformedOrUnimplementedNodesAreDeclinedWithTheirCode() {
        assertEquals(DeclineCode.ATTRIBUTE, declined(node("Mod", 13, List.of(F, F), F)), "fmod=0 is for integers");
        assertEquals(DeclineCode.ATTRIBUTE, declined(node("Gelu", 20, List.of(F), F, new Attribute.StringValue("approximate", "fast"))));
        assertEquals(DeclineCode.ATTRIBUTE, declined(node("Cast", 13, List.of(F), ElementType.STRING,
                new Attribute.IntValue("to", ElementType.STRING.onnxValue()))), "no string conversions");
        assertEquals(DeclineCode.ATTRIBUTE, declined(node("Cast", 13, List.of(F), F, new Attribute.IntValue("to", ElementType.INT32.onnxValue()))),
                "to must name the output type");
        assertEquals(DeclineCode.ATTRIBUTE, declined(node("Pow", 15, List.of(F, ElementType.BFLOAT16), F)));
        assertEquals(DeclineCode.ATTRIBUTE, declined(node("Celu", 12, List.of(F), F, new Attribute.FloatValue("alpha", 0))));
        assertEquals(DeclineCode.ELEMENT_TYPE, declined(node("Erf", 9, List.of(ElementType.INT32), ElementType.INT32)),
                "Erf-9 allows integers, JavaCpu does not compute them");
        assertEquals(DeclineCode.ELEMENT_TYPE, declined(node("Add", 7, List.of(ElementType.INT8, ElementType.INT8), ElementType.INT8)),
                "int8 joined Add at 14");
        assertEquals(DeclineCode.ELEMENT_TYPE, declined(node("Relu", 13, List.of(ElementType.INT32), ElementType.INT32)));
        assertEquals(DeclineCode.ELEMENT_TYPE, declined(node("Celu", 12, List.of(ElementType.DOUBLE), ElementType.DOUBLE)));
        assertEquals(DeclineCode.ELEMENT_TYPE, declined(node("Less", 13, List.of(F, F), F)), "comparisons output bool");
        assertEquals(DeclineCode.ELEMENT_TYPE, declined(node("Sum", 13, List.of(ElementType.INT32), ElementType.INT32)));
        assertEquals(DeclineCode.ATTRIBUTE, declined(node("Clip", 11, List.of(F), F, new Attribute.FloatValue("min", 0))),
                "Clip-11 takes its bounds as inputs");
        assertEquals(DeclineCode.OPSET, declined(node("Relu", 15, List.of(F), F)), "a version ONNX has not published");
        assertEquals(DeclineCode.OPSET, declined(node("Clip", 1, List.of(F), F)));
        assertEquals(DeclineCode.ARITY, declined(node("Max", 13, java.util.Collections.nCopies(ElementwiseOps.MAX_VARIADIC_INPUTS + 1, F), F)));
        assertEquals(DeclineCode.ARITY, declined(node("Where", 16, List.of(B, F), F)));
    }

    @Test
    void everySchemaVersionHasARow() {
        KernelTable<CpuKernel> table = CpuKernels.table();
        for (var schema : ElementwiseOps.SCHEMAS) {
            assertTrue(table.rows().stream().anyMatch(r -> r.schema().equals(schema)), schema.describe());
        }
    }
}
