package dev.javaep.cuda.kernel.normalization;

import static dev.javaep.cuda.kernel.BothBackends.assertClose;
import static dev.javaep.cpu.kernel.TestNodes.node;

import dev.javaep.cpu.kernel.HostTensor;
import dev.javaep.cuda.kernel.BothBackends;
import dev.javaep.cuda.kernel.GpuTest;
import dev.javaep.spi.Attribute;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The CUDA C normalisation kernels on GPU 0 against JavaCpu's kernels, same inputs. Tolerances: float32
 * 2e-5 + 1e-4·|y| (the GPU takes the statistics in float, the CPU in double); float16 2e-3 + 2e-3·|y| (both round
 * once to half from float, so they differ by at most about one half-precision step).
 */
@Tag("gpu")
class NormalizationGpuTest extends GpuTest {
    private static final ElementType F = ElementType.FLOAT;
    private static final ElementType H = ElementType.FLOAT16;
    private static final double F32_ABS = 2e-5;
    private static final double F32_REL = 1e-4;
    private static final double F16_ABS = 2e-3;
    private static final double F16_REL = 2e-3;

    private final Random random = new Random(12);

    private void check(String what, Node node, List<HostTensor> inputs, ElementType type) {
        List<BothBackends.Outputs> outputs = gpu.runAll(node, inputs);
        for (int i = 0; i < outputs.size(); i++) {
            if (outputs.get(i) != null) {
                boolean half = node.outputs().get(i).elementType() == H;
                assertClose(what + " output " + i, outputs.get(i), half ? F16_REL : F32_REL, half ? F16_ABS : F32_ABS);
            }
        }
    }

    @Test
    void batchNormalization() {
        for (ElementType t : List.of(F, H)) {
            long c = 3;
            check("BatchNormalization-15 " + t, node("BatchNormalization", 15, List.of(t, t, t, t, t), List.of(t)),
                    List.of(gpu.random(random, t, -3, 3, 2, c, 5, 7), gpu.random(random, t, 0.5f, 2, c),
                            gpu.random(random, t, -1, 1, c), gpu.random(random, t, -1, 1, c),
                            gpu.random(random, t, 0.2f, 3, c)), t);
        }
        // X float16 with float32 scale/B and float16 mean/var (T, T1, T2 of version 15 each on its own)
        check("BatchNormalization-15 mixed", node("BatchNormalization", 15, List.of(H, F, F, H, H), List.of(H)),
                List.of(gpu.random(random, H, -3, 3, 4, 2, 33), gpu.random(random, F, 0.5f, 2, 2),
                        gpu.random(random, F, -1, 1, 2), gpu.random(random, H, -1, 1, 2),
                        gpu.random(random, H, 0.2f, 3, 2)), H);
        check("BatchNormalization-7 spatial=0", node("BatchNormalization", 7, List.of(F, F, F, F, F), List.of(F),
                        new Attribute.IntValue("spatial", 0)),
                List.of(gpu.random(random, F, -3, 3, 3, 2, 4), gpu.random(random, F, 0.5f, 2, 2, 4),
                        gpu.random(random, F, -1, 1, 2, 4), gpu.random(random, F, -1, 1, 2, 4),
                        gpu.random(random, F, 0.2f, 3, 2, 4)), F);
    }

    @Test
    void batchNormalizationTraining() {
        for (ElementType t : List.of(F, H)) {
            long c = 3;
            check("BatchNormalization-15 training " + t, node("BatchNormalization", 15, List.of(t, t, t, t, t),
                            List.of(t, t, t), new Attribute.IntValue("training_mode", 1),
                            new Attribute.FloatValue("momentum", 0.8f)),
                    List.of(gpu.random(random, t, -3, 3, 2, c, 5, 7), gpu.random(random, t, 0.5f, 2, c),
                            gpu.random(random, t, -1, 1, c), gpu.random(random, t, -1, 1, c),
                            gpu.random(random, t, 0.2f, 3, c)), t);
        }
        // float16 X, float32 scale/B, float16 statistics; running_mean omitted; a channel of 2 x 3000 elements
        check("BatchNormalization-15 training mixed", node("BatchNormalization", 15, List.of(H, F, F, H, H),
                        Arrays.asList(H, null, H), new Attribute.IntValue("training_mode", 1)),
                List.of(gpu.random(random, H, -3, 3, 2, 2, 3000), gpu.random(random, F, 0.5f, 2, 2),
                        gpu.random(random, F, -1, 1, 2), gpu.random(random, H, -1, 1, 2),
                        gpu.random(random, H, 0.2f, 3, 2)), H);
        // a rank-2 X (no spatial axes) and version 14's single statistics type
        check("BatchNormalization-14 training rank 2", node("BatchNormalization", 14, List.of(F, F, F, F, F),
                        List.of(F, F, F), new Attribute.IntValue("training_mode", 1)),
                List.of(gpu.random(random, F, -3, 3, 64, 5), gpu.random(random, F, 0.5f, 2, 5),
                        gpu.random(random, F, -1, 1, 5), gpu.random(random, F, -1, 1, 5),
                        gpu.random(random, F, 0.2f, 3, 5)), F);
    }

    @Test
    void instanceNormalization() {
        for (ElementType t : List.of(F, H)) {
            check("InstanceNormalization " + t, node("InstanceNormalization", 6, List.of(t, t, t), List.of(t)),
                    List.of(gpu.random(random, t, -2, 5, 2, 3, 17, 19), gpu.random(random, t, 0.5f, 2, 3),
                            gpu.random(random, t, -1, 1, 3)), t);
        }
    }

    @Test
    void layerNormalization() {
        for (ElementType t : List.of(F, H)) {
            check("LayerNormalization axis -1 " + t, node("LayerNormalization", 17, List.of(t, t, t), List.of(t, F, F)),
                    List.of(gpu.random(random, t, -2, 5, 4, 300), gpu.random(random, t, 0.5f, 2, 300),
                            gpu.random(random, t, -1, 1, 300)), t);
            check("LayerNormalization axis 1 no bias " + t, node("LayerNormalization", 17, Arrays.asList(t, t, null),
                            List.of(t), new Attribute.IntValue("axis", 1), new Attribute.FloatValue("epsilon", 1e-3f)),
                    Arrays.asList(gpu.random(random, t, -2, 5, 2, 3, 4, 5), gpu.random(random, t, 0.5f, 2, 3, 4, 5),
                            null), t);
        }
        // rows long enough for the 1024-thread blocks, with Mean only
        check("LayerNormalization long rows", node("LayerNormalization", 17, List.of(F, F, F), Arrays.asList(F, F, null)),
                List.of(gpu.random(random, F, -2, 5, 3, 20000), gpu.random(random, F, 0.5f, 2, 20000),
                        gpu.random(random, F, -1, 1, 20000)), F);
    }

    @Test
    void groupNormalization() {
        for (ElementType t : List.of(F, H)) {
            check("GroupNormalization-18 " + t, node("GroupNormalization", 18, List.of(t, t, t), List.of(t),
                            new Attribute.IntValue("num_groups", 3)),
                    List.of(gpu.random(random, t, -2, 5, 2, 6, 9, 11), gpu.random(random, t, 0.5f, 2, 3),
                            gpu.random(random, t, -1, 1, 3)), t);
            check("GroupNormalization-21 " + t, node("GroupNormalization", 21, List.of(t, t, t), List.of(t),
                            new Attribute.IntValue("num_groups", 2)),
                    List.of(gpu.random(random, t, -2, 5, 2, 6, 9, 11), gpu.random(random, t, 0.5f, 2, 6),
                            gpu.random(random, t, -1, 1, 6)), t);
        }
    }
}
