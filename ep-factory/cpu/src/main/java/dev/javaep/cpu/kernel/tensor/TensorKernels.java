package dev.javaep.cpu.kernel.tensor;

import static dev.javaep.spi.ops.KernelRows.mover;
import static dev.javaep.spi.ops.KernelRows.row;

import dev.javaep.cpu.kernel.CpuKernel;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import dev.javaep.spi.ops.KernelTable;
import dev.javaep.spi.ops.OnnxTypes;
import dev.javaep.spi.ops.OpSchema;
import dev.javaep.spi.ops.SplitRule;
import dev.javaep.spi.ops.TensorOps;
import dev.javaep.spi.ops.TensorOps.PadMode;
import dev.javaep.spi.ops.TensorOps.ScatterReduction;
import java.util.ArrayList;
import java.util.List;

/**
 * JavaCpu's rows for {@link TensorOps}: every schema version of the family, for every element type whose
 * elements are whole bytes (the kernels move bytes; Shape and Size read only shapes and take any type;
 * ScatterND's reductions and Range compute, on the numeric types).
 */
public final class TensorKernels {
    private TensorKernels() {}

    public static List<KernelTable.Row<CpuKernel>> rows() {
        List<KernelTable.Row<CpuKernel>> rows = new ArrayList<>();
        rows.add(mover(TensorOps.IDENTITY, "V", node -> new IdentityKernel()));

        rows.add(mover(TensorOps.RESHAPE_1, node -> {
            long[] shape = TensorOps.requiredInts(node, "shape");
            return new ViewKernel("Reshape", in -> TensorOps.reshapeShape(in.shape(0), shape, false));
        }));
        rows.add(mover(TensorOps.RESHAPE_5, node -> new ViewKernel("Reshape",
                in -> TensorOps.reshapeShape(in.shape(0), in.longs(1), false))));
        rows.add(mover(TensorOps.RESHAPE_14, node -> {
            boolean allowZero = node.intAttribute("allowzero", 0) != 0;
            return new ViewKernel("Reshape", in -> TensorOps.reshapeShape(in.shape(0), in.longs(1), allowZero));
        }));
        for (OpSchema flatten : List.of(TensorOps.FLATTEN_1, TensorOps.FLATTEN_9)) {
            rows.add(mover(flatten, node -> {
                long axis = node.intAttribute("axis", 1);
                return new ViewKernel("Flatten", in -> TensorOps.flattenShape(in.shape(0), axis));
            }));
        }
        rows.add(mover(TensorOps.SQUEEZE_1, node -> {
            long[] axes = TensorOps.ints(node, "axes");
            return new ViewKernel("Squeeze", in -> TensorOps.squeezeShape(in.shape(0), axes));
        }));
        rows.add(mover(TensorOps.SQUEEZE_13, node -> new ViewKernel("Squeeze",
                in -> TensorOps.squeezeShape(in.shape(0), in.longs(1)))));
        rows.add(mover(TensorOps.UNSQUEEZE_1, node -> {
            long[] axes = TensorOps.requiredInts(node, "axes");
            return new ViewKernel("Unsqueeze", in -> TensorOps.unsqueezeShape(in.shape(0), axes));
        }));
        rows.add(mover(TensorOps.UNSQUEEZE_13, node -> new ViewKernel("Unsqueeze",
                in -> TensorOps.unsqueezeShape(in.shape(0), in.longs(1)))));

        rows.add(mover(TensorOps.TRANSPOSE, node -> {
            long[] perm = TensorOps.ints(node, "perm");
            return new RearrangeKernel("Transpose", in -> TensorOps.transpose(in.shape(0), perm));
        }));
        rows.add(mover(TensorOps.SLICE_1, node -> {
            long[] starts = TensorOps.requiredInts(node, "starts");
            long[] ends = TensorOps.requiredInts(node, "ends");
            long[] axes = TensorOps.ints(node, "axes");
            return new RearrangeKernel("Slice", in -> TensorOps.slice(in.shape(0), starts, ends, axes, null));
        }));
        rows.add(mover(TensorOps.SLICE_10, node -> new RearrangeKernel("Slice",
                in -> TensorOps.slice(in.shape(0), in.longs(1), in.longs(2), in.longs(3), in.longs(4)))));
        rows.add(mover(TensorOps.EXPAND, node -> new RearrangeKernel("Expand",
                in -> TensorOps.expand(in.shape(0), in.longs(1)))));
        rows.add(mover(TensorOps.TILE_1, node -> new RearrangeKernel("Tile", in -> {
            long[] x = in.shape(0);
            double[] tiles = in.doubles(1);
            double[] axis = in.doubles(2);
            if (tiles.length != 1 || axis.length != 1) {
                throw new IllegalArgumentException("Tile: tiles and axis must be scalars");
            }
            long[] repeats = new long[x.length];
            java.util.Arrays.fill(repeats, 1);
            repeats[TensorOps.axis("Tile", (long) axis[0], x.length)] = (long) tiles[0];
            return TensorOps.tile(x, repeats);
        })));
        rows.add(mover(TensorOps.TILE_6, node -> new RearrangeKernel("Tile", in -> TensorOps.tile(in.shape(0), in.longs(1)))));
        rows.add(mover(TensorOps.DEPTH_TO_SPACE_1, node -> depthToSpace(node, false)));
        rows.add(mover(TensorOps.DEPTH_TO_SPACE_11, node -> depthToSpace(node, TensorOps.columnRowDepth(node))));
        rows.add(mover(TensorOps.SPACE_TO_DEPTH, node -> {
            long blocksize = TensorOps.blocksize(node);
            return new RearrangeKernel("SpaceToDepth", in -> TensorOps.spaceToDepth(in.shape(0), blocksize));
        }));

        rows.add(mover(TensorOps.CONCAT_1, node -> new ConcatKernel(node.intAttribute("axis", 1))));
        rows.add(mover(TensorOps.CONCAT_4, node -> new ConcatKernel(TensorOps.requiredInt(node, "axis"))));
        rows.add(mover(TensorOps.SPLIT_1, node -> split(node, true)));
        rows.add(mover(TensorOps.SPLIT_2, node -> split(node, false)));
        rows.add(mover(TensorOps.SPLIT_13, node -> split(node, true)));
        rows.add(mover(TensorOps.SPLIT_18, node -> split(node, true)));

        rows.add(mover(TensorOps.PAD_1, node -> padWithAttributes(node, "paddings")));
        rows.add(mover(TensorOps.PAD_2, node -> padWithAttributes(node, "pads")));
        for (OpSchema pad : List.of(TensorOps.PAD_11, TensorOps.PAD_18, TensorOps.PAD_19)) {
            rows.add(mover(pad, node -> new PadKernel(PadMode.of(node), null, null)));
        }

        rows.add(mover(TensorOps.GATHER, node -> new GatherKernel(node.intAttribute("axis", 0))));
        rows.add(mover(TensorOps.GATHER_ELEMENTS, node -> new GatherElementsKernel(node.intAttribute("axis", 0))));
        for (OpSchema scatter : List.of(TensorOps.SCATTER_ND_11, TensorOps.SCATTER_ND_16, TensorOps.SCATTER_ND_18)) {
            rows.add(mover(scatter, node -> new ScatterNDKernel(ScatterReduction.of(node), scatter.typeOf(node, "T"))));
        }

        rows.add(row(TensorOps.SHAPE_1, "T", OnnxTypes.ANY, node -> ShapeKernel.shape(0, null)));
        rows.add(row(TensorOps.SHAPE_15, "T", OnnxTypes.ANY, node -> ShapeKernel.shape(node.intAttribute("start", 0),
                TensorOps.shapeEnd(node))));
        rows.add(row(TensorOps.SIZE, "T", OnnxTypes.ANY, node -> ShapeKernel.sizeOf()));
        rows.add(mover(TensorOps.CONSTANT_1, node -> new ConstantKernel(TensorOps.constantValue(node), false)));
        rows.add(mover(TensorOps.CONSTANT_12, node -> new ConstantKernel(TensorOps.constantValue(node), false)));
        rows.add(mover(TensorOps.CONSTANT_OF_SHAPE, "T2", node -> new ConstantKernel(TensorOps.fillValue(node), true)));
        rows.add(row(TensorOps.RANGE, "T", TensorOps.RANGE.types().get("T"),
                node -> new RangeKernel(TensorOps.RANGE.typeOf(node, "T"))));
        return List.copyOf(rows);
    }

    private static CpuKernel depthToSpace(Node node, boolean crd) {
        long blocksize = TensorOps.blocksize(node);
        return new RearrangeKernel("DepthToSpace", in -> TensorOps.depthToSpace(in.shape(0), blocksize, crd));
    }

    private static CpuKernel split(Node node, boolean splitInput) {
        return new SplitKernel(SplitRule.of(node, splitInput), node.outputs().size());
    }

    private static CpuKernel padWithAttributes(Node node, String padsAttribute) {
        ElementType type = node.inputs().getFirst().elementType();
        return new PadKernel(PadMode.of(node), TensorOps.requiredInts(node, padsAttribute),
                TensorOps.padValueBits(node.floatAttribute("value", 0f), type));
    }
}
