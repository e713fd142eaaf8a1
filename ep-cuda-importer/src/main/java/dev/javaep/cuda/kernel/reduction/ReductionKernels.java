package dev.javaep.cuda.kernel.reduction;

import dev.javaep.cuda.driver.Nvrtc;
import dev.javaep.cuda.kernel.CudaKernelFactory;
import dev.javaep.cuda.kernel.CudaKernelLibrary;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import dev.javaep.spi.TensorValue;
import dev.javaep.spi.ops.KernelTable;
import dev.javaep.spi.ops.OpSchema;
import dev.javaep.spi.ops.ReductionOps;
import dev.javaep.spi.ops.ReductionOps.ReduceAttributes;
import dev.javaep.spi.ops.ReductionOps.Reduction;
import dev.javaep.spi.ops.ReductionOps.SoftmaxGeometry;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * JavaCuda's rows for {@link ReductionOps}: every schema version on float32 and float16. Everything but float32
 * Softmax (generated PTX) is CUDA C compiled by NVRTC, so those rows decline where NVRTC is absent.
 */
public final class ReductionKernels {
    private static final Set<ElementType> TYPES = Set.of(ElementType.FLOAT, ElementType.FLOAT16);

    private ReductionKernels() {}

    public static List<KernelTable.Row<CudaKernelFactory>> rows() {
        List<KernelTable.Row<CudaKernelFactory>> rows = new ArrayList<>();
        for (Reduction r : Reduction.values()) {
            for (OpSchema schema : ReductionOps.schemas(r)) {
                rows.add(new KernelTable.Row<>(schema, "T", TYPES, ReductionKernels::reduce));
            }
        }
        for (OpSchema schema : ReductionOps.ARGMAX) {
            rows.add(new KernelTable.Row<>(schema, "T", TYPES, node -> arg(node, true)));
        }
        for (OpSchema schema : ReductionOps.ARGMIN) {
            rows.add(new KernelTable.Row<>(schema, "T", TYPES, node -> arg(node, false)));
        }
        for (OpSchema schema : ReductionOps.SOFTMAX) {
            rows.add(new KernelTable.Row<>(schema, "T", TYPES, node -> softmax(node, false)));
        }
        for (OpSchema schema : ReductionOps.LOG_SOFTMAX) {
            rows.add(new KernelTable.Row<>(schema, "T", TYPES, node -> softmax(node, true)));
        }
        return List.copyOf(rows);
    }

    private static CudaKernelFactory reduce(Node node) {
        requireNvrtc(node);
        ReduceAttributes attributes = ReduceAttributes.of(node);
        ElementType type = node.input(0).elementType();
        long[] constantAxes = null;
        if (attributes.axesFromInput() && node.inputs().size() > 1 && node.input(1) != null) {
            TensorValue axes = node.input(1).value();
            constantAxes = axes == null ? null : axes.longs();
        }
        long[] axes = constantAxes;
        return device -> new ReduceNode(device, attributes, type, axes);
    }

    private static CudaKernelFactory arg(Node node, boolean max) {
        requireNvrtc(node);
        long axis = node.intAttribute("axis", 0);
        requireAxisInRank(node, axis);
        boolean keepdims = node.intAttribute("keepdims", 1) != 0;
        boolean last = node.intAttribute("select_last_index", 0) != 0;
        ElementType type = node.input(0).elementType();
        return device -> new ArgReduceNode(device, max, axis, keepdims, last, type);
    }

    private static CudaKernelFactory softmax(Node node, boolean log) {
        long axis = node.intAttribute("axis", SoftmaxGeometry.defaultAxis(node.sinceVersion()));
        requireAxisInRank(node, axis);
        ElementType type = node.input(0).elementType();
        if (!SoftmaxNode.usesPtx(log, type)) {
            requireNvrtc(node);
        }
        boolean coerceTo2d = node.sinceVersion() < 13;
        return device -> new SoftmaxNode(device, axis, coerceTo2d, log, type);
    }

    private static void requireNvrtc(Node node) {
        if (!CudaKernelLibrary.compilesSources()) {
            throw new UnsupportedOperationException(node.opType() + " on " + node.input(0).elementType()
                    + " is CUDA C, and " + Nvrtc.absenceReason());
        }
    }

    /** A malformed axis is declined at GetCapability when the rank is known, instead of failing every Run. */
    private static void requireAxisInRank(Node node, long axis) {
        int rank = node.input(0).rank();
        if (rank >= 0 && (axis < -rank || axis >= rank)) {
            throw new IllegalArgumentException(node.opType() + " axis " + axis + " is outside the input's rank " + rank);
        }
    }
}
