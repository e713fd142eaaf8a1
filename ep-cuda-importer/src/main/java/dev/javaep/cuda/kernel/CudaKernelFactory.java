package dev.javaep.cuda.kernel;

import dev.javaep.cuda.CudaDevice;
import dev.javaep.spi.CompiledNode;

/**
 * What a JavaCuda kernel-table row makes for a node: the node's configuration (attributes read, checked)
 * waiting for the device it will run on. Rows decide without a GPU; the device comes at Compile.
 */
@FunctionalInterface
public interface CudaKernelFactory {
    CompiledNode on(CudaDevice device);
}
