package dev.javaep.harness.gpu;

import dev.javaep.harness.JavaepRegistration;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.harness.partition.PartitionCases;
import dev.javaep.harness.partition.PartitionCases.Case;
import dev.javaep.harness.partition.PartitionMatrix;
import dev.javaep.host.EpDevice;
import dev.javaep.host.Session;
import dev.javaep.host.SessionOptions;
import dev.javaep.host.TensorData;
import dev.javaep.ort.OrtException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The root cause of issue 11's GPU fault, on the real device: without JavaCuda's own MemcpyFromHost kernel
 * ORT runs its CPU fallback copy and plans that copy's output in host memory, so the compiled node after
 * it is handed a host pointer. With the copy kernels switched off ({@code javaep.cuda.copyKernels=false},
 * a diagnostic) the bridge's input check must stop the Run with a status naming the input and both
 * memories, before any kernel reads it: the CUDA context survives and the same model then runs correctly
 * in a session with the copy kernels.
 */
@Tag("gpu")
class CudaBoundaryIT {
    private static final String REGISTRATION = "javaep-cuda-boundary";
    @RegisterExtension
    static final JavaepRegistration JAVAEP = new JavaepRegistration(REGISTRATION);



    @Test
    void aHostPointerIsRefusedWithAStatusAndTheContextSurvives() {
        EpDevice device = CudaGpu.device(JAVAEP.env());
        Case issue = PartitionCases.issueModel();
        Map<String, TensorData> inputs = issue.inputSets().getFirst();
        System.setProperty("javaep.cuda.copyKernels", "false");
        String message;
        try (SessionOptions options = JAVAEP.env().createSessionOptions().appendExecutionProvider(List.of(device), Map.of());
             Session session = JAVAEP.env().createSession(issue.bytes(), options)) {
            OrtException refused = assertThrows(OrtException.class, () -> session.run(inputs),
                    "without its copy kernels JavaCuda must be handed a host pointer (ORT PR #27272) and refuse it");
            message = refused.getMessage();
        } finally {
            System.clearProperty("javaep.cuda.copyKernels");
        }
        System.out.println("[CudaBoundaryIT] without copy kernels: " + message);
        assertTrue(message.contains("got input") && message.contains("CPU"), message);

        // The context is alive: the same model, with the copy kernels, gives ORT CPU's outputs (runOnEp asserts it).
        PartitionMatrix matrix = new PartitionMatrix(JAVAEP.env(), device);
        matrix.runOnEp(issue, false, matrix.reference(issue));
        System.out.println("[CudaBoundaryIT] with copy kernels: the issue model equals ORT CPU on " + device.epName());
    }
}
