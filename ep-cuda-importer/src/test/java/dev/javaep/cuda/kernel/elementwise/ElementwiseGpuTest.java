package dev.javaep.cuda.kernel.elementwise;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.javaep.cuda.CudaDevice;
import dev.javaep.cuda.GpuOrSkip;
import dev.javaep.cuda.driver.CudaDriver;
import dev.javaep.cuda.driver.Nvrtc;
import dev.javaep.cuda.kernel.CudaKernelLibrary;
import dev.javaep.cuda.kernel.CudaOps;
import dev.javaep.cuda.kernel.DeviceTensor;
import dev.javaep.cuda.kernel.elementwise.ElementwiseCases.Case;
import dev.javaep.cuda.kernel.elementwise.ElementwiseCases.Result;
import dev.javaep.spi.CompiledNode;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.KernelContext;
import dev.javaep.spi.Tensor;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Every case of {@link ElementwiseCases} compiled by JavaCuda for GPU 0 (the PTX kernels for float32
 * Add/Sub/Mul/Div/Relu/Sigmoid/Tanh, NVRTC's specialisations of the template for the rest) against JavaCpu's
 * result for the same inputs.
 */
@Tag("gpu")
class ElementwiseGpuTest {
    private CudaDriver driver;
    private CudaDevice device;
    private long stream;

    @BeforeEach
    void gpu() {
        driver = GpuOrSkip.driver();
        assumeTrue(CudaKernelLibrary.compilesSources(), Nvrtc.absenceReason());
        device = CudaDevice.open(driver, 0);
        device.makeCurrent();
        stream = driver.streamCreate(CudaDriver.STREAM_NON_BLOCKING);
    }

    @AfterEach
    void release() {
        if (device != null) {
            device.makeCurrent();
            driver.streamSynchronize(stream);
            driver.streamDestroy(stream);
            device.close();
        }
    }

    @Test
    void everyCaseMatchesJavaCpu() {
        List<String> failures = new ArrayList<>();
        List<Case> cases = ElementwiseCases.all();
        long start = System.nanoTime();
        for (Case c : cases) {
            byte[][] inputs = ElementwiseCases.inputs(c);
            Result expected = ElementwiseCases.onCpu(c, inputs);
            try {
                Result actual = onGpu(c, inputs);
                String mismatch = ElementwiseCases.compare(c, expected, actual);
                if (mismatch != null) {
                    failures.add(c + ": " + mismatch);
                }
            } catch (RuntimeException e) {
                failures.add(c + ": " + e);
            }
        }
        System.out.printf("elementwise on %s: %d cases, %d failed, %.1f s (NVRTC compiles included)%n", device.info().name(),
                cases.size(), failures.size(), (System.nanoTime() - start) / 1e9);
        failures.forEach(f -> System.out.println("FAILED " + f));
        assertTrue(cases.size() >= 90, "the sample shrank to " + cases.size());
        assertEquals(List.of(), failures);
    }

    @Test
    void aCompiledNodeRunsAgainWithTheSameResult() {
        Case add = ElementwiseCases.all().getFirst();
        assertEquals("Add", add.op());
        CompiledNode node = CudaOps.compile(add.node(), device);
        byte[][] inputs = ElementwiseCases.inputs(add);
        Result first = run(node, add, inputs);
        Result second = run(node, add, inputs);
        assertEquals(null, ElementwiseCases.compare(add, first, second));
        node.close();
    }

    private Result onGpu(Case c, byte[][] inputs) {
        CompiledNode node = CudaOps.compile(c.node(), device);
        try {
            return run(node, c, inputs);
        } finally {
            node.close();
        }
    }

    private Result run(CompiledNode node, Case c, byte[][] inputs) {
        try (RunContext context = new RunContext(c, inputs)) {
            node.compute(context);
            return context.result();
        }
    }

    /** ORT's side of one Compute: the inputs in device memory, the output allocated when the node asks. */
    private final class RunContext implements KernelContext, AutoCloseable {
        private final Tensor[] inputs;
        private final ElementType outputType;
        private final List<Long> allocations = new ArrayList<>();
        private DeviceTensor output;

        RunContext(Case c, byte[][] data) {
            inputs = new Tensor[data.length];
            outputType = c.output();
            try (Arena arena = Arena.ofConfined()) {
                for (int i = 0; i < data.length; i++) {
                    if (data[i] == null) {
                        continue;
                    }
                    long address = allocate(data[i].length);
                    if (data[i].length > 0) {
                        driver.memcpyHtoD(address, arena.allocateFrom(ValueLayout.JAVA_BYTE, data[i]), data[i].length);
                    }
                    inputs[i] = DeviceTensor.at(address, c.types().get(i), c.shapes().get(i).clone());
                }
            }
        }

        private long allocate(long bytes) {
            long address = driver.memAlloc(Math.max(bytes, 16));
            allocations.add(address);
            return address;
        }

        @Override
        public int inputCount() {
            return inputs.length;
        }

        @Override
        public int outputCount() {
            return 1;
        }

        @Override
        public Tensor input(int index) {
            return inputs[index];
        }

        @Override
        public Tensor output(int index, long[] shape) {
            long elements = 1;
            for (long d : shape) {
                elements *= d;
            }
            output = DeviceTensor.at(allocate(elements * outputType.byteSize()), outputType, shape.clone());
            return output;
        }

        @Override
        public long computeStream() {
            return stream;
        }

        Result result() {
            driver.streamSynchronize(stream);
            int bytes = Math.toIntExact(output.byteSize());
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment host = arena.allocate(Math.max(bytes, 1));
                if (bytes > 0) {
                    driver.memcpyDtoH(host, output.data().address(), bytes);
                }
                return new Result(output.shape(), host.asSlice(0, bytes).toArray(ValueLayout.JAVA_BYTE));
            }
        }

        @Override
        public void close() {
            driver.streamSynchronize(stream);
            allocations.forEach(driver::memFree);
        }
    }
}
