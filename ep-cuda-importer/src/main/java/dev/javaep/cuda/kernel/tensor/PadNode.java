package dev.javaep.cuda.kernel.tensor;

import dev.javaep.cuda.CudaDevice;
import dev.javaep.cuda.kernel.CudaKernelLibrary;
import dev.javaep.cuda.kernel.CudaNode;
import dev.javaep.cuda.kernel.KernelArguments;
import dev.javaep.cuda.kernel.KernelSlot;
import dev.javaep.spi.KernelContext;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.TensorValue;
import dev.javaep.spi.ops.TensorOps;
import dev.javaep.spi.ops.TensorOps.PadMode;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Pad in any mode: pads from the attribute or input 1's host value, the constant's bits from the attribute or
 * input 2's host value, axes from input 3; one kernel maps each output element to its source.
 */
final class PadNode extends CudaNode {
    private final PadMode mode;
    private final long[] padsAttribute;
    private final byte[] valueBits;
    /** The kernel by element size in bytes. */
    private final KernelSlot kernel = new KernelSlot(bytes -> TensorSources.mover("javaep_pad", TensorSources.PAD, (int) bytes));

    PadNode(CudaDevice device, PadMode mode, long[] padsAttribute, byte[] valueBits) {
        super(device, "Pad");
        this.mode = mode;
        this.padsAttribute = padsAttribute;
        this.valueBits = valueBits;
    }

    @Override
    protected void run(KernelContext context, CudaKernelLibrary kernels, long stream) {
        DeviceInputs inputs = new DeviceInputs(op, context);
        Tensor x = context.input(0);
        long[] pads = padsAttribute != null ? padsAttribute : inputs.longs(1);
        if (pads == null) {
            throw new IllegalArgumentException("Pad: pads are required");
        }
        TensorOps.Padding p = TensorOps.pad(x.shape(), pads, inputs.longs(3), mode);
        Tensor y = context.output(0, p.outputShape());
        long n = y.elementCount();
        if (n == 0) {
            return;
        }
        int rank = x.shape().length;
        if (rank > Launches.MAX_RANK) {
            throw new IllegalArgumentException("Pad: JavaCuda pads tensors of rank <= 8, this one has rank " + rank);
        }
        int size = x.elementType().byteSize();
        ByteBuffer bits = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
        if (valueBits != null) {
            bits.put(valueBits);
        } else if (inputs.present(2)) {
            TensorValue c = inputs.host(2);
            if (c.elementCount() != 1) {
                throw new IllegalArgumentException("Pad: constant_value must hold one element, it has " + c.elementCount());
            }
            ByteBuffer data = c.data().duplicate();
            for (int i = 0; i < size; i++) {
                bits.put(data.get(i));
            }
        }
        kernel.launch(kernels, size, kernels.linear(n), 0, stream,
                KernelArguments.begin().u64(address(y)).u64(address(x)).longs(p.outputShape(), Launches.MAX_RANK)
                        .longs(x.shape(), Launches.MAX_RANK).longs(p.begin(), Launches.MAX_RANK).i32(rank)
                        .i32(mode.ordinal()).u64(bits.getLong(0)).u64(bits.getLong(8)).i64(n));
    }
}
