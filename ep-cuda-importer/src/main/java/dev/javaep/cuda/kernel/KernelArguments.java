package dev.javaep.cuda.kernel;

import dev.javaep.cuda.kernel.ptx.BroadcastLayout;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The {@code void** kernelParams} of one cuLaunchKernel, built in per-thread memory (a launch per
 * node per Run must not allocate): each argument is written, aligned, into the value area and its
 * address into the pointer array. The driver copies the values at launch, so the memory is reused
 * by the thread's next launch.
 */
final class KernelArguments {
    private static final int MAX_ARGS = 24;
    private static final long VALUES_OFFSET = MAX_ARGS * 8L;
    private static final long SIZE = VALUES_OFFSET + 1024;
    private static final ThreadLocal<KernelArguments> PER_THREAD = ThreadLocal.withInitial(KernelArguments::new);

    private final MemorySegment memory = Arena.ofAuto().allocate(SIZE, 16);
    private int count;
    private long next;

    private KernelArguments() {}

    /** The calling thread's argument block, emptied. */
    static KernelArguments begin() {
        KernelArguments args = PER_THREAD.get();
        args.count = 0;
        args.next = VALUES_OFFSET;
        return args;
    }

    private long slot(long size, long alignment) {
        if (count == MAX_ARGS) {
            throw new IllegalStateException("more than " + MAX_ARGS + " kernel arguments");
        }
        long offset = (next + alignment - 1) & -alignment;
        if (offset + size > SIZE) {
            throw new IllegalStateException("kernel arguments exceed " + (SIZE - VALUES_OFFSET) + " bytes");
        }
        memory.setAtIndex(ValueLayout.ADDRESS, count++, memory.asSlice(offset));
        next = offset + size;
        return offset;
    }

    KernelArguments u64(long value) {
        memory.set(ValueLayout.JAVA_LONG, slot(8, 8), value);
        return this;
    }

    KernelArguments u32(int value) {
        memory.set(ValueLayout.JAVA_INT, slot(4, 4), value);
        return this;
    }

    KernelArguments f32(float value) {
        memory.set(ValueLayout.JAVA_FLOAT, slot(4, 4), value);
        return this;
    }

    /** The by-value broadcast layout parameter ({@code .param .align 8 .b8 layout[192]}). */
    KernelArguments layout(BroadcastLayout layout) {
        layout.writeTo(memory, slot(BroadcastLayout.BYTES, 8));
        return this;
    }

    MemorySegment pointers() {
        return memory;
    }
}
