package dev.javaep.harness.kernels;

import dev.javaep.spi.ExecutionProvider;
import dev.javaep.spi.HardwareDevice;
import dev.javaep.harness.TestHostFactory;
import java.util.List;
import java.util.Map;

/**
 * The factory of {@link JavaKernelRegistryTestExecutionProvider}, an EP that runs nodes only through per-op
 * kernels. Listed in the test resources' {@code META-INF/services}, so an ORT host in the test JVM that
 * registers libjavaep sees it beside JavaCpu (the loader joins this JVM and discovers factories on its class
 * path).
 */
public final class JavaKernelRegistryTestFactory extends TestHostFactory {

    public JavaKernelRegistryTestFactory() {
        super(JavaKernelRegistryTestExecutionProvider.NAME);
    }

    @Override
    public ExecutionProvider createExecutionProvider(List<HardwareDevice> devices, Map<String, String> sessionOptions) {
        return new JavaKernelRegistryTestExecutionProvider();
    }
}
