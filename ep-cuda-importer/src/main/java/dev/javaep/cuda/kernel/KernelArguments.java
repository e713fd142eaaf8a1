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
public final class KernelArguments {
    private static final int MAX_ARGS = 24;
    private static final long VALUES_OFFSET = MAX_ARGS * 8L;
    private static final long SIZE = VALUES_OFFSET + 2048;
    /** Zeros copied over a struct's slot before its values (a copy allocates nothing, a slice would). */
    private static final MemorySegment ZEROS = Arena.global().allocate(SIZE - VALUES_OFFSET, 16);
    private static final ThreadLocal<KernelArguments> PER_THREAD = ThreadLocal.withInitial(KernelArguments::new);

    private final MemorySegment memory = Arena.ofAuto().allocate(SIZE, 16);
    private int count;
    private long next;

    private KernelArguments() {}

    /** The calling thread's argument block, emptied. */
    public static KernelArguments begin() {
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
        // the argument's address as a long: a MemorySegment per argument would be an allocation per launch
        memory.setAtIndex(ValueLayout.JAVA_LONG, count++, memory.address() + offset);
        next = offset + size;
        return offset;
    }

    public KernelArguments u64(long value) {
        memory.set(ValueLayout.JAVA_LONG, slot(8, 8), value);
        return this;
    }

    public KernelArguments u32(int value) {
        memory.set(ValueLayout.JAVA_INT, slot(4, 4), value);
        return this;
    }

    public KernelArguments f32(float value) {
        memory.set(ValueLayout.JAVA_FLOAT, slot(4, 4), value);
        return this;
    }

    /** The by-value broadcast layout parameter ({@code .param .align 8 .b8 layout[192]}). */
    public KernelArguments layout(BroadcastLayout layout) {
        layout.writeTo(memory, slot(BroadcastLayout.BYTES, 8));
        return this;
    }

    /** A signed 64-bit integer ({@code long long}). */
    public KernelArguments i64(long value) {
        return u64(value);
    }

    /** A signed 32-bit integer ({@code int}). */
    public KernelArguments i32(int value) {
        return u32(value);
    }

    /**
     * A by-value struct of {@code count} 64-bit integers, {@code values} first then zeros: the CUDA C kernels'
     * {@code Dims} ({@code struct { long long d[8]; }}) for shapes and strides.
     */
    public KernelArguments longs(long[] values, int count) {
        MemorySegment.copy(values, 0, memory, ValueLayout.JAVA_LONG, struct(values.length, count, ValueLayout.JAVA_LONG),
                values.length);
        return this;
    }

    /** A by-value struct of {@code count} floats, {@code values} first then zeros. */
    public KernelArguments floats(float[] values, int count) {
        MemorySegment.copy(values, 0, memory, ValueLayout.JAVA_FLOAT, struct(values.length, count, ValueLayout.JAVA_FLOAT),
                values.length);
        return this;
    }

    /** The offset of the zeroed slot of a struct of {@code count} elements, 8-byte aligned, to be given {@code length} values. */
    private long struct(int length, int count, ValueLayout element) {
        if (length > count) {
            throw new IllegalArgumentException(length + " values for a struct of " + count);
        }
        long bytes = count * element.byteSize();
        long offset = slot(bytes, 8);
        MemorySegment.copy(ZEROS, 0, memory, offset, bytes);
        return offset;
    }

    public MemorySegment pointers() {
        return memory;
    }
}
