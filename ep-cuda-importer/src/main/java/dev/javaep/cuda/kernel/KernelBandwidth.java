package dev.javaep.cuda.kernel;

import dev.javaep.cuda.CudaDevice;
import dev.javaep.cuda.driver.CudaDriver;
import dev.javaep.cuda.kernel.ptx.BroadcastLayout;
import dev.javaep.cuda.kernel.ptx.CudaKernel;
import java.util.ArrayList;
import java.util.List;

/**
 * Achieved memory bandwidth of the elementwise kernels, timed with CUDA events on one stream, next to
 * a device-to-device copy of the same buffers measured in the same run (the practical peak).
 */
public final class KernelBandwidth {
    private KernelBandwidth() {}

    /** One timed operation: {@code bytes} read plus written per repetition. */
    public record Measurement(String operation, long bytes, double micros) {
        public double gigabytesPerSecond() {
            return bytes / (micros * 1e3);
        }
    }

    /** Times each operation over {@code elements} floats, {@code repetitions} times after a warm-up. */
    public static List<Measurement> measure(CudaDevice device, long elements, int repetitions) {
        device.makeCurrent();
        CudaDriver driver = device.driver();
        CudaKernelLibrary kernels = device.kernels();
        long bytes = elements * 4;
        long a = driver.memAlloc(bytes);
        long b = driver.memAlloc(bytes);
        long y = driver.memAlloc(bytes);
        long channel = driver.memAlloc(16);
        long stream = driver.streamCreate(CudaDriver.STREAM_NON_BLOCKING);
        long start = driver.eventCreate(CudaDriver.EVENT_DEFAULT);
        long end = driver.eventCreate(CudaDriver.EVENT_DEFAULT);
        try {
            driver.memsetD32Async(a, Float.floatToRawIntBits(1.5f), elements, stream);
            driver.memsetD32Async(b, Float.floatToRawIntBits(-0.5f), elements, stream);
            driver.memsetD32Async(channel, Float.floatToRawIntBits(2f), 4, stream);
            long[] image = {elements / 4, 4};
            BroadcastLayout layout = BroadcastLayout.of(image, image, new long[] {4});
            List<Measurement> results = new ArrayList<>();
            results.add(time(driver, stream, start, end, repetitions, "device-to-device copy (cuMemcpyDtoDAsync)", 2 * bytes,
                    () -> driver.memcpyDtoDAsync(y, a, bytes, stream)));
            results.add(time(driver, stream, start, end, repetitions, "Add, equal shapes (ew_add_f32_contig4)", 3 * bytes,
                    () -> CudaNode.launch1d(kernels, CudaKernel.EW_ADD_F32_CONTIG4, elements / 4, stream,
                            KernelArguments.begin().u64(y).u64(a).u64(b).u64(elements / 4))));
            results.add(time(driver, stream, start, end, repetitions, "Mul by a [4] vector (ew_mul_f32_bcast)", 2 * bytes,
                    () -> CudaNode.launch1d(kernels, CudaKernel.EW_MUL_F32_BCAST, elements, stream,
                            KernelArguments.begin().u64(y).u64(a).u64(channel).u64(elements).u32(layout.rank()).layout(layout))));
            results.add(time(driver, stream, start, end, repetitions, "Relu (un_relu_f32_v4)", 2 * bytes,
                    () -> CudaNode.launch1d(kernels, CudaKernel.UN_RELU_F32_V4, elements / 4, stream,
                            KernelArguments.begin().u64(y).u64(a).u64(elements / 4))));
            results.add(time(driver, stream, start, end, repetitions, "Sigmoid (un_sigmoid_f32_v4)", 2 * bytes,
                    () -> CudaNode.launch1d(kernels, CudaKernel.UN_SIGMOID_F32_V4, elements / 4, stream,
                            KernelArguments.begin().u64(y).u64(a).u64(elements / 4))));
            return results;
        } finally {
            driver.streamSynchronize(stream);
            driver.eventDestroy(start);
            driver.eventDestroy(end);
            driver.streamDestroy(stream);
            driver.memFree(a);
            driver.memFree(b);
            driver.memFree(y);
            driver.memFree(channel);
        }
    }

    private static Measurement time(CudaDriver driver, long stream, long start, long end, int repetitions, String operation,
                                    long bytes, Runnable launch) {
        for (int i = 0; i < 3; i++) {
            launch.run();
        }
        driver.eventRecord(start, stream);
        for (int i = 0; i < repetitions; i++) {
            launch.run();
        }
        driver.eventRecord(end, stream);
        driver.eventSynchronize(end);
        return new Measurement(operation, bytes, driver.eventElapsedMillis(start, end) * 1e3 / repetitions);
    }
}
