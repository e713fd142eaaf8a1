package dev.javaep.harness.faults;

import dev.javaep.harness.TestExecutionProvider;
import dev.javaep.harness.TestHostFactory;
import dev.javaep.spi.DeclineCode;
import dev.javaep.spi.ExecutionProvider;
import dev.javaep.spi.HardwareDevice;
import dev.javaep.spi.NodeSupport;
import java.util.List;
import java.util.Map;

/**
 * An EP that claims every Add node and whose kernel throws during {@code Run}: the host must get a
 * failed Run with a clear status and live on.
 */
public final class ThrowingKernelFactory extends TestHostFactory {
    public static final String NAME = "JavaThrowingKernelExecutionProvider";

    public ThrowingKernelFactory() {
        super(NAME);
    }

    @Override
    public ExecutionProvider createExecutionProvider(List<HardwareDevice> devices, Map<String, String> sessionOptions) {
        return TestExecutionProvider.compiling(NAME,
                node -> node.opType().equals("Add") ? NodeSupport.compiled()
                        : NodeSupport.declined(DeclineCode.OP_TYPE, "this test EP runs Add only"),
                context -> {
                    throw new ArithmeticException("this kernel always throws (fault injection)");
                });
    }
}
