package dev.javaep.cpu.kernel.conv;

import dev.javaep.cpu.kernel.CpuKernel;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import dev.javaep.spi.ops.ConvOps;
import dev.javaep.spi.ops.ConvOps.ConvAttributes;
import dev.javaep.spi.ops.KernelTable;
import dev.javaep.spi.ops.OpSchema;
import dev.javaep.spi.ops.PoolOps;
import dev.javaep.spi.ops.PoolOps.MaxPoolIndices;
import dev.javaep.spi.ops.PoolOps.PoolAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * JavaCpu's rows for {@link ConvOps} and {@link PoolOps}: every version of Conv, ConvTranspose, MaxPool, AveragePool,
 * GlobalAveragePool and GlobalMaxPool on float32 and float16 (MaxPool also on int8 and uint8 from opset 12, and with its
 * Indices output), with 1 to 3 spatial axes (global pools: any). Attributes are checked when the node is judged, so a malformed one is declined.
 */
public final class ConvKernels {
    private static final Set<ElementType> FLOATS = Set.of(ElementType.FLOAT, ElementType.FLOAT16);
    private static final Set<ElementType> MAXPOOL_TYPES = Set.of(ElementType.FLOAT, ElementType.FLOAT16,
            ElementType.INT8, ElementType.UINT8);

    private ConvKernels() {}

    public static List<KernelTable.Row<CpuKernel>> rows() {
        List<KernelTable.Row<CpuKernel>> rows = new ArrayList<>();
        for (OpSchema s : List.of(ConvOps.CONV_1, ConvOps.CONV_11, ConvOps.CONV_22)) {
            rows.add(new KernelTable.Row<>(s, "T", FLOATS, node -> conv(node, false)));
        }
        for (OpSchema s : List.of(ConvOps.CONV_TRANSPOSE_1, ConvOps.CONV_TRANSPOSE_11, ConvOps.CONV_TRANSPOSE_22)) {
            rows.add(new KernelTable.Row<>(s, "T", FLOATS, node -> conv(node, true)));
        }
        for (OpSchema s : List.of(PoolOps.MAX_POOL_1, PoolOps.MAX_POOL_8, PoolOps.MAX_POOL_10)) {
            rows.add(new KernelTable.Row<>(s, "T", FLOATS, node -> pool(node, FloatPooling.Kind.MAX)));
        }
        for (OpSchema s : List.of(PoolOps.MAX_POOL_12, PoolOps.MAX_POOL_22)) {
            rows.add(new KernelTable.Row<>(s, "T", MAXPOOL_TYPES, node -> pool(node, FloatPooling.Kind.MAX)));
        }
        for (OpSchema s : List.of(PoolOps.AVERAGE_POOL_1, PoolOps.AVERAGE_POOL_7, PoolOps.AVERAGE_POOL_10,
                PoolOps.AVERAGE_POOL_19, PoolOps.AVERAGE_POOL_22)) {
            rows.add(new KernelTable.Row<>(s, "T", FLOATS, node -> pool(node, FloatPooling.Kind.AVERAGE)));
        }
        for (OpSchema s : List.of(PoolOps.GLOBAL_AVERAGE_POOL_1, PoolOps.GLOBAL_AVERAGE_POOL_22)) {
            rows.add(new KernelTable.Row<>(s, "T", FLOATS,
                    node -> new PoolKernel(FloatPooling.Kind.AVERAGE, null, node.opType(), node.input(0).elementType())));
        }
        for (OpSchema s : List.of(PoolOps.GLOBAL_MAX_POOL_1, PoolOps.GLOBAL_MAX_POOL_22)) {
            rows.add(new KernelTable.Row<>(s, "T", FLOATS,
                    node -> new PoolKernel(FloatPooling.Kind.MAX, null, node.opType(), node.input(0).elementType())));
        }
        return List.copyOf(rows);
    }

    private static CpuKernel conv(Node node, boolean transposed) {
        ConvAttributes attributes = ConvAttributes.of(node);
        requireRank(node, Math.max(node.input(0).rank(), node.input(1).rank()) - 2);
        return new ConvKernel(attributes, transposed, node.input(0).elementType(), node.input(1).constant());
    }

    private static CpuKernel pool(Node node, FloatPooling.Kind kind) {
        PoolAttributes attributes = PoolAttributes.of(node);
        requireRank(node, attributes.kernelShape().length);
        return new PoolKernel(kind, attributes, node.opType(), node.input(0).elementType(),
                kind == FloatPooling.Kind.MAX ? MaxPoolIndices.of(node) : null);
    }

    /** Declines (at GetCapability) a node with more spatial axes than the kernels take, where the node says how many. */
    private static void requireRank(Node node, int spatialAxes) {
        if (spatialAxes > Window3.MAX_RANK) {
            throw new UnsupportedOperationException(node.opType() + ": JavaCpu takes 1 to " + Window3.MAX_RANK
                    + " spatial axes, the node has " + spatialAxes);
        }
    }
}
