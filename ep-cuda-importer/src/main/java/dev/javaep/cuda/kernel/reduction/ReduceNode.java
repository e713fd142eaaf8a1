package dev.javaep.cuda.kernel.reduction;

import dev.javaep.cuda.CudaDevice;
import dev.javaep.cuda.kernel.CudaKernelContext;
import dev.javaep.cuda.kernel.CudaKernelLibrary;
import dev.javaep.cuda.kernel.CudaNode;
import dev.javaep.cuda.kernel.CudaSource;
import dev.javaep.cuda.kernel.KernelArguments;
import dev.javaep.cuda.kernel.ptx.LaunchShape;
import dev.javaep.cuda.kernel.reduction.ReductionSources.Form;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.KernelContext;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.TensorValue;
import dev.javaep.spi.ops.ReductionOps.Groups;
import dev.javaep.spi.ops.ReductionOps.ReduceAttributes;
import dev.javaep.spi.ops.ReductionOps.ReduceGeometry;
import java.util.EnumMap;
import java.util.Map;

/**
 * ReduceSum/Mean/Max/Min/Prod/L1/L2/SumSquare/LogSum/LogSumExp on float32 and float16 (accumulated in float). The
 * input's dimensions are simplified first ({@link ReduceGeometry#groups}: size-1 dimensions dropped, neighbouring
 * reduced or kept dimensions merged), which leaves one of three shapes of work:
 * <ul>
 *   <li>[rows, R] with R contiguous (global pooling, the last axis): a warp per row, or a block per row when rows
 *       are long and few, with shuffle reductions;</li>
 *   <li>[outer, R, inner]: 32 neighbouring columns per block (coalesced reads), 8 threads splitting R;</li>
 *   <li>several reduced groups (axes 0 and 2 of a 3-D input): a thread per output.</li>
 * </ul>
 * Axes given as input 1 are read on the host: a constant's values when the node is compiled, otherwise through
 * {@link CudaKernelContext#hostInput} at Run.
 */
final class ReduceNode extends CudaNode {
    private final ReduceAttributes attributes;
    private final ElementType type;
    /** Input 1's values when it is a constant initializer, else null (read at Run). */
    private final long[] constantAxes;
    private final Map<Form, CudaSource> sources = new EnumMap<>(Form.class);

    ReduceNode(CudaDevice device, ReduceAttributes attributes, ElementType type, long[] constantAxes) {
        super(device, attributes.reduction().opType());
        this.attributes = attributes;
        this.type = type;
        this.constantAxes = constantAxes;
        for (Form form : Form.values()) {
            sources.put(form, ReductionSources.reduce(attributes.reduction(), form, type));
        }
    }

    @Override
    protected void run(KernelContext context, CudaKernelLibrary kernels, long stream) {
        Tensor x = typedInput(context, 0, type);
        ReduceGeometry g = attributes.geometry(x.shape(), axes(context));
        Tensor y = context.output(0, g.outputShape());
        if (g.outputCount() == 0) {
            return;
        }
        Groups groups = g.groups();
        long[] rows = groups.outerReducedInner();
        if (rows != null && rows[2] == 1) {
            Form form = ReductionSources.rowsForm(rows[0], rows[1]);
            kernels.launch(sources.get(form), ReductionSources.rowsLaunch(form, rows[0]), 0, stream,
                    KernelArguments.begin().u64(address(y)).u64(address(x)).i64(rows[0]).i64(rows[1]));
        } else if (rows != null) {
            long columnBlocks = (rows[2] + ReductionSources.COLUMNS_X - 1) / ReductionSources.COLUMNS_X;
            if (columnBlocks > Integer.MAX_VALUE) {
                throw new IllegalArgumentException(op + ": " + rows[2] + " columns exceed one launch");
            }
            kernels.launch(sources.get(Form.COLUMNS), new LaunchShape((int) columnBlocks,
                            (int) Math.min(rows[0], LaunchShape.MAX_GRID_YZ), 1, ReductionSources.COLUMNS_X,
                            ReductionSources.COLUMNS_Y, 1), 0, stream,
                    KernelArguments.begin().u64(address(y)).u64(address(x)).i64(rows[0]).i64(rows[1]).i64(rows[2]));
        } else {
            long[][] kept = groups.select(false);
            long[][] reduced = groups.select(true);
            if (kept[0].length > 8 || reduced[0].length > 8) {
                throw new IllegalArgumentException(op + ": the input " + shape(x.shape()) + " alternates reduced and kept"
                        + " dimensions more often than the kernel's 8 of each");
            }
            kernels.launch(sources.get(Form.GENERAL), kernels.linear(g.outputCount()), 0, stream,
                    KernelArguments.begin().u64(address(y)).u64(address(x)).i64(g.outputCount()).i64(g.reducedCount())
                            .i32(kept[0].length).longs(kept[0], 8).longs(kept[1], 8)
                            .i32(reduced[0].length).longs(reduced[0], 8).longs(reduced[1], 8));
        }
    }

    /** The axes of input 1 (null when omitted; the attribute's are in {@link #attributes}). */
    private long[] axes(KernelContext context) {
        if (!attributes.axesFromInput() || constantAxes != null) {
            return constantAxes;
        }
        if (context.inputCount() < 2 || context.input(1) == null) {
            return null;
        }
        if (!(context instanceof CudaKernelContext host)) {
            throw new IllegalStateException(op + ": the axes input is not a constant and this context cannot read it");
        }
        TensorValue axes = host.hostInput(1);
        return axes == null ? null : axes.longs();
    }
}
