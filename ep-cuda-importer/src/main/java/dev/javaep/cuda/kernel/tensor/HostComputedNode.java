package dev.javaep.cuda.kernel.tensor;

import dev.javaep.cpu.kernel.CpuKernel;
import dev.javaep.cpu.kernel.HostTensor;
import dev.javaep.cuda.CudaDevice;
import dev.javaep.cuda.kernel.CudaKernelLibrary;
import dev.javaep.cuda.kernel.CudaNode;
import dev.javaep.spi.KernelContext;
import dev.javaep.spi.Tensor;
import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;

/**
 * Shape, Size and Constant outside the host part of a group: the JavaCpu kernel computes the (small) value
 * on the host from the inputs' shapes alone, and it is copied into the device output. A group normally runs
 * these steps on the host itself ({@code CudaSubgraphProgram}); this node is for a step whose output a
 * device kernel needs anyway.
 */
final class HostComputedNode extends CudaNode {
    private final CpuKernel kernel;

    HostComputedNode(CudaDevice device, String op, CpuKernel kernel) {
        super(device, op);
        this.kernel = kernel;
    }

    @Override
    protected void run(KernelContext context, CudaKernelLibrary kernels, long stream) {
        List<Tensor> inputs = new ArrayList<>();
        for (int i = 0; i < context.inputCount(); i++) {
            inputs.add(context.input(i)); // only their shapes are read
        }
        long[][] shapes = kernel.outputShapes(inputs);
        try (Arena arena = Arena.ofConfined()) {
            List<Tensor> targets = new ArrayList<>();
            List<HostTensor> outputs = new ArrayList<>();
            for (int i = 0; i < shapes.length; i++) {
                targets.add(context.output(i, shapes[i]));
                outputs.add(HostTensor.allocate(arena, targets.get(i).elementType(), shapes[i]));
            }
            kernel.compute(inputs, outputs);
            for (int i = 0; i < shapes.length; i++) {
                long bytes = outputs.get(i).byteSize();
                if (bytes > 0) {
                    // from pageable memory: the driver stages the bytes before it returns, so the arena may close
                    kernels.driver().memcpyHtoDAsync(address(targets.get(i)), outputs.get(i).data().address(), bytes, stream);
                }
            }
        }
    }
}
