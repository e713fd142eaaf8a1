package dev.javaep.cuda.kernel;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.cuda.driver.Nvrtc;
import dev.javaep.spi.Node;
import dev.javaep.spi.NodeSupport;

/**
 * What JavaCuda's kernel table makes of a test node. The nodes themselves come from JavaCpu's test jar
 * ({@code dev.javaep.cpu.kernel.TestNodes}): both backends' tables are tested with the same node builder.
 */
public final class TestNodes {
    private TestNodes() {}

    /**
     * Asserts what JavaCuda makes of a node its CUDA C kernels compute: compiled where NVRTC is present, declined
     * for NVRTC's absence (with the reason that names what is missing) where it is not.
     */
    public static void assertCompiledUnlessNvrtcIsAbsent(Node node) {
        NodeSupport support = CudaOps.support(node);
        if (CudaKernelLibrary.compilesSources()) {
            assertInstanceOf(NodeSupport.Compiled.class, support, node + ": " + support);
        } else {
            var declined = assertInstanceOf(NodeSupport.Declined.class, support, node.toString());
            assertTrue(declined.reason().contains(Nvrtc.absenceReason()), declined.reason());
        }
    }
}
