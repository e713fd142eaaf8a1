package dev.javaep.cpu.kernel.sampling;

import dev.javaep.cpu.kernel.CpuKernel;
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

/**
 * JavaCpu's rows for {@link SamplingOps}: float32, and float16 converted to float per element; Resize and Upsample
 * also on int8, uint8 and int32 in nearest mode (a copy of the chosen element). Integer linear and cubic are declined:
 * ONNX leaves their rounding open, and ONNX Runtime's CPU EP rounds differently by layout (truncating a float sum for
 * NCHW, fixed-point weights for NHWC uint8), so no one rule would match it.
 */
public final class SamplingKernels {
    private static final Set<ElementType> TYPES = Set.of(ElementType.FLOAT, ElementType.FLOAT16);
    /** Resize's integer types, nearest mode only. */
    static final Set<ElementType> RESIZE_INTEGERS = Set.of(ElementType.INT8, ElementType.UINT8, ElementType.INT32);
    private static final Set<ElementType> RESIZE_TYPES = Set.of(ElementType.FLOAT, ElementType.FLOAT16,
            ElementType.INT8, ElementType.UINT8, ElementType.INT32);

    private SamplingKernels() {}

    public static List<KernelTable.Row<CpuKernel>> rows() {
        return KernelRows.samplingRows(RESIZE_TYPES, SamplingKernels::resize, TYPES, SamplingKernels::gridSample);
    }

    private static Function<Node, CpuKernel> resize(OpSchema schema, SamplingOps.ResizeInputs at) {
        return node -> {
            ResizeAttributes attributes = ResizeAttributes.of(node);
            ElementType x = schema.typeOf(node, at.dataType());
            if (RESIZE_INTEGERS.contains(x) && attributes.mode() != SamplingOps.Interpolation.NEAREST) {
                throw new UnsupportedOperationException(schema.describe() + ": mode " + attributes.mode()
                        + " on " + x + " is not implemented (its rounding is ONNX Runtime's, by layout); nearest is");
            }
            return new ResizeKernel(schema.describe(), attributes, at.roi(), at.scales(), at.sizes());
        };
    }

    private static Function<Node, CpuKernel> gridSample(OpSchema schema) {
        return node -> {
            KernelRows.requireBound(schema, node, "T2", TYPES, "JavaCpu's kernel takes float32 and float16 grids");
            return new GridSampleKernel(GridSampleAttributes.of(node), node.sinceVersion());
        };
    }
}
