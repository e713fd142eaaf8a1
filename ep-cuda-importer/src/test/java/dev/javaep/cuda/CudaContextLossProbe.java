package dev.javaep.cuda;

import static dev.javaep.cuda.kernel.Groups.fused;
import static dev.javaep.cuda.kernel.Groups.group;
import static dev.javaep.cuda.kernel.Groups.node;

import dev.javaep.cuda.driver.CudaDriver;
import dev.javaep.cuda.kernel.CudaSubgraphProgram;
import dev.javaep.cuda.kernel.DeviceRunContext;
import dev.javaep.spi.DataTransfer;
import dev.javaep.spi.ExternalMemoryDescriptor;
import dev.javaep.spi.ExternalMemoryType;
import dev.javaep.spi.MemoryKind;
import dev.javaep.spi.MemoryLocation;
import dev.javaep.spi.StreamNotification;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
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
        CudaStream stream = new CudaStream(device);
        CudaDeviceAllocator allocator = new CudaDeviceAllocator(device);
        CudaPinnedAllocator pinned = new CudaPinnedAllocator(device);
        long deviceBuffer = allocator.allocate(64, stream.handle());
        long pinnedBuffer = pinned.allocate(64);
        StreamNotification notification = stream.createNotification();
        JavaCudaExecutionProvider ep = new JavaCudaExecutionProvider(device);
        CudaDevice sameContext = CudaDevice.open(driver, 0); // another object on the same primary context
        CudaSubgraphProgram program = CudaSubgraphProgram.compile(
                group(node("Add", List.of("x", "y"), "sum"), node("Relu", List.of("sum"), "out")),
                fused(List.of("x", "y"), List.of("out")), device);
        DeviceRunContext context = new DeviceRunContext(driver, stream.handle(), 1,
                new float[][] {{-1, 2}, {0.5f, 0.5f}}, new long[][] {{2}, {2}});
        program.compute(context);
        out.println("before: " + Arrays.toString(context.output(0)));

        FaultingKernel.launch(device, stream.handle());
        out.println("launched: " + !device.isLost());
        try {
            stream.flush();
            out.println("first error: none");
        } catch (RuntimeException e) {
            out.println("first error: " + e.getClass().getSimpleName() + ": " + e.getMessage().replace('\n', ' '));
        }
        out.println("lost: " + device.contextLoss().map(Object::toString).orElse("no"));

        CudaDataTransfer transfer = new CudaDataTransfer(Map.of(0, device));
        MemoryLocation gpu = JavaCudaExecutionProviderFactory.memorySpace(0, MemoryKind.DEVICE).location();
        CudaExternalResourceImporter importer = new CudaExternalResourceImporter(device);
        Map<String, Runnable> calls = new LinkedHashMap<>();
        calls.put("Flush", stream::flush);
        calls.put("AllocOnStream", () -> allocator.allocate(64, stream.handle()));
        calls.put("Alloc", () -> allocator.allocate(64));
        calls.put("PinnedAlloc", () -> pinned.allocate(64));
        calls.put("CopyTensors", () -> transfer.copy(List.of(
                new DataTransfer.Copy(pinnedBuffer, MemoryLocation.HOST, deviceBuffer, gpu, 64, stream.handle()))));
        calls.put("CreateSyncStream", () -> new CudaStream(device));
        calls.put("NotificationActivate", notification::activate);
        calls.put("Compute", () -> program.compute(context));
        calls.put("MemcpyFromHost", () -> new CudaCopyKernels.HostToDevice(device).compute(context));
        calls.put("CreateEp", () -> new JavaCudaExecutionProvider(device));
        calls.put("Sync", ep::synchronize);
        calls.put("ImportMemory", () -> importer.importMemory(
                new ExternalMemoryDescriptor(ExternalMemoryType.VK_MEMORY_OPAQUE_FD, 1_000_000, 4096, 0)));
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
            allocator.free(deviceBuffer);
            pinned.free(pinnedBuffer);
            notification.close();
            stream.close();
            allocator.close();
            pinned.close();
            program.close();
            ep.close();
            sameContext.close();
            device.close();
            out.println("releases: quiet");
        } catch (RuntimeException e) {
            out.println("releases: " + e.getClass().getSimpleName() + ": " + e.getMessage().replace('\n', ' '));
        }
        out.println("done: true");
    }
}
