package dev.javaep.cpu.kernel.sampling;

import dev.javaep.cpu.kernel.CpuKernel;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import dev.javaep.spi.ops.KernelTable;
import dev.javaep.spi.ops.OpSchema;
import dev.javaep.spi.ops.SamplingOps;
import dev.javaep.spi.ops.SamplingOps.GridSampleAttributes;
import dev.javaep.spi.ops.SamplingOps.ResizeAttributes;
import java.util.List;
import java.util.Set;

/** JavaCpu's rows for {@link SamplingOps}: float32, and float16 converted to float per element. */
public final class SamplingKernels {
    private static final Set<ElementType> TYPES = Set.of(ElementType.FLOAT, ElementType.FLOAT16);

    private SamplingKernels() {}

    public static List<KernelTable.Row<CpuKernel>> rows() {
        return List.of(
                resize(SamplingOps.RESIZE_10, "T", -1, 1, -1),
                resize(SamplingOps.RESIZE_11, "T1", 1, 2, 3),
                resize(SamplingOps.RESIZE_13, "T1", 1, 2, 3),
                resize(SamplingOps.RESIZE_18, "T1", 1, 2, 3),
                resize(SamplingOps.RESIZE_19, "T1", 1, 2, 3),
                resize(SamplingOps.UPSAMPLE_7, "T", -1, -1, -1),
                resize(SamplingOps.UPSAMPLE_9, "T", -1, 1, -1),
                gridSample(SamplingOps.GRID_SAMPLE_16),
                gridSample(SamplingOps.GRID_SAMPLE_20),
                gridSample(SamplingOps.GRID_SAMPLE_22));
    }

    private static KernelTable.Row<CpuKernel> resize(OpSchema schema, String type, int roi, int scales, int sizes) {
        return new KernelTable.Row<>(schema, type, TYPES,
                node -> new ResizeKernel(schema.describe(), ResizeAttributes.of(node), roi, scales, sizes));
    }

    private static KernelTable.Row<CpuKernel> gridSample(OpSchema schema) {
        return new KernelTable.Row<>(schema, "T1", TYPES, node -> {
            requireGridType(schema, node);
            return new GridSampleKernel(GridSampleAttributes.of(node), node.sinceVersion());
        });
    }

    private static void requireGridType(OpSchema schema, Node node) {
        ElementType grid = schema.typeOf(node, "T2");
        if (!TYPES.contains(grid)) {
            throw new UnsupportedOperationException(schema.describe() + ": grid is " + grid
                    + "; JavaCpu's kernel takes float32 and float16 grids");
        }
    }
}
