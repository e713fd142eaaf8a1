package dev.javaep.cuda.kernel.reduction;

import static dev.javaep.cuda.kernel.BothBackends.node;
import static dev.javaep.cuda.kernel.BothBackends.value;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.cuda.kernel.CudaKernelLibrary;
import dev.javaep.cuda.kernel.CudaOps;
import dev.javaep.cuda.kernel.TestNodes;
import dev.javaep.spi.Attribute;
import dev.javaep.spi.DeclineCode;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import dev.javaep.spi.NodeSupport;
import dev.javaep.spi.ops.OpSchema;
import dev.javaep.spi.ops.ReductionOps;
import java.util.List;
import org.junit.jupiter.api.Test;

/** JavaCuda's reduction rows, judged without a GPU: every schema has one, and CUDA C rows need NVRTC. */
class ReductionKernelsTest {
    private static final ElementType F32 = ElementType.FLOAT;
    private static final ElementType F16 = ElementType.FLOAT16;

    @Test
    void everySchemaOfTheFamilyHasARow() {
        List<OpSchema> rows = ReductionKernels.rows().stream().map(r -> r.schema()).toList();
        assertEquals(ReductionOps.SCHEMAS.size(), rows.size());
        assertTrue(rows.containsAll(ReductionOps.SCHEMAS));
    }

    @Test
    void cudaCRowsNeedNvrtcAndFloat32SoftmaxDoesNot() {
        Node mean = node("ReduceMean", 18, List.of(value("x", F16, 2, 3), value("axes", ElementType.INT64, 1)), value("y", F16, 2, 1));
        Node softmax = node("Softmax", 13, List.of(value("x", F32, 2, 3)), value("y", F32, 2, 3));
        Node logSoftmax = node("LogSoftmax", 13, List.of(value("x", F32, 2, 3)), value("y", F32, 2, 3));
        assertTrue(CudaOps.support(softmax).isSupported(), "float32 Softmax is generated PTX");
        for (Node n : List.of(mean, logSoftmax)) {
            TestNodes.assertCompiledUnlessNvrtcIsAbsent(n);
        }
    }

    @Test
    void malformedAndUnimplementedNodesAreDeclined() {
        Node axisOutside = node("ArgMax", 13, List.of(value("x", F32, 2, 3)), value("y", ElementType.INT64, 2),
                new Attribute.IntValue("axis", 2));
        Node attributeAxisOutside = node("ReduceSum", 11, List.of(value("x", F32, 2, 3)), value("y", F32, 2),
                new Attribute.IntList("axes", List.of(-3L)));
        Node doubles = node("ReduceMax", 18, List.of(value("x", ElementType.DOUBLE, 2, 3)), value("y", ElementType.DOUBLE, 1, 1));
        Node axesAsAttributeAt18 = node("ReduceMean", 18, List.of(value("x", F32, 2, 3)), value("y", F32, 2),
                new Attribute.IntList("axes", List.of(1L)));
        if (CudaKernelLibrary.compilesSources()) {
            assertEquals(DeclineCode.ATTRIBUTE, declined(axisOutside));
            assertEquals(DeclineCode.ATTRIBUTE, declined(attributeAxisOutside));
        }
        assertEquals(DeclineCode.ELEMENT_TYPE, declined(doubles));
        assertEquals(DeclineCode.ATTRIBUTE, declined(axesAsAttributeAt18), "ReduceMean-18 has no axes attribute");
    }

    private static DeclineCode declined(Node n) {
        return assertInstanceOf(NodeSupport.Declined.class, CudaOps.support(n), n::toString).code();
    }
}
