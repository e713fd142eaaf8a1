package dev.javaep.cuda.kernel.reduction;

import dev.javaep.cuda.CudaDevice;
import dev.javaep.cuda.kernel.CudaKernelLibrary;
import dev.javaep.cuda.kernel.CudaNode;
import dev.javaep.cuda.kernel.CudaSource;
import dev.javaep.cuda.kernel.KernelArguments;
import dev.javaep.cuda.kernel.ptx.CudaKernel;
import dev.javaep.cuda.kernel.ptx.LaunchShape;
import dev.javaep.cuda.kernel.reduction.ReductionSources.Form;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.KernelContext;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.ops.ReductionOps.SoftmaxGeometry;

/**
 * Softmax and LogSoftmax ({@link SoftmaxGeometry}: opset 13 normalises along {@code axis}; earlier opsets flatten the
 * input to 2-D at {@code axis} and normalise each row). Float32 Softmax runs on the generated PTX kernels (one warp
 * per row along the last axis; one thread per (outer, inner) pair along an inner axis); LogSoftmax and float16 run on
 * the CUDA C of {@link ReductionSources#softmax}, the same two shapes of work, with a block per row for long rows.
 */
public final class SoftmaxNode extends CudaNode {
    private final long axis;
    private final boolean flattenTo2d;
    private final boolean log;
    private final ElementType type;
    /** The CUDA C kernels (rows by warp, rows by block, columns); null for float32 Softmax, which is PTX. */
    private final CudaSource[] sources;

    SoftmaxNode(CudaDevice device, long axis, boolean flattenTo2d, boolean log, ElementType type) {
        super(device, log ? "LogSoftmax" : "Softmax");
        this.axis = axis;
        this.flattenTo2d = flattenTo2d;
        this.log = log;
        this.type = type;
        this.sources = usesPtx(log, type) ? null : new CudaSource[] {ReductionSources.softmax(log, Form.ROWS_WARP, type),
                ReductionSources.softmax(log, Form.ROWS_BLOCK, type), ReductionSources.softmax(log, Form.COLUMNS, type)};
    }

    /** Whether this configuration runs on the built-in PTX kernels (no NVRTC needed). */
    static boolean usesPtx(boolean log, ElementType type) {
        return !log && type == ElementType.FLOAT;
    }

    @Override
    protected void run(KernelContext context, CudaKernelLibrary kernels, long stream) {
        Tensor x = typedInput(context, 0, type);
        long[] shape = x.shape();
        SoftmaxGeometry g = SoftmaxGeometry.of(op, shape, axis, flattenTo2d);
        Tensor y = context.output(0, shape);
        if (y.elementCount() == 0) {
            return;
        }
        long outer = g.outer();
        long length = g.length();
        long inner = g.inner();
        if (sources == null) {
            if (inner == 1) {
                kernels.launch(CudaKernel.SOFTMAX_ROWS_F32, LaunchShape.softmaxRows(outer), stream,
                        KernelArguments.begin().u64(address(y)).u64(address(x)).u64(outer).u64(length));
            } else {
                launch1d(kernels, CudaKernel.SOFTMAX_STRIDED_F32, outer * inner, stream,
                        KernelArguments.begin().u64(address(y)).u64(address(x)).u64(outer).u64(length).u64(inner));
            }
            return;
        }
        if (inner == 1) {
            Form form = ReductionSources.rowsForm(outer, length);
            kernels.launch(sources[form == Form.ROWS_BLOCK ? 1 : 0], ReductionSources.rowsLaunch(form, outer),
                    0, stream, KernelArguments.begin().u64(address(y)).u64(address(x)).i64(outer).i64(length));
        } else {
            kernels.launch(sources[2], kernels.linear(outer * inner), 0, stream,
                    KernelArguments.begin().u64(address(y)).u64(address(x)).i64(outer).i64(length).i64(inner));
        }
    }
}
