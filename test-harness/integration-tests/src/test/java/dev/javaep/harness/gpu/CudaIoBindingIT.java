package dev.javaep.harness.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.conformance.models.Models;
import dev.javaep.cuda.CudaTransferCounters;
import dev.javaep.harness.TestPaths;
import dev.javaep.host.Allocator;
import dev.javaep.host.DeviceMemoryType;
import dev.javaep.host.EpDevice;
import dev.javaep.host.IoBinding;
import dev.javaep.host.MemoryInfo;
import dev.javaep.host.OrtEnvironment;
import dev.javaep.host.OrtHost;
import dev.javaep.host.OrtTensor;
import dev.javaep.host.Session;
import dev.javaep.host.SessionOptions;
import dev.javaep.host.TensorData;
import dev.javaep.spi.ElementType;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Device-resident inputs and outputs through IoBinding: the input lives in JavaCuda memory, the
 * output is bound to the EP's memory info, and 100 Runs make no copy between host and device
 * (counted by the EP's data transfer); the one read-back at the end is the only device→host copy.
 */
@Tag("gpu")
class CudaIoBindingIT {
    private static final int BATCH = 8;

    @Test
    void deviceResidentRunsMakeNoHostCopies() {
        float[] x = Models.mlpInput(BATCH);
        TensorData input = TensorData.ofFloats(new long[] {BATCH, Models.FEATURES}, x);
        try (OrtEnvironment env = OrtHost.shared().createEnvironment("javaep-cuda-iobinding", OrtHost.LogLevel.WARNING)) {
            env.registerExecutionProviderLibrary("javaep-cuda-iobinding", TestPaths.loaderLibrary());
            try {
                EpDevice cuda = CudaGpu.device(env);
                MemoryInfo deviceMemory = cuda.memoryInfo(DeviceMemoryType.DEFAULT).orElseThrow();
                System.out.println("EP device: " + cuda + "\nmemory: " + deviceMemory.describe());
                Map<String, TensorData> expected;
                try (SessionOptions cpu = env.createSessionOptions();
                     Session reference = env.createSession(Models.mlp(), cpu)) {
                    expected = reference.run(Map.of("x", input));
                }
                try (SessionOptions options = env.createSessionOptions().disableCpuEpFallback()
                        .appendExecutionProvider(List.of(cuda), Map.of());
                     Session session = env.createSession(Models.mlp(), options);
                     Allocator allocator = session.allocator(deviceMemory);
                     OrtTensor hostInput = OrtTensor.fromHost(input);
                     OrtTensor deviceInput = OrtTensor.allocate(allocator, ElementType.FLOAT, BATCH, Models.FEATURES);
                     IoBinding binding = session.createIoBinding()) {
                    env.copyTensors(List.of(hostInput), List.of(deviceInput), null);
                    binding.bindInput("x", deviceInput).bindOutputToDevice("probabilities", deviceMemory);
                    session.run(binding, null); // warm-up: first Run allocates and plans
                    CudaTransferCounters.reset();
                    for (int i = 0; i < 100; i++) {
                        session.run(binding, null);
                    }
                    CudaTransferCounters.Snapshot runs = CudaTransferCounters.snapshot();
                    System.out.println("100 device-resident Runs: " + runs);
                    assertEquals(0, runs.hostToDevice(), "host→device copies during device-resident Runs");
                    assertEquals(0, runs.deviceToHost(), "device→host copies during device-resident Runs");

                    try (OrtTensor deviceOutput = binding.outputs().getFirst();
                         OrtTensor hostOutput = OrtTensor.fromHost(TensorData.ofFloats(deviceOutput.shape(),
                                 new float[(int) deviceOutput.elementCount()]))) {
                        assertTrue(deviceOutput.memoryInfo().sameAs(deviceMemory),
                                "output bound to the device lives there: " + deviceOutput.memoryInfo());
                        env.copyTensors(List.of(deviceOutput), List.of(hostOutput), null);
                        CudaTransferCounters.Snapshot readBack = CudaTransferCounters.snapshot();
                        assertEquals(1, readBack.deviceToHost(), "the read-back is the one device→host copy");
                        float[] actual = hostOutput.toHost().floats();
                        float[] want = expected.get("probabilities").floats();
                        for (int i = 0; i < want.length; i++) {
                            assertEquals(want[i], actual[i], 1e-5f, "probability " + i);
                        }
                    }
                }
            } finally {
                env.unregisterExecutionProviderLibrary("javaep-cuda-iobinding");
            }
        }
    }
}
