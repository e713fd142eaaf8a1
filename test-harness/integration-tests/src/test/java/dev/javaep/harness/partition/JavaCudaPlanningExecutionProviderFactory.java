package dev.javaep.harness.partition;

import dev.javaep.cuda.kernel.CudaOps;
import dev.javaep.spi.CompiledNode;
import dev.javaep.spi.ExecutionProvider;
import dev.javaep.spi.ExecutionProviderFactory;
import dev.javaep.spi.Graph;
import dev.javaep.spi.HardwareDevice;
import dev.javaep.harness.TestHostFactory;
import dev.javaep.spi.Node;
import dev.javaep.spi.NodeSupport;
import java.util.List;
import java.util.Map;

/**
 * JavaCudaExecutionProvider's node decisions ({@link CudaOps#support}) on the host CPU, so that
 * GetCapability over any graph can be tested on machines without a GPU: the EP claims exactly what
 * JavaCuda would claim, and its compiled nodes are never meant to run (they fail the Run if they are).
 *
 * <p>Listed in the test classes' {@code META-INF/services/dev.javaep.spi.ExecutionProviderFactory}: the
 * in-JVM integration tests' libjavaep joins the failsafe JVM, whose class path holds the test classes,
 * so every registration there offers this EP beside JavaCpu and JavaCuda. (The C-host fault tests run
 * their factories from jars they build; this EP never reaches the distribution.)
 */
public final class JavaCudaPlanningExecutionProviderFactory extends TestHostFactory {
    public static final String NAME = "JavaCudaPlanningExecutionProvider";

    public JavaCudaPlanningExecutionProviderFactory() {
        super(NAME);
    }

    @Override
    public ExecutionProvider createExecutionProvider(List<HardwareDevice> devices, Map<String, String> sessionOptions) {
        return new PlanningProvider();
    }

    /** JavaCuda's answers, translated to {@link NodeSupport} the way JavaCudaExecutionProvider does. */
    static NodeSupport cudaSupport(Node node) {
        return CudaOps.support(node);
    }

    private static final class PlanningProvider implements ExecutionProvider {
        @Override
        public String name() {
            return NAME;
        }

        @Override
        public NodeSupport support(Node node) {
            return cudaSupport(node);
        }

        /** Checks ORT hands back only nodes this EP claimed; the result refuses to run. */
        @Override
        public CompiledNode compile(Graph subgraph, Node fusedNode) {
            for (Node node : subgraph.nodes()) {
                if (!cudaSupport(node).isSupported()) {
                    throw new IllegalStateException(NAME + " was asked to compile " + node + ", which it did not claim");
                }
            }
            String what = "'" + fusedNode.name() + "' (" + subgraph.nodes().size() + " nodes)";
            return context -> {
                throw new UnsupportedOperationException(NAME + " only plans: its compiled node " + what
                        + " is not meant to run; run models on JavaCudaExecutionProvider");
            };
        }
    }
}
