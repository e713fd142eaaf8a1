package dev.javaep.cpu.kernel.tensor;

import static dev.javaep.spi.ops.KernelRows.mover;
import static dev.javaep.spi.ops.KernelRows.row;

import dev.javaep.cpu.kernel.CpuKernel;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import dev.javaep.spi.ops.KernelTable;
import dev.javaep.spi.ops.OnnxTypes;
import dev.javaep.spi.ops.OpSchema;
import dev.javaep.spi.ops.ShapeRules;
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

        for (OpSchema schema : ShapeRules.VIEWS) {
            rows.add(mover(schema, node -> new ViewKernel(schema.opType(), ShapeRules.view(schema, node)::apply)));
        }

        for (OpSchema schema : ShapeRules.REARRANGEMENTS) {
            rows.add(mover(schema, node ->
                    new RearrangeKernel(schema.opType(), ShapeRules.rearrangement(schema, node)::apply)));
        }

        rows.add(mover(TensorOps.CONCAT_1, node -> new ConcatKernel(node.intAttribute("axis", 1))));
        rows.add(mover(TensorOps.CONCAT_4, node -> new ConcatKernel(TensorOps.requiredInt(node, "axis"))));
        for (OpSchema schema : SplitRule.SCHEMAS) {
            rows.add(mover(schema, node -> split(schema, node)));
        }

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

    private static CpuKernel split(OpSchema schema, Node node) {
        return new SplitKernel(SplitRule.of(schema, node), node.outputs().size());
    }

    private static CpuKernel padWithAttributes(Node node, String padsAttribute) {
        ElementType type = node.inputs().getFirst().elementType();
        return new PadKernel(PadMode.of(node), TensorOps.requiredInts(node, padsAttribute),
                TensorOps.padValueBits(node.floatAttribute("value", 0f), type));
    }
}
