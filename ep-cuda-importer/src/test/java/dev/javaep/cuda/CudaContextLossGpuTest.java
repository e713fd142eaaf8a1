package dev.javaep.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.ort.OrtException;
import java.io.File;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A kernel that faults on GPU 0 is contained: the first error names the fault, every later call on the
 * device fails fast naming the lost context, releases are quiet, and the process lives on and exits
 * normally. The fault runs in a child JVM ({@link CudaContextLossProbe}): it loses the device's primary
 * context for the rest of that process, and the GPU suite runs every other GPU test in this one.
 */
@Tag("gpu")
class CudaContextLossGpuTest {
    private static final List<String> LATER_CALLS = List.of("Flush", "AllocOnStream", "Alloc", "PinnedAlloc", "CopyTensors",
            "CreateSyncStream", "NotificationActivate", "Compute", "MemcpyFromHost", "CreateEp", "Sync", "ImportMemory",
            "AnotherDeviceObject");

    @Test
    void aKernelFaultIsContainedAndTheProcessLivesOn() throws Exception {
        GpuOrSkip.driver();
        // the probe's own classes, JavaCuda, the runtime, the SPI and JavaCpu (whose kernels do host-side shape arithmetic)
        String classPath = Stream.of(CudaContextLossProbe.class, CudaDevice.class, OrtException.class,
                        dev.javaep.spi.KernelContext.class, dev.javaep.cpu.kernel.CpuKernels.class)
                .map(CudaContextLossGpuTest::location).distinct().collect(Collectors.joining(File.pathSeparator));
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process process = new ProcessBuilder(java.toString(), "--enable-native-access=ALL-UNNAMED", "-cp", classPath,
                CudaContextLossProbe.class.getName()).redirectErrorStream(true).start();
        process.getOutputStream().close();
        boolean exited = process.waitFor(120, TimeUnit.SECONDS);
        if (!exited) {
            process.destroyForcibly();
        }
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        System.out.println("CudaContextLossProbe:\n" + output);
        assertTrue(exited, "the probe did not finish in 120 s:\n" + output);
        assertEquals(0, process.exitValue(), "the process must survive the fault and exit normally:\n" + output);

        assertContained(output);
    }

    /** What the probe's lines must say: also checked over the stand-in libcuda by {@code CudaContextLossTest}. */
    static void assertContained(String output) {
        Map<String, String> facts = new LinkedHashMap<>();
        for (String line : output.split("\n")) {
            int colon = line.indexOf(": ");
            if (colon > 0) {
                facts.put(line.substring(0, colon), line.substring(colon + 2));
            }
        }
        assertEquals("[0.0, 2.5]", facts.get("before"), "the device worked before the fault");
        assertEquals("true", facts.get("launched"), "the launch succeeds; the fault surfaces later");
        String first = facts.get("first error");
        assertTrue(first.startsWith("CudaException: cuStreamSynchronize failed: CUDA_ERROR_ILLEGAL_ADDRESS (700)"), first);
        assertTrue(first.contains("unusable from now on (a kernel faulted)"), first);
        String expected = "CudaContextLostException: javaep: CUDA device 0 (" + facts.get("device") + ") is unusable: its"
                + " context was lost at cuStreamSynchronize with CUDA_ERROR_ILLEGAL_ADDRESS (a kernel faulted);"
                + " restart the process to use this GPU again";
        List<String> wrong = new ArrayList<>();
        for (String call : LATER_CALLS) {
            if (!expected.equals(facts.get("call " + call))) {
                wrong.add(call + " → " + facts.get("call " + call));
            }
        }
        assertEquals(List.of(), wrong, "every later call fails fast naming the lost context");
        for (String call : LATER_CALLS) {
            long micros = Long.parseLong(facts.get("micros " + call));
            assertTrue(micros < 50_000, call + " took " + micros + " µs: failing fast should not wait on the GPU");
        }
        assertEquals("quiet", facts.get("releases"));
        assertEquals("true", facts.get("done"));
    }

    private static String location(Class<?> type) {
        try {
            return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
