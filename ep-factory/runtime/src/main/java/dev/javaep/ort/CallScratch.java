package dev.javaep.ort;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Per-thread memory for the out-parameters of hot calls (one per tensor per Run), instead of a
 * confined arena per call. Only for calls that cannot call back into javaep before they return:
 * a nested upcall on the same thread would reuse the same bytes.
 */
final class CallScratch {
    static final long SIZE = 64;

    private static final ThreadLocal<MemorySegment> SCRATCH =
            ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(SIZE, 8));

    private CallScratch() {}

    static MemorySegment get() {
        return SCRATCH.get();
    }
}
