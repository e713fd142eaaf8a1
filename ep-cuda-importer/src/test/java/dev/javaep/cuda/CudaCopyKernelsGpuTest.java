package dev.javaep.cuda;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import dev.javaep.cuda.driver.CudaDriver;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.KernelContext;
import dev.javaep.spi.Tensor;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** MemcpyFromHost and MemcpyToHost on GPU 0: a round trip through device memory on a stream, from pageable and from pinned host memory. */
@Tag("gpu")
class CudaCopyKernelsGpuTest {
    private record Plain(ElementType elementType, long[] shape, MemorySegment data) implements Tensor {}

    private record Context(Tensor in, Tensor out, long computeStream) implements KernelContext {
        @Override
        public int inputCount() {
            return 1;
        }

        @Override
        public int outputCount() {
            return 1;
        }

        @Override
        public Tensor input(int index) {
            return in;
        }

        @Override
        public Tensor output(int index, long[] shape) {
            return out;
        }
    }

    @Test
    void roundTripThroughTheDeviceOnAStream() {
        CudaDriver driver = GpuOrSkip.driver();
        try (CudaDevice device = CudaDevice.open(driver, 0); Arena arena = Arena.ofConfined()) {
            device.makeCurrent();
            long stream = driver.streamCreate(CudaDriver.STREAM_NON_BLOCKING);
            int n = 1 << 20;
            float[] values = new float[n];
            Random random = new Random(5);
            for (int i = 0; i < n; i++) {
                values[i] = random.nextFloat();
            }
            long[] shape = {1024, 1024};
            long onDevice = driver.memAlloc(4L * n);
            long pinned = driver.memAllocHost(4L * n);
            try {
                Tensor device0 = new Plain(ElementType.FLOAT, shape, MemorySegment.ofAddress(onDevice));
                // pageable → device → pinned
                Tensor pageable = new Plain(ElementType.FLOAT, shape, arena.allocateFrom(JAVA_FLOAT, values));
                new CudaCopyKernels.HostToDevice(device).compute(new Context(pageable, device0, stream));
                Tensor pinnedOut = new Plain(ElementType.FLOAT, shape, MemorySegment.ofAddress(pinned).reinterpret(4L * n));
                new CudaCopyKernels.DeviceToHost(device).compute(new Context(device0, pinnedOut, stream));
                driver.streamSynchronize(stream);
                assertArrayEquals(values, pinnedOut.data().toArray(JAVA_FLOAT));
                // pinned → device → pageable
                driver.memsetD32Async(onDevice, 0, n, stream);
                new CudaCopyKernels.HostToDevice(device).compute(new Context(pinnedOut, device0, stream));
                Tensor back = new Plain(ElementType.FLOAT, shape, arena.allocate(4L * n, 16));
                new CudaCopyKernels.DeviceToHost(device).compute(new Context(device0, back, stream));
                driver.streamSynchronize(stream);
                assertArrayEquals(values, back.data().toArray(JAVA_FLOAT));
            } finally {
                driver.memFree(onDevice);
                driver.memFreeHost(pinned);
                driver.streamDestroy(stream);
            }
        }
    }
}
