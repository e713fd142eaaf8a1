package dev.javaep.cuda.kernel;

import dev.javaep.cuda.CudaDevice;
import dev.javaep.cuda.kernel.ptx.BroadcastLayout;
import dev.javaep.spi.Broadcasting;
import dev.javaep.spi.KernelContext;
import dev.javaep.spi.Tensor;
import java.util.Arrays;

/** Add, Sub, Mul, Div with ONNX multidirectional broadcasting: a float4 kernel for equal aligned shapes, an indexed one otherwise. */
final class ElementwiseBinaryNode extends CudaNode {
    private final String contig;
    private final String contig4;
    private final String bcast;

    /** @param operation "add", "sub", "mul" or "div" */
    ElementwiseBinaryNode(CudaDevice device, String operation) {
        super(device, operation);
        this.contig = "ew_" + operation + "_f32_contig";
        this.contig4 = "ew_" + operation + "_f32_contig4";
        this.bcast = "ew_" + operation + "_f32_bcast";
    }

    @Override
    void run(KernelContext context, CudaKernelLibrary kernels, long stream) {
        Tensor a = floatInput(context, 0);
        Tensor b = floatInput(context, 1);
        long[] outShape = Broadcasting.multidirectional(a.shape(), b.shape());
        Tensor y = context.output(0, outShape);
        long n = y.elementCount();
        if (n == 0) {
            return;
        }
        long ya = address(y);
        long aa = address(a);
        long ba = address(b);
        if (Arrays.equals(a.shape(), b.shape())) {
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
