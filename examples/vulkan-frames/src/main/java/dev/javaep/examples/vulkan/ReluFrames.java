package dev.javaep.examples.vulkan;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.javaep.bridge.BridgeStatistics;
import dev.javaep.cuda.CudaDevice;
import dev.javaep.cuda.driver.CudaDriver;
import dev.javaep.cuda.kernel.ptx.CudaKernel;
import dev.javaep.cuda.kernel.ptx.LaunchShape;
import dev.javaep.cuda.kernel.ptx.PtxModule;
import dev.javaep.examples.vulkan.InteropBenchmark.VulkanApp;
import dev.javaep.harness.onnx.Dim;
import dev.javaep.harness.onnx.OnnxModelWriter;
import dev.javaep.host.ExternalResourceImporter;
import dev.javaep.host.ExternalSemaphore;
import dev.javaep.host.IoBinding;
import dev.javaep.host.OrtTensor;
import dev.javaep.host.RunOptions;
import dev.javaep.host.Session;
import dev.javaep.host.SyncStream;
import dev.javaep.spi.ElementType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * bench-interop's Relu tables (issue 13), on the Vulkan app's exported 1080p buffers and timeline:
 * <ul>
 * <li>the frame loop, three ways in one process, interleaved in rounds: (a) ORT + javaep, (b) the same kernel
 * launched from Java through {@link CudaDriver} with no ORT, (c) the same calls from C
 * ({@code src/main/c/frame_loop_baseline.c}, {@link CFrameLoop});</li>
 * <li>a plain {@code Run} over OrtValues on imported device memory (no IoBinding), next to RunWithBinding and the
 * bare kernel's device time.</li>
 * </ul>
 * The kernel of (b) and (c) is JavaCuda's own: {@link CudaKernel#UN_RELU_F32_V4} from {@link PtxModule#source()}, on the
 * geometry {@code CudaKernelLibrary.linear} gives it ({@code ElementwiseUnaryNode} launches exactly that for a float32
 * Relu whose element count is a multiple of 4). Rows (b) and (c) use CUDA's own import of the same Vulkan memory and
 * timeline (second fds) and ORT's stream (the {@link SyncStream}'s CUstream), so all three queue on one stream.
 */
final class ReluFrames implements AutoCloseable {
    static final String INPUT = "x";
    static final String OUTPUT = "y";
    private static final CudaKernel KERNEL = CudaKernel.UN_RELU_F32_V4;
    private static final double TARGET_LOOP_RATIO = 1.1;
    private static final double TARGET_PLAIN_RUN_MICROS = 30;
    private static final int ROUNDS = 5;
    private static final int LOOP_FRAMES = Integer.getInteger("javaep.bench.interop.loopFrames", 2000);
    /**
     * Frames (per loop) and Runs before timing starts: enough for C2 to compile the Java of every path (the bridge's
     * upcalls and the FFM loop's calls; HotSpot's last tier comes after some 15,000 calls of a method, and a few
     * hundred leave them in C1's profiling code).
     */
    private static final int LOOP_WARMUP = Integer.getInteger("javaep.bench.interop.loopWarmup", 20000);
    private static final int RUNS = Integer.getInteger("javaep.bench.interop.runs", 1000);
    private static final int RUN_WARMUP = Integer.getInteger("javaep.bench.interop.runWarmup", 20000);
    private static final int KERNEL_TIMINGS = 200;

    private final VulkanApp app;
    private final CudaDevice cuda;
    private final CudaDriver driver;
    private final long stream;
    private final long function;
    private final LaunchShape shape;
    private final long n4;
    private final long input;
    private final long output;
    private final long semaphore;
    /** The kernel's {@code void*[3]} and its three u64 values, built once: the driver copies them at each launch. */
    private final MemorySegment arguments;
    private final Arena arena = Arena.ofConfined();
    private final Deque<Runnable> releases = new ArrayDeque<>();

    /** A Relu model over {@code [height, width, 4]} float32: input "x", output "y". */
    static byte[] model(int height, int width) {
        return new OnnxModelWriter("javaep_relu_image")
                .opset(17)
                .input(INPUT, ElementType.FLOAT, Dim.of(height), Dim.of(width), Dim.of(4))
                .output(OUTPUT, ElementType.FLOAT, Dim.of(height), Dim.of(width), Dim.of(4))
                .node("Relu", List.of(INPUT), List.of(OUTPUT))
                .toByteArray();
    }

    /** Input element {@code i} of the Relu tables: half of the values negative, so that Relu changes the frame. */
    static float input(int i) {
        return InteropBenchmark.pixel(i) - 0.5f;
    }

    /**
     * Writes {@link #input} into the app's input buffer, imports both buffers and the timeline into CUDA a second time
     * (bare, as a C program would), loads JavaCuda's PTX module and binds the Relu kernel.
     *
     * @param stream the CUstream rows (b) and (c) queue on: ORT's sync stream
     */
    ReluFrames(VulkanApp app, CudaDevice cuda, long stream, int elements) {
        this.app = app;
        this.cuda = cuda;
        this.driver = cuda.driver();
        this.stream = stream;
        this.n4 = elements / 4;
        try {
            float[] values = new float[elements];
            for (int i = 0; i < elements; i++) {
                values[i] = input(i);
            }
            app.stagingIn.writeFloats(values);
            app.submitAndWait(c -> c.copy(app.stagingIn, 0, app.input, 0, (long) elements * Float.BYTES));
            this.shape = cuda.kernels().linear(n4); // the geometry JavaCuda's launch of this kernel uses
            cuda.makeCurrent();
            long module = driver.moduleLoadData(PtxModule.source());
            releases.push(() -> driver.moduleUnload(module));
            this.function = driver.moduleGetFunction(module, KERNEL.entryName());
            this.input = importBuffer(app.input);
            this.output = importBuffer(app.output);
            long imported = InteropBenchmark.importIntoCuda(driver, app.timeline);
            this.semaphore = imported;
            releases.push(() -> driver.destroyExternalSemaphore(imported));
            this.arguments = arena.allocate(ADDRESS, 6);
            long[] values3 = {output, input, n4};
            for (int a = 0; a < 3; a++) {
                MemorySegment value = arguments.asSlice((3 + a) * 8L, 8);
                value.set(JAVA_LONG, 0, values3[a]);
                arguments.setAtIndex(ADDRESS, a, value);
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** CUDA's own mapping of the whole buffer (a fresh fd, which the driver owns on success). */
    private long importBuffer(VulkanBuffer buffer) {
        long external = InteropBenchmark.handOver(buffer.exportOpaqueFd(),
                fd -> driver.importExternalMemoryFd(fd, buffer.allocationSize(), 0));
        releases.push(() -> driver.destroyExternalMemory(external));
        long pointer = driver.externalMemoryGetMappedBuffer(external, 0, buffer.allocationSize());
        releases.push(() -> driver.memFree(pointer));
        return pointer;
    }

    private void launch() {
        driver.launchKernel(function, shape.gridX(), shape.gridY(), shape.gridZ(), shape.blockX(), shape.blockY(),
                shape.blockZ(), 0, stream, arguments);
    }

    // ---- the frame loop ------------------------------------------------------------------------------------

    /** One way of running frames: returns each frame's nanoseconds; leaves {@code app.timelineValue} where it ended. */
    private interface Loop {
        long[] frames(int count);
    }

    private record Row(String label, Loop loop) {}

    /**
     * Frame {@code value + 1} with the pacing all three rows share: the host signals N = value + 1 on the Vulkan
     * timeline ({@code vkSignalSemaphore}), {@code middle} queues wait N / work / signal N + 1, the host waits for
     * N + 1 ({@code cuStreamSynchronize}, then {@code vkWaitSemaphores}). Returns its nanoseconds.
     */
    private long pacedFrame(java.util.function.LongConsumer middle) {
        long ready = app.timelineValue + 1;
        long t0 = System.nanoTime();
        app.timeline.signalFromHost(ready);
        try {
            middle.accept(ready);
        } catch (RuntimeException e) {
            // The stream may hold a wait without its signal: drain it, and let the next frame start from the timeline.
            cuda.synchronize();
            app.timelineValue = app.timeline.value();
            throw e;
        }
        app.timelineValue = ready + 1;
        // Every loop ends its frame on the CUstream first, as ORT's Run does inside (a): a host vkWaitSemaphores on a
        // value CUDA has not signalled yet sleeps ~10 ms in NVIDIA's driver (measured: 10.2 ms per frame in (b) and
        // (c) without this), which would time the driver's polling, not the loop.
        driver.streamSynchronize(stream);
        VulkanApp.await(app.timeline, ready + 1);
        return System.nanoTime() - t0;
    }

    /** NaN over the output frame, so that a check cannot pass on an earlier loop's result. */
    private void fillOutputWithNaN() {
        app.submitAndWait(c -> c.fill(app.output, 0, app.output.size(), 0x7fc00000));
    }

    private long[] paced(int count, java.util.function.LongConsumer middle) {
        long[] nanos = new long[count];
        for (int i = 0; i < count; i++) {
            nanos[i] = pacedFrame(middle);
        }
        return nanos;
    }

    /**
     * Prints the frame-loop table.
     *
     * @param ortStream ORT's sync stream (its CUstream is {@link #stream}); {@code runOptions} run on it
     * @return whether every row that ran wrote the right frame
     */
    boolean frameLoopTable(Session relu, ExternalResourceImporter importer, ExternalSemaphore ortSemaphore, SyncStream ortStream,
                           RunOptions runOptions, OrtTensor inputTensor, OrtTensor outputTensor, String device) {
        try (IoBinding binding = relu.createIoBinding()) {
            binding.bindInput(INPUT, inputTensor).bindOutput(OUTPUT, outputTensor);
            List<Row> rows = new ArrayList<>();
            rows.add(new Row("(a) ORT + javaep: `WaitSemaphore` / `RunWithBinding` (imported buffers, RunOptions' sync stream)"
                    + " / `SignalSemaphore`", count -> paced(count, ready -> {
                        importer.waitSemaphore(ortSemaphore, ortStream, ready);
                        relu.run(binding, runOptions);
                        importer.signalSemaphore(ortSemaphore, ortStream, ready + 1);
                    })));
            rows.add(new Row("(b) Java FFM, no ORT: `CudaDriver` cuWaitExternalSemaphoresAsync / cuLaunchKernel("
                    + KERNEL.entryName() + ") / cuSignalExternalSemaphoresAsync", count -> {
                        cuda.makeCurrent();
                        return paced(count, ready -> {
                            driver.waitExternalSemaphoreAsync(semaphore, ready, stream);
                            launch();
                            driver.signalExternalSemaphoreAsync(semaphore, ready + 1, stream);
                        });
                    }));
            String cLabel = "(c) C, no ORT: the same calls from frame_loop_baseline.c";
            Optional<String> cMissing = Optional.empty();
            switch (CFrameLoop.load()) {
                case CFrameLoop.Built c -> rows.add(new Row(cLabel, count -> cFrames(c, count)));
                case CFrameLoop.NotBuilt(String reason) -> cMissing = Optional.of(reason);
            }
            return runAndPrint(rows, cMissing, device, cLabel);
        }
    }

    private long[] cFrames(CFrameLoop.Built c, int count) {
        cuda.makeCurrent();
        long first = app.timelineValue;
        CFrameLoop.Frame frame = new CFrameLoop.Frame(driver.ctxGetCurrent(), function, shape.gridX(), shape.blockX(), stream,
                semaphore, output, input, n4, app.vulkan.vkDevice().address(), app.timeline.handle(),
                signalSemaphoreFunction(), waitSemaphoresFunction());
        try {
            long[] nanos = CFrameLoop.run(c, frame, first, count, InteropBenchmark.HOST_WAIT_NANOS);
            app.timelineValue = first + 2L * count;
            return nanos;
        } catch (IllegalStateException e) {
            // Where the C loop stopped is unknown: let the stream drain, then go on from the timeline's value.
            driver.streamSynchronize(stream);
            app.timelineValue = app.timeline.value();
            throw e;
        }
    }

    private long signalSemaphoreFunction() {
        var capabilities = app.vulkan.vkDevice().getCapabilities();
        return capabilities.vkSignalSemaphore != 0 ? capabilities.vkSignalSemaphore : capabilities.vkSignalSemaphoreKHR;
    }

    private long waitSemaphoresFunction() {
        var capabilities = app.vulkan.vkDevice().getCapabilities();
        return capabilities.vkWaitSemaphores != 0 ? capabilities.vkWaitSemaphores : capabilities.vkWaitSemaphoresKHR;
    }

    /** Warm-up per row, then {@link #ROUNDS} rounds of every row in turn; a row that fails drops out with its reason. */
    private boolean runAndPrint(List<Row> rows, Optional<String> cMissing, String device, String cLabel) {
        int perRound = Math.max(1, LOOP_FRAMES / ROUNDS);
        List<List<Long>> nanos = new ArrayList<>();
        List<String> failures = new ArrayList<>();
        for (int r = 0; r < rows.size(); r++) {
            nanos.add(new ArrayList<>());
            failures.add(null);
        }
        for (int round = -1; round < ROUNDS; round++) {
            for (int r = 0; r < rows.size(); r++) {
                if (failures.get(r) != null) {
                    continue;
                }
                try {
                    long[] frames = rows.get(r).loop().frames(round < 0 ? LOOP_WARMUP : perRound);
                    if (round >= 0) {
                        for (long n : frames) {
                            nanos.get(r).add(n);
                        }
                    }
                } catch (RuntimeException e) {
                    failures.set(r, e.toString());
                }
            }
        }
        boolean outputsOk = true;
        List<String> checks = new ArrayList<>();
        for (int r = 0; r < rows.size(); r++) {
            if (failures.get(r) != null) {
                continue;
            }
            Row row = rows.get(r);
            fillOutputWithNaN();
            Optional<String> mismatch;
            try {
                row.loop().frames(1);
                mismatch = InteropBenchmark.outputMismatch(app, ReluFrames::expected);
            } catch (RuntimeException e) {
                mismatch = Optional.of("the checked frame failed: " + e);
            }
            outputsOk &= mismatch.isEmpty();
            checks.add(row.label().substring(0, 3) + " " + mismatch.map(why -> "FAILED: " + why).orElse("OK"));
        }
        printLoop(rows, nanos, failures, cMissing, device, cLabel, checks);
        return outputsOk && failures.stream().allMatch(f -> f == null);
    }

    private static float expected(int i) {
        float x = input(i);
        return x < 0 ? 0 : x;
    }

    private static Stats stats(List<Long> nanos) {
        return Stats.of(nanos.stream().mapToDouble(n -> n / 1e3).toArray());
    }

    private static void printLoop(List<Row> rows, List<List<Long>> nanos, List<String> failures, Optional<String> cMissing,
                                  String device, String cLabel, List<String> checks) {
        System.out.printf("## Frame loop on one CUstream: host signal N → wait N → Relu 1920×1080 RGBA float32 → signal N+1 → host"
                + " wait N+1, %s%n%n", device);
        System.out.println("| loop | median µs | p99 µs | median / (c) | p99 / (c) |");
        System.out.println("|---|---:|---:|---:|---:|");
        int cIndex = cMissing.isPresent() || failures.get(rows.size() - 1) != null ? -1 : rows.size() - 1;
        Stats c = cIndex < 0 ? null : stats(nanos.get(cIndex));
        Stats a = null;
        for (int r = 0; r < rows.size(); r++) {
            String label = rows.get(r).label();
            if (failures.get(r) != null) {
                System.out.printf("| %s | failed: %s | | | |%n", label, failures.get(r).replace('|', '/'));
                continue;
            }
            Stats s = stats(nanos.get(r));
            if (r == 0) {
                a = s;
            }
            String ratios = c == null ? "— | —" : String.format("%.2f× | %.2f×", s.median() / c.median(), s.p99() / c.p99());
            System.out.printf("| %s | %.1f | %.1f | %s |%n", label, s.median(), s.p99(), ratios);
        }
        cMissing.ifPresent(why -> System.out.printf("| %s | C baseline not built: %s | | | |%n", cLabel, why.replace('|', '/')));
        System.out.println();
        System.out.printf("Warm-up %d frames per loop, then %d rounds of %d frames per loop, (a) (b) (c) in turn. Each frame's"
                + " time runs from the host's vkSignalSemaphore(N) to the return of its vkWaitSemaphores(N+1) after a"
                + " cuStreamSynchronize of the stream, in all three"
                + " loops; (b) and (c) launch JavaCuda's %s with its grid, on CUDA's own import of the same buffers and"
                + " timeline, on ORT's sync stream.%n", LOOP_WARMUP, ROUNDS, Math.max(1, LOOP_FRAMES / ROUNDS),
                KERNEL.entryName());
        System.out.println("output check (one more frame per loop, output NaN-filled before, read back through Vulkan): "
                + String.join("; ", checks));
        if (a != null && c != null) {
            double ratio = a.median() / c.median();
            System.out.printf("target: (a)/(c) median %.2f× ≤ %.1f×: %s%n%n", ratio, TARGET_LOOP_RATIO,
                    InteropBenchmark.met(ratio <= TARGET_LOOP_RATIO));
        } else {
            System.out.println("target: (a)/(c) ≤ 1.1×: not measured (a loop is missing)\n");
        }
    }

    // ---- plain Run -----------------------------------------------------------------------------------------

    /**
     * Prints the plain-Run table: {@code Run} with the importer's OrtValues as input and pre-allocated output (made once,
     * no RunOptions: a new user's path), interleaved Run by Run with RunWithBinding over the same values, and the
     * kernel's device time by CUDA events on the same buffers.
     *
     * @return whether the plain Run wrote the right frame
     */
    boolean plainRunTable(Session relu, OrtTensor inputTensor, OrtTensor outputTensor, String device) {
        Map<String, OrtTensor> inputs = Map.of(INPUT, inputTensor);
        Map<String, OrtTensor> outputs = Map.of(OUTPUT, outputTensor);
        fillOutputWithNaN();
        double[] plain = new double[RUNS];
        double[] bound = new double[RUNS];
        try (IoBinding binding = relu.createIoBinding()) {
            binding.bindInput(INPUT, inputTensor).bindOutput(OUTPUT, outputTensor);
            for (int i = 0; i < RUN_WARMUP + RUNS; i++) {
                long t0 = System.nanoTime();
                relu.run(inputs, outputs, null);
                long t1 = System.nanoTime();
                relu.run(binding, null);
                long t2 = System.nanoTime();
                if (i >= RUN_WARMUP) {
                    plain[i - RUN_WARMUP] = (t1 - t0) / 1e3;
                    bound[i - RUN_WARMUP] = (t2 - t1) / 1e3;
                }
            }
        }
        cuda.synchronize(); // the readback must not race a stream ORT left running
        Optional<String> mismatch = InteropBenchmark.outputMismatch(app, ReluFrames::expected);
        Stats kernel = kernelTime();
        Stats plainStats = Stats.of(plain);
        Stats boundStats = Stats.of(bound);
        System.out.printf("## Plain `Run`: Relu on 1920×1080 RGBA float32 over imported device memory, JavaCuda, %s%n%n", device);
        System.out.println("| path | median µs | p99 µs |");
        System.out.println("|---|---:|---:|");
        System.out.printf("| plain `Run`: OrtValues from `CreateTensorFromMemory` over the imported buffers, made once; output"
                + " pre-allocated; no RunOptions | %.1f | %.1f |%n", plainStats.median(), plainStats.p99());
        System.out.printf("| `RunWithBinding`: the same OrtValues bound once; no RunOptions | %.1f | %.1f |%n",
                boundStats.median(), boundStats.p99());
        System.out.printf("| the kernel alone: %s, device time by CUDA events around each launch | %.1f | %.1f |%n%n",
                KERNEL.entryName(), kernel.median(), kernel.p99());
        System.out.printf("%d Runs of each after %d warm-up Runs, plain and bound alternating Run by Run; times are the host's"
                + " around each call (ORT returns after the Run's stream work is done).%n", RUNS, RUN_WARMUP);
        System.out.println(mismatch.map(why -> "output check: FAILED: plain Run's " + why)
                .orElse("output check: OK (plain Run's output, NaN-filled before, read back through Vulkan)"));
        System.out.printf("target: plain Run median %.1f µs ≤ %.0f µs (H100): %s%n%n", plainStats.median(),
                TARGET_PLAIN_RUN_MICROS, InteropBenchmark.met(plainStats.median() <= TARGET_PLAIN_RUN_MICROS));
        if (BridgeStatistics.ENABLED) {
            printBridge(relu, inputs, outputs);
        }
        return mismatch.isEmpty();
    }

    /** The kernel's device time per launch: an event pair around each of {@link #KERNEL_TIMINGS} launches. */
    private Stats kernelTime() {
        cuda.makeCurrent();
        long start = driver.eventCreate(CudaDriver.EVENT_DEFAULT);
        long end = driver.eventCreate(CudaDriver.EVENT_DEFAULT);
        try {
            double[] micros = new double[KERNEL_TIMINGS];
            for (int i = -10; i < KERNEL_TIMINGS; i++) {
                driver.eventRecord(start, stream);
                launch();
                driver.eventRecord(end, stream);
                driver.eventSynchronize(end);
                if (i >= 0) {
                    micros[i] = driver.eventElapsedMillis(start, end) * 1e3;
                }
            }
            return Stats.of(micros);
        } finally {
            driver.eventDestroy(start);
            driver.eventDestroy(end);
        }
    }

    /** The bridge's callbacks per plain Run (JVM started with {@code -Djavaep.bridge.statistics=true}). */
    private static void printBridge(Session relu, Map<String, OrtTensor> inputs, Map<String, OrtTensor> outputs) {
        BridgeStatistics.reset();
        long t0 = System.nanoTime();
        for (int i = 0; i < RUNS; i++) {
            relu.run(inputs, outputs, null);
        }
        double runMicros = (System.nanoTime() - t0) / 1e3 / RUNS;
        System.out.println("JavaCuda's bridge in one plain Run (bridge statistics on):");
        System.out.println();
        System.out.println("| callback | calls per Run | µs per Run in Java (incl. its CUDA calls) |");
        System.out.println("|---|---:|---:|");
        double total = 0;
        for (var entry : BridgeStatistics.snapshot().entrySet()) {
            if (entry.getValue().calls() > 0) {
                double micros = entry.getValue().nanos() / 1e3 / RUNS;
                total += micros;
                System.out.printf("| %s | %.1f | %.2f |%n", entry.getKey(), entry.getValue().calls() / (double) RUNS, micros);
            }
        }
        System.out.printf("| all | | %.2f of a %.1f µs Run (mean) |%n%n", total, runMicros);
    }

    /** Releases CUDA's imports and the module, newest first, after the stream's queued work. */
    @Override
    public void close() {
        if (!releases.isEmpty()) {
            cuda.makeCurrent();
            driver.streamSynchronize(stream);
        }
        while (!releases.isEmpty()) {
            releases.pop().run();
        }
        arena.close();
    }
}
