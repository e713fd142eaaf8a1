package dev.javaep.cuda.kernel.elementwise;

import dev.javaep.cuda.kernel.KernelArguments;
import dev.javaep.cuda.kernel.CudaKernelLibrary;
import dev.javaep.cuda.kernel.CudaNode;
import dev.javaep.cuda.CudaDevice;
import dev.javaep.cuda.kernel.ptx.BroadcastLayout;
import dev.javaep.cuda.kernel.ptx.CudaKernel;
import dev.javaep.cuda.kernel.ptx.CudaKernel.BinaryForm;
import dev.javaep.cuda.kernel.ptx.CudaKernel.BinaryOp;
import dev.javaep.spi.Broadcasting;
import dev.javaep.spi.KernelContext;
import dev.javaep.spi.Tensor;
import java.util.Arrays;

/** Add, Sub, Mul, Div with ONNX multidirectional broadcasting: a float4 kernel for equal aligned shapes, an indexed one otherwise. */
public final class ElementwiseBinaryNode extends CudaNode {
    private final CudaKernel contig;
    private final CudaKernel contig4;
    private final CudaKernel bcast;

    ElementwiseBinaryNode(CudaDevice device, BinaryOp operation) {
        super(device, operation.opType());
        this.contig = CudaKernel.binary(operation, BinaryForm.CONTIG);
        this.contig4 = CudaKernel.binary(operation, BinaryForm.CONTIG4);
        this.bcast = CudaKernel.binary(operation, BinaryForm.BCAST);
    }

    @Override
    protected void run(KernelContext context, CudaKernelLibrary kernels, long stream) {
        Tensor a = floatInput(context, 0);
        Tensor b = floatInput(context, 1);
        boolean sameShapes = Arrays.equals(a.shape(), b.shape());
        // equal shapes are their own broadcast: no new array per Run for the common case
        long[] outShape = sameShapes ? a.shape() : Broadcasting.multidirectional(a.shape(), b.shape());
        Tensor y = context.output(0, outShape);
        long n = y.elementCount();
        if (n == 0) {
            return;
        }
        long ya = address(y);
        long aa = address(a);
        long ba = address(b);
        if (sameShapes) {
            if (n % 4 == 0 && aligned16(ya, aa, ba)) {
                launch1d(kernels, contig4, n / 4, stream, KernelArguments.begin().u64(ya).u64(aa).u64(ba).u64(n / 4));
            } else {
                launch1d(kernels, contig, n, stream, KernelArguments.begin().u64(ya).u64(aa).u64(ba).u64(n));
            }
            return;
        }
        // Merged dimensions: fewer divisions per element, and ranks above 8 that merge down still run.
        BroadcastLayout layout = BroadcastLayout.coalesced(outShape, a.shape(), b.shape());
        launch1d(kernels, bcast, n, stream,
                KernelArguments.begin().u64(ya).u64(aa).u64(ba).u64(n).u32(layout.rank()).layout(layout));
    }
}
