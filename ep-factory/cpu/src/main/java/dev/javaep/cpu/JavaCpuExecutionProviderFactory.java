package dev.javaep.cpu;

import dev.javaep.spi.DeviceOffer;
import dev.javaep.spi.ExecutionProvider;
import dev.javaep.spi.ExternalResourceImporter;
import dev.javaep.spi.HardwareDevice;
import dev.javaep.spi.HostExecutionProviderFactory;
import dev.javaep.spi.JavaepVersion;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** {@code JavaCpuExecutionProvider}: a pure-Java EP on the host CPU, runs anywhere a JVM runs. */
public final class JavaCpuExecutionProviderFactory implements HostExecutionProviderFactory {
    public static final String NAME = "JavaCpuExecutionProvider";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String vendor() {
        return "javaep";
    }

    @Override
    public String version() {
        return JavaepVersion.VERSION;
    }

    @Override
    public Map<String, String> offerMetadata() {
        return Map.of("javaep.kernels", "java");
    }

    /** Zero-copy imports of host-mappable memory; see {@link HostMemoryImporter}. */
    @Override
    public Optional<ExternalResourceImporter> createImporter(DeviceOffer offer) {
        return Optional.of(new HostMemoryImporter());
    }

    @Override
    public ExecutionProvider createExecutionProvider(List<HardwareDevice> devices, Map<String, String> sessionOptions) {
        return new JavaCpuExecutionProvider();
    }
}
