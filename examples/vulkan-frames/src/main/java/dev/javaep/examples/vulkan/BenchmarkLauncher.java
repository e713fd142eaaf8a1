package dev.javaep.examples.vulkan;

import dev.javaep.cuda.driver.CudaDriver;
import dev.javaep.cuda.driver.CudaUnavailableException;
import dev.javaep.examples.vulkan.InteropBenchmark.Unavailable;
import dev.javaep.host.OrtEnvironment;
import dev.javaep.host.OrtHost;
import dev.javaep.host.RunOptions;
import dev.javaep.ort.OrtException;
import java.nio.file.Path;

/**
 * What the GPU benchmarks here ({@code bench-interop}, {@code bench-import}) do before and after measuring: find
 * javaep's loader library, load CUDA's driver and ONNX Runtime, register javaep in an environment of its own and
 * unregister it after. Anything missing is {@link Unavailable}: exit status 3 with the reason on stderr.
 */
final class BenchmarkLauncher {
    private BenchmarkLauncher() {}

    /** A benchmark, given ORT with javaep registered in {@code env} and this process's CUDA driver; its exit status. */
    @FunctionalInterface
    interface Benchmark {
        int run(OrtHost host, OrtEnvironment env, CudaDriver driver) throws Unavailable;
    }

    /**
     * A benchmark's {@code main}: {@code args[0]} (default: the folder {@code -Djavaep.dist} names, else the working
     * directory) is the distribution whose libjavaep it registers as {@code registration}. Exits with the benchmark's
     * status, or 3 when it cannot run here ({@code command: cannot run here: why} on stderr).
     */
    static void main(String command, String registration, String[] args, Benchmark benchmark) {
        Path dist = Path.of(args.length > 0 ? args[0] : System.getProperty("javaep.dist", "."));
        Path loader = dist.resolve(System.getProperty("os.name").startsWith("Windows") ? "javaep.dll" : "libjavaep.so");
        int status;
        try {
            status = run(registration, loader, benchmark);
        } catch (Unavailable e) {
            System.err.println(command + ": cannot run here: " + e.getMessage());
            status = 3;
        }
        System.exit(status);
    }

    /** Runs {@code benchmark} with {@code loaderLibrary} registered as {@code registration}; unregisters it after. */
    static int run(String registration, Path loaderLibrary, Benchmark benchmark) throws Unavailable {
        CudaDriver driver;
        try {
            driver = CudaDriver.load();
        } catch (CudaUnavailableException e) {
            throw new Unavailable("no CUDA: " + e.getMessage());
        }
        OrtHost host;
        try {
            host = OrtHost.shared();
        } catch (IllegalStateException | UnsatisfiedLinkError e) {
            throw new Unavailable("no ONNX Runtime: " + e.getMessage());
        }
        if (host.api().version() < RunOptions.SYNC_STREAM_API) {
            throw new Unavailable("ONNX Runtime " + host.version() + " has no interop API (needs 1.24, API "
                    + RunOptions.SYNC_STREAM_API + ")");
        }
        try (OrtEnvironment env = host.createEnvironment(registration, OrtHost.LogLevel.ERROR)) {
            try {
                env.registerExecutionProviderLibrary(registration, loaderLibrary);
            } catch (OrtException e) {
                throw new Unavailable("cannot register " + loaderLibrary + ": " + e.getMessage());
            }
            try {
                return benchmark.run(host, env, driver);
            } finally {
                env.unregisterExecutionProviderLibrary(registration);
            }
        }
    }
}
