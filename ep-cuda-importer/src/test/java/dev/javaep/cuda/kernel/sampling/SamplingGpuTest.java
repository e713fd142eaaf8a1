package dev.javaep.cuda.kernel.sampling;

import static dev.javaep.cuda.kernel.BothBackends.assertClose;

import dev.javaep.cpu.kernel.HostTensor;
import dev.javaep.cuda.kernel.BothBackends;
import dev.javaep.cuda.kernel.GpuTest;
import dev.javaep.cpu.kernel.TestNodes;
import dev.javaep.spi.Attribute;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The CUDA C Resize, Upsample and GridSample kernels on GPU 0 against JavaCpu's kernels, same inputs, across
 * modes, coordinate transforms, paddings and shapes. Nearest modes in float32 must agree exactly (both map
 * coordinates with the same float operations); interpolating modes within 1e-5 + 1e-5·|y| in float32 (the same
 * sums, give or take fused multiply-adds) and 2e-3 + 2e-3·|y| in float16 (one rounding to half each).
 */
@Tag("gpu")
class SamplingGpuTest extends GpuTest {
    private static final ElementType F = ElementType.FLOAT;
    private static final ElementType H = ElementType.FLOAT16;
    private static final ElementType I64 = ElementType.INT64;

    /** A node whose Y has X's type. */
    private static Node node(String op, int version, List<ElementType> inputs, Attribute... attributes) {
        return TestNodes.node(op, version, inputs, inputs.getFirst(), attributes);
    }

    private final Random random = new Random(5);

    private static Attribute string(String name, String value) {
        return new Attribute.StringValue(name, value);
    }

    private void check(String what, Node node, List<HostTensor> inputs, boolean exact) {
        ElementType type = inputs.getFirst().elementType();
        BothBackends.Outputs out = gpu.run(node, inputs);
        if (type == H) {
            assertClose(what + " f16", out, 2e-3, 2e-3);
        } else {
            assertClose(what, out, exact ? 0 : 1e-5, exact ? 0 : 1e-5);
        }
    }

    /** Resize-19 with scales (or sizes when {@code sizes} is not null) for X of both types. */
    private void resize(String what, long[] xShape, float[] scales, long[] sizes, float[] roi, Attribute... attributes) {
        boolean nearest = Arrays.stream(attributes).noneMatch(a -> a.name().equals("mode"));
        for (ElementType t : List.of(F, H)) {
            HostTensor x = gpu.random(random, t, -4, 4, xShape);
            HostTensor roiTensor = roi == null ? null : gpu.tensor(F, roi, roi.length);
            HostTensor scalesTensor = scales == null ? null : gpu.tensor(F, scales, scales.length);
            HostTensor sizesTensor = sizes == null ? null : gpu.tensor(I64, toFloats(sizes), sizes.length);
            Node node = node("Resize", 19, Arrays.asList(t, roi == null ? null : F, scales == null ? null : F,
                    sizes == null ? null : I64), attributes);
            check(what, node, Arrays.asList(x, roiTensor, scalesTensor, sizesTensor), nearest);
        }
    }

    private static float[] toFloats(long[] values) {
        float[] f = new float[values.length];
        for (int i = 0; i < f.length; i++) {
            f[i] = values[i];
        }
        return f;
    }

    private static final long[] IMAGE = {2, 3, 7, 9};
    private static final float[] UP = {1, 1, 1.7f, 2.5f};
    private static final float[] DOWN = {1, 1, 0.6f, 0.35f};

    @Test
    void resizeNearestEveryRoundingAndTransform() {
        for (String rounding : List.of("round_prefer_floor", "round_prefer_ceil", "floor", "ceil")) {
            for (String transform : List.of("half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners",
                    "asymmetric")) {
                for (float[] scales : List.of(UP, DOWN)) {
                    resize("nearest " + rounding + " " + transform + " " + Arrays.toString(scales), IMAGE, scales, null, null,
                            string("nearest_mode", rounding), string("coordinate_transformation_mode", transform));
                }
            }
        }
        resize("nearest sizes", IMAGE, null, new long[] {2, 3, 14, 4}, null);
    }

    @Test
    void resizeLinearAndCubic() {
        for (String mode : List.of("linear", "cubic")) {
            for (String transform : List.of("half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners",
                    "asymmetric")) {
                for (float[] scales : List.of(UP, DOWN)) {
                    resize(mode + " " + transform + " " + Arrays.toString(scales), IMAGE, scales, null, null,
                            string("mode", mode), string("coordinate_transformation_mode", transform));
                }
            }
        }
        resize("cubic A=-0.5 exclude_outside", IMAGE, UP, null, null, string("mode", "cubic"),
                new Attribute.FloatValue("cubic_coeff_a", -0.5f), new Attribute.IntValue("exclude_outside", 1));
        resize("trilinear on a 5-D tensor", new long[] {1, 2, 5, 6, 7}, new float[] {1, 1, 1.5f, 0.5f, 2}, null, null,
                string("mode", "linear"));
        resize("linear on every axis", new long[] {3, 4, 5}, new float[] {2, 0.5f, 1.5f}, null, null, string("mode", "linear"));
    }

    @Test
    void resizeAntialiasAxesPolicyAndCrop() {
        for (String mode : List.of("linear", "cubic")) {
            resize("antialias " + mode, IMAGE, new float[] {1, 1, 0.3f, 0.45f}, null, null, string("mode", mode),
                    new Attribute.IntValue("antialias", 1));
        }
        resize("axes and not_smaller", IMAGE, null, new long[] {10, 10}, null, string("mode", "linear"),
                new Attribute.IntList("axes", List.of(3L, 2L)), string("keep_aspect_ratio_policy", "not_smaller"));
        resize("tf_crop_and_resize", IMAGE, null, new long[] {2, 3, 5, 11}, new float[] {0, 0, 0.2f, -0.3f, 1, 1, 0.9f, 1.2f},
                string("mode", "linear"), string("coordinate_transformation_mode", "tf_crop_and_resize"),
                new Attribute.FloatValue("extrapolation_value", 7));
        for (ElementType t : List.of(F, H)) {
            check("Upsample-9", node("Upsample", 9, List.of(t, F), string("mode", "linear")),
                    List.of(gpu.random(random, t, -4, 4, IMAGE), gpu.tensor(F, new float[] {1, 1, 2, 3}, 4)), false);
            check("Resize-10", node("Resize", 10, List.of(t, F)),
                    List.of(gpu.random(random, t, -4, 4, IMAGE), gpu.tensor(F, new float[] {1, 1, 0.5f, 1.5f}, 4)),
                    true);
            check("Resize-11 tf_half_pixel_for_nn", node("Resize", 11, List.of(t, F, F),
                            string("coordinate_transformation_mode", "tf_half_pixel_for_nn")),
                    List.of(gpu.random(random, t, -4, 4, IMAGE), gpu.tensor(F, new float[0], 0),
                            gpu.tensor(F, new float[] {1, 1, 2.2f, 0.7f}, 4)), true);
        }
    }

    @Test
    void gridSampleEveryModeAndPadding() {
        for (ElementType t : List.of(F, H)) {
            for (String mode : List.of("linear", "nearest", "cubic")) {
                for (String padding : List.of("zeros", "border", "reflection")) {
                    for (int align = 0; align <= 1; align++) {
                        HostTensor x = gpu.random(random, t, -4, 4, 2, 3, 6, 7);
                        HostTensor grid = gpu.random(random, t, -1.4f, 1.4f, 2, 5, 8, 2);
                        check("GridSample " + mode + " " + padding + " align_corners=" + align,
                                node("GridSample", 20, List.of(t, t), string("mode", mode), string("padding_mode", padding),
                                        new Attribute.IntValue("align_corners", align)),
                                List.of(x, grid), mode.equals("nearest"));
                    }
                }
            }
            // float32 grid for a float16 image; version 16's spelling; a volume
            check("GridSample-16 bicubic f32 grid", node("GridSample", 16, List.of(t, F), string("mode", "bicubic")),
                    List.of(gpu.random(random, t, -4, 4, 1, 2, 9, 5), gpu.random(random, F, -1.2f, 1.2f, 1, 4, 4, 2)),
                    false);
            for (String mode : List.of("linear", "nearest")) {
                check("GridSample volumetric " + mode, node("GridSample", 22, List.of(t, t), string("mode", mode),
                                string("padding_mode", "reflection")),
                        List.of(gpu.random(random, t, -4, 4, 2, 2, 4, 5, 6), gpu.random(random, t, -1.2f, 1.2f, 2, 3, 3, 4, 3)),
                        mode.equals("nearest"));
            }
        }
    }
}
