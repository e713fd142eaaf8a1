package dev.javaep.cuda.kernel;

import dev.javaep.spi.KernelContext;
import dev.javaep.spi.TensorValue;

/**
 * What a JavaCuda step sees inside its compiled group: the Run's tensors in device memory, and the small
 * inputs a kernel needs on the host to plan its launch (Reshape's shape, Slice's starts, Pad's pads,
 * Resize's scales, a reduction's axes).
 */
public interface CudaKernelContext extends KernelContext {
    /**
     * Input {@code index}'s value in host memory, or null when the input is omitted. A constant initializer
     * comes from the model (no copy); a value computed on the host in this Run comes from there; anything
     * else is copied from the device after the stream has done what was queued before (correct, but a
     * synchronisation per Run: keep shape arithmetic on the host).
     */
    TensorValue hostInput(int index);

    /**
     * Whether input {@code index} has a value in host memory already (a constant of the model, or a value the
     * group computed on the host), so that {@link #hostInput} costs no copy. A kernel can then check indices
     * on the host before it launches; it should not ask for a value that is only on the device just to check.
     */
    default boolean hasHostValue(int index) {
        return false;
    }
}
