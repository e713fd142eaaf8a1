package dev.javaep.cuda.driver;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code fake_libcuda.c} built with gcc and loaded as a {@link CudaLibrary}: a stand-in driver that
 * records what each call was given ({@link #last}) and fails on demand ({@link #configure}). Tests
 * outside this package get a {@link CudaDriver} over it from {@link #build()}.
 */
public final class FakeCuda {
    /** Keys of {@code fake_last()}, in the order of the C enum. */
    public static final int K_TYPE = 0, K_FD = 1, K_HANDLE = 2, K_NAME = 3, K_SIZE = 4, K_FLAGS = 5,
            K_NONZERO_RESERVED = 6, K_OFFSET = 7, K_FENCE_VALUE = 8, K_NUM_SEMS = 9, K_SEM = 10, K_STREAM = 11,
            K_GRID = 12, K_BLOCK = 13, K_SHARED_MEM = 14, K_RELEASE_THRESHOLD = 15, K_EVENT = 16, K_CTX = 17,
            K_ASYNC_ALLOCS = 18, K_ASYNC_FREES = 19, K_ASYNC_ALLOC_SIZE = 20;

    /** Keys of {@code fake_device_stat()} (what happened per device), in the order of the C enum. */
    public enum DeviceStat {
        /** Context-bound calls made while the device's context was current. */
        CONTEXT_CALLS,
        LIVE_DEVICE_ALLOCATIONS,
        LIVE_PINNED_ALLOCATIONS,
        /** The primary context's retain count: 0 once every holder released it. */
        CONTEXT_RETAINS,
        /** cuMemcpyPeerAsync calls made with peer access enabled between the two contexts. */
        PEER_COPIES_DIRECT,
        /** cuMemcpyPeerAsync calls without peer access: the driver stages them through host memory. */
        PEER_COPIES_STAGED,
        /** Launches, stream-ordered allocations and event records refused: the stream or event was another device's. */
        WRONG_CONTEXT,
        /** Bit {@code 1 << peer} per device whose memory this device's context was given access to. */
        PEER_ACCESS_ENABLED,
        /** Allocations freed while another device's context was current. */
        FOREIGN_FREES,
        LIVE_DEVICE_BYTES
    }

    /** {@code CUDA_ERROR_ILLEGAL_ADDRESS}: what the fake's {@code fault_store} kernel leaves its context with. */
    public static final int ILLEGAL_ADDRESS = 700;

    final CudaLibrary library;
    private final MethodHandle fakeConfigure;
    private final MethodHandle fakeLast;
    private final MethodHandle fakeLoseContext;
    private final MethodHandle fakeCallsInLostContext;
    private final MethodHandle fakeDeviceStat;
    private final MethodHandle fakeResetDeviceCounters;
    private final MethodHandle fakeSetPeerCapable;
    private final MethodHandle fakeExport;

    private FakeCuda(CudaLibrary library, MethodHandle fakeConfigure, MethodHandle fakeLast, MethodHandle fakeLoseContext,
                     MethodHandle fakeCallsInLostContext) {
        this.library = library;
        this.fakeConfigure = fakeConfigure;
        this.fakeLast = fakeLast;
        this.fakeLoseContext = fakeLoseContext;
        this.fakeCallsInLostContext = fakeCallsInLostContext;
        SymbolLookup lookup = library.lookup();
        Linker linker = Linker.nativeLinker();
        this.fakeDeviceStat = linker.downcallHandle(lookup.findOrThrow("fake_device_stat"),
                FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_INT));
        this.fakeResetDeviceCounters = linker.downcallHandle(lookup.findOrThrow("fake_reset_device_counters"),
                FunctionDescriptor.ofVoid());
        this.fakeSetPeerCapable = linker.downcallHandle(lookup.findOrThrow("fake_set_peer_capable"),
                FunctionDescriptor.ofVoid(JAVA_INT));
        this.fakeExport = linker.downcallHandle(lookup.findOrThrow("fake_export"), FunctionDescriptor.ofVoid(JAVA_INT, JAVA_INT));
    }

    /** What happened on device {@code ordinal} (0 or 1; 2 = calls made with no context current). */
    public long deviceStat(DeviceStat stat, int ordinal) {
        return call(() -> (long) fakeDeviceStat.invokeExact(stat.ordinal(), ordinal));
    }

    /** Zeroes the per-device call and copy counters (live allocations, retains and peer access are state and stay). */
    public void resetDeviceCounters() {
        call(() -> {
            fakeResetDeviceCounters.invokeExact();
            return 0L;
        });
    }

    /** What cuDeviceCanAccessPeer answers between the fake's two devices (true unless set). */
    public void setPeerCapable(boolean capable) {
        call(() -> {
            fakeSetPeerCapable.invokeExact(capable ? 1 : 0);
            return 0L;
        });
    }

    /** Marks the file behind {@code fd} as an export of device {@code ordinal}: the other device's import refuses it. */
    public void exportedBy(int fd, int ordinal) {
        call(() -> {
            fakeExport.invokeExact(fd, ordinal);
            return 0L;
        });
    }

    /** What {@link #synchronizations} lists for a {@code cuCtxSynchronize}. */
    public static final long CONTEXT = -1;

    /**
     * What was synchronized since {@link #resetSynchronizations}, in order: a stream's handle per
     * {@code cuStreamSynchronize} (0: the NULL stream), {@link #CONTEXT} per {@code cuCtxSynchronize}.
     */
    public List<Long> synchronizations() {
        SymbolLookup lookup = library.lookup();
        Linker linker = Linker.nativeLinker();
        MethodHandle count = linker.downcallHandle(lookup.findOrThrow("fake_synchronization_count"),
                FunctionDescriptor.of(JAVA_INT));
        MethodHandle entry = linker.downcallHandle(lookup.findOrThrow("fake_synchronization"),
                FunctionDescriptor.of(JAVA_LONG, JAVA_INT));
        int n = (int) call(() -> (int) count.invokeExact());
        List<Long> syncs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int index = i;
            syncs.add(call(() -> (long) entry.invokeExact(index)));
        }
        return syncs;
    }

    public void resetSynchronizations() {
        MethodHandle reset = Linker.nativeLinker().downcallHandle(library.lookup().findOrThrow("fake_reset_synchronizations"),
                FunctionDescriptor.ofVoid());
        call(() -> {
            reset.invokeExact();
            return 0L;
        });
    }

    /** One downcall into the fake's own functions. */
    @FunctionalInterface
    private interface FakeCall {
        long invoke() throws Throwable;
    }

    private static long call(FakeCall call) {
        try {
            return call.invoke();
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** Compiles and loads the fake; skips the calling test where gcc is missing. */
    public static FakeCuda build() {
        return build("libfakecuda.so", List.of());
    }

    /**
     * The fake with the graph functions too ({@code cuStreamBeginCapture_v2} ... {@code cuGraphDestroy}): a library of
     * its own (with state of its own), so that the groups of the other fake tests keep launching eagerly.
     */
    public static FakeCuda buildWithGraphs() {
        return build("libfakecuda_graphs.so", List.of("-DFAKE_GRAPHS"));
    }

    /**
     * Another stand-in library from this package's C resource {@code source}, built with gcc into {@code name} and
     * loaded (the fake libcudnn); skips the calling test where gcc is missing.
     */
    public static Path buildLibrary(String source, String name) {
        Gcc.assumeAvailable();
        try {
            Path so = Gcc.workDir().resolve(name).toAbsolutePath();
            Gcc.compile(List.of("-shared", "-fPIC", "-O1", "-Wall", "-Werror", "-o", so.toString(),
                    Gcc.resource(source).toString()));
            return so;
        } catch (java.io.IOException e) {
            throw new IllegalStateException("cannot build " + source, e);
        }
    }

    private static FakeCuda build(String name, List<String> defines) {
        Gcc.assumeAvailable();
        try {
            Path source = Gcc.resource("fake_libcuda.c");
            Path so = Gcc.workDir().resolve(name).toAbsolutePath();
            List<String> arguments = new java.util.ArrayList<>(defines);
            arguments.addAll(List.of("-shared", "-fPIC", "-O1", "-Wall", "-Werror", "-o", so.toString(), source.toString()));
            Gcc.compile(arguments);
            SymbolLookup lookup = SymbolLookup.libraryLookup(so, Arena.global());
            Linker linker = Linker.nativeLinker();
            return new FakeCuda(new CudaLibrary(lookup, "fake libcuda (" + so.getFileName() + ")"),
                    linker.downcallHandle(lookup.findOrThrow("fake_configure"), FunctionDescriptor.ofVoid(JAVA_INT, JAVA_INT)),
                    linker.downcallHandle(lookup.findOrThrow("fake_last"), FunctionDescriptor.of(JAVA_LONG, JAVA_INT)),
                    linker.downcallHandle(lookup.findOrThrow("fake_lose_context"), FunctionDescriptor.ofVoid(JAVA_INT)),
                    linker.downcallHandle(lookup.findOrThrow("fake_calls_in_lost_context"), FunctionDescriptor.of(JAVA_LONG)));
        } catch (Exception e) {
            throw new IllegalStateException("cannot build fake_libcuda", e);
        }
    }

    /**
     * A fresh driver over the fake. Each remembers its own lost contexts, so a test that loses one takes
     * a driver of its own (the fake's state is the process's: {@link #loseContext}(0) clears it).
     */
    public CudaDriver driver() {
        try {
            return CudaDriver.open(library);
        } catch (CudaUnavailableException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * A fresh driver over the fake, or the {@link CudaUnavailableException} its cuInit result makes ({@link #configure}),
     * as if the process's {@code CUDA_VISIBLE_DEVICES} were {@code visibleDevices} (null: unset).
     */
    public CudaDriver open(String visibleDevices) throws CudaUnavailableException {
        return CudaDriver.open(library, visibleDevices);
    }

    /** What the fake recorded for {@code key} in its latest call that records it. */
    public long last(int key) {
        try {
            return (long) fakeLast.invokeExact(key);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** The result cuInit returns, and whether cuGetErrorName/String know names (0 = fail them). */
    public void configure(int initResult, int errorNames) {
        try {
            fakeConfigure.invokeExact(initResult, errorNames);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** Loses the fake's current context with {@code result} (a sticky CUresult), or clears any loss with 0. */
    public void loseContext(int result) {
        try {
            fakeLoseContext.invokeExact(result);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** The fake's {@code name()} counter ({@code fake_graph_launches}, {@code fake_live_graph_execs}: graphs fake only). */
    public long counter(String name) {
        MethodHandle counter = Linker.nativeLinker().downcallHandle(library.lookup().findOrThrow(name),
                FunctionDescriptor.of(JAVA_LONG));
        return call(() -> (long) counter.invokeExact());
    }

    /** Driver calls that reached the fake in a lost context since the last {@link #loseContext}. */
    public long callsInLostContext() {
        try {
            return (long) fakeCallsInLostContext.invokeExact();
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }
}
