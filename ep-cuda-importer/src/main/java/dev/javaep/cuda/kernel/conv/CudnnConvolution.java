package dev.javaep.cuda.kernel.conv;

import dev.javaep.cuda.driver.CudaDriver;
import dev.javaep.cuda.dnn.Cudnn;
import dev.javaep.cuda.kernel.CudaKernelLibrary;
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
 * activation runs with the bias as one pass over Y after the convolution instead of cudnnAddTensor.
 * A geometry cuDNN cannot express (asymmetric pads, sizes past int32) runs on {@link #fallback}.
 */
final class CudnnConvolution implements ConvolutionNode.Algorithm, AutoCloseable {
    /** Timed launches per candidate algorithm, after one untimed one. */
    private static final int TIMED_LAUNCHES = 3;
    /** The algorithm chosen per geometry (element type, math, window, transposed, device), for every node in the process. */
    private static final Map<String, Integer> CHOSEN = new ConcurrentHashMap<>();

    private final Cudnn cudnn;
    private final boolean transposed;
    private final ConvolutionNode.Algorithm fallback;
    private final boolean tf32;
    private final FusableActivation activation;
    private final Map<Window, Plan> plans = new ConcurrentHashMap<>();

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

    /** Descriptors and the algorithm for one geometry; {@code algorithm < 0}: cuDNN cannot run it, the fallback does. */
    private record Plan(long in, long filter, long convolution, long out, long bias, int algorithm, long workspaceBytes) {
        static final Plan UNSUPPORTED = new Plan(0, 0, 0, 0, 0, -1, 0);
    }

    /** {@code activation}: applied with the bias in one pass after the convolution (null: the bias by cudnnAddTensor). */
    CudnnConvolution(Cudnn cudnn, boolean transposed, ConvolutionNode.Algorithm fallback, boolean tf32,
                     FusableActivation activation) {
        this.cudnn = cudnn;
        this.transposed = transposed;
        this.fallback = fallback;
        this.tf32 = tf32;
        this.activation = activation;
    }

    @Override
    public void queue(CudaKernelLibrary kernels, long stream, ConvGeometry g, ElementType type, Tensor x, Tensor w, Tensor b,
                      Tensor y) {
        CudaDriver driver = kernels.driver();
        Window window = new Window(WindowArguments.of(g));
        Plan plan = plans.get(window);
        if (plan == null) {
            plan = plans.computeIfAbsent(window, k -> plan(driver, stream, g, type, x, w, b, y));
        }
        if (plan.algorithm() < 0) {
            fallback.queue(kernels, stream, g, type, x, w, b, y);
            return;
        }
        long context = driver.ctxGetCurrent();
        synchronized (cudnn.lock(context)) { // per context: convolutions on other GPUs do not wait
            long handle = cudnn.handle(context, stream);
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
            if (b != null && activation == null) {
                cudnn.addBias(handle, plan.bias(), b.data().address(), plan.out(), y.data().address());
            }
        }
        if (activation != null) {
            ConvolutionNode.biasActivation(kernels, stream, g, type, b, y, activation);
        }
    }

    private Plan plan(CudaDriver driver, long stream, ConvGeometry g, ElementType type, Tensor x, Tensor w, Tensor b,
                      Tensor y) {
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
            return Plan.UNSUPPORTED;
        }
        int dataType = type == ElementType.FLOAT16 ? Cudnn.DATA_HALF : Cudnn.DATA_FLOAT;
        // Half data with float accumulation on tensor cores; float32 with TF32 allowed unless switched off (PyTorch's
        // defaults for both).
        int math = type == ElementType.FLOAT16 ? Cudnn.TENSOR_OP_MATH : tf32 ? Cudnn.DEFAULT_MATH : Cudnn.FMA_MATH;
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
        Integer known = CHOSEN.get(key);
        long handle;
        int algorithm;
        long workspaceBytes;
        long context = driver.ctxGetCurrent();
        synchronized (cudnn.lock(context)) {
            handle = cudnn.handle(context, stream);
            algorithm = known != null ? known : fastest(driver, stream, handle, in, x, filter, w, convolution, out, y);
            workspaceBytes = algorithm < 0 ? 0 : cudnn.workspace(transposed, handle, in, filter, convolution, out, algorithm);
        }
        if (algorithm < 0) {
            cudnn.destroy(in, filter, convolution, bias);
            cudnn.destroyTensor(out); // as close() releases a plan's
            return Plan.UNSUPPORTED;
        }
        CHOSEN.putIfAbsent(key, algorithm);
        return new Plan(in, filter, convolution, out, bias, algorithm, Math.max(0, workspaceBytes));
    }

    /** Every algorithm cuDNN offers for the geometry, timed on the stream; the fastest, or -1 when none runs. */
    private int fastest(CudaDriver driver, long stream, long handle, long in, Tensor x, long filter, Tensor w,
                        long convolution, long out, Tensor y) {
        int count = transposed ? Cudnn.BACKWARD_DATA_ALGORITHMS : Cudnn.FORWARD_ALGORITHMS;
        long free = driver.memGetInfo().freeBytes();
        long start = driver.eventCreate(CudaDriver.EVENT_DEFAULT);
        long end = driver.eventCreate(CudaDriver.EVENT_DEFAULT);
        int best = -1;
        float bestMillis = Float.MAX_VALUE;
        StringBuilder timings = new StringBuilder();
        try {
            for (int algorithm = 0; algorithm < count; algorithm++) {
                long bytes = cudnn.workspace(transposed, handle, in, filter, convolution, out, algorithm);
                if (bytes < 0 || bytes > free / 2) {
                    continue;
                }
                long workspace = 0;
                try {
                    workspace = bytes > 0 ? driver.memAllocAsync(bytes, stream) : 0;
                    if (cudnn.convolve(transposed, handle, in, x.data().address(), filter, w.data().address(), convolution,
                            algorithm, workspace, bytes, out, y.data().address()) != Cudnn.SUCCESS) {
                        continue;
                    }
                    driver.eventRecord(start, stream);
                    for (int i = 0; i < TIMED_LAUNCHES; i++) {
                        cudnn.convolve(transposed, handle, in, x.data().address(), filter, w.data().address(), convolution,
                                algorithm, workspace, bytes, out, y.data().address());
                    }
                    driver.eventRecord(end, stream);
                    driver.eventSynchronize(end);
                    float millis = driver.eventElapsedMillis(start, end) / TIMED_LAUNCHES;
                    timings.append(String.format(" %d:%.3f", algorithm, millis));
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
        } finally {
            driver.eventDestroy(start);
            driver.eventDestroy(end);
        }
        EpLog.verbose("javaep: cuDNN " + (transposed ? "backward-data" : "forward") + " algorithms (ms):" + timings
                + " -> " + best);
        return best;
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
            }
        }
        plans.clear();
    }
}
