package dev.javaep.cuda.kernel.conv;

import dev.javaep.cuda.driver.CudaDriver;
import dev.javaep.cuda.dnn.Cudnn;
import dev.javaep.cuda.kernel.CudaKernelLibrary;
import dev.javaep.cuda.kernel.DeviceSpin;
import dev.javaep.cuda.kernel.elementwise.ElementwiseKernels.FusableActivation;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.EpLog;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.ops.ConvOps.ConvGeometry;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Conv (cudnnConvolutionForward) or ConvTranspose (cudnnConvolutionBackwardData, which is its computation) through
 * cuDNN's legacy API on the Run's stream, then the bias with cudnnAddTensor. Per geometry a {@link Plan}: the
 * descriptors and the algorithm, chosen once by timing every algorithm cuDNN offers for it between CUDA events on the
 * stream (cuDNN's own search times itself on the host and can pick a slower one) and remembered per process for that
 * geometry. The workspace comes from the device's stream-ordered pool on the Run's stream, freed behind the call (inside
 * a CUDA graph capture these become the graph's own allocation, whose address is fixed for the graph's life). A fused
 * activation (and a residual {@code z}, a following Add's other input) runs with the bias as one pass over Y after the
 * convolution instead of cudnnAddTensor.
 *
 * <p><b>cuDNN's fused call.</b> A Conv with a bias followed by ReLU ({@code cudnnReLU}), with or without a residual,
 * can instead run as one {@code cudnnConvolutionBiasActivationForward}: {@code y = relu(conv(x, w) + z + bias)}. Per
 * geometry both ways are timed on the stream, every algorithm of the fused call against the fastest plain convolution
 * plus the epilogue pass, and the faster one is kept (cuDNN runs some algorithms of the fused call as a convolution plus
 * kernels of its own, which can lose to ours).
 *
 * <p>A geometry cuDNN cannot express (asymmetric pads, sizes past int32) runs on {@link #fallback}.
 */
final class CudnnConvolution implements ConvolutionNode.Algorithm, AutoCloseable {
    /** Timed launches per candidate algorithm, after one untimed one. */
    private static final int TIMED_LAUNCHES = 5;
    /**
     * The algorithm chosen per geometry (element type, math, window, transposed, device; for the fused call also whether
     * there is a residual), for every node in the process; for the fused call -1 when the plain convolution won.
     */
    private static final Map<String, Timed> CHOSEN = new ConcurrentHashMap<>();

    private final Cudnn cudnn;
    private final boolean transposed;
    private final ConvolutionNode.Algorithm fallback;
    private final boolean tf32;
    private final FusableActivation activation;
    /** Whether the activation is ReLU and cuDNN's fused call may run it (a Conv with a bias). */
    private final boolean cudnnRelu;
    private final Map<Window, Plan> plans = new ConcurrentHashMap<>();
    /** How the last planned geometry runs (the profile's step kind). */
    private volatile String kind;

    /** A geometry as the {@code Window} longs, compared by value. */
    private record Window(long[] values) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Window w && Arrays.equals(values, w.values);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(values);
        }
    }

    /**
     * Descriptors and the algorithm for one geometry; {@code algorithm < 0}: cuDNN cannot run it, the fallback does.
     * {@code fusedAlgorithm >= 0}: the Run's call is cudnnConvolutionBiasActivationForward with that algorithm,
     * {@code activationDesc} and {@code fusedWorkspaceBytes}.
     */
    private record Plan(long in, long filter, long convolution, long out, long bias, int algorithm, long workspaceBytes,
                        long activationDesc, int fusedAlgorithm, long fusedWorkspaceBytes) {
        static final Plan UNSUPPORTED = new Plan(0, 0, 0, 0, 0, -1, 0, 0, -1, 0);

        boolean fused() {
            return fusedAlgorithm >= 0;
        }
    }

    /**
     * {@code activation}: applied with the bias in one pass after the convolution (null: the bias by cudnnAddTensor);
     * {@code cudnnRelu}: the activation is ReLU and cudnnConvolutionBiasActivationForward may run it.
     */
    CudnnConvolution(Cudnn cudnn, boolean transposed, ConvolutionNode.Algorithm fallback, boolean tf32,
                     FusableActivation activation, boolean cudnnRelu) {
        this.cudnn = cudnn;
        this.transposed = transposed;
        this.fallback = fallback;
        this.tf32 = tf32;
        this.activation = activation;
        this.cudnnRelu = cudnnRelu && !transposed && activation != null;
    }

    /** How the last geometry this node planned runs, for the step profile; null before the first Run. */
    String kind() {
        return kind;
    }

    @Override
    public void queue(CudaKernelLibrary kernels, long stream, ConvGeometry g, ElementType type, Tensor x, Tensor w, Tensor b,
                      Tensor z, Tensor y) {
        CudaDriver driver = kernels.driver();
        Window window = new Window(WindowArguments.of(g));
        Plan plan = plans.get(window);
        if (plan == null) {
            plan = plans.computeIfAbsent(window, k -> plan(kernels, stream, g, type, x, w, b, z, y));
        }
        if (plan.algorithm() < 0) {
            fallback.queue(kernels, stream, g, type, x, w, b, z, y);
            return;
        }
        long context = driver.ctxGetCurrent();
        synchronized (cudnn.lock(context)) { // per context: convolutions on other GPUs do not wait
            long handle = cudnn.handle(context, stream);
            if (plan.fused()) {
                long workspace = plan.fusedWorkspaceBytes() > 0 ? driver.memAllocAsync(plan.fusedWorkspaceBytes(), stream) : 0;
                try {
                    cudnn.check(fusedCall(handle, plan, plan.fusedAlgorithm(), workspace, plan.fusedWorkspaceBytes(), x, w, b,
                            z, y), "cudnnConvolutionBiasActivationForward");
                } finally {
                    if (workspace != 0) {
                        driver.memFreeAsync(workspace, stream);
                    }
                }
                return;
            }
            long workspace = plan.workspaceBytes() > 0 ? driver.memAllocAsync(plan.workspaceBytes(), stream) : 0;
            try {
                cudnn.check(cudnn.convolve(transposed, handle, plan.in(), x.data().address(), plan.filter(),
                        w.data().address(), plan.convolution(), plan.algorithm(), workspace, plan.workspaceBytes(),
                        plan.out(), y.data().address()), transposed ? "cudnnConvolutionBackwardData" : "cudnnConvolutionForward");
            } finally {
                if (workspace != 0) {
                    driver.memFreeAsync(workspace, stream);
                }
            }
            if (b != null && !epilogue(z)) {
                cudnn.addBias(handle, plan.bias(), b.data().address(), plan.out(), y.data().address());
            }
        }
        if (epilogue(z)) {
            ConvolutionNode.biasActivation(kernels, stream, g, type, b, z, y, activation);
        }
    }

    /** Whether the plain convolution is followed by the epilogue pass (else the bias, if any, by cudnnAddTensor). */
    private boolean epilogue(Tensor z) {
        return activation != null || z != null;
    }

    private int fusedCall(long handle, Plan plan, int algorithm, long workspace, long workspaceBytes, Tensor x, Tensor w,
                          Tensor b, Tensor z, Tensor y) {
        // z has Y's shape (the planner fused only an exact match), so Y's descriptor describes it
        return cudnn.convolveBiasActivation(handle, plan.in(), x.data().address(), plan.filter(), w.data().address(),
                plan.convolution(), algorithm, workspace, workspaceBytes, plan.out(), z == null ? 0 : z.data().address(),
                plan.bias(), b.data().address(), plan.activationDesc(), plan.out(), y.data().address());
    }

    private Plan plan(CudaKernelLibrary kernels, long stream, ConvGeometry g, ElementType type, Tensor x, Tensor w, Tensor b,
                      Tensor z, Tensor y) {
        CudaDriver driver = kernels.driver();
        int rank = g.spatialRank();
        // cuDNN takes symmetric pads and int sizes; 1-D runs as 2-D with a height of 1.
        int axes = Math.max(2, rank);
        int[] pads = new int[axes];
        int[] strides = new int[axes];
        int[] dilations = new int[axes];
        int[] inSpatial = new int[axes];
        int[] outSpatial = new int[axes];
        int[] kernel = new int[axes];
        Arrays.fill(strides, 1);
        Arrays.fill(dilations, 1);
        Arrays.fill(inSpatial, 1);
        Arrays.fill(outSpatial, 1);
        Arrays.fill(kernel, 1);
        for (int i = 0; i < rank; i++) {
            int a = i + axes - rank;
            if (g.padsBegin()[i] != g.padsEnd()[i] || !fitsInt(g.padsBegin()[i], g.strides()[i], g.dilations()[i],
                    g.inputSpatial()[i], g.outputSpatial()[i], g.kernel()[i])) {
                kind = "direct conv (geometry cuDNN cannot take)";
                return Plan.UNSUPPORTED;
            }
            pads[a] = (int) g.padsBegin()[i];
            strides[a] = (int) g.strides()[i];
            dilations[a] = (int) g.dilations()[i];
            inSpatial[a] = (int) g.inputSpatial()[i];
            outSpatial[a] = (int) g.outputSpatial()[i];
            kernel[a] = (int) g.kernel()[i];
        }
        if (!fitsInt(g.batch(), g.inChannels(), g.outChannels(), g.group(), x.elementCount(), y.elementCount())) {
            kind = "direct conv (geometry cuDNN cannot take)";
            return Plan.UNSUPPORTED;
        }
        int dataType = type == ElementType.FLOAT16 ? Cudnn.DATA_HALF : Cudnn.DATA_FLOAT;
        // Half data with float accumulation on tensor cores; float32 with TF32 allowed unless switched off (PyTorch's
        // defaults for both).
        int math = type == ElementType.FLOAT16 ? Cudnn.TENSOR_OP_MATH : tf32 ? Cudnn.DEFAULT_MATH : Cudnn.FMA_MATH;
        // Float32 without TF32 asks for float32's precision: the transform algorithms (FFT, Winograd) are left out, as
        // they put a few 1e-6 where the sums cancel (test_convtranspose_3d failed on some runs by the choice of FFT).
        boolean exact = math == Cudnn.FMA_MATH;
        long in = cudnn.tensor(dataType, dims(g.batch(), g.inChannels(), inSpatial));
        long out = cudnn.tensor(dataType, dims(g.batch(), g.outChannels(), outSpatial));
        // The filter is W as ONNX lays it out: Conv [M, C/group, k...]; ConvTranspose [C, M/group, k...], which is the
        // forward filter of the convolution whose data gradient ConvTranspose computes.
        long filter = cudnn.filter(dataType, transposed ? dims(g.inChannels(), g.outChannelsPerGroup(), kernel)
                : dims(g.outChannels(), g.inChannelsPerGroup(), kernel));
        long convolution = cudnn.convolution(pads, strides, dilations, (int) g.group(), Cudnn.DATA_FLOAT, math);
        int[] biasDims = new int[axes + 2];
        Arrays.fill(biasDims, 1);
        biasDims[1] = (int) g.outChannels();
        long bias = b == null ? 0 : cudnn.tensor(dataType, biasDims);
        String key = type + "/" + math + "/" + transposed + "/" + driver.ctxGetCurrent() + "/"
                + Arrays.toString(WindowArguments.of(g));
        boolean tryFused = cudnnRelu && b != null;
        long activationDesc = tryFused ? cudnn.activation(Cudnn.ACTIVATION_RELU) : 0;
        Plan candidate = new Plan(in, filter, convolution, out, bias, -1, 0, activationDesc, -1, 0);
        String fusedKey = "fused/" + (z != null) + "/" + key;
        long handle;
        Timed plain;
        Timed fused = Timed.NONE;
        boolean timeFused = false;
        long workspaceBytes;
        long fusedWorkspaceBytes = 0;
        long context = driver.ctxGetCurrent();
        synchronized (cudnn.lock(context)) {
            handle = cudnn.handle(context, stream);
            Timed known = CHOSEN.get(key);
            plain = known != null ? known
                    : fastest(driver, stream, transposed ? Cudnn.BACKWARD_DATA_ALGORITHMS : Cudnn.FORWARD_ALGORITHMS,
                            algorithm -> exact && Cudnn.transformsNumerics(transposed, algorithm) ? -1
                                    : cudnn.workspace(transposed, handle, in, filter, convolution, out, algorithm),
                            (algorithm, workspace, bytes) -> cudnn.convolve(transposed, handle, in, x.data().address(),
                                    filter, w.data().address(), convolution, algorithm, workspace, bytes, out,
                                    y.data().address()));
            workspaceBytes = plain.algorithm() < 0 ? 0
                    : cudnn.workspace(transposed, handle, in, filter, convolution, out, plain.algorithm());
            if (tryFused) {
                Timed knownFused = CHOSEN.get(fusedKey);
                timeFused = knownFused == null;
                fused = knownFused != null ? knownFused
                        : fastest(driver, stream, Cudnn.FORWARD_ALGORITHMS,
                                algorithm -> exact && Cudnn.transformsNumerics(false, algorithm) ? -1
                                        : cudnn.workspace(false, handle, in, filter, convolution, out, algorithm),
                                (algorithm, workspace, bytes) -> fusedCall(handle, candidate, algorithm, workspace, bytes, x,
                                        w, b, z, y));
                fusedWorkspaceBytes = fused.algorithm() < 0 ? 0
                        : cudnn.workspace(false, handle, in, filter, convolution, out, fused.algorithm());
            }
        }
        if (timeFused && fused.algorithm() >= 0 && plain.algorithm() >= 0) {
            // the plain way costs its convolution and the epilogue pass: time that pass once, on the same stream
            float epilogueMillis = time(driver, stream,
                    () -> ConvolutionNode.biasActivation(kernels, stream, g, type, b, z, y, activation));
            boolean fusedWins = fused.millis() <= plain.millis() + epilogueMillis;
            EpLog.verbose(String.format(java.util.Locale.ROOT, "javaep: cuDNN conv+bias+ReLU%s %s: fused call (ms):%s;"
                            + " plain %d %.3f + epilogue %.3f -> %s", z != null ? "+residual" : "",
                    Arrays.toString(WindowArguments.of(g)), fused.timings(), plain.algorithm(), plain.millis(),
                    epilogueMillis, fusedWins ? "fused " + fused.algorithm() : "plain"));
            if (!fusedWins) {
                fused = Timed.NONE;
            }
        }
        if (timeFused) {
            CHOSEN.putIfAbsent(fusedKey, fused);
        }
        if (plain.algorithm() < 0) {
            cudnn.destroy(in, filter, convolution, bias);
            cudnn.destroyTensor(out); // as close() releases a plan's
            if (activationDesc != 0) {
                cudnn.destroyActivation(activationDesc);
            }
            kind = "direct conv (no cuDNN algorithm)";
            return Plan.UNSUPPORTED;
        }
        CHOSEN.putIfAbsent(key, plain);
        if (fused.algorithm() < 0 && activationDesc != 0) {
            cudnn.destroyActivation(activationDesc);
            activationDesc = 0;
        }
        kind = fused.algorithm() >= 0 ? "cuDNN conv+bias+ReLU" + (z != null ? "+residual" : "") + " (one fused call)"
                : epilogue(z) ? "cuDNN conv + epilogue pass" : "cuDNN conv" + (b != null ? " + AddTensor bias" : "");
        return new Plan(in, filter, convolution, out, bias, plain.algorithm(), Math.max(0, workspaceBytes), activationDesc,
                fused.algorithm(), Math.max(0, fusedWorkspaceBytes));
    }

    /** An algorithm (-1: none) and its time per launch, with every candidate's time for the log. */
    private record Timed(int algorithm, float millis, String timings) {
        static final Timed NONE = new Timed(-1, Float.NaN, "");
    }

    /** One launch of a candidate algorithm with its workspace; cuDNN's status. */
    @FunctionalInterface
    private interface Candidate {
        int launch(int algorithm, long workspace, long workspaceBytes);
    }

    /**
     * Every algorithm of {@code count} that cuDNN offers ({@code workspaceOf} not -1) timed on the stream; the fastest,
     * or {@link Timed#NONE}'s algorithm when none runs.
     */
    private Timed fastest(CudaDriver driver, long stream, int count, java.util.function.IntToLongFunction workspaceOf,
                          Candidate candidate) {
        long free = driver.memGetInfo().freeBytes();
        long start = driver.eventCreate(CudaDriver.EVENT_DEFAULT);
        long end = driver.eventCreate(CudaDriver.EVENT_DEFAULT);
        int best = -1;
        float bestMillis = Float.MAX_VALUE;
        StringBuilder timings = new StringBuilder();
        try (DeviceSpin spin = new DeviceSpin(driver)) {
            for (int algorithm = 0; algorithm < count; algorithm++) {
                long bytes = workspaceOf.applyAsLong(algorithm);
                if (bytes < 0 || bytes > free / 2) {
                    continue;
                }
                long workspace = 0;
                try {
                    workspace = bytes > 0 ? driver.memAllocAsync(bytes, stream) : 0;
                    long queueing = System.nanoTime();
                    if (candidate.launch(algorithm, workspace, bytes) != Cudnn.SUCCESS) {
                        continue;
                    }
                    queueing = System.nanoTime() - queueing;
                    int timed = algorithm;
                    long timedWorkspace = workspace;
                    float millis = millisPerLaunch(driver, spin, stream, start, end, queueing,
                            () -> candidate.launch(timed, timedWorkspace, bytes));
                    timings.append(String.format(java.util.Locale.ROOT, " %d:%.3f", algorithm, millis));
                    if (millis < bestMillis) {
                        bestMillis = millis;
                        best = algorithm;
                    }
                } catch (RuntimeException e) {
                    // this algorithm's workspace did not fit: the others may
                } finally {
                    if (workspace != 0) {
                        driver.memFreeAsync(workspace, stream);
                    }
                }
            }
            driver.streamSynchronize(stream); // a timing that threw part-way may have left a spin queued
        } finally {
            driver.eventDestroy(start);
            driver.eventDestroy(end);
        }
        EpLog.verbose("javaep: cuDNN " + (transposed ? "backward-data" : "forward") + " algorithms (ms):" + timings
                + " -> " + best);
        return best < 0 ? Timed.NONE : new Timed(best, bestMillis, timings.toString());
    }

    /** {@code launch}'s device time on the stream, per launch: one untimed, then {@link #TIMED_LAUNCHES} timed. */
    private static float time(CudaDriver driver, long stream, Runnable launch) {
        long start = driver.eventCreate(CudaDriver.EVENT_DEFAULT);
        long end = driver.eventCreate(CudaDriver.EVENT_DEFAULT);
        try (DeviceSpin spin = new DeviceSpin(driver)) {
            long queueing = System.nanoTime();
            launch.run();
            try {
                return millisPerLaunch(driver, spin, stream, start, end, System.nanoTime() - queueing, launch);
            } finally {
                driver.streamSynchronize(stream); // the spin must not outlive its module
            }
        } finally {
            driver.eventDestroy(start);
            driver.eventDestroy(end);
        }
    }

    /**
     * {@link #TIMED_LAUNCHES} of {@code launch} between {@code start} and {@code end} on the stream: ms per launch of
     * device time. The pair waits behind a spin ({@link DeviceSpin}) longer than queueing the launches takes the host
     * (twice {@code queueingNanos}, one untimed launch's host time, per launch): otherwise a launch that costs more
     * host time than device time (a legacy cuDNN call: 60–90 µs; a small convolution: 10–30 µs) would be timed at the
     * host's pace, and every algorithm would look alike, the choice falling on noise.
     */
    private static float millisPerLaunch(CudaDriver driver, DeviceSpin spin, long stream, long start, long end,
                                         long queueingNanos, Runnable launch) {
        long spinMicros = Math.clamp(2 * (TIMED_LAUNCHES + 1) * queueingNanos / 1000 + 100, 200, 20_000);
        spin.spin(stream, spinMicros);
        driver.eventRecord(start, stream);
        for (int i = 0; i < TIMED_LAUNCHES; i++) {
            launch.run();
        }
        driver.eventRecord(end, stream);
        driver.eventSynchronize(end);
        return driver.eventElapsedMillis(start, end) / TIMED_LAUNCHES;
    }

    private static boolean fitsInt(long... values) {
        for (long v : values) {
            if (v > Integer.MAX_VALUE || v < 0) {
                return false;
            }
        }
        return true;
    }

    private static int[] dims(long first, long second, int[] rest) {
        int[] d = new int[rest.length + 2];
        d[0] = (int) first;
        d[1] = (int) second;
        System.arraycopy(rest, 0, d, 2, rest.length);
        return d;
    }

    @Override
    public void close() {
        for (Plan p : plans.values()) {
            if (p.algorithm() >= 0) {
                cudnn.destroy(p.in(), p.filter(), p.convolution(), p.bias());
                cudnn.destroyTensor(p.out());
                if (p.activationDesc() != 0) {
                    cudnn.destroyActivation(p.activationDesc());
                }
            }
        }
        plans.clear();
    }
}
