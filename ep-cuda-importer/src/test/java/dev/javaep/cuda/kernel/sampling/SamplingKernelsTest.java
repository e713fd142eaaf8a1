package dev.javaep.cuda.kernel.sampling;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.javaep.cuda.kernel.CudaOps;
import dev.javaep.cuda.kernel.TestNodes;
import dev.javaep.spi.Attribute;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import dev.javaep.spi.NodeSupport;
import dev.javaep.spi.ValueInfo;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** JavaCuda's sampling rows decide without a GPU: NVRTC's presence, types, ranks the kernels index. */
class SamplingKernelsTest {
    private static final ElementType F = ElementType.FLOAT;

    private static Node node(String op, int version, List<ElementType> inputs, long[] xShape, Map<String, Attribute> attributes) {
        List<ValueInfo> in = new java.util.ArrayList<>();
        for (int i = 0; i < inputs.size(); i++) {
            in.add(new ValueInfo("x" + i, inputs.get(i), i == 0 ? xShape : null, true));
        }
        return new Node(1, op, op, "", version, in, List.of(new ValueInfo("y", inputs.getFirst(), null, true)), attributes);
    }

    @Test
    void theRowsNeedNvrtc() {
        for (Node node : List.of(node("Resize", 19, List.of(F), new long[] {1, 3, 8, 8}, Map.of()),
                node("Upsample", 9, List.of(ElementType.FLOAT16, F), null, Map.of()),
                node("GridSample", 22, List.of(F, ElementType.FLOAT16), new long[] {1, 3, 8, 8}, Map.of()))) {
            TestNodes.assertCompiledUnlessNvrtcIsAbsent(node);
        }
    }

    @Test
    void unsupportedFormsAreDeclined() {
        assertInstanceOf(NodeSupport.Declined.class, CudaOps.support(node("Resize", 19, List.of(F), new long[9], Map.of())),
                "rank 9");
        assertInstanceOf(NodeSupport.Declined.class, CudaOps.support(node("GridSample", 20, List.of(F, ElementType.DOUBLE),
                null, Map.of())), "a double grid");
        assertInstanceOf(NodeSupport.Declined.class, CudaOps.support(node("Resize", 13, List.of(ElementType.UINT8), null,
                Map.of())), "uint8");
        assertInstanceOf(NodeSupport.Declined.class, CudaOps.support(node("GridSample", 20, List.of(F, F), null,
                Map.of("mode", new Attribute.StringValue("mode", "bilinear")))), "version 20 spells it linear");
    }
}
