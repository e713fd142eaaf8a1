package dev.javaep.cuda.kernel.matmul;

import static dev.javaep.cuda.kernel.BothBackends.assertClose;
import static dev.javaep.cuda.kernel.BothBackends.host;
import static dev.javaep.cuda.kernel.BothBackends.node;
import static dev.javaep.cuda.kernel.BothBackends.value;

import dev.javaep.cpu.kernel.HostTensor;
import dev.javaep.cuda.kernel.BothBackends;
import dev.javaep.cuda.kernel.GpuTest;
import dev.javaep.spi.Attribute;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import dev.javaep.spi.ops.MatMulOps.MatMulGeometry;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * JavaCuda's MatMul and Gemm on GPU 0 against JavaCpu's kernels: the PTX GEMM (float32, simple batches) and the CUDA
 * C tiled product (broadcast batches, float16). Both backends accumulate in float32; float16 results are rounded
 * once. Tolerances (|gpu - cpu| <= atol + rtol*|cpu|): float32 rtol 1e-5, atol 1e-5·K (summation order differs);
 * float16 rtol 2e-3 (a float16 ulp is at most 2^-10 relative), atol 1e-3.
 */
@Tag("gpu")
class MatMulGpuTest extends GpuTest {
    @Override
    protected boolean needsNvrtc() {
        return false;
    }

    private static float[] values(Random random, long count) {
        float[] v = new float[Math.toIntExact(count)];
        for (int i = 0; i < v.length; i++) {
            v[i] = random.nextFloat() * 2 - 1;
        }
        return v;
    }

    private static long count(long[] shape) {
        return Arrays.stream(shape).reduce(1, Math::multiplyExact);
    }

    private void matmul(ElementType type, long[] a, long[] b) {
        Random random = new Random(Arrays.hashCode(a) * 31 + Arrays.hashCode(b));
        long[] y = MatMulGeometry.of(a, b).outputShape();
        Node node = node("MatMul", 13, List.of(value("a", type, a), value("b", type, b)), value("y", type, y));
        BothBackends.Outputs out = gpu.run(node, List.of(host(arena, type, values(random, count(a)), a),
                host(arena, type, values(random, count(b)), b)));
        long k = a[a.length - 1];
        assertClose("MatMul " + type + " " + Arrays.toString(a) + " x " + Arrays.toString(b), out,
                type == ElementType.FLOAT16 ? 2e-3 : 1e-5, type == ElementType.FLOAT16 ? 1e-3 : 1e-5 * k);
    }

    @Test
    void vitAttentionAndBroadcastBatches() {
        for (ElementType type : List.of(ElementType.FLOAT, ElementType.FLOAT16)) {
            matmul(type, new long[] {1, 4, 64, 32}, new long[] {1, 4, 32, 64});   // Q·Kᵀ of a ViT block
            matmul(type, new long[] {1, 4, 64, 64}, new long[] {1, 4, 64, 32});   // attention·V
            matmul(type, new long[] {1, 197, 192}, new long[] {192, 576});        // a token projection: B shared
            matmul(type, new long[] {2, 1, 17, 33}, new long[] {3, 33, 19});      // batches broadcast both ways
            matmul(type, new long[] {5, 33}, new long[] {2, 3, 33, 70});          // A shared by B's batches
            matmul(type, new long[] {33}, new long[] {3, 33, 19});                // 1-D A
            matmul(type, new long[] {3, 70, 33}, new long[] {33});                // 1-D B
            matmul(type, new long[] {130, 300}, new long[] {300, 96});            // longer K, partial tiles
            matmul(type, new long[] {4, 0}, new long[] {0, 5});                   // K = 0: zeros
        }
    }

    private void gemm(ElementType type, int version, int m, int k, int n, boolean transA, boolean transB, long[] c,
                      float alpha, float beta) {
        Random random = new Random(m * 7919L + k * 31 + n);
        long[] a = transA ? new long[] {k, m} : new long[] {m, k};
        long[] b = transB ? new long[] {n, k} : new long[] {k, n};
        List<HostTensor> inputs = new ArrayList<>(List.of(host(arena, type, values(random, count(a)), a),
                host(arena, type, values(random, count(b)), b)));
        List<dev.javaep.spi.ValueInfo> infos = new ArrayList<>(List.of(value("a", type, a), value("b", type, b)));
        if (c != null) {
            inputs.add(host(arena, type, values(random, count(c)), c));
            infos.add(value("c", type, c));
        }
        Node node = node("Gemm", version, infos, value("y", type, m, n), new Attribute.FloatValue("alpha", alpha),
                new Attribute.FloatValue("beta", beta), new Attribute.IntValue("transA", transA ? 1 : 0),
                new Attribute.IntValue("transB", transB ? 1 : 0));
        assertClose("Gemm-" + version + " " + type + " " + m + "x" + k + "x" + n + " tA " + transA + " tB " + transB
                        + " C " + Arrays.toString(c), gpu.run(node, inputs),
                type == ElementType.FLOAT16 ? 2e-3 : 1e-5, type == ElementType.FLOAT16 ? 1e-3 : 1e-5 * k);
    }

    @Test
    void gemmEveryTransposeAndBroadcastC() {
        for (ElementType type : List.of(ElementType.FLOAT, ElementType.FLOAT16)) {
            for (boolean transA : new boolean[] {false, true}) {
                for (boolean transB : new boolean[] {false, true}) {
                    gemm(type, 13, 70, 45, 130, transA, transB, new long[] {130}, 0.5f, 2f);
                    gemm(type, 11, 70, 45, 130, transA, transB, null, 1f, 1f);
                }
            }
            gemm(type, 13, 33, 17, 9, false, true, new long[] {33, 1}, 1f, 1f);
            gemm(type, 9, 33, 17, 9, true, false, new long[] {33, 9}, 1f, 0f);
            gemm(type, 13, 1, 512, 1000, false, true, new long[] {1000}, 1f, 1f); // a classifier head
        }
    }
}
