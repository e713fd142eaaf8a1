package dev.javaep.cuda.kernel.normalization;

import static dev.javaep.cpu.kernel.TestNodes.node;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.javaep.cuda.kernel.CudaOps;
import dev.javaep.cuda.kernel.TestNodes;
import dev.javaep.spi.Attribute;
import dev.javaep.spi.DeclineCode;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.NodeSupport;
import java.util.List;
import org.junit.jupiter.api.Test;

/** JavaCuda's normalisation rows decide without a GPU: NVRTC's presence, types, the outputs of training mode. */
class NormalizationKernelsTest {
    private static final ElementType F = ElementType.FLOAT;
    private static final ElementType H = ElementType.FLOAT16;

    @Test
    void theRowsNeedNvrtcAndTakeFloatAndHalf() {
        var nodes = List.of(
                node("BatchNormalization", 15, List.of(H, F, F, H, H), List.of(H)),
                node("BatchNormalization", 15, List.of(F, F, F, H, H), List.of(F, H, H),
                        new Attribute.IntValue("training_mode", 1)),
                node("InstanceNormalization", 22, List.of(F, F, F), List.of(F)),
                node("LayerNormalization", 17, List.of(H, H, H), List.of(H, F, F)),
                node("GroupNormalization", 21, List.of(F, F, F), List.of(F),
                        new Attribute.IntValue("num_groups", 2)));
        for (var node : nodes) {
            TestNodes.assertCompiledUnlessNvrtcIsAbsent(node);
        }
    }

    @Test
    void unsupportedFormsAreDeclined() {
        assertEquals(DeclineCode.ELEMENT_TYPE, ((NodeSupport.Declined) CudaOps.support(node(
                "InstanceNormalization", 22, List.of(ElementType.DOUBLE, ElementType.DOUBLE, ElementType.DOUBLE),
                List.of(ElementType.DOUBLE)))).code());
        assertInstanceOf(NodeSupport.Declined.class, CudaOps.support(node("BatchNormalization", 15,
                List.of(F, F, F, F, F), List.of(F, F, F))));
        assertInstanceOf(NodeSupport.Declined.class, CudaOps.support(node("LayerNormalization", 17,
                List.of(F, F, F), List.of(F, ElementType.BFLOAT16))));
    }
}
