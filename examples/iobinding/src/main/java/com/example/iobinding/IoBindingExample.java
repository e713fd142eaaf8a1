package com.example.iobinding;

import dev.javaep.host.Allocator;
import dev.javaep.host.IoBinding;
import dev.javaep.host.MemoryInfo;
import dev.javaep.host.OrtEnvironment;
import dev.javaep.host.OrtHost;
import dev.javaep.host.OrtTensor;
import dev.javaep.host.Session;
import dev.javaep.host.SessionOptions;
import dev.javaep.spi.ElementType;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.List;

/**
 * IoBinding from Java on ONNX Runtime's own CPU EP, with javaep's host binding ({@code javaep-host}) and nothing
 * else of javaep: no plugin EP is registered.
 *
 * <p>The model, {@code affine_relu.onnx} (a resource beside this class): {@code y = Relu(x · W + b)}, {@code x}
 * float {@code [N, 4]}, {@code W} a {@code [4, 3]} initializer, {@code b} a {@code [3]} initializer, {@code y}
 * float {@code [N, 3]}. What it shows:
 * <ol>
 *   <li>an input tensor over memory this program allocated ({@link OrtTensor#wrap}): ORT reads it where it is;</li>
 *   <li>an output tensor allocated up front ({@link OrtTensor#allocate}) that ORT writes in place, Run after Run;</li>
 *   <li>a second Run after the input memory changed in place: the binding stays, no tensor is made again;</li>
 *   <li>an output ORT allocates itself on a memory info's device ({@link IoBinding#bindOutputToDevice}).</li>
 * </ol>
 * Run it with {@code java --enable-native-access=ALL-UNNAMED -cp ... com.example.iobinding.IoBindingExample}: it
 * prints both Runs' {@code y}. With javaep's EPs, register {@code libjavaep.so} on the environment
 * ({@link OrtEnvironment#registerExecutionProviderLibrary}) and append its EP device to the session options; the
 * binding code stays the same.
 */
public final class IoBindingExample {
    static final int BATCH = 2;
    static final int IN = 4;
    static final int OUT = 3;

    /** What the two Runs produced: {@code y} written in place, and {@code y} as ORT allocated it. */
    public record Result(float[] firstRun, float[] secondRun, float[] allocatedByOrt) {}

    private IoBindingExample() {}

    public static void main(String[] args) {
        Result result = run(input(1f), input(2f));
        System.out.println("run 1, y written in place:      " + Arrays.toString(result.firstRun()));
        System.out.println("run 2, input changed in place: " + Arrays.toString(result.secondRun()));
        System.out.println("run 3, y that ORT allocated:   " + Arrays.toString(result.allocatedByOrt()));
    }

    /** {@code x} for the example's Runs: row r is {@code scale · (r + 1) · [1, -1, 2, 0.5]}. */
    static float[] input(float scale) {
        float[] row = {1f, -1f, 2f, 0.5f};
        float[] x = new float[BATCH * IN];
        for (int r = 0; r < BATCH; r++) {
            for (int c = 0; c < IN; c++) {
                x[r * IN + c] = scale * (r + 1) * row[c];
            }
        }
        return x;
    }

    /** Runs the model twice through one binding: {@code first} as x, then {@code second} written over it. */
    public static Result run(float[] first, float[] second) {
        OrtEnvironment env = OrtHost.shared().createEnvironment("iobinding-example", OrtHost.LogLevel.WARNING);
        try (env;
             SessionOptions options = env.createSessionOptions();
             Session session = env.createSession(model(), options);
             Arena arena = Arena.ofConfined();
             MemoryInfo cpu = MemoryInfo.cpu();
             IoBinding binding = session.createIoBinding()) {
            // 1. x lives in memory this program owns; the tensor only describes it
            MemorySegment xMemory = arena.allocate((long) BATCH * IN * Float.BYTES, 64);
            MemorySegment.copy(first, 0, xMemory, ValueLayout.JAVA_FLOAT, 0, first.length);
            try (OrtTensor x = OrtTensor.wrap(cpu, xMemory, ElementType.FLOAT, BATCH, IN);
                 // 2. y allocated once, by ORT's CPU allocator; each Run writes into it
                 OrtTensor y = OrtTensor.allocate(Allocator.defaultCpu(), ElementType.FLOAT, BATCH, OUT)) {
                binding.bindInput("x", x).bindOutput("y", y);
                session.run(binding, null);
                float[] firstRun = y.hostSegment().toArray(ValueLayout.JAVA_FLOAT);

                // 3. new input values in the same memory: the same binding runs again
                MemorySegment.copy(second, 0, xMemory, ValueLayout.JAVA_FLOAT, 0, second.length);
                session.run(binding, null);
                float[] secondRun = y.hostSegment().toArray(ValueLayout.JAVA_FLOAT);

                // 4. or let ORT allocate y on a device (here the CPU) and hand it back after the Run
                binding.clearOutputs();
                binding.bindOutputToDevice("y", cpu);
                session.run(binding, null);
                binding.synchronizeOutputs();
                List<OrtTensor> outputs = binding.outputs();
                try {
                    return new Result(firstRun, secondRun, outputs.getFirst().toHost().floats());
                } finally {
                    outputs.forEach(OrtTensor::close);
                }
            }
        }
    }

    private static byte[] model() {
        try (InputStream in = IoBindingExample.class.getResourceAsStream("affine_relu.onnx")) {
            if (in == null) {
                throw new IllegalStateException("affine_relu.onnx is not beside IoBindingExample on the class path");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
