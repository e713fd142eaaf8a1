package dev.javaep.cuda;

import dev.javaep.cuda.events.CudaMemcpyEvent;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.FlightRecorder;
import dev.javaep.spi.KernelContext;
import dev.javaep.spi.KernelDefinition;
import dev.javaep.spi.OpKernel;
import dev.javaep.spi.Tensor;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The copy kernels ORT inserts at every edge between a CPU node and a JavaCuda node: {@code MemcpyFromHost}
 * (input in host memory, output on the device) and {@code MemcpyToHost} (the reverse), queued on the Run's
 * stream like every other kernel. Without them ORT falls back to its CPU copy kernel, whose output its
 * planner puts in CPU memory: the next compiled node is then handed a host pointer.
 *
 * <p>From pageable host memory the driver stages the copy and returns once the source may be reused; into
 * pageable host memory the copy completes before returning. Only pinned memory overlaps with the stream,
 * and ORT orders the CPU consumers after the stream through its notifications.
 */
final class CudaCopyKernels {
    static final String FROM_HOST = "MemcpyFromHost";
    static final String TO_HOST = "MemcpyToHost";

    private CudaCopyKernels() {}

    /** Both kernels: ONNX domain, version 1 (the only one of these ORT-internal ops), any fixed-size element type ("T"). */
    static List<KernelDefinition> definitions(CudaDevice device) {
        Map<String, Set<ElementType>> anyFixedSize = Map.of("T", KernelDefinition.allFixedSizeTypes());
        return List.of(
                new KernelDefinition(FROM_HOST, "", 1, 1, anyFixedSize, Set.of(0), Set.of(),
                        info -> new HostToDevice(device)),
                new KernelDefinition(TO_HOST, "", 1, 1, anyFixedSize, Set.of(), Set.of(0),
                        info -> new DeviceToHost(device)));
    }

    /** {@code MemcpyFromHost}: cuMemcpyHtoDAsync on the Run's stream. */
    record HostToDevice(CudaDevice device) implements OpKernel {
        @Override
        public void compute(KernelContext context) {
            copy(device, context, CudaMemcpyEvent.Direction.HOST_TO_DEVICE);
        }
    }

    /** {@code MemcpyToHost}: cuMemcpyDtoHAsync on the Run's stream. */
    record DeviceToHost(CudaDevice device) implements OpKernel {
        @Override
        public void compute(KernelContext context) {
            copy(device, context, CudaMemcpyEvent.Direction.DEVICE_TO_HOST);
        }
    }

    /** Input 0 into output 0 of its shape, across the bus in {@code direction}, counted and recorded. */
    private static void copy(CudaDevice device, KernelContext context, CudaMemcpyEvent.Direction direction) {
        device.makeCurrent();
        boolean toDevice = direction == CudaMemcpyEvent.Direction.HOST_TO_DEVICE;
        Tensor in = context.input(0);
        Tensor out = context.output(0, in.shape());
        long bytes = in.byteSize();
        CudaTransferCounters.count(toDevice, !toDevice, bytes);
        if (bytes == 0) {
            return;
        }
        long stream = context.computeStream();
        CudaMemcpyEvent event = FlightRecorder.AVAILABLE ? CudaMemcpyEvent.beginIfRecorded() : null;
        if (toDevice) {
            device.driver().memcpyHtoDAsync(out.data().address(), in.data().address(), bytes, stream);
        } else {
            device.driver().memcpyDtoHAsync(out.data().address(), in.data().address(), bytes, stream);
        }
        finishWithoutStream(device, stream);
        if (event != null) {
            CudaMemcpyEvent.commit(event, bytes, direction, device.ordinal(), stream, toDevice ? FROM_HOST : TO_HOST);
        }
    }

    /** Without a stream of ORT's (never the case for a stream-aware EP) nothing would order the host reader after the copy. */
    private static void finishWithoutStream(CudaDevice device, long stream) {
        if (stream == 0) {
            device.driver().streamSynchronize(0L);
        }
    }
}
