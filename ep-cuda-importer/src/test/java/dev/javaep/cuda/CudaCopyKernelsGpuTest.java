package dev.javaep.cuda;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import dev.javaep.cuda.driver.CudaDriver;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Tensor;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** MemcpyFromHost and MemcpyToHost on GPU 0: a round trip through device memory on a stream, from pageable and from pinned host memory. */
@Tag("gpu")
class CudaCopyKernelsGpuTest {
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
                // pageable → device → pinned
                Tensor pageable = new CopyContext.Plain(ElementType.FLOAT, shape, arena.allocateFrom(JAVA_FLOAT, values));
                CopyContext up = new CopyContext(pageable, bytes -> MemorySegment.ofAddress(onDevice), stream);
                new CudaCopyKernels.HostToDevice(device).compute(up);
                Tensor device0 = up.output();
                CopyContext down = new CopyContext(device0, bytes -> MemorySegment.ofAddress(pinned).reinterpret(bytes), stream);
                new CudaCopyKernels.DeviceToHost(device).compute(down);
                driver.streamSynchronize(stream);
                Tensor pinnedOut = down.output();
                assertArrayEquals(values, pinnedOut.data().toArray(JAVA_FLOAT));
                // pinned → device → pageable
                driver.memsetD32Async(onDevice, 0, n, stream);
                new CudaCopyKernels.HostToDevice(device).compute(new CopyContext(pinnedOut, bytes -> MemorySegment.ofAddress(onDevice), stream));
                CopyContext back = new CopyContext(device0, bytes -> arena.allocate(bytes, 16), stream);
                new CudaCopyKernels.DeviceToHost(device).compute(back);
                driver.streamSynchronize(stream);
                assertArrayEquals(values, back.output().data().toArray(JAVA_FLOAT));
            } finally {
                driver.memFree(onDevice);
                driver.memFreeHost(pinned);
                driver.streamDestroy(stream);
            }
        }
    }
}
