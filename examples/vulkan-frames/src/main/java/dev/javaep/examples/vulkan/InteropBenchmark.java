package dev.javaep.examples.vulkan;

import dev.javaep.conformance.models.Models;
import dev.javaep.cuda.CudaDevice;
import dev.javaep.cuda.driver.CudaDeviceInfo;
import dev.javaep.cuda.driver.CudaDriver;
import dev.javaep.cuda.driver.CudaHandleTypes;
import dev.javaep.host.EpDevice;
import dev.javaep.host.ExternalMemory;
import dev.javaep.host.ExternalResourceImporter;
import dev.javaep.host.ExternalResourceImporter.TensorDescriptor;
import dev.javaep.host.ExternalSemaphore;
import dev.javaep.host.FileDescriptors;
import dev.javaep.host.IoBinding;
import dev.javaep.host.OrtEnvironment;
import dev.javaep.host.OrtHost;
import dev.javaep.host.OrtTensor;
import dev.javaep.host.RunOptions;
import dev.javaep.host.Session;
import dev.javaep.host.SessionOptions;
import dev.javaep.host.SyncStream;
import dev.javaep.host.TensorData;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.ExternalMemoryType;
import dev.javaep.spi.ExternalSemaphoreType;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.IntFunction;

/**
 * The zero-copy claim, measured on the GPU machine ({@code bench-interop}: {@code java -cp ...
 * dev.javaep.examples.vulkan.InteropBenchmark DIST_DIR}, tools/gpu/run-suite.sh's step of that name): a Vulkan app's
 * 1920×1080 RGBA float32 frames (33 MB) through the normalize model on JavaCudaExecutionProvider, once
 * the way an app without interop must (through host memory) and once through ORT's interop API (imported
 * buffers, a timeline semaphore waited and signalled on the run's stream), on the same GPU in one run;
 * then what javaep adds to an import and to a semaphore wait/signal over the bare CUDA calls; then, on a Relu model
 * ({@link ReluFrames}), the frame loop through ORT + javaep next to the same kernel driven from Java with no ORT and
 * from C with no ORT, and a plain {@code Run} over imported memory. Prints Markdown tables; targets are printed next to
 * the results, never asserted.
 *
 * <p>Counts are system properties: {@code javaep.bench.interop.warmup} (20), {@code .frames} (200),
 * {@code .imports} (200, after {@code .importWarmup}, 2000), {@code .semaphoreCalls} (2000 pairs per path, after
 * {@code .semaphoreWarmup}, 20000), {@code .loopFrames} (2000 per frame loop, after {@code .loopWarmup}, 20000),
 * {@code .runs} (1000 plain Runs, after {@code .runWarmup}, 20000); {@code .only=plain-run} prints only the plain-Run table; {@code .cBaseline} names
 * the C baseline's library ({@link CFrameLoop}).
 */
public final class InteropBenchmark {
    private static final String REGISTRATION = "javaep-interop-bench";
    private static final int HEIGHT = 1080;
    private static final int WIDTH = 1920;
    private static final long[] SHAPE = {HEIGHT, WIDTH, 4};
    private static final int ELEMENTS = HEIGHT * WIDTH * 4;
    private static final int FRAME_BYTES = ELEMENTS * Float.BYTES;
    /** A holder: the descriptor asks ORT for its API, so it is made on first use, after main has checked that ORT loads. */
    private static final class Frame {
        static final TensorDescriptor DESCRIPTOR = TensorDescriptor.of(ElementType.FLOAT, SHAPE, 0);
    }
    private static final float[] MEAN = {0.485f, 0.456f, 0.406f, 0.5f};
    private static final float[] SCALE = {1 / 0.229f, 1 / 0.224f, 1 / 0.225f, 2f};
    private static final double TARGET_SPEEDUP = 10;
    private static final double TARGET_IMPORT_RATIO = 1.5;
    private static final double TARGET_BRIDGE_MICROS = 2;
    static final long HOST_WAIT_NANOS = TimeUnit.SECONDS.toNanos(10);
    /** Semaphore pairs between stream synchronizations: keeps the CUstream's queue short, so enqueueing never blocks. */
    private static final int SEMAPHORE_PAIRS_PER_SYNC = 32;
    static final int WARMUP = Integer.getInteger("javaep.bench.interop.warmup", 20);
    private static final int FRAMES = Integer.getInteger("javaep.bench.interop.frames", 200);
    private static final int IMPORTS = Integer.getInteger("javaep.bench.interop.imports", 200);
    private static final int SEMAPHORE_PAIRS = Integer.getInteger("javaep.bench.interop.semaphoreCalls", 2000);
    /**
     * Warm-ups long enough for the JIT to compile the bridge's upcalls: an import's first couple of hundred cycles run
     * them interpreted (bench-import times those on their own), and a per-call cost of a few µs needs C2's code.
     */
    private static final int IMPORT_WARMUP = Integer.getInteger("javaep.bench.interop.importWarmup", 2000);
    private static final int SEMAPHORE_WARMUP = Integer.getInteger("javaep.bench.interop.semaphoreWarmup", 20000);
    /** {@code javaep.bench.interop.only=plain-run}: only the plain-Run table (run-suite's second pass, with bridge statistics). */
    private static final String ONLY = System.getProperty("javaep.bench.interop.only", "all");
    private static final String PLAIN_RUN_ONLY = "plain-run";

    private InteropBenchmark() {}

    /**
     * {@code InteropBenchmark [DIST_DIR]}: registers DIST_DIR's libjavaep (default: the folder {@code -Djavaep.dist}
     * names, else the working directory). Exits 0, 1 when the zero-copy path's output is wrong, 3 when it cannot run
     * here (the reason on stderr).
     */
    public static void main(String[] args) {
        BenchmarkLauncher.main("bench-interop", REGISTRATION, args, InteropBenchmark::run);
    }

    /** Why the benchmark cannot run in this process (no CUDA, no Vulkan, no matching GPU); the message is one line. */
    public static final class Unavailable extends Exception {
        Unavailable(String reason) {
            super(reason);
        }
    }

    /** @return 0, or 1 when the zero-copy path's output is wrong */
    public static int run(Path loaderLibrary) throws Unavailable {
        return BenchmarkLauncher.run(REGISTRATION, loaderLibrary, InteropBenchmark::run);
    }

    private static int run(OrtHost host, OrtEnvironment env, CudaDriver driver) throws Unavailable {
        SameGpu gpu = SameGpu.find(env, driver, true);
        // Closed after every ORT object measure() made: the Vulkan memory must outlive all use of its imports.
        try (VulkanContext vulkan = gpu.vulkan(); CudaDevice cuda = CudaDevice.open(driver, gpu.cudaOrdinal())) {
            return measure(env, gpu.epDevice(), vulkan, cuda, host);
        }
    }

    /**
     * The app's side: device-local exportable input and output buffers (what a renderer would own), host-visible
     * staging buffers for the copy path, the exportable timeline shared with CUDA, and a private timeline the host
     * waits on for the app's own copies.
     */
    static final class VulkanApp {
        final VulkanContext vulkan;
        final VulkanBuffer input;
        final VulkanBuffer output;
        final VulkanBuffer stagingIn;
        final VulkanBuffer stagingOut;
        final TimelineSemaphore timeline;
        final TimelineSemaphore copiesDone;
        long timelineValue;
        long copiesDoneValue;

        VulkanApp(VulkanContext vulkan) {
            this.vulkan = vulkan;
            input = vulkan.createBuffer(FRAME_BYTES, VulkanBuffer.Placement.DEVICE_LOCAL, true);
            output = vulkan.createBuffer(FRAME_BYTES, VulkanBuffer.Placement.DEVICE_LOCAL, true);
            stagingIn = vulkan.createBuffer(FRAME_BYTES, VulkanBuffer.Placement.HOST_VISIBLE, false);
            stagingOut = vulkan.createBuffer(FRAME_BYTES, VulkanBuffer.Placement.HOST_VISIBLE, false);
            timeline = vulkan.createTimelineSemaphore(0, true);
            copiesDone = vulkan.createTimelineSemaphore(0, false);
            float[] image = new float[ELEMENTS];
            for (int i = 0; i < ELEMENTS; i++) {
                image[i] = pixel(i);
            }
            stagingIn.writeFloats(image);
            submitAndWait(c -> c.copy(stagingIn, 0, input, 0, FRAME_BYTES));
        }

        void submitAndWait(Consumer<TransferCommands> recording) {
            submitAndWait(recording, List.of());
        }

        void submitAndWait(Consumer<TransferCommands> recording, List<SemaphoreValue> waits) {
            long done = ++copiesDoneValue;
            vulkan.submit(recording, waits, List.of(copiesDone.at(done)));
            await(copiesDone, done);
        }

        static void await(TimelineSemaphore semaphore, long value) {
            if (!semaphore.waitOnHost(value, HOST_WAIT_NANOS)) {
                throw new IllegalStateException("the timeline did not reach " + value + " within 10 s (now " + semaphore.value() + ")");
            }
        }
    }

    /** The input frame's value at element {@code i}: cheap to recompute when checking the output. */
    static float pixel(int i) {
        return ((i * 31L + 7) % 256) / 255f;
    }

    /** The objects of the zero-copy path, made once; {@link #frame} is one frame of it. */
    private record ZeroCopy(Session session, ExternalResourceImporter importer, ExternalSemaphore semaphore,
                            SyncStream stream, RunOptions runOptions, IoBinding binding) {
        void frame(VulkanApp app) {
            long ready = ++app.timelineValue;
            app.vulkan.submit(commands -> {}, List.of(), List.of(app.timeline.at(ready))); // the app's frame is ready
            importer.waitSemaphore(semaphore, stream, ready);
            session.run(binding, runOptions);
            importer.signalSemaphore(semaphore, stream, ready + 1);
            app.timelineValue = ready + 1;
            VulkanApp.await(app.timeline, ready + 1); // the measurement's end; a real app's queue would wait instead
        }
    }

    private static int measure(OrtEnvironment env, EpDevice epDevice, VulkanContext vulkan, CudaDevice cuda, OrtHost host)
            throws Unavailable {
        CudaDeviceInfo info = cuda.info();
        System.out.printf("javaep interop benchmark — Vulkan: %s | CUDA: %s (%s, CC %d.%d), driver %d | ONNX Runtime %s | %s %s%n%n",
                vulkan.describe(), info.name(), info.uuidString(), info.computeCapabilityMajor(), info.computeCapabilityMinor(),
                cuda.driver().driverVersion(), host.version(), System.getProperty("java.vm.name"), System.getProperty("java.version"));
        VulkanApp app = new VulkanApp(vulkan); // its buffers and semaphores are closed with the context
        boolean all = !PLAIN_RUN_ONLY.equals(ONLY);
        try (SessionOptions options = env.createSessionOptions().disableCpuEpFallback()
                     .appendExecutionProvider(List.of(epDevice), Map.of());
             Session session = env.createSession(Models.normalizeImage(HEIGHT, WIDTH), options);
             Session relu = env.createSession(ReluFrames.model(HEIGHT, WIDTH), options)) {
            double[] copyPhases = new double[5];
            byte[] hostInput = new byte[FRAME_BYTES]; // one array for every frame: the copy path gets no allocation cost
            Stats copy = all ? time(() -> copyFrame(app, session, hostInput, copyPhases), copyPhases) : null;
            // Released in the order docs/external-resources.md gives: binding and tensors, handles, importer, stream.
            try (SyncStream stream = env.createSyncStream(epDevice);
                 RunOptions runOptions = RunOptions.create();
                 ExternalResourceImporter importer = env.createExternalResourceImporter(epDevice)
                         .orElseThrow(() -> new Unavailable(SameGpu.CUDA_EP + " offers no external resource importer"));
                 ExternalMemory inputMemory = importBuffer(importer, app.input);
                 ExternalMemory outputMemory = importBuffer(importer, app.output);
                 ExternalSemaphore semaphore = importTimeline(importer, app.timeline);
                 OrtTensor inputTensor = importer.createTensor(inputMemory, Frame.DESCRIPTOR);
                 OrtTensor outputTensor = importer.createTensor(outputMemory, Frame.DESCRIPTOR);
                 IoBinding binding = session.createIoBinding()) {
                runOptions.syncStream(stream);
                boolean outputOk = true;
                if (all) {
                    binding.bindInput("image", inputTensor).bindOutput("normalized", outputTensor);
                    ZeroCopy zeroCopy = new ZeroCopy(session, importer, semaphore, stream, runOptions, binding);
                    // NaN in the output first, so that the check cannot pass on the copy path's result.
                    app.submitAndWait(c -> c.fill(app.output, 0, FRAME_BYTES, 0x7fc00000));
                    Stats zero = time(() -> zeroCopy.frame(app), null);
                    Optional<String> mismatch = outputMismatch(app, InteropBenchmark::normalized);
                    outputOk = mismatch.isEmpty();
                    printLatency(copy, copyPhases, zero, mismatch);
                    Stats[] imports = importCost(app, importer, cuda);
                    Stats[] semaphoreCalls = semaphoreCost(app, zeroCopy, cuda);
                    printSummary(copy, zero, imports, semaphoreCalls, outputOk);
                }
                String device = String.format("%s, driver %d, ONNX Runtime %s", info.name(), cuda.driver().driverVersion(),
                        host.version());
                // The Relu tables come last: they overwrite the input frame. A failure here is printed, not thrown, so
                // that the tables above stand.
                try (ReluFrames frames = new ReluFrames(app, cuda, stream.handle(), ELEMENTS)) {
                    if (all) {
                        outputOk &= frames.frameLoopTable(relu, importer, semaphore, stream, runOptions, inputTensor,
                                outputTensor, device);
                    }
                    outputOk &= frames.plainRunTable(relu, inputTensor, outputTensor, device);
                } catch (RuntimeException e) {
                    System.out.println("Relu tables FAILED: " + e);
                    outputOk = false;
                }
                return outputOk ? 0 : 1;
            }
        }
    }

    /** (a): app buffer → staging → Java heap → ORT (host I/O) → Java heap → staging → app buffer. */
    private static void copyFrame(VulkanApp app, Session session, byte[] hostInput, double[] phaseMicros) {
        long t0 = System.nanoTime();
        app.submitAndWait(c -> c.copy(app.input, 0, app.stagingIn, 0, FRAME_BYTES));
        long t1 = System.nanoTime();
        // Straight into the tensor's bytes, with no float[] in between: the copy path gets its cheapest host hop.
        MemorySegment.copy(app.stagingIn.mapped(), ValueLayout.JAVA_BYTE, 0, hostInput, 0, FRAME_BYTES);
        long t2 = System.nanoTime();
        TensorData input = new TensorData(ElementType.FLOAT, SHAPE, hostInput);
        byte[] hostOutput = session.run(Map.of("image", input)).get("normalized").data();
        long t3 = System.nanoTime();
        MemorySegment.copy(hostOutput, 0, app.stagingOut.mapped(), ValueLayout.JAVA_BYTE, 0, FRAME_BYTES);
        long t4 = System.nanoTime();
        app.submitAndWait(c -> c.copy(app.stagingOut, 0, app.output, 0, FRAME_BYTES));
        long t5 = System.nanoTime();
        long[] marks = {t0, t1, t2, t3, t4, t5};
        for (int p = 0; p < phaseMicros.length; p++) {
            phaseMicros[p] += (marks[p + 1] - marks[p]) / 1e3;
        }
    }

    /**
     * WARMUP frames, then FRAMES timed ones.
     *
     * @param phaseMicros summed by the frame; rescaled here to the mean of the timed frames (null: none)
     */
    private static Stats time(Runnable frame, double[] phaseMicros) {
        for (int i = 0; i < WARMUP; i++) {
            frame.run();
        }
        if (phaseMicros != null) {
            Arrays.fill(phaseMicros, 0);
        }
        double[] micros = new double[FRAMES];
        for (int i = 0; i < FRAMES; i++) {
            long t0 = System.nanoTime();
            frame.run();
            micros[i] = (System.nanoTime() - t0) / 1e3;
        }
        if (phaseMicros != null) {
            Arrays.setAll(phaseMicros, p -> phaseMicros[p] / FRAMES);
        }
        return Stats.of(micros);
    }

    /** {@code ImportMemory} of a fresh fd of the whole allocation. On success the import owns the fd; on failure it is still ours. */
    private static ExternalMemory importBuffer(ExternalResourceImporter importer, VulkanBuffer buffer) {
        int fd = buffer.exportOpaqueFd();
        return importFd(importer, fd, buffer.allocationSize());
    }

    /** {@code ImportMemory} of an OPAQUE_FD of a whole allocation of {@code allocationSize} bytes, {@link #handOver}. */
    static ExternalMemory importFd(ExternalResourceImporter importer, int fd, long allocationSize) {
        return handOver(fd, owned -> importer.importMemory(ExternalMemoryType.VK_MEMORY_OPAQUE_FD, owned, allocationSize, 0));
    }

    private static ExternalSemaphore importTimeline(ExternalResourceImporter importer, TimelineSemaphore timeline) {
        return handOver(timeline.exportOpaqueFd(),
                fd -> importer.importSemaphore(ExternalSemaphoreType.VK_TIMELINE_SEMAPHORE_OPAQUE_FD, fd));
    }

    /** Hands {@code fd} to an import, which owns it on success; when the import throws the fd is still ours: closed here. */
    static <T> T handOver(int fd, IntFunction<T> importing) {
        try {
            return importing.apply(fd);
        } catch (RuntimeException e) {
            FileDescriptors.close(fd);
            throw e;
        }
    }

    /** The value a model's output should have at element {@code i} of the frame. */
    @FunctionalInterface
    interface ExpectedOutput {
        float at(int i);
    }

    /** The normalize model's output at element {@code i}: (x − mean) × scale. */
    private static float normalized(int i) {
        return (pixel(i) - MEAN[i % 4]) * SCALE[i % 4];
    }

    /** Reads the output back through Vulkan and compares 16 pixels spread over the frame with {@code expected}. */
    static Optional<String> outputMismatch(VulkanApp app, ExpectedOutput expected) {
        // Waiting on CUDA's last signal orders its writes before the copy on the GPU, not only through the host.
        app.submitAndWait(c -> c.copy(app.output, 0, app.stagingOut, 0, FRAME_BYTES),
                List.of(app.timeline.at(app.timelineValue)));
        MemorySegment output = app.stagingOut.mapped();
        for (int p = 0; p < 16; p++) {
            int first = (int) ((long) p * (ELEMENTS / 4 - 1) / 15) * 4;
            for (int i = first; i < first + 4; i++) {
                float want = expected.at(i);
                float actual = output.getAtIndex(ValueLayout.JAVA_FLOAT, i);
                if (!(Math.abs(actual - want) <= 1e-4f)) { // NaN fails too
                    return Optional.of("element " + i + " is " + actual + ", expected " + want);
                }
            }
        }
        return Optional.empty();
    }

    /** Interleaved, so that drift hits both paths alike: [ORT + javaep, bare CUDA]. Each with a fresh fd exported untimed. */
    private static Stats[] importCost(VulkanApp app, ExternalResourceImporter importer, CudaDevice cuda) {
        CudaDriver driver = cuda.driver();
        long size = app.input.allocationSize();
        int warmup = IMPORT_WARMUP;
        double[] ort = new double[IMPORTS];
        double[] bare = new double[IMPORTS];
        for (int i = 0; i < warmup + IMPORTS; i++) {
            int fd = app.input.exportOpaqueFd();
            long t0 = System.nanoTime();
            try (ExternalMemory memory = importFd(importer, fd, size)) {
                importer.createTensor(memory, Frame.DESCRIPTOR).close();
            }
            long t1 = System.nanoTime();
            cuda.makeCurrent(); // the device's primary context, the one javaep imports into
            int bareFd = app.input.exportOpaqueFd();
            long t2 = System.nanoTime();
            long external;
            try {
                external = driver.importExternalMemoryFd(bareFd, size, 0); // the driver owns the fd from here
            } catch (RuntimeException e) {
                FileDescriptors.close(bareFd);
                throw e;
            }
            try {
                driver.memFree(driver.externalMemoryGetMappedBuffer(external, 0, size));
            } finally {
                driver.destroyExternalMemory(external);
            }
            long t3 = System.nanoTime();
            if (i >= warmup) {
                ort[i - warmup] = (t1 - t0) / 1e3;
                bare[i - warmup] = (t3 - t2) / 1e3;
            }
        }
        return new Stats[] {Stats.of(ort), Stats.of(bare)};
    }

    /** CUDA's own import of the timeline (a fresh fd, which the driver owns on success), as a program without ORT makes it. */
    static long importIntoCuda(CudaDriver driver, TimelineSemaphore timeline) {
        return handOver(timeline.exportOpaqueFd(),
                fd -> driver.importExternalSemaphoreFd(CudaHandleTypes.SEMAPHORE_TIMELINE_SEMAPHORE_FD, fd));
    }

    /**
     * Per call (a wait + signal pair's time / 2), interleaved: [ORT + javaep, bare CUDA], on the same CUstream and the
     * same Vulkan timeline (CUDA's own import of a second fd). Each wait is for the value the stream signalled just
     * before, so it is satisfied by stream order; values only go up.
     */
    private static Stats[] semaphoreCost(VulkanApp app, ZeroCopy zeroCopy, CudaDevice cuda) {
        CudaDriver driver = cuda.driver();
        cuda.makeCurrent();
        long cuStream = zeroCopy.stream().handle();
        long bareSemaphore = importIntoCuda(driver, app.timeline);
        int warmup = SEMAPHORE_WARMUP;
        double[] ort = new double[SEMAPHORE_PAIRS];
        double[] bare = new double[SEMAPHORE_PAIRS];
        long value = app.timelineValue; // reached: the last frame's host wait returned
        try {
            for (int i = 0; i < warmup + SEMAPHORE_PAIRS; i++) {
                if (i % SEMAPHORE_PAIRS_PER_SYNC == 0) {
                    cuda.makeCurrent();
                    driver.streamSynchronize(cuStream);
                }
                long t0 = System.nanoTime();
                zeroCopy.importer().waitSemaphore(zeroCopy.semaphore(), zeroCopy.stream(), value);
                zeroCopy.importer().signalSemaphore(zeroCopy.semaphore(), zeroCopy.stream(), value + 1);
                long t1 = System.nanoTime();
                value++;
                cuda.makeCurrent();
                long t2 = System.nanoTime();
                driver.waitExternalSemaphoreAsync(bareSemaphore, value, cuStream);
                driver.signalExternalSemaphoreAsync(bareSemaphore, value + 1, cuStream);
                long t3 = System.nanoTime();
                value++;
                if (i >= warmup) {
                    ort[i - warmup] = (t1 - t0) / 2e3;
                    bare[i - warmup] = (t3 - t2) / 2e3;
                }
            }
        } finally {
            cuda.makeCurrent();
            driver.streamSynchronize(cuStream); // cuDestroyExternalSemaphore needs its queued operations complete
            driver.destroyExternalSemaphore(bareSemaphore);
            app.timelineValue = value;
        }
        VulkanApp.await(app.timeline, value);
        return new Stats[] {Stats.of(ort), Stats.of(bare)};
    }

    private static void printLatency(Stats copy, double[] copyPhases, Stats zero, Optional<String> mismatch) {
        System.out.printf("## Per-frame latency: 1920×1080 RGBA float32 (%,d bytes) through normalize on %s%n%n",
                FRAME_BYTES, SameGpu.CUDA_EP);
        System.out.println("| path | median µs | p99 µs | frames/s |");
        System.out.println("|---|---:|---:|---:|");
        System.out.printf("| (a) copy: Vulkan → host → ORT (host I/O) → host → Vulkan | %.1f | %.1f | %.1f |%n",
                copy.median(), copy.p99(), 1e6 / copy.mean());
        System.out.printf("| (b) zero-copy: imported buffers, IoBinding, semaphore wait/signal on the run's stream"
                + " | %.1f | %.1f | %.1f |%n", zero.median(), zero.p99(), 1e6 / zero.mean());
        System.out.printf("| (a)/(b) (target ≥ %.0f×) | %.1f× | %.1f× | %.1f× |%n%n", TARGET_SPEEDUP, copy.median() / zero.median(),
                copy.p99() / zero.p99(), copy.mean() / zero.mean());
        System.out.printf("Warm-up %d frames, then %d per path, (a) then (b).%n", WARMUP, FRAMES);
        System.out.printf("(a) per frame, mean µs: Vulkan copy to staging + host wait %.0f · read into Java %.0f · Run (host I/O) %.0f"
                + " · write to staging %.0f · Vulkan copy from staging + host wait %.0f. The staging buffers are"
                + " HOST_VISIBLE|HOST_COHERENT memory as VulkanBuffer picks it (possibly uncached, slow for host reads).%n",
                copyPhases[0], copyPhases[1], copyPhases[2], copyPhases[3], copyPhases[4]);
        System.out.println("(b) per frame: an empty Vulkan submit signals N; WaitSemaphore(N); Run; SignalSemaphore(N+1); the time"
                + " ends when the host's vkWaitSemaphores(N+1) returns — only to end the measurement: a real app's queue would"
                + " wait on N+1.");
        System.out.println(mismatch.map(why -> "output check: FAILED: (b)'s " + why)
                .orElse("output check: OK (16 pixels across the frame, read back through Vulkan)"));
        System.out.println();
    }

    private static void printSummary(Stats copy, Stats zero, Stats[] imports, Stats[] semaphoreCalls, boolean outputOk) {
        double speedup = copy.median() / zero.median();
        double importRatio = imports[0].median() / imports[1].median();
        double bridge = semaphoreCalls[0].median() - semaphoreCalls[1].median();
        System.out.printf("## Import of the 33 MB Vulkan buffer (OPAQUE_FD, fresh fd each, exported untimed), %d iterations each"
                + " after %d of warm-up, interleaved%n%n", IMPORTS, IMPORT_WARMUP);
        System.out.println("| path | median µs | p99 µs |");
        System.out.println("|---|---:|---:|");
        System.out.printf("| ORT + javaep: ImportMemory + CreateTensorFromMemory + release tensor + ReleaseExternalMemoryHandle"
                + " | %.1f | %.1f |%n", imports[0].median(), imports[0].p99());
        System.out.printf("| bare CUDA: cuImportExternalMemory + cuExternalMemoryGetMappedBuffer + cuMemFree + cuDestroyExternalMemory"
                + " | %.1f | %.1f |%n", imports[1].median(), imports[1].p99());
        System.out.printf("| ORT + javaep / bare CUDA (target ≤ %.1f×) | %.2f× | %.2f× |%n%n", TARGET_IMPORT_RATIO, importRatio,
                imports[0].p99() / imports[1].p99());
        System.out.printf("## Timeline semaphore wait + signal on one CUstream (waits already satisfied), %d pairs each after %d"
                + " of warm-up, interleaved, µs per call%n%n", SEMAPHORE_PAIRS, SEMAPHORE_WARMUP);
        System.out.println("| path | median µs | p99 µs |");
        System.out.println("|---|---:|---:|");
        System.out.printf("| ORT + javaep: WaitSemaphore + SignalSemaphore | %.2f | %.2f |%n",
                semaphoreCalls[0].median(), semaphoreCalls[0].p99());
        System.out.printf("| bare CUDA: cuWaitExternalSemaphoresAsync + cuSignalExternalSemaphoresAsync | %.2f | %.2f |%n",
                semaphoreCalls[1].median(), semaphoreCalls[1].p99());
        System.out.printf("| bridge overhead per call = difference (target ≤ %.0f µs) | %.2f | %.2f |%n%n", TARGET_BRIDGE_MICROS, bridge,
                semaphoreCalls[0].p99() - semaphoreCalls[1].p99());
        System.out.printf("targets: zero-copy (a)/(b) %.1f× ≥ %.0f×: %s; import %.2f× ≤ %.1f×: %s;"
                + " bridge %.2f µs ≤ %.0f µs per call: %s; output check: %s%n",
                speedup, TARGET_SPEEDUP, met(speedup >= TARGET_SPEEDUP), importRatio, TARGET_IMPORT_RATIO,
                met(importRatio <= TARGET_IMPORT_RATIO), bridge, TARGET_BRIDGE_MICROS, met(bridge <= TARGET_BRIDGE_MICROS),
                outputOk ? "OK" : "FAILED");
    }

    static String met(boolean met) {
        return met ? "met" : "NOT met";
    }
}
