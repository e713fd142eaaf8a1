package dev.javaep.cpu.kernel.reduction;

import dev.javaep.cpu.kernel.CpuKernel;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import dev.javaep.spi.ops.KernelRows;
import dev.javaep.spi.ops.KernelTable;
import dev.javaep.spi.ops.OpSchema;
import dev.javaep.spi.ops.ReductionOps;
import dev.javaep.spi.ops.ReductionOps.ReduceAttributes;
import dev.javaep.spi.ops.ReductionOps.Reduction;
import dev.javaep.spi.ops.ReductionOps.SoftmaxGeometry;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/** JavaCpu's rows for {@link ReductionOps}: every schema version, for the element types below. */
public final class ReductionKernels {
    /** Float32 and float64 are natural on the JVM; float16 is converted (models exported in half precision). */
    private static final Set<ElementType> FLOATING = Set.of(ElementType.FLOAT, ElementType.DOUBLE, ElementType.FLOAT16);
    /** Sum and Prod wrap like the element type; Max and Min compare exactly. */
    private static final Set<ElementType> WHOLE = Set.of(ElementType.INT32, ElementType.INT64);
    /** Max and Min also take 8-bit integers (opset 12) and bool (opset 20: Max is "any", Min "all"). */
    private static final Set<ElementType> ORDERED = Set.of(ElementType.INT8, ElementType.UINT8, ElementType.BOOL);
    private static final Set<ElementType> ARG_TYPES = Set.of(ElementType.FLOAT, ElementType.DOUBLE, ElementType.FLOAT16,
            ElementType.INT32, ElementType.INT64, ElementType.INT8, ElementType.UINT8);

    private ReductionKernels() {}

    public static List<KernelTable.Row<CpuKernel>> rows() {
        List<KernelTable.Row<CpuKernel>> rows = new ArrayList<>();
        for (Reduction r : Reduction.values()) {
            Set<ElementType> types = EnumSet.copyOf(FLOATING);
            if (r == Reduction.SUM || r == Reduction.PROD || r == Reduction.MAX || r == Reduction.MIN) {
                types.addAll(WHOLE);
            }
            if (r == Reduction.MAX || r == Reduction.MIN) {
                types.addAll(ORDERED);
            }
            for (OpSchema schema : ReductionOps.schemas(r)) {
                rows.add(KernelRows.row(schema, "T", types, node ->
                        new ReduceKernel(ReduceAttributes.of(node), node.input(0).elementType())));
            }
        }
        for (OpSchema schema : ReductionOps.ARGMAX) {
            rows.add(KernelRows.row(schema, "T", ARG_TYPES, node -> arg(node, true)));
        }
        for (OpSchema schema : ReductionOps.ARGMIN) {
            rows.add(KernelRows.row(schema, "T", ARG_TYPES, node -> arg(node, false)));
        }
        for (OpSchema schema : ReductionOps.SOFTMAX) {
            rows.add(KernelRows.row(schema, "T", FLOATING, node -> softmax(node, false)));
        }
        for (OpSchema schema : ReductionOps.LOG_SOFTMAX) {
            rows.add(KernelRows.row(schema, "T", FLOATING, node -> softmax(node, true)));
        }
        return List.copyOf(rows);
    }

    private static CpuKernel arg(Node node, boolean max) {
        long axis = node.intAttribute("axis", 0);
        requireAxisInRank(node, axis);
        return new ArgReduceKernel(max, axis, node.intAttribute("keepdims", 1) != 0,
                node.intAttribute("select_last_index", 0) != 0, node.input(0).elementType());
    }

    private static CpuKernel softmax(Node node, boolean log) {
        long axis = node.intAttribute("axis", SoftmaxGeometry.defaultAxis(node.sinceVersion()));
        requireAxisInRank(node, axis);
        return new SoftmaxKernel(axis, node.sinceVersion() < 13, log, node.input(0).elementType());
    }

    /** A malformed axis is declined at GetCapability when the rank is known, instead of failing every Run. */
    private static void requireAxisInRank(Node node, long axis) {
        int rank = node.input(0).rank();
        if (rank >= 0 && (axis < -rank || axis >= rank)) {
            throw new IllegalArgumentException(node.opType() + " axis " + axis + " is outside the input's rank " + rank);
        }
    }
}
