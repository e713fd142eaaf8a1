package dev.javaep.cuda.kernel.matmul;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.cuda.kernel.CudaKernelLibrary;
import dev.javaep.cuda.kernel.CudaOps;
import dev.javaep.cuda.kernel.BothBackends;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import dev.javaep.spi.NodeSupport;
import dev.javaep.spi.ops.MatMulOps;
import dev.javaep.spi.ops.OpSchema;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** JavaCuda's matrix-product rows, judged without a GPU. */
class MatMulKernelsTest {
    @Test
    void theRowsAreEveryMatMulAndGemmVersion() {
        List<OpSchema> rows = MatMulKernels.rows().stream().map(r -> r.schema()).toList();
        assertEquals(Stream.concat(MatMulOps.MATMUL.stream(), MatMulOps.GEMM.stream()).toList(), rows, "Einsum is JavaCpu's only");
    }

    @Test
    void float32NeverNeedsNvrtcFloat16Does() {
        Node f32 = BothBackends.node("MatMul", 13, List.of(BothBackends.value("a", ElementType.FLOAT, 2, 1, 3, 4),
                BothBackends.value("b", ElementType.FLOAT, 5, 4, 2)), BothBackends.value("y", ElementType.FLOAT, 2, 5, 3, 2));
        assertTrue(CudaOps.support(f32).isSupported(), "broadcast batches fall back on one PTX launch per matrix");
        Node f16 = BothBackends.node("Gemm", 13, List.of(BothBackends.value("a", ElementType.FLOAT16, 2, 3),
                BothBackends.value("b", ElementType.FLOAT16, 3, 4)), BothBackends.value("y", ElementType.FLOAT16, 2, 4));
        NodeSupport s = CudaOps.support(f16);
        if (CudaKernelLibrary.compilesSources()) {
            assertTrue(s.isSupported(), s.toString());
        } else {
            assertTrue(assertInstanceOf(NodeSupport.Declined.class, s).reason().contains("CUDA C"), s.toString());
        }
    }
}
