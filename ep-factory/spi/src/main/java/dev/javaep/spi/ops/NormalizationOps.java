package dev.javaep.spi.ops;

import dev.javaep.spi.Attribute;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * BatchNormalization (inference, and training from version 14), InstanceNormalization, LayerNormalization, GroupNormalization. Backends:
 * {@code dev.javaep.cpu.kernel.normalization}, {@code dev.javaep.cuda.kernel.normalization}.
 *
 * <p>The shared rules: {@link BatchNorm} (attributes, and where each element's channel parameters are), and
 * for the three ops that normalise with statistics of the input itself, {@link RowNormalization}: each views
 * the input as contiguous rows whose mean and variance are taken ({@link RowLayout}), so one kernel per
 * backend runs all three.
 */
public final class NormalizationOps {
    private NormalizationOps() {}

    /** tensor(float16), tensor(float), tensor(double): the float types before bfloat16 joined them. */
    private static final Set<ElementType> FLOATS_IR3 = Set.of(ElementType.FLOAT16, ElementType.FLOAT, ElementType.DOUBLE);
    /** ONNX's TensorProto.FLOAT, the default stash_type (the precision of the statistics). */
    public static final long STASH_FLOAT = 1;

    private static final Class<Attribute.IntValue> INT = Attribute.IntValue.class;
    private static final Class<Attribute.FloatValue> FLOAT = Attribute.FloatValue.class;

    private static List<String> times(String parameter, int n) {
        return java.util.Collections.nCopies(n, parameter);
    }

    /** BatchNormalization 1..5: spatial, is_test, the legacy consumed_inputs; outputs 2..5 only in training. */
    public static final OpSchema BATCH_NORMALIZATION_1 = new OpSchema("", "BatchNormalization", 1, 5, 5, times("T", 5),
            times("T", 5), Map.of("spatial", INT, "is_test", INT, "epsilon", FLOAT, "momentum", FLOAT,
            "consumed_inputs", Attribute.IntList.class), Map.of("T", FLOATS_IR3), 1);
    /** BatchNormalization 6: as 1 without consumed_inputs. */
    public static final OpSchema BATCH_NORMALIZATION_6 = new OpSchema("", "BatchNormalization", 6, 6, 5, times("T", 5),
            times("T", 5), Map.of("spatial", INT, "is_test", INT, "epsilon", FLOAT, "momentum", FLOAT),
            Map.of("T", FLOATS_IR3), 1);
    /** BatchNormalization 7..8: is_test is gone (one output means inference); spatial stays. */
    public static final OpSchema BATCH_NORMALIZATION_7 = new OpSchema("", "BatchNormalization", 7, 8, 5, times("T", 5),
            times("T", 5), Map.of("spatial", INT, "epsilon", FLOAT, "momentum", FLOAT), Map.of("T", FLOATS_IR3), 1);
    /** BatchNormalization 9..13: always spatial (per channel). */
    public static final OpSchema BATCH_NORMALIZATION_9 = new OpSchema("", "BatchNormalization", 9, 13, 5, times("T", 5),
            times("T", 5), Map.of("epsilon", FLOAT, "momentum", FLOAT), Map.of("T", FLOATS_IR3), 1);
    /** BatchNormalization 14: training_mode; mean and var may have their own type U; at most 3 outputs. */
    public static final OpSchema BATCH_NORMALIZATION_14 = new OpSchema("", "BatchNormalization", 14, 14, 5,
            List.of("T", "T", "T", "U", "U"), List.of("T", "U", "U"),
            Map.of("epsilon", FLOAT, "momentum", FLOAT, "training_mode", INT),
            Map.of("T", OnnxTypes.FLOATS, "U", OnnxTypes.FLOATS), 1);
    /** BatchNormalization 15: scale and B have their own type T1, mean and var T2. */
    public static final OpSchema BATCH_NORMALIZATION_15 = new OpSchema("", "BatchNormalization", 15, 15, 5,
            List.of("T", "T1", "T1", "T2", "T2"), List.of("T", "T2", "T2"),
            Map.of("epsilon", FLOAT, "momentum", FLOAT, "training_mode", INT),
            Map.of("T", OnnxTypes.FLOATS, "T1", OnnxTypes.FLOATS, "T2", OnnxTypes.FLOATS), 1);

    /** InstanceNormalization 1..5: the legacy consumed_inputs. */
    public static final OpSchema INSTANCE_NORMALIZATION_1 = new OpSchema("", "InstanceNormalization", 1, 5, 3,
            times("T", 3), List.of("T"), Map.of("epsilon", FLOAT, "consumed_inputs", Attribute.IntList.class),
            Map.of("T", FLOATS_IR3));
    public static final OpSchema INSTANCE_NORMALIZATION_6 = new OpSchema("", "InstanceNormalization", 6, 21, 3,
            times("T", 3), List.of("T"), Map.of("epsilon", FLOAT), Map.of("T", FLOATS_IR3));
    /** InstanceNormalization 22: bfloat16 too. */
    public static final OpSchema INSTANCE_NORMALIZATION_22 = new OpSchema("", "InstanceNormalization", 22, 22, 3,
            times("T", 3), List.of("T"), Map.of("epsilon", FLOAT), Map.of("T", OnnxTypes.FLOATS));

    /** LayerNormalization 17: B optional; Mean and InvStdDev (of the stash type U) optional outputs. */
    public static final OpSchema LAYER_NORMALIZATION_17 = new OpSchema("", "LayerNormalization", 17, 17, 2,
            times("T", 3), List.of("T", "U", "U"), Map.of("axis", INT, "epsilon", FLOAT, "stash_type", INT),
            Map.of("T", OnnxTypes.FLOATS, "U", Set.of(ElementType.FLOAT, ElementType.BFLOAT16)), 1);

    /** GroupNormalization 18..20 (deprecated by 21): scale and bias have one value per group. */
    public static final OpSchema GROUP_NORMALIZATION_18 = new OpSchema("", "GroupNormalization", 18, 20, 3,
            times("T", 3), List.of("T"), Map.of("epsilon", FLOAT, "num_groups", INT), Map.of("T", OnnxTypes.FLOATS));
    /** GroupNormalization 21: scale and bias have one value per channel; stash_type. */
    public static final OpSchema GROUP_NORMALIZATION_21 = new OpSchema("", "GroupNormalization", 21, 21, 3,
            times("T", 3), List.of("T"), Map.of("epsilon", FLOAT, "num_groups", INT, "stash_type", INT),
            Map.of("T", OnnxTypes.FLOATS));

    /** Every schema of this family, for the op index ({@link OnnxOps#all}). */
    public static final List<OpSchema> SCHEMAS = List.of(BATCH_NORMALIZATION_1, BATCH_NORMALIZATION_6,
            BATCH_NORMALIZATION_7, BATCH_NORMALIZATION_9, BATCH_NORMALIZATION_14, BATCH_NORMALIZATION_15,
            INSTANCE_NORMALIZATION_1, INSTANCE_NORMALIZATION_6, INSTANCE_NORMALIZATION_22, LAYER_NORMALIZATION_17,
            GROUP_NORMALIZATION_18, GROUP_NORMALIZATION_21);

    /**
     * BatchNormalization. Inference: {@code y = (x - mean[c]) / sqrt(var[c] + epsilon) * scale[c] + B[c]}. Training
     * (version 14 on, {@code training_mode=1}): the same with the batch's own statistics, the mean and the population
     * variance of X over every axis but the channel; the optional outputs 1 and 2 are then the running statistics
     * {@code input_mean * momentum + batch_mean * (1 - momentum)} and likewise for var.
     *
     * @param spatial  false only for {@code spatial=0} of versions before 9: the parameters then have shape
     *                 (C, D1, ..., Dn), one value per element of an instance rather than per channel
     * @param training {@code training_mode=1}: normalise with the batch statistics
     * @param momentum the running statistics' weight of the input mean and var (default 0.9)
     */
    public record BatchNorm(float epsilon, boolean spatial, boolean training, float momentum) {
        /** Inference. */
        public BatchNorm(float epsilon, boolean spatial) {
            this(epsilon, spatial, false, 0.9f);
        }

        /**
         * The node's attributes. Versions before 14 ask for training with extra outputs (saved statistics whose
         * meaning changed between versions), which javaep does not run; from 14 on, extra outputs need training_mode=1.
         */
        public static BatchNorm of(Node node) {
            long present = node.outputs().stream().filter(java.util.Objects::nonNull).count();
            boolean training = node.sinceVersion() >= 14 && node.intAttribute("training_mode", 0) != 0;
            if (node.sinceVersion() < 14 && present > 1) {
                throw new IllegalArgumentException("BatchNormalization-" + node.sinceVersion() + ": " + present
                        + " outputs ask for its training mode (running and saved statistics), which is not implemented;"
                        + " only inference (Y alone) and version 14's training_mode are");
            }
            if (!training && present > 1) {
                throw new IllegalArgumentException("BatchNormalization: running_mean and running_var are outputs of"
                        + " training mode only (training_mode=1); the node has " + present + " outputs in inference");
            }
            boolean spatial = node.sinceVersion() >= 9 || node.intAttribute("spatial", 1) != 0;
            return new BatchNorm(node.floatAttribute("epsilon", 1e-5f), spatial, training,
                    node.floatAttribute("momentum", 0.9f));
        }

        /** Where X's elements find their parameters; {@code parameters} are the shapes of scale, B, mean, var. */
        public ChannelLayout layout(long[] x, long[]... parameters) {
            long channels = x.length > 1 ? x[1] : 1;
            long inner = x.length > 2 ? product(x, 2, x.length) : 1;
            long outer = x.length > 0 ? x[0] : 1;
            long expected = spatial ? channels : Math.multiplyExact(channels, inner);
            String[] names = {"scale", "B", "mean", "var"};
            for (int i = 0; i < parameters.length; i++) {
                long count = product(parameters[i], 0, parameters[i].length);
                if (count != expected || (spatial && parameters[i].length != 1)) {
                    throw new IllegalArgumentException("BatchNormalization: " + names[i] + " has shape "
                            + Arrays.toString(parameters[i]) + "; X " + Arrays.toString(x) + " needs "
                            + (spatial ? "[" + channels + "]" : expected + " values (C x D1 x ... x Dn, spatial=0)"));
                }
            }
            return new ChannelLayout(outer, channels, inner, !spatial);
        }
    }

    /**
     * X as [outer, channels, inner]; element {@code i}'s parameters are at {@link #parameterIndex}.
     *
     * @param perElement the parameters have one value per (channel, inner) position (spatial=0)
     */
    public record ChannelLayout(long outer, long channels, long inner, boolean perElement) {
        public long elements() {
            return outer * channels * inner;
        }

        public long parameterIndex(long element) {
            return perElement ? element % (channels * inner) : element / inner % channels;
        }
    }

    /**
     * Where a row's element finds its scale or bias: {@code group * groupStride + position / divisor}
     * ({@code group} the row's index among its instance's groups, {@code position} the element's in its row).
     */
    public record ParameterIndex(long groupStride, long divisor) {
        public long of(long group, long position) {
            return group * groupStride + position / divisor;
        }
    }

    /**
     * The input as {@code rows} contiguous rows of {@code length} elements, {@code groups} rows per instance:
     * each row is normalised with its own mean and variance, then scaled and shifted.
     *
     * @param bias            null when the op has no bias (LayerNormalization without B)
     * @param statisticsShape the shape of LayerNormalization's Mean and InvStdDev outputs (one value per row)
     */
    public record RowLayout(long rows, long groups, long length, ParameterIndex scale, ParameterIndex bias,
                            long[] statisticsShape) {}

    /** InstanceNormalization, LayerNormalization and GroupNormalization: normalisation over rows of X. */
    public sealed interface RowNormalization permits InstanceNorm, LayerNorm, GroupNorm {
        float epsilon();

        /** The rows of an X of this shape; {@code bias} is null when omitted. Throws for inconsistent shapes. */
        RowLayout layout(long[] x, long[] scale, long[] bias);

        /** The op's name, for messages. */
        String op();

        /** X's channels (dimension 1), for the ops that normalise per channel; an X without them is refused. */
        default long channels(long[] x) {
            if (x.length < 2) {
                throw new IllegalArgumentException(op() + ": input " + Arrays.toString(x) + " has no channel dimension");
            }
            return x[1];
        }

        /** The rule for a node of any of the three ops (after its schema accepted it). */
        static RowNormalization of(Node node) {
            return switch (node.opType()) {
                case "InstanceNormalization" -> InstanceNorm.of(node);
                case "LayerNormalization" -> LayerNorm.of(node);
                case "GroupNormalization" -> GroupNorm.of(node);
                default -> throw new IllegalArgumentException(node.opType() + " is not a row normalisation");
            };
        }
    }

    /** InstanceNormalization: one row per (n, c) over the spatial dimensions; scale and B per channel. */
    public record InstanceNorm(float epsilon) implements RowNormalization {
        public static InstanceNorm of(Node node) {
            return new InstanceNorm(node.floatAttribute("epsilon", 1e-5f));
        }

        @Override
        public String op() {
            return "InstanceNormalization";
        }

        @Override
        public RowLayout layout(long[] x, long[] scale, long[] bias) {
            long channels = channels(x);
            long length = product(x, 2, x.length);
            requireCount(op(), "scale", scale, channels);
            requireCount(op(), "B", bias, channels);
            ParameterIndex perChannel = new ParameterIndex(1, Math.max(length, 1));
            return new RowLayout(x[0] * channels, channels, length, perChannel, perChannel, null);
        }
    }

    /**
     * LayerNormalization: one row per index of the dimensions before {@code axis}, over the rest. Scale and B
     * broadcast over the rows: as the ONNX function flattens them, they have one value per row element or one
     * value in all.
     */
    public record LayerNorm(long axis, float epsilon) implements RowNormalization {
        public static LayerNorm of(Node node) {
            requireFloatStash(node);
            return new LayerNorm(node.intAttribute("axis", -1), node.floatAttribute("epsilon", 1e-5f));
        }

        @Override
        public String op() {
            return "LayerNormalization";
        }

        /** {@code axis} made non-negative for an input of this rank. */
        public int axis(int rank) {
            if (axis < -rank || axis >= rank) {
                throw new IllegalArgumentException(op() + ": axis " + axis + " is out of range for an input of rank " + rank);
            }
            return (int) (axis < 0 ? axis + rank : axis);
        }

        @Override
        public RowLayout layout(long[] x, long[] scale, long[] bias) {
            int a = axis(x.length);
            long rows = product(x, 0, a);
            long length = product(x, a, x.length);
            long[] statistics = x.clone();
            Arrays.fill(statistics, a, statistics.length, 1);
            return new RowLayout(rows, 1, length, broadcast("Scale", scale, length),
                    bias == null ? null : broadcast("B", bias, length), statistics);
        }

        private ParameterIndex broadcast(String name, long[] shape, long length) {
            long count = product(shape, 0, shape.length);
            if (count == length) {
                return new ParameterIndex(0, 1);
            }
            if (count == 1) {
                return new ParameterIndex(0, Math.max(length, 1));
            }
            throw new IllegalArgumentException(op() + ": " + name + " has shape " + Arrays.toString(shape) + " ("
                    + count + " values); the normalised dimensions hold " + length);
        }
    }

    /**
     * GroupNormalization: one row per (n, group) over the group's channels and the spatial dimensions.
     *
     * @param scalePerChannel version 21's scale and bias (one value per channel); version 18's have one per group
     */
    public record GroupNorm(long groups, float epsilon, boolean scalePerChannel) implements RowNormalization {
        public static GroupNorm of(Node node) {
            if (!(node.attributes().get("num_groups") instanceof Attribute.IntValue(var name, var groups))) {
                throw new IllegalArgumentException("GroupNormalization: the required attribute num_groups is missing");
            }
            if (groups <= 0) {
                throw new IllegalArgumentException("GroupNormalization: num_groups is " + groups + ", it must be positive");
            }
            requireFloatStash(node);
            return new GroupNorm(groups, node.floatAttribute("epsilon", 1e-5f), node.sinceVersion() >= 21);
        }

        @Override
        public String op() {
            return "GroupNormalization";
        }

        @Override
        public RowLayout layout(long[] x, long[] scale, long[] bias) {
            long channels = channels(x);
            if (channels % groups != 0) {
                throw new IllegalArgumentException(op() + ": " + channels + " channels do not divide into " + groups + " groups");
            }
            long spatial = product(x, 2, x.length);
            long channelsPerGroup = channels / groups;
            long length = channelsPerGroup * spatial;
            ParameterIndex index;
            if (scalePerChannel) {
                requireCount(op(), "scale", scale, channels);
                requireCount(op(), "bias", bias, channels);
                index = new ParameterIndex(channelsPerGroup, Math.max(spatial, 1));
            } else {
                requireCount(op(), "scale", scale, groups);
                requireCount(op(), "bias", bias, groups);
                index = new ParameterIndex(1, Math.max(length, 1));
            }
            return new RowLayout(x[0] * groups, groups, length, index, index, null);
        }
    }

    /**
     * The stash type sets the precision of the statistics; javaep computes them in float32 (double on JavaCpu),
     * which is what the default (float) asks for. Other precisions would give other results, so they are refused.
     */
    private static void requireFloatStash(Node node) {
        long stash = node.intAttribute("stash_type", STASH_FLOAT);
        if (stash != STASH_FLOAT) {
            throw new IllegalArgumentException(node.opType() + ": stash_type " + stash + " is not implemented; javaep"
                    + " computes the statistics in float32 (stash_type 1)");
        }
    }

    private static void requireCount(String op, String name, long[] shape, long expected) {
        if (shape == null || shape.length != 1 || shape[0] != expected) {
            throw new IllegalArgumentException(op + ": " + name + " has shape " + Arrays.toString(shape) + ", expected ["
                    + expected + "]");
        }
    }

    private static long product(long[] shape, int from, int to) {
        long n = 1;
        for (int i = from; i < to; i++) {
            n = Math.multiplyExact(n, shape[i]);
        }
        return n;
    }
}
