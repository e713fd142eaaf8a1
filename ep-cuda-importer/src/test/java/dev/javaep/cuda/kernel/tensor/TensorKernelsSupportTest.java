package dev.javaep.cuda.kernel.tensor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.cuda.kernel.CudaKernelLibrary;
import dev.javaep.cuda.kernel.CudaOps;
import dev.javaep.spi.Attribute;
import dev.javaep.spi.DeclineCode;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import dev.javaep.spi.NodeSupport;
import dev.javaep.spi.ValueInfo;
import dev.javaep.spi.ops.KernelTable;
import dev.javaep.spi.ops.OpSchema;
import dev.javaep.spi.ops.TensorOps;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** JavaCuda's decisions for the family, without a GPU: which rows need NVRTC, which types, which attributes. */
class TensorKernelsSupportTest {
    private static ValueInfo v(String name, ElementType type) {
        return new ValueInfo(name, type, null, true);
    }

    private static Node node(String op, int opset, List<ValueInfo> inputs, ElementType output, Map<String, Attribute> attributes) {
        return new Node(1, "n", op, "", opset, inputs, List.of(v("y", output)), attributes);
    }

    @Test
    void everySchemaOfTheFamilyHasAJavaCudaRow() {
        Set<OpSchema> rows = CudaOps.table().rows().stream().map(r -> ((KernelTable.Row<?>) r).schema()).collect(Collectors.toSet());
        for (OpSchema schema : TensorOps.SCHEMAS) {
            assertTrue(rows.contains(schema), schema.describe());
        }
    }

    @Test
    void viewsAndHostComputedOpsNeedNoNvrtc() {
        ValueInfo x = v("x", ElementType.BFLOAT16);
        ValueInfo shape = v("s", ElementType.INT64);
        for (String op : List.of("Reshape", "Unsqueeze")) {
            assertTrue(CudaOps.support(node(op, 13, List.of(x, shape), ElementType.BFLOAT16, Map.of())).isSupported(), op);
        }
        assertTrue(CudaOps.support(node("Squeeze", 13, List.of(x), ElementType.BFLOAT16, Map.of())).isSupported());
        assertTrue(CudaOps.support(node("Flatten", 13, List.of(x), ElementType.BFLOAT16, Map.of())).isSupported());
        assertTrue(CudaOps.support(node("Shape", 15, List.of(x), ElementType.INT64, Map.of())).isSupported());
        assertTrue(CudaOps.support(node("Size", 13, List.of(v("c", ElementType.COMPLEX128)), ElementType.INT64, Map.of()))
                .isSupported());
        assertTrue(CudaOps.support(node("Constant", 13, List.of(), ElementType.INT64,
                Map.of("value_ints", new Attribute.IntList("value_ints", List.of(1L, 2L))))).isSupported());
    }

    @Test
    void kernelsCompiledByNvrtcAreDeclinedWithTheReasonWhereItIsAbsent() {
        ValueInfo x = v("x", ElementType.FLOAT16);
        NodeSupport transpose = CudaOps.support(node("Transpose", 13, List.of(x), ElementType.FLOAT16, Map.of()));
        NodeSupport gather = CudaOps.support(node("Gather", 13, List.of(x, v("i", ElementType.INT32)), ElementType.FLOAT16, Map.of()));
        for (NodeSupport s : List.of(transpose, gather)) {
            if (CudaKernelLibrary.compilesSources()) {
                assertTrue(s.isSupported(), s.toString());
            } else {
                assertTrue(s instanceof NodeSupport.Declined d && d.reason().contains("NVRTC"), s.toString());
            }
        }
    }

    @Test
    void declinesWhatTheKernelsCannotDoExactly() {
        ValueInfo f = v("f", ElementType.FLOAT);
        ValueInfo i = v("i", ElementType.INT64);
        NodeSupport int4 = CudaOps.support(node("Reshape", 13, List.of(v("q", ElementType.INT4), i), ElementType.INT4, Map.of()));
        assertEquals(DeclineCode.ELEMENT_TYPE, ((NodeSupport.Declined) int4).code());
        NodeSupport uint8Add = CudaOps.support(node("ScatterND", 16, List.of(v("u", ElementType.UINT8), i, v("w", ElementType.UINT8)),
                ElementType.UINT8, Map.of("reduction", new Attribute.StringValue("reduction", "add"))));
        assertTrue(uint8Add instanceof NodeSupport.Declined d && d.code() == DeclineCode.ATTRIBUTE, uint8Add.toString());
        NodeSupport noAxis = CudaOps.support(node("Concat", 13, List.of(f, f), ElementType.FLOAT, Map.of()));
        assertTrue(noAxis instanceof NodeSupport.Declined d && d.reason().contains("axis"), noAxis.toString());
        NodeSupport string = CudaOps.support(node("Shape", 13, List.of(v("s", ElementType.STRING)), ElementType.INT64, Map.of()));
        assertEquals(DeclineCode.ELEMENT_TYPE, ((NodeSupport.Declined) string).code(), "device memory holds no strings");
    }
}
