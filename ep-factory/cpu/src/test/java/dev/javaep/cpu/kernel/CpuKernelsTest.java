package dev.javaep.cpu.kernel;

import static dev.javaep.cpu.kernel.TestNodes.node;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.spi.Attribute;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import dev.javaep.spi.ValueInfo;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class CpuKernelsTest {

    private static ValueInfo tensor(String name, ElementType type) {
        return new ValueInfo(name, type, null, true);
    }

    private static Optional<CpuKernel> kernel(String op, int version, List<ElementType> inputs, ElementType output,
                                              Attribute... attributes) {
        return CpuKernels.forNode(node(op, version, inputs, output, attributes));
    }

    private static final ElementType F = ElementType.FLOAT;

    @Test
    void supportedNodesGetTheirKernel() {
        // The kernels are records of their family's package: their text says which kernel and configuration.
        for (String op : List.of("Add", "Sub", "Mul", "Div")) {
            for (ElementType t : List.of(F, ElementType.DOUBLE, ElementType.INT32, ElementType.INT64)) {
                var k = kernel(op, 14, List.of(t, t), t).orElseThrow(() -> new AssertionError(op + " " + t));
                assertEquals("ElementwiseBinary[op=" + op.toUpperCase() + ", elementType=" + t + "]", k.toString());
            }
            assertTrue(kernel(op, 7, List.of(F, F), F).isPresent(), op + "-7");
        }
        assertEquals("ElementwiseUnary[function=SIGMOID, elementType=DOUBLE]",
                kernel("Sigmoid", 13, List.of(ElementType.DOUBLE), ElementType.DOUBLE).orElseThrow().toString());
        assertEquals("IdentityKernel", kernel("Identity", 19, List.of(ElementType.BOOL), ElementType.BOOL).orElseThrow()
                .getClass().getSimpleName());
        assertEquals("MatMulKernel", kernel("MatMul", 13, List.of(F, F), F).orElseThrow().getClass().getSimpleName());
        assertEquals("GemmKernel[attributes=Attributes[alpha=2.0, beta=0.5, transA=true, transB=false, broadcastC=true], type=FLOAT]", kernel("Gemm", 13, List.of(F, F, F), F,
                new Attribute.FloatValue("alpha", 2f), new Attribute.FloatValue("beta", 0.5f),
                new Attribute.IntValue("transA", 1)).orElseThrow().toString());
        assertEquals("GemmKernel[attributes=Attributes[alpha=1.0, beta=1.0, transA=false, transB=false, broadcastC=true], type=FLOAT]",
                kernel("Gemm", 11, Arrays.asList(F, F, null), F).orElseThrow().toString());
        assertEquals("SoftmaxKernel[axis=1, coerceTo2d=true, log=false, type=FLOAT]", kernel("Softmax", 11, List.of(F), F).orElseThrow().toString());
        assertEquals("SoftmaxKernel[axis=-1, coerceTo2d=false, log=false, type=FLOAT]", kernel("Softmax", 13, List.of(F), F).orElseThrow().toString());
        assertEquals("SoftmaxKernel[axis=0, coerceTo2d=false, log=false, type=FLOAT]",
                kernel("Softmax", 13, List.of(F), F, new Attribute.IntValue("axis", 0)).orElseThrow().toString());
        assertTrue(CpuKernels.supportedOpTypes().containsAll(List.of("Add", "Gemm", "Softmax", "Identity", "Tanh")));
    }

    @Test
    void unsupportedOpTypesAreDeclined() {
        assertTrue(kernel("NoSuchOp", 11, List.of(F, F), F).isEmpty());
        assertTrue(kernel("add", 14, List.of(F, F), F).isEmpty(), "op types are case-sensitive");
    }

    @Test
    void unsupportedElementTypesAreDeclined() {
        var bool = ElementType.BOOL;
        assertTrue(kernel("Add", 14, List.of(bool, bool), bool).isEmpty());
        assertTrue(kernel("Add", 14, List.of(ElementType.BFLOAT16, ElementType.BFLOAT16), ElementType.BFLOAT16).isEmpty());
        assertTrue(kernel("Add", 14, List.of(F, ElementType.DOUBLE), F).isEmpty(), "mixed input types");
        assertTrue(kernel("Add", 14, List.of(F, F), ElementType.DOUBLE).isEmpty(), "output type differs");
        assertTrue(kernel("MatMul", 13, List.of(ElementType.INT32, ElementType.INT32), ElementType.INT32).isEmpty());
        assertTrue(kernel("Gemm", 13, List.of(F, F, ElementType.DOUBLE), F).isEmpty());
        assertTrue(kernel("Relu", 14, List.of(ElementType.UINT8), ElementType.UINT8).isEmpty(), "Relu-14 allows signed integers only");
        assertTrue(kernel("Softmax", 13, List.of(ElementType.BFLOAT16), ElementType.BFLOAT16).isEmpty());
        assertTrue(kernel("Identity", 16, List.of(ElementType.STRING), ElementType.STRING).isEmpty());
        assertTrue(kernel("Identity", 21, List.of(ElementType.INT4), ElementType.INT4).isEmpty());
    }

    @Test
    void opsetVersionsWithOtherSemanticsAreDeclined() {
        assertTrue(kernel("Add", 6, List.of(F, F), F).isEmpty(), "Add-6 has the legacy broadcast attribute");
        assertTrue(kernel("Add", 99, List.of(F, F), F).isEmpty(), "a version we have not read");
        assertTrue(kernel("Relu", 1, List.of(F), F).isEmpty());
        assertTrue(kernel("Softmax", 26, List.of(F), F).isEmpty(), "a version ONNX has not defined");
    }

    @Test
    void otherDomainsAreDeclined() {
        Node ms = new Node(1, "n", "Gelu", "com.microsoft", 1, List.of(tensor("x", F)), List.of(tensor("y", F)), Map.of());
        assertTrue(CpuKernels.forNode(ms).isEmpty());
        Node add = new Node(1, "n", "Add", "com.example", 14, List.of(tensor("a", F), tensor("b", F)),
                List.of(tensor("y", F)), Map.of());
        assertTrue(CpuKernels.forNode(add).isEmpty());
        Node onnx = new Node(1, "n", "Add", "ai.onnx", 14, List.of(tensor("a", F), tensor("b", F)),
                List.of(tensor("y", F)), Map.of());
        assertTrue(CpuKernels.forNode(onnx).isPresent(), "ai.onnx is the default domain spelled out");
    }

    @Test
    void unexpectedAttributesAreDeclined() {
        assertTrue(kernel("Add", 14, List.of(F, F), F, new Attribute.IntValue("broadcast", 1)).isEmpty());
        assertTrue(kernel("Gemm", 13, List.of(F, F), F, new Attribute.IntValue("alpha", 2)).isEmpty(), "alpha must be a float");
        assertTrue(kernel("Softmax", 13, List.of(F), F, new Attribute.FloatValue("axis", 1f)).isEmpty());
    }

    @Test
    void softmaxAxisOutsideAKnownRankIsDeclined() {
        ValueInfo x = new ValueInfo("x", F, new long[] {2, 3}, true);
        Node bad = new Node(1, "n", "Softmax", "", 13, List.of(x), List.of(tensor("y", F)),
                Map.of("axis", new Attribute.IntValue("axis", 2)));
        assertTrue(CpuKernels.forNode(bad).isEmpty());
        Node ok = new Node(1, "n", "Softmax", "", 13, List.of(x), List.of(tensor("y", F)),
                Map.of("axis", new Attribute.IntValue("axis", -2)));
        assertTrue(CpuKernels.forNode(ok).isPresent());
    }

    @Test
    void wrongArityAndMalformedNodesAreDeclinedWithoutThrowing() {
        assertTrue(kernel("Add", 14, List.of(F), F).isEmpty());
        assertTrue(kernel("Add", 14, List.of(F, F, F), F).isEmpty());
        assertTrue(kernel("Add", 14, Arrays.asList(F, null), F).isEmpty(), "an omitted required input");
        assertTrue(kernel("Gemm", 13, List.of(F), F).isEmpty());
        assertTrue(CpuKernels.forNode(null).isEmpty());
        assertTrue(CpuKernels.forNode(new Node(1, null, null, null, 0, null, null, null)).isEmpty());
        assertTrue(CpuKernels.forNode(new Node(1, "n", "Add", "", 14, null, null, null)).isEmpty());
        Node sequence = new Node(1, "n", "Identity", "", 14, List.of(new ValueInfo("s", ElementType.UNDEFINED, null, false)),
                List.of(new ValueInfo("t", ElementType.UNDEFINED, null, false)), Map.of());
        assertTrue(CpuKernels.forNode(sequence).isEmpty(), "Identity of a sequence");
        Node noOutputInfo = new Node(1, "n", "Relu", "", 14, List.of(tensor("x", F)), Arrays.asList((ValueInfo) null), Map.of());
        assertTrue(CpuKernels.forNode(noOutputInfo).isEmpty());
    }
}
