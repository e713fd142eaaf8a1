package dev.javaep.examples.vulkan;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Row (c) of the frame-loop table: {@code frame_loop} of {@code src/main/c/frame_loop_baseline.c}, the same frames
 * driven from C with no ORT and no Java per frame, loaded with FFM. tools/gpu/run-suite.sh's bench-interop step builds
 * the library on the GPU machine and names it in {@value #LIBRARY_PROPERTY} (or says in {@value #ERROR_PROPERTY} why
 * it could not).
 */
sealed interface CFrameLoop {
    String LIBRARY_PROPERTY = "javaep.bench.interop.cBaseline";
    String ERROR_PROPERTY = "javaep.bench.interop.cBaselineError";

    /** The library is loaded; {@link #run} runs frames. */
    record Built(Path library, MethodHandle frameLoop) implements CFrameLoop {}

    /** No library: the row prints {@code C baseline not built: reason}. */
    record NotBuilt(String reason) implements CFrameLoop {}

    /** What one call needs besides the frame count: the CUDA and Vulkan objects, as the C side declares them. */
    record Frame(long cudaContext, long function, int gridX, int blockX, long stream, long cudaSemaphore,
                 long output, long input, long n4, long vkDevice, long vkSemaphore, long vkSignalSemaphore,
                 long vkWaitSemaphores) {}

    FunctionDescriptor SIGNATURE = FunctionDescriptor.of(JAVA_INT,
            ADDRESS, ADDRESS, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, // context, function, grid, block, stream, semaphore
            JAVA_LONG, JAVA_LONG, JAVA_LONG,                          // out, in, n4
            ADDRESS, JAVA_LONG, ADDRESS, ADDRESS,                     // VkDevice, VkSemaphore, vkSignalSemaphore, vkWaitSemaphores
            JAVA_LONG, JAVA_INT, JAVA_LONG, ADDRESS, ADDRESS, JAVA_LONG); // first value, frames, timeout, nanos, error, size

    /** The library the system properties name, or why there is none. */
    static CFrameLoop load() {
        String error = System.getProperty(ERROR_PROPERTY, "");
        if (!error.isBlank()) {
            return new NotBuilt(error);
        }
        String named = System.getProperty(LIBRARY_PROPERTY, "");
        if (named.isBlank()) {
            return new NotBuilt("-D" + LIBRARY_PROPERTY + " names no library (tools/gpu/run-suite.sh bench-interop builds"
                    + " examples/vulkan-frames/src/main/c/frame_loop_baseline.c and sets it)");
        }
        Path library = Path.of(named);
        if (!Files.isRegularFile(library)) {
            return new NotBuilt(library + " does not exist");
        }
        try {
            SymbolLookup lookup = SymbolLookup.libraryLookup(library, Arena.global());
            MemorySegment symbol = lookup.find("frame_loop")
                    .orElseThrow(() -> new IllegalArgumentException(library + " exports no frame_loop"));
            return new Built(library, Linker.nativeLinker().downcallHandle(symbol, SIGNATURE));
        } catch (IllegalArgumentException | IllegalCallerException e) {
            return new NotBuilt("cannot load " + library + ": " + e.getMessage());
        }
    }

    /**
     * Runs {@code frames} frames from timeline value {@code firstValue} (the timeline ends at firstValue + 2 × frames)
     * and returns each frame's nanoseconds.
     *
     * @throws IllegalStateException with the C side's one-line reason when a CUDA or Vulkan call failed
     */
    static long[] run(Built c, Frame f, long firstValue, int frames, long timeoutNanos) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment nanos = arena.allocate(JAVA_LONG, Math.max(1, frames));
            MemorySegment error = arena.allocate(256);
            int status = (int) c.frameLoop().invokeExact(MemorySegment.ofAddress(f.cudaContext()),
                    MemorySegment.ofAddress(f.function()), f.gridX(), f.blockX(), MemorySegment.ofAddress(f.stream()),
                    MemorySegment.ofAddress(f.cudaSemaphore()), f.output(), f.input(), f.n4(),
                    MemorySegment.ofAddress(f.vkDevice()), f.vkSemaphore(), MemorySegment.ofAddress(f.vkSignalSemaphore()),
                    MemorySegment.ofAddress(f.vkWaitSemaphores()), firstValue, frames, timeoutNanos, nanos, error,
                    error.byteSize());
            if (status != 0) {
                throw new IllegalStateException("C frame_loop failed (" + status + "): " + error.getString(0));
            }
            return nanos.toArray(JAVA_LONG);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }
}
