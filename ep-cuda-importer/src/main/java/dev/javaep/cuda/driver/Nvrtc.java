package dev.javaep.cuda.driver;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.javaep.ort.Platform;
import dev.javaep.spi.EpLog;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * NVRTC, CUDA's run-time compiler, through FFM: compiles a kernel's CUDA C source to a CUBIN for the
 * device's own architecture, which {@link CudaDriver#moduleLoadImage} loads without a JIT step (so a
 * newer NVRTC than the driver is fine). JavaCuda's kernels beyond the built-in PTX module are written in
 * CUDA C and compiled here on first use.
 *
 * <p>NVRTC ships with the CUDA toolkit and with PyTorch's wheels (not with the driver), so it is found at
 * run time ({@link NativeLibraryFinder}, as cuDNN): {@code -Djavaep.cuda.nvrtc=PATH} or {@code JAVAEP_NVRTC}, then {@code libnvrtc.so.13}/{@code .12}
 * by name, then {@code $CUDA_HOME/lib64}, {@code /usr/local/cuda/lib64}. Absent, {@link #find} is empty
 * and the kernels that need it are declined with a message saying what to install.
 */
public final class Nvrtc {
    private static final int NVRTC_SUCCESS = 0;
    private static final List<String> LINUX_NAMES = List.of("libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so");
    private static final List<String> WINDOWS_NAMES = List.of("nvrtc64_130_0.dll", "nvrtc64_120_0.dll");

    private static final NativeLibraryFinder.Once<Nvrtc> FOUND = new NativeLibraryFinder.Once<>(Nvrtc::load);
    private static volatile String absence;

    private final String description;
    private final int major;
    private final int minor;
    private final MethodHandle createProgram;
    private final MethodHandle compileProgram;
    private final MethodHandle destroyProgram;
    private final MethodHandle getCubinSize;
    private final MethodHandle getCubin;
    private final MethodHandle getLogSize;
    private final MethodHandle getLog;
    private final MethodHandle getErrorString;

    private Nvrtc(SymbolLookup lookup, String description) throws Throwable {
        Linker linker = Linker.nativeLinker();
        java.util.function.BiFunction<String, FunctionDescriptor, MethodHandle> bind = (name, descriptor) ->
                linker.downcallHandle(lookup.find(name).orElseThrow(
                        () -> new IllegalStateException(description + " has no " + name)), descriptor);
        this.description = description;
        MethodHandle version = bind.apply("nvrtcVersion", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        createProgram = bind.apply("nvrtcCreateProgram",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS));
        compileProgram = bind.apply("nvrtcCompileProgram", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, ADDRESS));
        destroyProgram = bind.apply("nvrtcDestroyProgram", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        getCubinSize = bind.apply("nvrtcGetCUBINSize", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS));
        getCubin = bind.apply("nvrtcGetCUBIN", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS));
        getLogSize = bind.apply("nvrtcGetProgramLogSize", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS));
        getLog = bind.apply("nvrtcGetProgramLog", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS));
        getErrorString = bind.apply("nvrtcGetErrorString", FunctionDescriptor.of(ADDRESS, JAVA_INT));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment v = arena.allocate(JAVA_INT, 2);
            int r = (int) version.invokeExact(v, v.asSlice(4));
            if (r != NVRTC_SUCCESS) {
                throw new IllegalStateException(description + ": nvrtcVersion failed with " + r);
            }
            major = v.get(JAVA_INT, 0);
            minor = v.get(JAVA_INT, 4);
        }
    }

    /** NVRTC, loaded once per process; empty (with {@link #absenceReason}) when it is not installed. */
    public static Optional<Nvrtc> find() {
        return FOUND.get();
    }

    /** Why {@link #find} is empty: what was tried and what to do. */
    public static String absenceReason() {
        find();
        return absence == null ? "" : absence;
    }

    private static Optional<Nvrtc> load() {
        NativeLibraryFinder.Outcome<Nvrtc> outcome = NativeLibraryFinder.find("javaep.cuda.nvrtc", "JAVAEP_NVRTC",
                Platform.WINDOWS ? WINDOWS_NAMES : LINUX_NAMES, NativeLibraryFinder.cudaFolders(), List.of(),
                (lookup, description) -> {
                    try {
                        return new Nvrtc(lookup, description);
                    } catch (RuntimeException | Error e) {
                        throw e;
                    } catch (Throwable t) {
                        throw new IllegalStateException(t);
                    }
                });
        if (outcome.library() != null) {
            Nvrtc nvrtc = outcome.library();
            EpLog.info("javaep: JavaCuda compiles its CUDA C kernels with NVRTC " + nvrtc.major + "." + nvrtc.minor
                    + " (" + nvrtc.description + ")");
            return Optional.of(nvrtc);
        }
        List<String> tried = outcome.tried();
        absence = "NVRTC (CUDA's run-time compiler) was not found (tried " + tried + "); install the CUDA toolkit's"
                + " libnvrtc (package cuda-nvrtc, or pip nvidia-cuda-nvrtc) or point -Djavaep.cuda.nvrtc / JAVAEP_NVRTC"
                + " at libnvrtc.so";
        EpLog.info("javaep: " + absence);
        return Optional.empty();
    }

    /** "13.0 (libnvrtc.so.13)". */
    public String describe() {
        return major + "." + minor + " (" + description + ")";
    }

    /**
     * Compiles {@code source} (one translation unit, no includes) for {@code sm_<major><minor>} and returns the
     * CUBIN. A compilation error throws with NVRTC's log: that is a bug in javaep's kernel source, never the user's.
     */
    public byte[] compileCubin(String name, String source, int ccMajor, int ccMinor, List<String> extraOptions) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment program = arena.allocate(JAVA_LONG);
            check((int) createProgram.invokeExact(program, arena.allocateFrom(source), arena.allocateFrom(name), 0,
                    MemorySegment.NULL, MemorySegment.NULL), "nvrtcCreateProgram", name);
            long handle = program.get(JAVA_LONG, 0);
            try {
                List<String> options = new ArrayList<>(List.of("--gpu-architecture=sm_" + ccMajor + ccMinor, "--std=c++17",
                        "-default-device"));
                options.addAll(extraOptions);
                MemorySegment array = arena.allocate(ADDRESS, options.size());
                for (int i = 0; i < options.size(); i++) {
                    array.setAtIndex(ADDRESS, i, arena.allocateFrom(options.get(i)));
                }
                int r = (int) compileProgram.invokeExact(handle, options.size(), array);
                if (r != NVRTC_SUCCESS) {
                    throw new IllegalStateException("javaep: NVRTC could not compile kernel " + name + " for sm_" + ccMajor
                            + ccMinor + ": " + errorString(r) + "\n" + log(arena, handle));
                }
                MemorySegment size = arena.allocate(JAVA_LONG);
                check((int) getCubinSize.invokeExact(handle, size), "nvrtcGetCUBINSize", name);
                MemorySegment cubin = arena.allocate(size.get(JAVA_LONG, 0));
                check((int) getCubin.invokeExact(handle, cubin), "nvrtcGetCUBIN", name);
                return cubin.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
            } finally {
                int ignored = (int) destroyProgram.invokeExact(program);
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    private String log(Arena arena, long handle) throws Throwable {
        MemorySegment size = arena.allocate(JAVA_LONG);
        if ((int) getLogSize.invokeExact(handle, size) != NVRTC_SUCCESS || size.get(JAVA_LONG, 0) <= 1) {
            return "(no log)";
        }
        MemorySegment text = arena.allocate(size.get(JAVA_LONG, 0));
        int r = (int) getLog.invokeExact(handle, text);
        return r == NVRTC_SUCCESS ? text.getString(0).strip() : "(no log)";
    }

    private void check(int result, String call, String name) throws Throwable {
        if (result != NVRTC_SUCCESS) {
            throw new IllegalStateException("javaep: " + call + " failed for kernel " + name + ": " + errorString(result));
        }
    }

    private String errorString(int result) throws Throwable {
        MemorySegment text = (MemorySegment) getErrorString.invokeExact(result);
        return text.equals(MemorySegment.NULL) ? "NVRTC error " + result : text.reinterpret(256).getString(0) + " (" + result + ")";
    }
}
