package dev.javaep.cuda.kernel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.javaep.cuda.CudaDevice;
import dev.javaep.cuda.GpuOrSkip;
import dev.javaep.cuda.driver.CudaDriver;
import dev.javaep.cuda.driver.Nvrtc;
import dev.javaep.cuda.kernel.ptx.LaunchShape;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** A CUDA C kernel compiled by NVRTC for GPU 0 and launched through the library, in float32 and float16. */
@Tag("gpu")
class CudaSourceGpuTest {
    private static final String SCALE = """
            extern "C" __global__ void NAME(T* out, const T* in, float factor, long long n) {
                GRID_STRIDE(i, n) { st(out, i, ld(in, i) * factor + 1.0f); }
            }
            """;

    @Test
    void compilesAndRunsOneTemplateForFloatAndHalf() {
        CudaDriver driver = GpuOrSkip.driver();
        assumeTrue(Nvrtc.find().isPresent(), Nvrtc.absenceReason());
        System.out.println("NVRTC " + Nvrtc.find().orElseThrow().describe());
        try (CudaDevice device = CudaDevice.open(driver, 0); Arena arena = Arena.ofConfined()) {
            device.makeCurrent();
            int n = 1000;
            long in = driver.memAlloc(n * 4L);
            long out = driver.memAlloc(n * 4L);
            try {
                MemorySegment host = arena.allocate(n * 4L);
                for (int i = 0; i < n; i++) {
                    host.setAtIndex(ValueLayout.JAVA_FLOAT, i, i * 0.5f);
                }
                MemorySegment result = scale(device, arena, "float", host, in, out, n);
                float[] expected = new float[n];
                for (int i = 0; i < n; i++) {
                    expected[i] = i * 0.5f * 2f + 1f;
                }
                assertArrayEquals(expected, result.toArray(ValueLayout.JAVA_FLOAT));

                // float16: 0.25 steps up to 250 are exact in half, and so is x*2+1
                MemorySegment halfs = arena.allocate(n * 2L);
                for (int i = 0; i < n; i++) {
                    halfs.setAtIndex(ValueLayout.JAVA_SHORT, i, Float.floatToFloat16(i * 0.25f));
                }
                MemorySegment back = scale(device, arena, "half", halfs, in, out, n);
                for (int i = 0; i < n; i++) {
                    expected[i] = Float.float16ToFloat(Float.floatToFloat16(i * 0.25f * 2f + 1f));
                    result.setAtIndex(ValueLayout.JAVA_FLOAT, i, Float.float16ToFloat(back.getAtIndex(ValueLayout.JAVA_SHORT, i)));
                }
                assertArrayEquals(expected, result.toArray(ValueLayout.JAVA_FLOAT));
            } finally {
                driver.memFree(in);
                driver.memFree(out);
            }
        }
    }

    /** SCALE on {@code type} ({@code float} or {@code half}) over the {@code n} elements of {@code input}: the output, read back. */
    private static MemorySegment scale(CudaDevice device, Arena arena, String type, MemorySegment input, long in, long out,
                                       int n) {
        CudaDriver driver = device.driver();
        driver.memcpyHtoD(in, input, input.byteSize());
        String entry = "scale_" + type;
        CudaSource source = CudaSource.of(entry, SCALE.replace("NAME", entry), Map.of("T", type));
        device.kernels().launch(source, LaunchShape.linear(n, 64), 0, 0,
                KernelArguments.begin().u64(out).u64(in).f32(2f).i64(n));
        driver.ctxSynchronize();
        MemorySegment result = arena.allocate(input.byteSize());
        driver.memcpyDtoH(result, out, input.byteSize());
        return result;
    }
}
