package dev.javaep.spi.ops;

import dev.javaep.spi.Attribute;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Resize, Upsample, GridSample. Backends: {@code dev.javaep.cpu.kernel.sampling}, {@code dev.javaep.cuda.kernel.sampling}.
 *
 * <p>The shared rules: {@link ResizeAttributes} (a Resize or Upsample node's attributes, the legacy versions'
 * fixed coordinate mapping included), {@link ResizeGeometry} (output size from scales or sizes, per-axis scale and
 * region of interest), {@link #originalCoordinate} and {@link #resizeTaps} (which input elements an output element
 * reads, with which weights); {@link GridSampleAttributes}, {@link GridSampleGeometry} and {@link #gridTaps}
 * (unnormalisation, padding). Every backend's kernel is these functions in a loop, so the Java kernels are the
 * reference the CUDA C kernels mirror.
 *
 * <p>Upsample 10 is deprecated in ONNX (ORT refuses to load it): it has no schema here, nor does Upsample 1
 * (experimental, never in ORT).
 */
public final class SamplingOps {
    private SamplingOps() {}

    /** ONNX's all_tensor_types: every numeric type but bfloat16, string, bool, complex. */
    private static final Set<ElementType> ALL_TENSOR_TYPES = OnnxTypes.union(OnnxTypes.INTEGERS, Set.of(ElementType.FLOAT16,
            ElementType.FLOAT, ElementType.DOUBLE, ElementType.STRING, ElementType.BOOL, ElementType.COMPLEX64,
            ElementType.COMPLEX128));
    /** all_tensor_types_ir4: bfloat16 too. */
    private static final Set<ElementType> ALL_TENSOR_TYPES_IR4 = OnnxTypes.union(ALL_TENSOR_TYPES, Set.of(ElementType.BFLOAT16));
    private static final Set<ElementType> FLOATS_IR3 = Set.of(ElementType.FLOAT16, ElementType.FLOAT, ElementType.DOUBLE);
    private static final Set<ElementType> FLOAT32 = Set.of(ElementType.FLOAT);
    private static final Set<ElementType> INT64 = Set.of(ElementType.INT64);

    private static final Class<Attribute.IntValue> INT = Attribute.IntValue.class;
    private static final Class<Attribute.FloatValue> FLOAT = Attribute.FloatValue.class;
    private static final Class<Attribute.StringValue> STRING = Attribute.StringValue.class;

    private static final Map<String, Class<? extends Attribute>> RESIZE_11_ATTRIBUTES = Map.of("mode", STRING,
            "cubic_coeff_a", FLOAT, "exclude_outside", INT, "coordinate_transformation_mode", STRING,
            "nearest_mode", STRING, "extrapolation_value", FLOAT);
    private static final Map<String, Class<? extends Attribute>> RESIZE_18_ATTRIBUTES = Map.of("mode", STRING,
            "cubic_coeff_a", FLOAT, "exclude_outside", INT, "coordinate_transformation_mode", STRING,
            "nearest_mode", STRING, "extrapolation_value", FLOAT, "antialias", INT, "axes", Attribute.IntList.class,
            "keep_aspect_ratio_policy", STRING);

    /** Resize 10: X and scales; asymmetric coordinates, nearest or linear. */
    public static final OpSchema RESIZE_10 = new OpSchema("", "Resize", 10, 10, 2, List.of("T", "scales"), List.of("T"),
            Map.of("mode", STRING), Map.of("T", ALL_TENSOR_TYPES, "scales", FLOAT32));
    /** Resize 11..12: roi and scales required (scales empty when sizes is given); coordinate modes, cubic. */
    public static final OpSchema RESIZE_11 = resize(11, 12, 3, RESIZE_11_ATTRIBUTES, ALL_TENSOR_TYPES);
    /** Resize 13..17: roi and scales optional; bfloat16. */
    public static final OpSchema RESIZE_13 = resize(13, 17, 1, RESIZE_11_ATTRIBUTES, ALL_TENSOR_TYPES_IR4);
    /** Resize 18: antialias, axes, keep_aspect_ratio_policy. */
    public static final OpSchema RESIZE_18 = resize(18, 18, 1, RESIZE_18_ATTRIBUTES, ALL_TENSOR_TYPES_IR4);
    /** Resize 19: the half_pixel_symmetric coordinate mode. */
    public static final OpSchema RESIZE_19 = resize(19, 19, 1, RESIZE_18_ATTRIBUTES, ALL_TENSOR_TYPES_IR4);
    /** A Resize from opset 11: X, roi, scales and sizes, the first {@code required} of them not optional. */
    private static OpSchema resize(int since, int until, int required, Map<String, Class<? extends Attribute>> attributes,
                                   Set<ElementType> dataTypes) {
        return new OpSchema("", "Resize", since, until, required, List.of("T1", "T2", "scales", "sizes"), List.of("T1"),
                attributes, Map.of("T1", dataTypes, "T2", FLOATS_IR3, "scales", FLOAT32, "sizes", INT64));
    }

    /** Upsample 7..8: scales as an attribute. */
    public static final OpSchema UPSAMPLE_7 = new OpSchema("", "Upsample", 7, 8, 1, List.of("T"), List.of("T"),
            Map.of("mode", STRING, "scales", Attribute.FloatList.class), Map.of("T", ALL_TENSOR_TYPES));
    /** Upsample 9: scales as an input. */
    public static final OpSchema UPSAMPLE_9 = new OpSchema("", "Upsample", 9, 9, 2, List.of("T", "scales"), List.of("T"),
            Map.of("mode", STRING), Map.of("T", ALL_TENSOR_TYPES, "scales", FLOAT32));

    private static final Map<String, Class<? extends Attribute>> GRID_SAMPLE_ATTRIBUTES = Map.of("mode", STRING,
            "padding_mode", STRING, "align_corners", INT);
    /** GridSample 16..19: 4-D input; modes bilinear, nearest, bicubic. */
    public static final OpSchema GRID_SAMPLE_16 = new OpSchema("", "GridSample", 16, 19, 2, List.of("T1", "T2"),
            List.of("T1"), GRID_SAMPLE_ATTRIBUTES, Map.of("T1", ALL_TENSOR_TYPES, "T2", FLOATS_IR3));
    /** GridSample 20..21: N-D input; modes linear, nearest, cubic. */
    public static final OpSchema GRID_SAMPLE_20 = new OpSchema("", "GridSample", 20, 21, 2, List.of("T1", "T2"),
            List.of("T1"), GRID_SAMPLE_ATTRIBUTES, Map.of("T1", ALL_TENSOR_TYPES, "T2", FLOATS_IR3));
    /** GridSample 22: bfloat16 too. */
    public static final OpSchema GRID_SAMPLE_22 = new OpSchema("", "GridSample", 22, 22, 2, List.of("T1", "T2"),
            List.of("T1"), GRID_SAMPLE_ATTRIBUTES, Map.of("T1", ALL_TENSOR_TYPES_IR4, "T2", OnnxTypes.FLOATS));

    /**
     * Where a Resize or Upsample version keeps its inputs, read from its schema: the data's type parameter, and the
     * input positions of roi, scales and sizes ({@code -1} where that version has none: Upsample 7 takes scales as
     * an attribute, Resize 10 has no roi or sizes).
     */
    public record ResizeInputs(String dataType, int roi, int scales, int sizes) {
        public static ResizeInputs of(OpSchema schema) {
            List<String> inputs = schema.inputs();
            return new ResizeInputs(inputs.getFirst(), inputs.indexOf("T2"), inputs.indexOf("scales"),
                    inputs.indexOf("sizes"));
        }
    }

    /** Every schema of this family, for the op index ({@link OnnxOps#all}). */
    public static final List<OpSchema> SCHEMAS = List.of(RESIZE_10, RESIZE_11, RESIZE_13, RESIZE_18, RESIZE_19,
            UPSAMPLE_7, UPSAMPLE_9, GRID_SAMPLE_16, GRID_SAMPLE_20, GRID_SAMPLE_22);

    // ---------------------------------------------------------------- Resize and Upsample

    public enum Interpolation { NEAREST, LINEAR, CUBIC }

    /** Resize's coordinate_transformation_mode: how an output coordinate maps to an input coordinate. */
    public enum CoordinateTransform {
        HALF_PIXEL, HALF_PIXEL_SYMMETRIC, PYTORCH_HALF_PIXEL, ALIGN_CORNERS, ASYMMETRIC, TF_HALF_PIXEL_FOR_NN,
        TF_CROP_AND_RESIZE
    }

    /**
     * Resize's nearest_mode; {@link #LEGACY} is Resize 10's and Upsample's rule (no attribute): ceil when
     * downsampling, floor otherwise.
     */
    public enum NearestRounding { ROUND_PREFER_FLOOR, ROUND_PREFER_CEIL, FLOOR, CEIL, LEGACY }

    public enum AspectRatioPolicy { STRETCH, NOT_LARGER, NOT_SMALLER }

    /**
     * A Resize or Upsample node's attributes with the defaults of its version filled in.
     *
     * @param axes           Resize 18's axes as written (null: every axis), normalised by {@link ResizeGeometry#of}
     * @param fixedScales    Upsample 7's scales attribute; null where scales come from an input
     * @param scalesAtLeastOne Upsample's rule that it never shrinks
     */
    public record ResizeAttributes(Interpolation mode, CoordinateTransform transform, NearestRounding nearest,
                                   float cubicCoeffA, boolean excludeOutside, float extrapolationValue,
                                   boolean antialias, long[] axes, AspectRatioPolicy policy, float[] fixedScales,
                                   boolean scalesAtLeastOne) {
        /** The attributes of a Resize (10..19) or Upsample (7..9) node; throws for values ONNX does not define. */
        public static ResizeAttributes of(Node node) {
            boolean upsample = node.opType().equals("Upsample");
            int version = node.sinceVersion();
            boolean legacy = upsample || version < 11;
            String op = node.opType() + "-" + version;
            String modeName = node.stringAttribute("mode", "nearest");
            Interpolation mode = switch (modeName) {
                case "nearest" -> Interpolation.NEAREST;
                case "linear" -> Interpolation.LINEAR;
                case "cubic" -> {
                    if (legacy) {
                        throw new IllegalArgumentException(op + ": mode 'cubic' arrived in Resize 11");
                    }
                    yield Interpolation.CUBIC;
                }
                default -> throw new IllegalArgumentException(op + ": unknown mode '" + modeName + "'");
            };
            CoordinateTransform transform = legacy ? CoordinateTransform.ASYMMETRIC
                    : transform(op, version, node.stringAttribute("coordinate_transformation_mode", "half_pixel"));
            NearestRounding nearest = legacy ? NearestRounding.LEGACY
                    : nearest(op, node.stringAttribute("nearest_mode", "round_prefer_floor"));
            boolean antialias = version >= 18 && !upsample && node.intAttribute("antialias", 0) != 0;
            if (antialias && mode == Interpolation.NEAREST) {
                throw new IllegalArgumentException(op + ": antialias applies to the linear and cubic modes, not nearest");
            }
            long[] axes = null;
            if (version >= 18 && !upsample && node.attributes().get("axes") instanceof Attribute.IntList(var n, var values)) {
                axes = values.stream().mapToLong(Long::longValue).toArray();
            }
            String policyName = version >= 18 && !upsample ? node.stringAttribute("keep_aspect_ratio_policy", "stretch") : "stretch";
            AspectRatioPolicy policy = switch (policyName) {
                case "stretch" -> AspectRatioPolicy.STRETCH;
                case "not_larger" -> AspectRatioPolicy.NOT_LARGER;
                case "not_smaller" -> AspectRatioPolicy.NOT_SMALLER;
                default -> throw new IllegalArgumentException(op + ": unknown keep_aspect_ratio_policy '" + policyName + "'");
            };
            float[] fixedScales = null;
            if (upsample && version < 9) {
                if (!(node.attributes().get("scales") instanceof Attribute.FloatList(var n, var values))) {
                    throw new IllegalArgumentException(op + ": the required attribute scales is missing");
                }
                fixedScales = new float[values.size()];
                for (int i = 0; i < fixedScales.length; i++) {
                    fixedScales[i] = values.get(i);
                }
            }
            return new ResizeAttributes(mode, transform, nearest, legacy ? -0.75f : node.floatAttribute("cubic_coeff_a", -0.75f),
                    !legacy && node.intAttribute("exclude_outside", 0) != 0,
                    legacy ? 0f : node.floatAttribute("extrapolation_value", 0f), antialias, axes, policy, fixedScales,
                    upsample);
        }

        private static CoordinateTransform transform(String op, int version, String name) {
            return switch (name) {
                case "half_pixel" -> CoordinateTransform.HALF_PIXEL;
                case "pytorch_half_pixel" -> CoordinateTransform.PYTORCH_HALF_PIXEL;
                case "align_corners" -> CoordinateTransform.ALIGN_CORNERS;
                case "asymmetric" -> CoordinateTransform.ASYMMETRIC;
                case "tf_crop_and_resize" -> CoordinateTransform.TF_CROP_AND_RESIZE;
                case "half_pixel_symmetric" -> {
                    if (version < 19) {
                        throw new IllegalArgumentException(op + ": half_pixel_symmetric arrived in Resize 19");
                    }
                    yield CoordinateTransform.HALF_PIXEL_SYMMETRIC;
                }
                case "tf_half_pixel_for_nn" -> {
                    if (version >= 13) {
                        throw new IllegalArgumentException(op + ": tf_half_pixel_for_nn was removed in Resize 13");
                    }
                    yield CoordinateTransform.TF_HALF_PIXEL_FOR_NN;
                }
                default -> throw new IllegalArgumentException(op + ": unknown coordinate_transformation_mode '" + name + "'");
            };
        }

        private static NearestRounding nearest(String op, String name) {
            return switch (name) {
                case "round_prefer_floor" -> NearestRounding.ROUND_PREFER_FLOOR;
                case "round_prefer_ceil" -> NearestRounding.ROUND_PREFER_CEIL;
                case "floor" -> NearestRounding.FLOOR;
                case "ceil" -> NearestRounding.CEIL;
                default -> throw new IllegalArgumentException(op + ": unknown nearest_mode '" + name + "'");
            };
        }

        /** At most how many taps {@link #resizeTaps} returns along an axis of this scale. */
        public int maxTaps(float scale) {
            if (antialias && scale < 1) {
                return mode == Interpolation.LINEAR ? 2 - 2 * antialiasStart(scale, 1) : 2 - 2 * antialiasStart(scale, 2);
            }
            return switch (mode) {
                case NEAREST -> 1;
                case LINEAR -> 2;
                case CUBIC -> 4;
            };
        }
    }

    /**
     * One Resize of one input shape: the output shape, each axis's scale (given, or output/input when sizes were
     * given) and region of interest (tf_crop_and_resize; else [0, 1]).
     *
     * @param resized per axis, whether the axis changes at all (an axis that does not maps every output
     *                coordinate to the same input coordinate, so kernels may copy along it)
     */
    public record ResizeGeometry(long[] input, long[] output, float[] scales, float[] roiStart, float[] roiEnd,
                                 boolean[] resized) {
        /**
         * The geometry for an input of shape {@code input}; {@code roi}, {@code scales}, {@code sizes} are the inputs'
         * values (null or empty when omitted). Throws {@link IllegalArgumentException} for inconsistent values.
         */
        public static ResizeGeometry of(ResizeAttributes a, long[] input, float[] roi, float[] scales, long[] sizes) {
            int rank = input.length;
            int[] axes = axes(a.axes(), rank);
            float[] givenScales = a.fixedScales() != null ? a.fixedScales() : scales;
            boolean hasScales = givenScales != null && givenScales.length > 0;
            boolean hasSizes = sizes != null && sizes.length > 0;
            if (hasScales == hasSizes) {
                throw new IllegalArgumentException("Resize: exactly one of scales and sizes must be given (scales "
                        + Arrays.toString(givenScales) + ", sizes " + Arrays.toString(sizes) + ")");
            }
            float[] scale = new float[rank];
            Arrays.fill(scale, 1f);
            long[] output = input.clone();
            if (hasScales) {
                requireLength("scales", givenScales.length, axes.length, rank);
                for (int i = 0; i < axes.length; i++) {
                    float s = givenScales[i];
                    if (!(s > 0) || (a.scalesAtLeastOne() && s < 1)) {
                        throw new IllegalArgumentException("Resize: scale " + s + " for axis " + axes[i] + " must be "
                                + (a.scalesAtLeastOne() ? "at least 1 (Upsample)" : "positive"));
                    }
                    scale[axes[i]] = s;
                    // ORT's rule: the float product, truncated (floor for the positive sizes there are)
                    output[axes[i]] = (long) (s * (float) input[axes[i]]);
                }
            } else {
                requireLength("sizes", sizes.length, axes.length, rank);
                for (int i = 0; i < axes.length; i++) {
                    int d = axes[i];
                    if (sizes[i] < 0) {
                        throw new IllegalArgumentException("Resize: sizes[" + i + "] is " + sizes[i]);
                    }
                    if (input[d] == 0 && sizes[i] != 0) {
                        throw new IllegalArgumentException("Resize: axis " + d + " is empty and cannot become " + sizes[i]);
                    }
                    output[d] = sizes[i];
                    scale[d] = input[d] == 0 ? 1f : (float) sizes[i] / (float) input[d];
                }
                if (a.policy() != AspectRatioPolicy.STRETCH) {
                    float kept = a.policy() == AspectRatioPolicy.NOT_LARGER ? Float.MAX_VALUE : 0f;
                    for (int d : axes) {
                        kept = a.policy() == AspectRatioPolicy.NOT_LARGER ? Math.min(kept, scale[d]) : Math.max(kept, scale[d]);
                    }
                    for (int d : axes) {
                        scale[d] = kept;
                        output[d] = Math.round(kept * (float) input[d]);
                    }
                }
            }
            float[] start = new float[rank];
            float[] end = new float[rank];
            Arrays.fill(end, 1f);
            if (a.transform() == CoordinateTransform.TF_CROP_AND_RESIZE && roi != null && roi.length > 0) {
                requireLength("roi", roi.length, 2 * axes.length, 2 * rank);
                for (int i = 0; i < axes.length; i++) {
                    start[axes[i]] = roi[i];
                    end[axes[i]] = roi[axes.length + i];
                }
            }
            boolean[] resized = new boolean[rank];
            for (int d = 0; d < rank; d++) {
                resized[d] = output[d] != input[d] || scale[d] != 1f
                        || a.transform() == CoordinateTransform.TF_HALF_PIXEL_FOR_NN
                        || (a.transform() == CoordinateTransform.TF_CROP_AND_RESIZE && (start[d] != 0f || end[d] != 1f));
            }
            return new ResizeGeometry(input.clone(), output, scale, start, end, resized);
        }

        private static int[] axes(long[] given, int rank) {
            if (given == null) {
                return java.util.stream.IntStream.range(0, rank).toArray();
            }
            int[] axes = new int[given.length];
            boolean[] seen = new boolean[rank];
            for (int i = 0; i < given.length; i++) {
                long axis = given[i];
                if (axis < -rank || axis >= rank) {
                    throw new IllegalArgumentException("Resize: axis " + axis + " is out of range for rank " + rank);
                }
                axes[i] = (int) (axis < 0 ? axis + rank : axis);
                if (seen[axes[i]]) {
                    throw new IllegalArgumentException("Resize: axis " + axes[i] + " is repeated in axes " + Arrays.toString(given));
                }
                seen[axes[i]] = true;
            }
            return axes;
        }

        private static void requireLength(String name, int length, int expected, int rank) {
            if (length != expected) {
                throw new IllegalArgumentException("Resize: " + name + " has " + length + " values; the input of rank "
                        + rank + (expected == rank || expected == 2 * rank ? "" : " with its axes") + " needs " + expected);
            }
        }

        /** Whether output coordinate {@code y} of axis {@code d} falls outside the input (tf_crop_and_resize's extrapolation). */
        public boolean outside(float x, int d) {
            return x < 0 || x > input[d] - 1;
        }

        /** The input coordinate output coordinate {@code y} of axis {@code d} maps to. */
        public float originalCoordinate(ResizeAttributes a, int d, long y) {
            return SamplingOps.originalCoordinate(a.transform(), y, scales[d], output[d], input[d], roiStart[d], roiEnd[d]);
        }
    }

    /**
     * An output coordinate's input coordinate, as ORT computes it (float32, in this order of operations).
     *
     * @param y        the output coordinate
     * @param scale    the axis's scale (given, or output/input length)
     * @param roiStart the region of interest (tf_crop_and_resize only; else 0 and 1)
     */
    public static float originalCoordinate(CoordinateTransform transform, long y, float scale, long outLength,
                                           long inLength, float roiStart, float roiEnd) {
        float yf = y;
        return switch (transform) {
            case HALF_PIXEL -> (yf + 0.5f) / scale - 0.5f;
            case PYTORCH_HALF_PIXEL -> outLength > 1 ? (yf + 0.5f) / scale - 0.5f : 0f;
            case ASYMMETRIC -> yf / scale;
            case TF_HALF_PIXEL_FOR_NN -> (yf + 0.5f) / scale;
            case ALIGN_CORNERS -> outLength == 1 ? 0f : yf * (float) (inLength - 1) / (float) (outLength - 1);
            case TF_CROP_AND_RESIZE -> outLength > 1
                    ? roiStart * (float) (inLength - 1) + yf * (roiEnd - roiStart) * (float) (inLength - 1) / (float) (outLength - 1)
                    : (float) (0.5 * (roiStart + roiEnd) * (inLength - 1)); // in double, as ORT
            case HALF_PIXEL_SYMMETRIC -> {
                float outputWidth = scale * (float) inLength;
                float adjustment = (float) outLength / outputWidth;
                float center = (float) inLength / 2f;
                float offset = center * (1f - adjustment);
                yield (float) (offset + (yf + 0.5) / scale - 0.5); // in double, as ORT
            }
        };
    }

    /** The input index nearest to coordinate {@code x} by Resize's rounding rule (not yet clamped to the input). */
    public static long nearestIndex(NearestRounding rounding, float x, float scale) {
        float floor = (float) Math.floor(x);
        float fraction = x - floor;
        long base = (long) floor;
        return switch (rounding) {
            case ROUND_PREFER_FLOOR -> fraction <= 0.5f ? base : base + 1;
            case ROUND_PREFER_CEIL -> fraction < 0.5f ? base : base + 1;
            case FLOOR -> base;
            case CEIL -> fraction == 0f ? base : base + 1;
            case LEGACY -> scale < 1f ? (fraction == 0f ? base : base + 1) : base;
        };
    }

    /**
     * Keys' cubic convolution weights of the four taps around a coordinate whose distance past its left
     * neighbour is {@code t} (0 ≤ t &lt; 1): taps floor-1, floor, floor+1, floor+2 (ONNX's reference formulas).
     */
    public static void cubicCoefficients(float t, float a, float[] into) {
        float t1 = t + 1f;
        float u = 1f - t;
        float u1 = u + 1f;
        into[0] = ((a * t1 - 5f * a) * t1 + 8f * a) * t1 - 4f * a;
        into[1] = ((a + 2f) * t - (a + 3f)) * t * t + 1f;
        into[2] = ((a + 2f) * u - (a + 3f)) * u * u + 1f;
        into[3] = ((a * u1 - 5f * a) * u1 + 8f * a) * u1 - 4f * a;
    }

    /** The cubic kernel at distance {@code x}, for antialiased cubic resampling. */
    public static float cubicKernel(float x, float a) {
        x = Math.abs(x);
        if (x <= 1f) {
            return ((a + 2f) * x - (a + 3f)) * x * x + 1f;
        }
        if (x < 2f) {
            return ((a * x - 5f * a) * x + 8f * a) * x - 4f * a;
        }
        return 0f;
    }

    /** The first tap's offset from the left neighbour of an antialiased filter of half-width {@code support} at this scale. */
    public static int antialiasStart(float scale, int support) {
        return (int) Math.floor(-support / scale) + 1;
    }

    /**
     * The input taps output coordinate {@code x} (an input coordinate, from {@link #originalCoordinate}) reads along
     * one axis of {@code length}: their indices, clamped into the input (the edge repeats), and weights that sum to
     * one. Returns how many; {@code index} and {@code weight} hold at least {@link ResizeAttributes#maxTaps}. With
     * exclude_outside, taps outside the input get weight 0 and the rest are renormalised.
     *
     * <p>As ONNX's reference: the left neighbour is floor(x), or x-1 when x is whole (its weight is then 0, except
     * for the antialias filters, which are defined with that convention).
     */
    public static int resizeTaps(ResizeAttributes a, float x, float scale, long length, long[] index, float[] weight) {
        if (a.mode() == Interpolation.NEAREST) {
            index[0] = clamp(nearestIndex(a.nearest(), x, scale), length);
            weight[0] = 1f;
            return 1;
        }
        float floor = (float) Math.floor(x);
        long left = (long) floor;
        float ratio = x - floor;
        if (ratio == 0f) {
            left -= 1;
            ratio = 1f;
        }
        int count;
        if (a.antialias() && scale < 1f) {
            int support = a.mode() == Interpolation.LINEAR ? 1 : 2;
            int start = antialiasStart(scale, support);
            count = 2 - 2 * start;
            for (int i = 0; i < count; i++) {
                int offset = start + i;
                float distance = scale * (offset - ratio);
                index[i] = left + offset;
                weight[i] = support == 1 ? Math.max(0f, 1f - Math.abs(distance)) : cubicKernel(distance, a.cubicCoeffA());
            }
        } else if (a.mode() == Interpolation.LINEAR) {
            count = 2;
            index[0] = left;
            index[1] = left + 1;
            weight[0] = 1f - ratio;
            weight[1] = ratio;
        } else {
            count = 4;
            // cubicCoefficients takes the distance past floor(x); the whole-x convention shifts the taps by one
            cubicCoefficients(ratio == 1f ? 0f : ratio, a.cubicCoeffA(), weight);
            long first = (ratio == 1f ? left + 1 : left) - 1;
            for (int i = 0; i < 4; i++) {
                index[i] = first + i;
            }
        }
        float sum = 0f;
        for (int i = 0; i < count; i++) {
            if (a.excludeOutside() && (index[i] < 0 || index[i] >= length)) {
                weight[i] = 0f;
            }
            sum += weight[i];
        }
        boolean normalise = a.excludeOutside() || (a.antialias() && scale < 1f);
        for (int i = 0; i < count; i++) {
            if (normalise && sum != 0f) {
                weight[i] /= sum;
            }
            index[i] = clamp(index[i], length);
        }
        return count;
    }

    private static long clamp(long i, long length) {
        return Math.max(0, Math.min(i, length - 1));
    }

    // ---------------------------------------------------------------- GridSample

    public enum GridSampleMode { LINEAR, NEAREST, CUBIC }

    public enum GridPadding { ZEROS, BORDER, REFLECTION }

    /** A GridSample node's attributes (version 16 spells the modes bilinear and bicubic). */
    public record GridSampleAttributes(GridSampleMode mode, GridPadding padding, boolean alignCorners) {
        public static GridSampleAttributes of(Node node) {
            boolean v16 = node.sinceVersion() < 20;
            String modeName = node.stringAttribute("mode", v16 ? "bilinear" : "linear");
            GridSampleMode mode = switch (modeName) {
                case "bilinear" -> v16 ? GridSampleMode.LINEAR : null;
                case "linear" -> v16 ? null : GridSampleMode.LINEAR;
                case "bicubic" -> v16 ? GridSampleMode.CUBIC : null;
                case "cubic" -> v16 ? null : GridSampleMode.CUBIC;
                case "nearest" -> GridSampleMode.NEAREST;
                default -> null;
            };
            if (mode == null) {
                throw new IllegalArgumentException("GridSample-" + node.sinceVersion() + ": unknown mode '" + modeName + "'"
                        + (v16 ? " (version 16 has bilinear, nearest, bicubic)" : " (version 20 has linear, nearest, cubic)"));
            }
            GridPadding padding = OnnxOps.lowerCaseNamed(node, "padding_mode", GridPadding.ZEROS);
            return new GridSampleAttributes(mode, padding, node.intAttribute("align_corners", 0) != 0);
        }

        /** At most how many taps {@link #gridTaps} returns per axis. */
        public int maxTaps() {
            return switch (mode) {
                case NEAREST -> 1;
                case LINEAR -> 2;
                case CUBIC -> 4;
            };
        }
    }

    /**
     * GridSample's shapes: X (N, C, D1..Dr), grid (N, D1_out..Dr_out, r), Y (N, C, D1_out..Dr_out).
     */
    public record GridSampleGeometry(long[] input, long[] grid, long[] output) {
        /** Throws for shapes that do not fit; version 16 takes 4-D inputs only. */
        public static GridSampleGeometry of(long[] x, long[] grid, int sinceVersion) {
            int rank = x.length;
            if (sinceVersion < 20 ? rank != 4 : rank < 3) {
                throw new IllegalArgumentException("GridSample-" + sinceVersion + ": input " + Arrays.toString(x) + " must be "
                        + (sinceVersion < 20 ? "4-D (N, C, H, W)" : "at least 3-D (N, C, D1, ...)"));
            }
            if (grid.length != rank || grid[rank - 1] != rank - 2 || grid[0] != x[0]) {
                throw new IllegalArgumentException("GridSample: grid " + Arrays.toString(grid) + " does not fit input "
                        + Arrays.toString(x) + "; it must be (N, D1_out, ..., " + (rank - 2) + ")");
            }
            long[] y = new long[rank];
            y[0] = x[0];
            y[1] = x[1];
            System.arraycopy(grid, 1, y, 2, rank - 2);
            return new GridSampleGeometry(x.clone(), grid.clone(), y);
        }

        public int spatialRank() {
            return input.length - 2;
        }
    }

    /** A normalised grid coordinate in [-1, 1] as a coordinate of an axis of {@code length} (ORT's float arithmetic). */
    public static float unnormalize(float n, long length, boolean alignCorners) {
        return alignCorners ? (n + 1f) / 2f * (float) (length - 1) : ((n + 1f) * (float) length - 1f) / 2f;
    }

    /** Reflects {@code x} at the borders {@code min} and {@code max} until it lies between them. */
    public static float reflect(float x, float min, float max) {
        float range = max - min;
        if (range <= 0f) {
            return min;
        }
        if (x < min) {
            float dx = min - x;
            int n = (int) (dx / range);
            float r = dx - n * range;
            return n % 2 == 0 ? min + r : max - r;
        }
        if (x > max) {
            float dx = x - max;
            int n = (int) (dx / range);
            float r = dx - n * range;
            return n % 2 == 0 ? max - r : min + r;
        }
        return x;
    }

    /** The lowest coordinate inside an axis: its first pixel's centre (align_corners) or edge. */
    public static float borderMin(boolean alignCorners) {
        return alignCorners ? 0f : -0.5f;
    }

    /** The highest coordinate inside an axis of {@code length}. */
    public static float borderMax(long length, boolean alignCorners) {
        return alignCorners ? length - 1f : length - 0.5f;
    }

    /**
     * The taps of grid value {@code n} (normalised) along one axis of {@code length}, as ONNX's reference and PyTorch
     * take them: the coordinate is unnormalised (rounded half to even for nearest), brought inside by the border or
     * reflection padding, and the taps around it are read with the padding again (an index outside the input is
     * clamped or reflected; with zeros padding it is -1 and reads 0). Returns how many taps.
     */
    public static int gridTaps(GridSampleAttributes a, float n, long length, long[] index, float[] weight) {
        float x = unnormalize(n, length, a.alignCorners());
        if (a.mode() == GridSampleMode.NEAREST) {
            x = (float) Math.rint(x);
        }
        float min = borderMin(a.alignCorners());
        float max = borderMax(length, a.alignCorners());
        if (x < min || x > max) {
            if (a.padding() == GridPadding.BORDER) {
                x = Math.max(0f, Math.min(x, length - 1f));
            } else if (a.padding() == GridPadding.REFLECTION) {
                x = reflect(x, min, max);
            }
        }
        int count;
        switch (a.mode()) {
            case NEAREST -> {
                count = 1;
                index[0] = (long) x;
                weight[0] = 1f;
            }
            case LINEAR -> {
                count = 2;
                float floor = (float) Math.floor(x);
                index[0] = (long) floor;
                index[1] = (long) floor + 1;
                weight[0] = floor + 1f - x;
                weight[1] = x - floor;
            }
            case CUBIC -> {
                count = 4;
                float floor = (float) Math.floor(x);
                cubicCoefficients(x - floor, -0.75f, weight);
                for (int i = 0; i < 4; i++) {
                    index[i] = (long) floor - 1 + i;
                }
            }
            default -> throw new IllegalStateException();
        }
        for (int i = 0; i < count; i++) {
            index[i] = padIndex(a, index[i], length, min, max);
        }
        return count;
    }

    /** An integer tap index brought inside the axis by the padding mode; -1 (reads 0) for zeros padding outside. */
    public static long padIndex(GridSampleAttributes a, long i, long length, float min, float max) {
        if (i >= 0 && i < length) {
            return i;
        }
        return switch (a.padding()) {
            case ZEROS -> -1;
            case BORDER -> Math.max(0, Math.min(i, length - 1));
            case REFLECTION -> Math.max(0, Math.min((long) reflect(i, min, max), length - 1));
        };
    }
}
