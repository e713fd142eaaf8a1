package dev.javaep.harness.host;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.harness.ProcessMemory;
import dev.javaep.harness.TestPaths;
import dev.javaep.host.Allocator;
import dev.javaep.host.IoBinding;
import dev.javaep.host.MemoryInfo;
import dev.javaep.host.OrtEnvironment;
import dev.javaep.host.OrtHost;
import dev.javaep.host.OrtTensor;
import dev.javaep.host.RunOptions;
import dev.javaep.host.Session;
import dev.javaep.host.TensorData;
import dev.javaep.spi.ElementType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Create, bind, run and close an IoBinding with its tensors and run options a thousand times on
 * JavaCpuExecutionProvider: the process's resident memory must stay flat. The tensors are large enough
 * that leaking any one of them per cycle would pass the bound, and a control (the same thousand input
 * tensors held open, then closed) shows that the measurement sees such growth.
 */
class IoBindingLeakIT {
    private static final String REGISTRATION = "javaep-iobinding-leak";
    private static final int WARMUP = 200;
    private static final int CYCLES = 1_000;
    private static final long BOUND_KIB = 64 * 1024;
    /** Big enough that keeping any one tensor of a cycle (x: 128 KiB) a thousand times would pass the bound. */
    private static final int BATCH = 8192;

    @Test
    void thousandBindingCyclesKeepResidentMemoryFlat() {
        try (OrtEnvironment env = OrtHost.shared().createEnvironment("javaep-iobinding-leak", OrtHost.LogLevel.WARNING)) {
            env.registerExecutionProviderLibrary(REGISTRATION, TestPaths.loaderLibrary());
            try (Session session = IoBindingIT.session(env, "JavaCpuExecutionProvider"); MemoryInfo cpu = MemoryInfo.cpu()) {
                TensorData input = BindingModel.input(BATCH, 9);
                Map<String, TensorData> expected = session.run(Map.of("x", input));
                for (int i = 0; i < WARMUP; i++) {
                    cycle(session, cpu, input, expected, i);
                }
                residentKib(); // the first collection after warm-up returns heap pages; measure from the settled state
                long before = residentKib();
                for (int i = 0; i < CYCLES; i++) {
                    cycle(session, cpu, input, expected, i);
                }
                long after = residentKib();
                System.out.printf("[IoBindingLeakIT] VmRSS after %d warm-up cycles: %d KiB; after %d more: %d KiB (%+d KiB, bound +%d KiB)%n",
                        WARMUP, before, CYCLES, after, after - before, BOUND_KIB);
                assertTrue(after - before < BOUND_KIB, "resident memory grew by " + (after - before) + " KiB over " + CYCLES + " cycles");

                // control: what a leak of one input tensor per cycle looks like to this measurement
                List<OrtTensor> held = new ArrayList<>();
                try {
                    for (int i = 0; i < CYCLES; i++) {
                        held.add(OrtTensor.fromHost(input));
                    }
                    long holding = residentKib();
                    System.out.printf("[IoBindingLeakIT] control: %d input tensors held open: %d KiB (%+d KiB)%n",
                            CYCLES, holding, holding - after);
                    assertTrue(holding - after > BOUND_KIB, "the measurement must see a leak of one input per cycle");
                } finally {
                    held.forEach(OrtTensor::close);
                }
            } finally {
                env.unregisterExecutionProviderLibrary(REGISTRATION);
            }
        }
    }

    private static void cycle(Session session, MemoryInfo cpu, TensorData input, Map<String, TensorData> expected, int i) {
        try (IoBinding binding = session.createIoBinding();
             OrtTensor x = OrtTensor.fromHost(input);
             OrtTensor y = OrtTensor.allocate(Allocator.defaultCpu(), ElementType.FLOAT, BATCH, BindingModel.OUT);
             RunOptions options = RunOptions.create().runTag("leak-" + i)) {
            binding.bindInput("x", x).bindOutputToDevice("hidden", cpu).bindOutput("y", y);
            session.run(binding, options);
            List<OrtTensor> outputs = binding.outputs();
            try {
                if (i % 100 == 0) {
                    assertArrayEquals(expected.get("hidden").data(), outputs.get(0).toHost().data());
                    assertArrayEquals(expected.get("y").data(), y.toHost().data());
                }
            } finally {
                outputs.forEach(OrtTensor::close);
            }
        }
    }

    private static long residentKib() {
        System.gc();
        return ProcessMemory.residentKib();
    }
}
