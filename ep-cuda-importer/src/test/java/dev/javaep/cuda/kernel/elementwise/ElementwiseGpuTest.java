package dev.javaep.cuda.kernel.elementwise;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.javaep.cuda.driver.Nvrtc;
import dev.javaep.cuda.kernel.CudaKernelLibrary;
import dev.javaep.cuda.kernel.CudaOps;
import dev.javaep.cuda.kernel.DeviceRunContext.Data;
import dev.javaep.cuda.kernel.DeviceRunContext;
import dev.javaep.cuda.kernel.GpuTest;
import dev.javaep.cuda.kernel.elementwise.ElementwiseCases.Case;
import dev.javaep.cuda.kernel.elementwise.ElementwiseCases.Result;
import dev.javaep.spi.CompiledNode;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Every case of {@link ElementwiseCases} compiled by JavaCuda for GPU 0 (the PTX kernels for float32
 * Add/Sub/Mul/Div/Relu/Sigmoid/Tanh, NVRTC's specialisations of the template for the rest) against JavaCpu's
 * result for the same inputs.
 */
@Tag("gpu")
class ElementwiseGpuTest extends GpuTest {

    @Override
    protected boolean needsNvrtc() {
        return false;
    }

    @BeforeEach
    void gpu() {
        assumeTrue(CudaKernelLibrary.compilesSources(), Nvrtc.absenceReason());
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
        List<Data> data = new ArrayList<>();
        for (int i = 0; i < inputs.length; i++) {
            data.add(inputs[i] == null ? null : new Data(c.types().get(i), c.shapes().get(i).clone(), inputs[i]));
        }
        try (DeviceRunContext context = new DeviceRunContext(driver, stream, List.of(c.output()), data, List.of(), true)) {
            node.compute(context);
            Data y = context.data(0);
            return new Result(y.shape(), y.bytes());
        }
    }
}
