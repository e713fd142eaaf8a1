package dev.javaep.cuda;


import dev.javaep.cuda.driver.CudaDriver;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.Map;

/**
 * Run by {@link CudaContextLossGpuTest} in a JVM of its own, because a kernel fault loses GPU 0's primary
 * context for the rest of the process: faults the context with {@link FaultingKernel}, then calls every
 * kind of entry point on the device and prints what each did, one {@code key: value} line per fact. It
 * exits normally whatever happens; the parent judges the lines and the exit status.
 */
public final class CudaContextLossProbe {
    private CudaContextLossProbe() {}

    public static void main(String[] args) throws Exception {
        run(CudaDriver.load(), System.out);
    }

    /** The probe over {@code driver}'s device 0 ({@code CudaContextLossTest} runs it over the stand-in libcuda). */
    static void run(CudaDriver driver, PrintStream out) {
        CudaDevice device = CudaDevice.open(driver, 0);
        out.println("device: " + device.info().name());
        LossFixture held = LossFixture.open(device);
        CudaStream stream = held.stream();
        CudaDevice sameContext = CudaDevice.open(driver, 0); // another object on the same primary context
        out.println("before: " + Arrays.toString(held.context().output(0)));

        FaultingKernel.launch(device, stream.handle());
        out.println("launched: " + !device.isLost());
        try {
            stream.flush();
            out.println("first error: none");
        } catch (RuntimeException e) {
            out.println("first error: " + e.getClass().getSimpleName() + ": " + e.getMessage().replace('\n', ' '));
        }
        out.println("lost: " + device.contextLoss().map(Object::toString).orElse("no"));

        Map<String, Runnable> calls = held.laterCalls(new CudaExternalResourceImporter(device));
        calls.put("MemcpyFromHost", () -> new CudaCopyKernels.HostToDevice(device).compute(held.context()));
        calls.put("AnotherDeviceObject", sameContext::makeCurrent);
        calls.forEach((name, call) -> {
            long start = System.nanoTime();
            try {
                call.run();
                out.println("call " + name + ": returned");
            } catch (RuntimeException e) {
                out.println("call " + name + ": " + e.getClass().getSimpleName() + ": "
                        + e.getMessage().replace('\n', ' '));
            }
            out.println("micros " + name + ": " + (System.nanoTime() - start) / 1000);
        });

        try {
            held.release();
            sameContext.close();
            device.close();
            out.println("releases: quiet");
        } catch (RuntimeException e) {
            out.println("releases: " + e.getClass().getSimpleName() + ": " + e.getMessage().replace('\n', ' '));
        }
        out.println("done: true");
    }
}
