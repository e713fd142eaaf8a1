package dev.javaep.cpu;

import dev.javaep.spi.DeviceOffer;
import dev.javaep.spi.EpOptions;
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
    /**
     * Provider option: the threads that run a kernel (the Run's thread included). ORT keeps the session's
     * {@code intra_op_num_threads} in its own thread-pool parameters, which no API hands to a plugin EP (the session
     * config entries it does hand over do not hold it), so the thread count is this EP's option. Default 1 (the Run's
     * thread only): on a 16-core machine every exported network of the benchmarks ran slower split 16 ways than on one
     * thread (docs/benchmarks.md), the hand-offs costing more than the small kernels' work; {@code 0} asks for one
     * thread per available processor.
     */
    public static final String THREADS_OPTION = "intra_op_num_threads";

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
        return new JavaCpuExecutionProvider(threads(sessionOptions));
    }

    /** The {@link #THREADS_OPTION} among the session's entries ({@link EpOptions}): 1 when unset, 0 is one per processor. */
    static int threads(Map<String, String> sessionOptions) {
        int threads = EpOptions.wholeNumber(sessionOptions, NAME, THREADS_OPTION, 0, 1);
        return threads == 0 ? Runtime.getRuntime().availableProcessors() : threads;
    }
}
