package dev.javaep.cuda.kernel.sampling;

import dev.javaep.cuda.driver.Nvrtc;
import dev.javaep.cuda.kernel.CudaKernelFactory;
import dev.javaep.cuda.kernel.CudaKernelLibrary;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import dev.javaep.spi.ops.KernelRows;
import dev.javaep.spi.ops.KernelTable;
import dev.javaep.spi.ops.OpSchema;
import dev.javaep.spi.ops.SamplingOps;
import dev.javaep.spi.ops.SamplingOps.GridSampleAttributes;
import dev.javaep.spi.ops.SamplingOps.ResizeAttributes;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/** JavaCuda's rows for {@link SamplingOps}: CUDA C kernels (NVRTC) on float32 and float16, computing in float. */
public final class SamplingKernels {
    private static final Set<ElementType> TYPES = Set.of(ElementType.FLOAT, ElementType.FLOAT16);

    private SamplingKernels() {}

    public static List<KernelTable.Row<CudaKernelFactory>> rows() {
        return KernelRows.samplingRows(TYPES, SamplingKernels::resize, TYPES, SamplingKernels::gridSample);
    }

    private static Function<Node, CudaKernelFactory> resize(OpSchema schema, SamplingOps.ResizeInputs at) {
        return node -> {
            requireNvrtc(schema);
            requireRank(node, ResizeNode.MAX_RANK);
            ResizeAttributes attributes = ResizeAttributes.of(node);
            return device -> new ResizeNode(device, schema.describe(), attributes, at.roi(), at.scales(), at.sizes());
        };
    }

    private static Function<Node, CudaKernelFactory> gridSample(OpSchema schema) {
        return node -> {
            requireNvrtc(schema);
            requireRank(node, GridSampleNode.MAX_SPATIAL_RANK + 2);
            KernelRows.requireBound(schema, node, "T2", TYPES, "JavaCuda's kernel takes float32 and float16 grids");
            GridSampleAttributes attributes = GridSampleAttributes.of(node);
            return device -> new GridSampleNode(device, attributes, node.sinceVersion());
        };
    }

    private static void requireNvrtc(OpSchema schema) {
        if (!CudaKernelLibrary.compilesSources()) {
            throw new UnsupportedOperationException(schema.opType() + " is a CUDA C kernel and " + Nvrtc.absenceReason());
        }
    }

    /** Declines an input of known rank the kernel cannot index; an unknown rank is checked at Compute. */
    private static void requireRank(Node node, int max) {
        int rank = node.input(0).rank();
        if (rank > max) {
            throw new UnsupportedOperationException(node.opType() + ": rank " + rank + " is more than JavaCuda's kernel takes ("
                    + max + ")");
        }
    }
}
