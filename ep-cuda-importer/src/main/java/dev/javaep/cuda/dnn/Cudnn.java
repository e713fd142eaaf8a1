package dev.javaep.cuda.dnn;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.javaep.cuda.driver.NativeLibraryFinder;
import dev.javaep.spi.EpLog;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.List;
import java.util.Optional;

/**
 * cuDNN's legacy convolution API (still in cuDNN 9, and needing no libcudart) through FFM: descriptors, the workspace
 * query, {@code cudnnConvolutionForward}, {@code cudnnConvolutionBiasActivationForward} (Conv + residual + bias + ReLU
 * in one call), {@code cudnnConvolutionBackwardData} (ConvTranspose's computation) and
 * {@code cudnnAddTensor} (the bias). One handle per CUDA context, set to the Run's stream before each call.
 *
 * <p>Found at run time: {@code -Djavaep.cuda.cudnn=PATH} or {@code JAVAEP_CUDNN}, then {@code libcudnn.so.9} by
 * name, then the CUDA toolkit's and the distribution's library folders. Absent, {@link #find} is empty and JavaCuda's
 * own kernels run every convolution. Pointer arguments are passed as {@code long}s (the x86-64 and AArch64 ABIs
 * pass both alike), so a call on the Run's path allocates nothing.
 */
public final class Cudnn {
    public static final int SUCCESS = 0;
    public static final int DATA_FLOAT = 0;
    public static final int DATA_HALF = 2;
    public static final int TENSOR_NCHW = 0;
    public static final int CROSS_CORRELATION = 1;
    /** TF32 allowed for float32 on Ampere and newer (PyTorch's choice when {@code cudnn.allow_tf32}, its default). */
    public static final int DEFAULT_MATH = 0;
    public static final int TENSOR_OP_MATH = 1;
    /** Float32 multiply-adds only: no TF32. */
    public static final int FMA_MATH = 3;
    /** cudnnConvolutionFwdAlgo_t runs 0 (IMPLICIT_GEMM) to 7 (WINOGRAD_NONFUSED). */
    public static final int FORWARD_ALGORITHMS = 8;
    /** cudnnConvolutionBwdDataAlgo_t runs 0 to 5. */
    public static final int BACKWARD_DATA_ALGORITHMS = 6;

    /**
     * Whether the forward ({@code backward} false) or backward-data algorithm computes through a transform (FFT,
     * FFT_TILING, WINOGRAD, WINOGRAD_NONFUSED): its float32 results differ from the direct sums by ~1e-6 of the
     * operands' size, so an output whose terms cancel to 0 comes out as a few 1e-6 (ONNX's node tests allow 1e-7).
     */
    public static boolean transformsNumerics(boolean backward, int algorithm) {
        return backward ? algorithm >= 2 && algorithm <= 5 : algorithm >= 4 && algorithm <= 7;
    }
    /** cudnnActivationMode_t: the two {@code cudnnConvolutionBiasActivationForward} accepts. */
    public static final int ACTIVATION_RELU = 1;
    public static final int ACTIVATION_IDENTITY = 5;

    private static final List<String> NAMES = List.of("libcudnn.so.9");
    private static final NativeLibraryFinder.Once<Cudnn> FOUND = new NativeLibraryFinder.Once<>(Cudnn::load);
    private static volatile String absence = "";

    private final String description;
    private final long version;
    private final MethodHandle create;
    private final MethodHandle setStream;
    private final MethodHandle errorString;
    private final MethodHandle createTensor;
    private final MethodHandle setTensorNd;
    private final MethodHandle destroyTensor;
    private final MethodHandle createFilter;
    private final MethodHandle setFilterNd;
    private final MethodHandle destroyFilter;
    private final MethodHandle createConvolution;
    private final MethodHandle setConvolutionNd;
    private final MethodHandle setGroupCount;
    private final MethodHandle setMathType;
    private final MethodHandle destroyConvolution;
    private final MethodHandle forwardWorkspace;
    private final MethodHandle forward;
    private final MethodHandle backwardDataWorkspace;
    private final MethodHandle backwardData;
    private final MethodHandle addTensor;
    private final MethodHandle createActivation;
    private final MethodHandle setActivation;
    private final MethodHandle destroyActivation;
    private final MethodHandle biasActivationForward;
    /** Host scalars 1.0f and 0.0f: cuDNN reads alpha and beta as float for float and half data. */
    private final MemorySegment one;
    private final MemorySegment zero;
    private final MethodHandle destroyHandle;
    /**
     * A cuDNN handle per CUDA context, made on first use and destroyed with the device that owns the context
     * ({@link #release}). A copy-on-write array scanned per call (a process has a context per GPU): no boxing per
     * convolution, as a map keyed by {@code Long} would.
     */
    private volatile ContextHandle[] handles = new ContextHandle[0];

    /** Binds {@code lookup}'s functions (package-private: CudnnHandlesTest binds a stand-in library). */
    Cudnn(SymbolLookup lookup, String description) {
        this.description = description;
        Linker linker = Linker.nativeLinker();
        java.util.function.BiFunction<String, FunctionDescriptor, MethodHandle> bind = (name, d) -> linker.downcallHandle(
                lookup.find(name).orElseThrow(() -> new IllegalStateException(description + " has no " + name)), d);
        FunctionDescriptor handleOut = FunctionDescriptor.of(JAVA_INT, ADDRESS);
        FunctionDescriptor oneLong = FunctionDescriptor.of(JAVA_INT, JAVA_LONG);
        MethodHandle getVersion = bind.apply("cudnnGetVersion", FunctionDescriptor.of(JAVA_LONG));
        create = bind.apply("cudnnCreate", handleOut);
        destroyHandle = bind.apply("cudnnDestroy", oneLong);
        setStream = bind.apply("cudnnSetStream", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG));
        errorString = bind.apply("cudnnGetErrorString", FunctionDescriptor.of(ADDRESS, JAVA_INT));
        createTensor = bind.apply("cudnnCreateTensorDescriptor", handleOut);
        setTensorNd = bind.apply("cudnnSetTensorNdDescriptor",
                FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));
        destroyTensor = bind.apply("cudnnDestroyTensorDescriptor", oneLong);
        createFilter = bind.apply("cudnnCreateFilterDescriptor", handleOut);
        setFilterNd = bind.apply("cudnnSetFilterNdDescriptor",
                FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS));
        destroyFilter = bind.apply("cudnnDestroyFilterDescriptor", oneLong);
        createConvolution = bind.apply("cudnnCreateConvolutionDescriptor", handleOut);
        setConvolutionNd = bind.apply("cudnnSetConvolutionNdDescriptor",
                FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_INT, JAVA_INT));
        setGroupCount = bind.apply("cudnnSetConvolutionGroupCount", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT));
        setMathType = bind.apply("cudnnSetConvolutionMathType", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT));
        destroyConvolution = bind.apply("cudnnDestroyConvolutionDescriptor", oneLong);
        FunctionDescriptor workspace = FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG,
                JAVA_INT, ADDRESS);
        forwardWorkspace = bind.apply("cudnnGetConvolutionForwardWorkspaceSize", workspace);
        backwardDataWorkspace = bind.apply("cudnnGetConvolutionBackwardDataWorkspaceSize", workspace);
        FunctionDescriptor convolve = FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG,
                JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG);
        forward = bind.apply("cudnnConvolutionForward", convolve);
        backwardData = bind.apply("cudnnConvolutionBackwardData", convolve);
        addTensor = bind.apply("cudnnAddTensor", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG,
                JAVA_LONG, JAVA_LONG, JAVA_LONG));
        createActivation = bind.apply("cudnnCreateActivationDescriptor", handleOut);
        setActivation = bind.apply("cudnnSetActivationDescriptor", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT,
                JAVA_INT, JAVA_DOUBLE));
        destroyActivation = bind.apply("cudnnDestroyActivationDescriptor", oneLong);
        biasActivationForward = bind.apply("cudnnConvolutionBiasActivationForward", FunctionDescriptor.of(JAVA_INT,
                JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG,
                JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG));
        try {
            version = (long) getVersion.invokeExact();
        } catch (Throwable t) {
            throw new IllegalStateException(description + ": cudnnGetVersion failed", t);
        }
        if (version < 8000) {
            throw new IllegalStateException(description + " is cuDNN " + version + "; javaep needs cuDNN 8 or newer");
        }
        one = Arena.global().allocate(JAVA_FLOAT);
        one.set(JAVA_FLOAT, 0, 1f);
        zero = Arena.global().allocate(JAVA_FLOAT);
    }

    /** cuDNN, loaded once per process; empty (with {@link #absenceReason}) when it is not installed. */
    public static Optional<Cudnn> find() {
        return FOUND.get();
    }

    /** Why {@link #find} is empty: what was tried. */
    public static String absenceReason() {
        find();
        return absence;
    }

    private static Optional<Cudnn> load() {
        NativeLibraryFinder.Outcome<Cudnn> outcome = NativeLibraryFinder.find("javaep.cuda.cudnn", "JAVAEP_CUDNN", NAMES,
                NativeLibraryFinder.cudaFolders(), List.of(), Cudnn::new);
        if (outcome.library() == null) {
            absence = "cuDNN 9 was not found (tried " + (outcome.tried().isEmpty() ? NAMES : outcome.tried())
                    + "; -Djavaep.cuda.cudnn / JAVAEP_CUDNN name a libcudnn.so.9)";
            return Optional.empty();
        }
        return Optional.of(outcome.library());
    }

    /** "9.14.0 (libcudnn.so.9)". */
    public String describe() {
        return version / 10000 + "." + (version % 10000) / 100 + "." + version % 100 + " ("
                + description + ")";
    }

    /** One context's handle; also the monitor its users hold ({@link #lock}). */
    private static final class ContextHandle {
        final long context;
        final long handle;

        ContextHandle(long context, long handle) {
            this.context = context;
            this.handle = handle;
        }
    }

    /**
     * What to hold (synchronized) while using {@code context}'s handle: a handle is set to one stream at a time, so its
     * users take turns; users of other contexts (other GPUs) do not wait for them.
     */
    public Object lock(long context) {
        return entry(context);
    }

    /** The handle for the current CUDA context (made on first use), set to {@code stream}; call it holding {@link #lock}. */
    public long handle(long context, long stream) {
        long handle = entry(context).handle;
        try {
            check((int) setStream.invokeExact(handle, stream), "cudnnSetStream");
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
        return handle;
    }

    private ContextHandle entry(long context) {
        for (ContextHandle h : handles) {
            if (h.context == context) {
                return h;
            }
        }
        synchronized (this) {
            for (ContextHandle h : handles) {
                if (h.context == context) {
                    return h;
                }
            }
            ContextHandle made = new ContextHandle(context, created(create, "cudnnCreate"));
            ContextHandle[] grown = java.util.Arrays.copyOf(handles, handles.length + 1);
            grown[handles.length] = made;
            handles = grown;
            return made;
        }
    }

    private long created(MethodHandle creator, String call) {
        try (Arena arena = Arena.ofConfined()) {
            return created(creator, arena, call);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /**
     * Forgets {@code context}'s handle, destroying it ({@code cudnnDestroy}) unless {@code contextLost} (the handle went
     * with the context): its device is closing, so the context goes away (a later context at the same address gets a
     * handle of its own). Waits for a convolution that holds the handle's {@link #lock}.
     */
    public void release(long context, boolean contextLost) {
        ContextHandle released = null;
        synchronized (this) {
            for (ContextHandle h : handles) {
                if (h.context == context) {
                    released = h;
                }
            }
            if (released == null) {
                return;
            }
            ContextHandle gone = released;
            handles = java.util.Arrays.stream(handles).filter(h -> h != gone).toArray(ContextHandle[]::new);
        }
        if (!contextLost) {
            synchronized (released) {
                try {
                    check((int) destroyHandle.invokeExact(released.handle), "cudnnDestroy");
                } catch (RuntimeException | Error e) {
                    throw e;
                } catch (Throwable t) {
                    throw new IllegalStateException(t);
                }
            }
        }
    }

    /** {@link #release} on the process's cuDNN where it was loaded; nothing (and no library search) otherwise. */
    public static void releaseIfLoaded(long context, boolean contextLost) {
        FOUND.ifSearched().ifPresent(cudnn -> cudnn.release(context, contextLost));
    }

    /** How many contexts hold a handle (tests). */
    int handleCount() {
        return handles.length;
    }

    /** A packed NCHW tensor descriptor of {@code dims} (at least 4; pad leading 1s for fewer). */
    public long tensor(int dataType, int[] dims) {
        try (Arena arena = Arena.ofConfined()) {
            long d = created(createTensor, arena, "cudnnCreateTensorDescriptor");
            int[] strides = new int[dims.length];
            int s = 1;
            for (int i = dims.length - 1; i >= 0; i--) {
                strides[i] = s;
                s = Math.multiplyExact(s, dims[i]);
            }
            check((int) setTensorNd.invokeExact(d, dataType, dims.length, arena.allocateFrom(JAVA_INT, dims),
                    arena.allocateFrom(JAVA_INT, strides)), "cudnnSetTensorNdDescriptor");
            return d;
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** A KCRS (ONNX's W layout) filter descriptor. */
    public long filter(int dataType, int[] dims) {
        try (Arena arena = Arena.ofConfined()) {
            long d = created(createFilter, arena, "cudnnCreateFilterDescriptor");
            check((int) setFilterNd.invokeExact(d, dataType, TENSOR_NCHW, dims.length, arena.allocateFrom(JAVA_INT, dims)),
                    "cudnnSetFilterNdDescriptor");
            return d;
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** A cross-correlation descriptor (symmetric pads), with ONNX's group count and the given math type. */
    public long convolution(int[] pads, int[] strides, int[] dilations, int groups, int computeType, int mathType) {
        try (Arena arena = Arena.ofConfined()) {
            long d = created(createConvolution, arena, "cudnnCreateConvolutionDescriptor");
            check((int) setConvolutionNd.invokeExact(d, pads.length, arena.allocateFrom(JAVA_INT, pads),
                    arena.allocateFrom(JAVA_INT, strides), arena.allocateFrom(JAVA_INT, dilations), CROSS_CORRELATION,
                    computeType), "cudnnSetConvolutionNdDescriptor");
            check((int) setGroupCount.invokeExact(d, groups), "cudnnSetConvolutionGroupCount");
            check((int) setMathType.invokeExact(d, mathType), "cudnnSetConvolutionMathType");
            return d;
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    public void destroy(long tensor, long filter, long convolution, long bias) {
        try {
            int ignored = (int) destroyTensor.invokeExact(tensor);
            ignored = (int) destroyFilter.invokeExact(filter);
            ignored = (int) destroyConvolution.invokeExact(convolution);
            if (bias != 0) {
                ignored = (int) destroyTensor.invokeExact(bias);
            }
        } catch (Throwable t) {
            EpLog.warning("javaep: cuDNN descriptor release failed", t);
        }
    }

    public void destroyTensor(long tensor) {
        try {
            int ignored = (int) destroyTensor.invokeExact(tensor);
        } catch (Throwable t) {
            EpLog.warning("javaep: cuDNN descriptor release failed", t);
        }
    }

    /**
     * The workspace bytes of a forward ({@code backward == false}: x, w → y) or backward-data (ConvTranspose: dy = the
     * op's X, w → dx = the op's Y) algorithm; -1 where cuDNN does not offer it for this geometry.
     */
    public long workspace(boolean backward, long handle, long in, long filter, long convolution, long out, int algorithm) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment size = arena.allocate(JAVA_LONG);
            int r = backward
                    ? (int) backwardDataWorkspace.invokeExact(handle, filter, in, convolution, out, algorithm, size)
                    : (int) forwardWorkspace.invokeExact(handle, in, filter, convolution, out, algorithm, size);
            return r == SUCCESS ? size.get(JAVA_LONG, 0) : -1;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /**
     * Queues the convolution; returns cuDNN's status (not thrown: the algorithm search tries algorithms that may
     * refuse a geometry).
     */
    public int convolve(boolean backward, long handle, long inDesc, long in, long filterDesc, long filter, long convolution,
                        int algorithm, long workspace, long workspaceBytes, long outDesc, long out) {
        try {
            return backward
                    ? (int) backwardData.invokeExact(handle, one.address(), filterDesc, filter, inDesc, in, convolution,
                            algorithm, workspace, workspaceBytes, zero.address(), outDesc, out)
                    : (int) forward.invokeExact(handle, one.address(), inDesc, in, filterDesc, filter, convolution,
                            algorithm, workspace, workspaceBytes, zero.address(), outDesc, out);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** {@code out += bias}, the bias descriptor [1, M, 1, ...] broadcast over out. */
    public void addBias(long handle, long biasDesc, long bias, long outDesc, long out) {
        try {
            check((int) addTensor.invokeExact(handle, one.address(), biasDesc, bias, one.address(), outDesc, out),
                    "cudnnAddTensor");
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** An activation descriptor of {@code mode} ({@link #ACTIVATION_RELU}, NaN propagated; coefficient unused). */
    public long activation(int mode) {
        try (Arena arena = Arena.ofConfined()) {
            long d = created(createActivation, arena, "cudnnCreateActivationDescriptor");
            check((int) setActivation.invokeExact(d, mode, 1, 0.0), "cudnnSetActivationDescriptor");
            return d;
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    public void destroyActivation(long activation) {
        try {
            int ignored = (int) destroyActivation.invokeExact(activation);
        } catch (Throwable t) {
            EpLog.warning("javaep: cuDNN descriptor release failed", t);
        }
    }

    /**
     * Queues {@code y = activation(conv(x, w) + z + bias)} as one cuDNN call ({@code cudnnConvolutionBiasActivationForward});
     * {@code z == 0}: no residual (cuDNN then reads y scaled by 0, so zDesc is y's). Returns cuDNN's status (not
     * thrown: the algorithm search tries algorithms that may refuse the fused form).
     */
    public int convolveBiasActivation(long handle, long inDesc, long in, long filterDesc, long filter, long convolution,
                                      int algorithm, long workspace, long workspaceBytes, long zDesc, long z, long biasDesc,
                                      long bias, long activation, long outDesc, long out) {
        try {
            return (int) biasActivationForward.invokeExact(handle, one.address(), inDesc, in, filterDesc, filter,
                    convolution, algorithm, workspace, workspaceBytes, z == 0 ? zero.address() : one.address(),
                    z == 0 ? outDesc : zDesc, z == 0 ? out : z, biasDesc, bias, activation, outDesc, out);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    public void check(int status, String call) {
        if (status != SUCCESS) {
            throw new IllegalStateException("javaep: " + call + " failed: " + errorString(status));
        }
    }

    public String errorString(int status) {
        try {
            MemorySegment text = (MemorySegment) errorString.invokeExact(status);
            return text.equals(MemorySegment.NULL) ? "cuDNN status " + status
                    : text.reinterpret(256).getString(0) + " (" + status + ")";
        } catch (Throwable t) {
            return "cuDNN status " + status;
        }
    }

    private long created(MethodHandle creator, Arena arena, String call) throws Throwable {
        MemorySegment out = arena.allocate(JAVA_LONG);
        check((int) creator.invokeExact(out), call);
        return out.get(JAVA_LONG, 0);
    }
}
