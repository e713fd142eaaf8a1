package dev.javaep.harness.faults;

import dev.javaep.spi.CompiledNode;
import dev.javaep.spi.DeclineCode;
import dev.javaep.spi.NodeSupport;
import dev.javaep.spi.ExecutionProvider;
import dev.javaep.spi.Graph;
import dev.javaep.spi.HardwareDevice;
import dev.javaep.spi.HostExecutionProviderFactory;
import dev.javaep.spi.Node;
import java.util.List;
import java.util.Map;

/**
 * An EP that claims every Add node and whose kernel throws during {@code Run}: the host must get a
 * failed Run with a clear status and live on.
 */
public final class ThrowingKernelFactory implements HostExecutionProviderFactory {
    public static final String NAME = "JavaThrowingKernelExecutionProvider";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String vendor() {
        return "javaep-tests";
    }

    @Override
    public String version() {
        return "1.0.0";
    }


    @Override
    public ExecutionProvider createExecutionProvider(List<HardwareDevice> devices, Map<String, String> sessionOptions) {
        return new ExecutionProvider() {
            @Override
            public String name() {
                return NAME;
            }

            @Override
            public NodeSupport support(Node node) {
                return node.opType().equals("Add") ? NodeSupport.compiled()
                        : NodeSupport.declined(DeclineCode.OP_TYPE, "this test EP runs Add only");
            }

            @Override
            public CompiledNode compile(Graph subgraph, Node fusedNode) {
                return context -> {
                    throw new ArithmeticException("this kernel always throws (fault injection)");
                };
            }
        };
    }
}
