package dev.javaep.cuda.kernel;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.cuda.driver.Nvrtc;
import dev.javaep.spi.Node;
import dev.javaep.spi.NodeSupport;

/** What JavaCuda answers for a row compiled from CUDA C: where NVRTC is, it compiles the node; where not, it declines and says why. */
public final class NvrtcRows {
    private NvrtcRows() {
    }

    public static void assertCompiledWhereNvrtcIs(Node node) {
        NodeSupport support = CudaOps.support(node);
        if (CudaKernelLibrary.compilesSources()) {
            assertInstanceOf(NodeSupport.Compiled.class, support, node + ": " + support);
        } else {
            var declined = assertInstanceOf(NodeSupport.Declined.class, support, node.toString());
            assertTrue(declined.reason().contains(Nvrtc.absenceReason()), declined.reason());
        }
    }
}
