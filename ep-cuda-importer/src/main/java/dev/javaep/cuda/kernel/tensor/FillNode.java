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
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** ConstantOfShape (the shape from input 0's host value, one kernel fills the bits) and Range (start + i·delta). */
final class FillNode extends CudaNode {
    private final TensorValue fill;
    /** ConstantOfShape's kernel by element size in bytes. */
    private final KernelSlot filler = new KernelSlot(bytes -> TensorSources.mover("javaep_fill", TensorSources.FILL, (int) bytes));
    private final KernelSlot range = new KernelSlot(k -> TensorSources.range(KernelSlot.type(k, 0)));

    /** ConstantOfShape of {@code fill}, or Range when {@code fill} is null. */
    FillNode(CudaDevice device, TensorValue fill) {
        super(device, fill == null ? "Range" : "ConstantOfShape");
        this.fill = fill;
    }

    @Override
    protected void run(KernelContext context, CudaKernelLibrary kernels, long stream) {
        DeviceInputs inputs = new DeviceInputs(op, context);
        if (fill == null) {
            range(context, inputs, kernels, stream);
            return;
        }
        long[] shape = inputs.longs(0);
        Tensor y = context.output(0, dev.javaep.cpu.kernel.Shapes.checked(shape));
        long n = y.elementCount();
        if (n == 0) {
            return;
        }
        int size = fill.elementType().byteSize();
        ByteBuffer bits = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
        ByteBuffer data = fill.data().duplicate();
        for (int i = 0; i < size; i++) {
            bits.put(data.get(i));
        }
        filler.launch(kernels, size, kernels.linear(n), 0, stream,
                KernelArguments.begin().u64(address(y)).u64(bits.getLong(0)).u64(bits.getLong(8)).i64(n));
    }

    private void range(KernelContext context, DeviceInputs inputs, CudaKernelLibrary kernels, long stream) {
        var type = context.input(0).elementType();
        boolean integral = type != dev.javaep.spi.ElementType.FLOAT && type != dev.javaep.spi.ElementType.DOUBLE;
        long n;
        long startBits;
        long deltaBits;
        if (integral) {
            long start = inputs.scalar(0);
            long delta = inputs.scalar(2);
            n = TensorOps.rangeCount(start, inputs.scalar(1), delta);
            startBits = start;
            deltaBits = delta;
        } else {
            double start = inputs.doubles(0)[0];
            double delta = inputs.doubles(2)[0];
            n = TensorOps.rangeCount(start, inputs.doubles(1)[0], delta);
            startBits = Double.doubleToRawLongBits(start);
            deltaBits = Double.doubleToRawLongBits(delta);
        }
        Tensor y = context.output(0, new long[] {n});
        if (n > 0) {
            range.launch(kernels, KernelSlot.key(type), kernels.linear(n), 0, stream,
                    KernelArguments.begin().u64(address(y)).u64(startBits).u64(deltaBits).i64(n));
        }
    }
}
