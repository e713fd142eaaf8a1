package dev.javaep.spi.ops;

import dev.javaep.spi.Node;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

/**
 * The shape rules of the ops that only move bytes, the same on every backend: a node's attributes are read once, when
 * its row is chosen; the rule then takes the inputs' shapes and small values ({@link ShapeInputs}) at each run. The
 * views (Reshape, Flatten, Squeeze, Unsqueeze) keep the bytes in order and give only the output's shape; the
 * rearrangements (Transpose, Slice, Expand, Tile, DepthToSpace, SpaceToDepth) give the strided copy.
 */
public final class ShapeRules {
    private ShapeRules() {}

    /** The schemas {@link #view} has a rule for. */
    public static final List<OpSchema> VIEWS = List.of(TensorOps.RESHAPE_1, TensorOps.RESHAPE_5, TensorOps.RESHAPE_14,
            TensorOps.FLATTEN_1, TensorOps.FLATTEN_9, TensorOps.SQUEEZE_1, TensorOps.SQUEEZE_13, TensorOps.UNSQUEEZE_1,
            TensorOps.UNSQUEEZE_13);
    /** The schemas {@link #rearrangement} has a rule for. */
    public static final List<OpSchema> REARRANGEMENTS = List.of(TensorOps.TRANSPOSE, TensorOps.SLICE_1, TensorOps.SLICE_10,
            TensorOps.EXPAND, TensorOps.TILE_1, TensorOps.TILE_6, TensorOps.DEPTH_TO_SPACE_1, TensorOps.DEPTH_TO_SPACE_11,
            TensorOps.SPACE_TO_DEPTH);

    /** The output shape rule of a node of one of the {@link #VIEWS}. */
    public static Function<ShapeInputs, long[]> view(OpSchema schema, Node node) {
        if (schema == TensorOps.RESHAPE_1) {
            long[] shape = TensorOps.requiredInts(node, "shape");
            return in -> TensorOps.reshapeShape(in.shape(0), shape, false);
        } else if (schema == TensorOps.RESHAPE_5) {
            return in -> TensorOps.reshapeShape(in.shape(0), in.longs(1), false);
        } else if (schema == TensorOps.RESHAPE_14) {
            boolean allowZero = node.intAttribute("allowzero", 0) != 0;
            return in -> TensorOps.reshapeShape(in.shape(0), in.longs(1), allowZero);
        } else if (schema == TensorOps.FLATTEN_1 || schema == TensorOps.FLATTEN_9) {
            long axis = node.intAttribute("axis", 1);
            return in -> TensorOps.flattenShape(in.shape(0), axis);
        } else if (schema == TensorOps.SQUEEZE_1) {
            long[] axes = TensorOps.ints(node, "axes");
            return in -> TensorOps.squeezeShape(in.shape(0), axes);
        } else if (schema == TensorOps.SQUEEZE_13) {
            return in -> TensorOps.squeezeShape(in.shape(0), in.longs(1));
        } else if (schema == TensorOps.UNSQUEEZE_1) {
            long[] axes = TensorOps.requiredInts(node, "axes");
            return in -> TensorOps.unsqueezeShape(in.shape(0), axes);
        } else if (schema == TensorOps.UNSQUEEZE_13) {
            return in -> TensorOps.unsqueezeShape(in.shape(0), in.longs(1));
        }
        throw new IllegalArgumentException(schema.describe() + " is not a view");
    }

    /** The strided-copy rule of a node of one of the {@link #REARRANGEMENTS}. */
    public static Function<ShapeInputs, TensorOps.Rearrangement> rearrangement(OpSchema schema, Node node) {
        if (schema == TensorOps.TRANSPOSE) {
            long[] perm = TensorOps.ints(node, "perm");
            return in -> TensorOps.transpose(in.shape(0), perm);
        } else if (schema == TensorOps.SLICE_1) {
            long[] starts = TensorOps.requiredInts(node, "starts");
            long[] ends = TensorOps.requiredInts(node, "ends");
            long[] axes = TensorOps.ints(node, "axes");
            return in -> TensorOps.slice(in.shape(0), starts, ends, axes, null);
        } else if (schema == TensorOps.SLICE_10) {
            return in -> TensorOps.slice(in.shape(0), in.longs(1), in.longs(2), in.longs(3), in.longs(4));
        } else if (schema == TensorOps.EXPAND) {
            return in -> TensorOps.expand(in.shape(0), in.longs(1));
        } else if (schema == TensorOps.TILE_1) {
            return ShapeRules::tile1;
        } else if (schema == TensorOps.TILE_6) {
            return in -> TensorOps.tile(in.shape(0), in.longs(1));
        } else if (schema == TensorOps.DEPTH_TO_SPACE_1 || schema == TensorOps.DEPTH_TO_SPACE_11) {
            long blocksize = TensorOps.blocksize(node);
            boolean crd = schema == TensorOps.DEPTH_TO_SPACE_11 && TensorOps.columnRowDepth(node);
            return in -> TensorOps.depthToSpace(in.shape(0), blocksize, crd);
        } else if (schema == TensorOps.SPACE_TO_DEPTH) {
            long blocksize = TensorOps.blocksize(node);
            return in -> TensorOps.spaceToDepth(in.shape(0), blocksize);
        }
        throw new IllegalArgumentException(schema.describe() + " is not a rearrangement");
    }

    /** Tile-1: one axis, repeated {@code tiles} times, both given as scalar inputs. */
    private static TensorOps.Rearrangement tile1(ShapeInputs in) {
        long[] x = in.shape(0);
        double[] tiles = in.doubles(1);
        double[] axis = in.doubles(2);
        if (tiles.length != 1 || axis.length != 1) {
            throw new IllegalArgumentException("Tile: tiles and axis must be scalars");
        }
        long[] repeats = new long[x.length];
        Arrays.fill(repeats, 1);
        repeats[TensorOps.axis("Tile", (long) axis[0], x.length)] = (long) tiles[0];
        return TensorOps.tile(x, repeats);
    }
}
