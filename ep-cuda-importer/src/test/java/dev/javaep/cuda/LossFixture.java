package dev.javaep.cuda;

import static dev.javaep.cuda.kernel.Groups.fused;
import static dev.javaep.cuda.kernel.Groups.group;
import static dev.javaep.cuda.kernel.Groups.node;

import dev.javaep.cuda.kernel.CudaSubgraphProgram;
import dev.javaep.cuda.kernel.DeviceRunContext;
import dev.javaep.spi.DataTransfer;
import dev.javaep.spi.ExternalMemoryDescriptor;
import dev.javaep.spi.ExternalMemoryType;
import dev.javaep.spi.MemoryKind;
import dev.javaep.spi.MemoryLocation;
import dev.javaep.spi.StreamNotification;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the context-loss checks hold on a device before its kernel faults ({@link CudaContextLossProbe} on a GPU,
 * {@code CudaContextLossTest} over the stand-in libcuda), the entry points they call after it, and the releases:
 * a stream with a notification, both allocators with a buffer each, an EP, and a compiled Add+Relu group that ran once.
 */
record LossFixture(CudaDevice device, CudaStream stream, CudaDeviceAllocator allocator, CudaPinnedAllocator pinned,
                   long deviceBuffer, long pinnedBuffer, StreamNotification notification, JavaCudaExecutionProvider ep,
                   CudaSubgraphProgram program, DeviceRunContext context) {

    /** Opens everything on {@code device} and runs the group once (its output is then [0, 2.5]). */
    static LossFixture open(CudaDevice device) {
        CudaStream stream = new CudaStream(device);
        CudaDeviceAllocator allocator = new CudaDeviceAllocator(device);
        CudaPinnedAllocator pinned = new CudaPinnedAllocator(device);
        long deviceBuffer = allocator.allocate(64, stream.handle());
        long pinnedBuffer = pinned.allocate(64);
        StreamNotification notification = stream.createNotification();
        JavaCudaExecutionProvider ep = new JavaCudaExecutionProvider(device);
        CudaSubgraphProgram program = addRelu(device);
        DeviceRunContext context = new DeviceRunContext(device.driver(), stream.handle(), 1,
                new float[][] {{-1, 2}, {0.5f, 0.5f}}, new long[][] {{2}, {2}});
        program.compute(context);
        return new LossFixture(device, stream, allocator, pinned, deviceBuffer, pinnedBuffer, notification, ep, program,
                context);
    }

    /** The group the checks run: out = Relu(x + y). */
    static CudaSubgraphProgram addRelu(CudaDevice on) {
        return CudaSubgraphProgram.compile(group(node("Add", List.of("x", "y"), "sum"), node("Relu", List.of("sum"), "out")),
                fused(List.of("x", "y"), List.of("out")), on);
    }

    /** The entry points both checks call after the loss, by the names the probe prints; each must fail fast. */
    Map<String, Runnable> laterCalls(CudaExternalResourceImporter importer) {
        CudaDataTransfer transfer = new CudaDataTransfer(Map.of(0, device));
        MemoryLocation gpu = JavaCudaExecutionProviderFactory.memorySpace(0, MemoryKind.DEVICE).location();
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
        calls.put("CreateEp", () -> new JavaCudaExecutionProvider(device));
        calls.put("Sync", ep::synchronize);
        calls.put("ImportMemory", () -> importer.importMemory(
                new ExternalMemoryDescriptor(ExternalMemoryType.VK_MEMORY_OPAQUE_FD, 1_000_000, 4096, 0)));
        return calls;
    }

    /** Frees the buffers and closes everything, as ORT would at the end of the session. */
    void release() {
        allocator.free(deviceBuffer);
        pinned.free(pinnedBuffer);
        notification.close();
        stream.close();
        allocator.close();
        pinned.close();
        program.close();
        ep.close();
    }
}
