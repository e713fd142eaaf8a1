package dev.javaep.cuda.kernel.sampling;

import dev.javaep.cuda.CudaDevice;
import dev.javaep.cuda.kernel.CudaKernelContext;
import dev.javaep.cuda.kernel.CudaKernelLibrary;
import dev.javaep.cuda.kernel.CudaNode;
import dev.javaep.cuda.kernel.KernelArguments;
import dev.javaep.cuda.kernel.KernelSlot;
import dev.javaep.spi.KernelContext;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.TensorValue;
import dev.javaep.spi.ops.SamplingOps.CoordinateTransform;
import dev.javaep.spi.ops.SamplingOps.ResizeAttributes;
import dev.javaep.spi.ops.SamplingOps.ResizeGeometry;
import java.nio.ByteBuffer;

/**
 * Resize and Upsample in float32 or float16. roi, scales and sizes are read on the host
 * ({@link CudaKernelContext#hostInput}: a constant from the model without a copy) to plan the output shape
 * ({@link ResizeGeometry}); the kernel then maps each output element to its taps on the device.
 */
final class ResizeNode extends CudaNode {
    /** The kernel's Dims and Floats8 hold 8 dimensions. */
    static final int MAX_RANK = 8;

    private final ResizeAttributes attributes;
    private final int roiInput;
    private final int scalesInput;
    private final int sizesInput;
    private final KernelSlot kernel;

    ResizeNode(CudaDevice device, String op, ResizeAttributes attributes, int roiInput, int scalesInput, int sizesInput) {
        super(device, op);
        this.attributes = attributes;
        this.roiInput = roiInput;
        this.scalesInput = scalesInput;
        this.sizesInput = sizesInput;
        this.kernel = new KernelSlot(k -> SamplingSources.resize(attributes, KernelSlot.type(k, 0)));
    }

    @Override
    protected void run(KernelContext context, CudaKernelLibrary kernels, long stream) {
        if (!(context instanceof CudaKernelContext host)) {
            throw new IllegalStateException(op + " reads its scales or sizes on the host and needs a CudaKernelContext");
        }
        Tensor x = context.input(0);
        long[] shape = x.shape();
        if (shape.length > MAX_RANK) {
            throw new IllegalArgumentException(op + ": rank " + shape.length + " is more than the kernel's " + MAX_RANK);
        }
        // roi matters to tf_crop_and_resize alone: other modes never wait for a computed one to reach the host
        float[] roi = attributes.transform() == CoordinateTransform.TF_CROP_AND_RESIZE ? floats(hostInput(host, roiInput)) : null;
        ResizeGeometry g = ResizeGeometry.of(attributes, shape, roi, floats(hostInput(host, scalesInput)),
                longs(hostInput(host, sizesInput)));
        Tensor y = context.output(0, g.output());
        long total = y.elementCount();
        if (total == 0) {
            return;
        }
        int resized = 0;
        for (int d = 0; d < shape.length; d++) {
            resized |= g.resized()[d] ? 1 << d : 0;
        }
        kernel.launch(kernels, KernelSlot.key(x.elementType()), kernels.linear(total), 0, stream,
                KernelArguments.begin().u64(address(y)).u64(address(x)).longs(shape, MAX_RANK).longs(g.output(), MAX_RANK)
                        .floats(g.scales(), MAX_RANK).floats(g.roiStart(), MAX_RANK).floats(g.roiEnd(), MAX_RANK)
                        .i32(shape.length).i32(resized).i64(total).f32(attributes.cubicCoeffA())
                        .f32(attributes.extrapolationValue()));
    }

    private static TensorValue hostInput(CudaKernelContext context, int index) {
        return index < 0 || index >= context.inputCount() ? null : context.hostInput(index);
    }

    /** A float16, float or double value's elements as float; null for an omitted one. */
    static float[] floats(TensorValue v) {
        if (v == null) {
            return null;
        }
        if (v.elementType() != dev.javaep.spi.ElementType.FLOAT16) {
            return v.floats();
        }
        ByteBuffer b = v.data();
        float[] out = new float[Math.toIntExact(v.elementCount())];
        for (int i = 0; i < out.length; i++) {
            out[i] = Float.float16ToFloat(b.getShort(i * 2));
        }
        return out;
    }

    static long[] longs(TensorValue v) {
        return v == null ? null : v.longs();
    }
}
