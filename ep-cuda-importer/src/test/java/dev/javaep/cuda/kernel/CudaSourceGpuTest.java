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
                driver.memcpyHtoD(in, host, n * 4L);
                CudaSource f32 = CudaSource.of("scale_f32", SCALE.replace("NAME", "scale_f32"), Map.of("T", "float"));
                device.kernels().launch(f32, LaunchShape.linear(n, 64), 0, 0,
                        KernelArguments.begin().u64(out).u64(in).f32(2f).i64(n));
                driver.ctxSynchronize();
                MemorySegment result = arena.allocate(n * 4L);
                driver.memcpyDtoH(result, out, n * 4L);
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
                driver.memcpyHtoD(in, halfs, n * 2L);
                CudaSource f16 = CudaSource.of("scale_f16", SCALE.replace("NAME", "scale_f16"), Map.of("T", "half"));
                device.kernels().launch(f16, LaunchShape.linear(n, 64), 0, 0,
                        KernelArguments.begin().u64(out).u64(in).f32(2f).i64(n));
                driver.ctxSynchronize();
                MemorySegment back = arena.allocate(n * 2L);
                driver.memcpyDtoH(back, out, n * 2L);
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
}
