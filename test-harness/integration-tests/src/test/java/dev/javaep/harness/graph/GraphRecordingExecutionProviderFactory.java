package dev.javaep.harness.graph;

import dev.javaep.harness.TestExecutionProvider;
import dev.javaep.harness.TestHostFactory;
import dev.javaep.spi.DeclineCode;
import dev.javaep.spi.ExecutionProvider;
import dev.javaep.spi.HardwareDevice;
import dev.javaep.spi.Node;
import dev.javaep.spi.NodeSupport;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * An EP that claims nothing and remembers every node GetCapability showed it, as javaep's graph
 * reader copied it: what tests read to check the reader against the model they wrote. Listed in the
 * test classes' {@code META-INF/services}, so the in-JVM integration tests' registrations offer it.
 */
public final class GraphRecordingExecutionProviderFactory extends TestHostFactory {
    public static final String NAME = "JavaGraphRecordingExecutionProvider";
    private static final ConcurrentLinkedQueue<Node> SEEN = new ConcurrentLinkedQueue<>();

    public GraphRecordingExecutionProviderFactory() {
        super(NAME);
    }

    /** The nodes seen since the last call, oldest first; clears the record. */
    public static List<Node> takeSeen() {
        List<Node> nodes = List.copyOf(SEEN);
        SEEN.clear();
        return nodes;
    }

    @Override
    public ExecutionProvider createExecutionProvider(List<HardwareDevice> devices, Map<String, String> sessionOptions) {
        return TestExecutionProvider.withKernels(NAME, node -> {
            SEEN.add(node);
            return NodeSupport.declined(DeclineCode.OP_TYPE, "this test EP only records what it is shown");
        }, List.of());
    }
}
