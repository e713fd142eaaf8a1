package dev.javaep.harness.abi;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.javaep.harness.ProcessMemory;
import dev.javaep.host.OrtHost;
import dev.javaep.ort.FunctionSlot;
import dev.javaep.ort.FunctionTable;
import dev.javaep.ort.OrtApi;
import dev.javaep.ort.OrtApiSlot;
import dev.javaep.ort.OrtEpApiSlot;
import dev.javaep.ort.OrtException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;

/**
 * Calls a slot exactly as javaep declares it (index and C signature from the slot enums) with arguments the
 * probe chose, so the result shows which function the slot really is. Nothing here goes through javaep's typed
 * wrappers: a probe of {@code MemoryInfoGetId} is one call of that slot.
 */
@SuppressWarnings("restricted") // raw pointers from ORT are what a probe reads
final class Raw {
    private static volatile FunctionTable epApi;

    private Raw() {}

    static OrtApi api() {
        return OrtHost.shared().api();
    }

    static FunctionTable ortApi() {
        return api().table();
    }

    /** The {@code OrtEpApi} table, through {@code GetEpApi} (a probe of that slot in itself). */
    static FunctionTable epApi() {
        FunctionTable table = epApi;
        if (table == null) {
            MemorySegment pointer = (MemorySegment) call(ortApi(), OrtApiSlot.GetEpApi);
            epApi = table = new FunctionTable("OrtEpApi", pointer, api().version(), OrtEpApiSlot.tableLength());
        }
        return table;
    }

    static FunctionTable interopApi() {
        return OrtHost.shared().interop();
    }

    /** Invokes {@code slot} of {@code table}; returns what it returns ({@code null} for void). */
    static Object call(FunctionTable table, FunctionSlot slot, Object... arguments) {
        try {
            return table.handle(slot).invokeWithArguments(arguments);
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    /** Calls a status-returning slot and fails with ORT's code and message unless it succeeded. */
    static void ok(FunctionTable table, FunctionSlot slot, Object... arguments) {
        api().check((MemorySegment) call(table, slot, arguments));
    }

    /** Calls a status-returning slot that must fail; returns ORT's status as an exception (code + message). */
    static OrtException failure(FunctionTable table, FunctionSlot slot, Object... arguments) {
        MemorySegment status = (MemorySegment) call(table, slot, arguments);
        if (status.equals(MemorySegment.NULL)) {
            throw new AssertionError(slot.name() + " succeeded; the probe expected ORT to refuse it");
        }
        return api().toException(status);
    }

    /** The pointer an out-parameter received. */
    static MemorySegment pointer(MemorySegment out) {
        return out.get(ADDRESS, 0);
    }

    static String string(MemorySegment pointer) {
        return OrtApi.cString(pointer);
    }

    /**
     * The pointer a status-returning slot wrote through its last parameter, an out-pointer allocated here in
     * {@code arena}; {@code arguments} are the parameters before it. Fails as {@link #ok} does.
     */
    static MemorySegment pointerOut(Arena arena, FunctionTable table, FunctionSlot slot, Object... arguments) {
        MemorySegment out = arena.allocate(ADDRESS);
        Object[] withOut = Arrays.copyOf(arguments, arguments.length + 1);
        withOut[arguments.length] = out;
        ok(table, slot, withOut);
        return pointer(out);
    }

    /** The pointer an {@code OrtApi} slot of shape (object, out) wrote. */
    static MemorySegment pointerOut(Arena arena, OrtApiSlot slot, MemorySegment object) {
        return pointerOut(arena, ortApi(), slot, object);
    }

    /** The C string an {@code OrtApi} slot of shape (object, out) wrote. */
    static String stringOut(Arena arena, OrtApiSlot slot, MemorySegment object) {
        return string(pointerOut(arena, slot, object));
    }

    /** The {@code int} an {@code OrtApi} slot of shape (object, out) wrote. */
    static int intOut(Arena arena, OrtApiSlot slot, MemorySegment object) {
        MemorySegment out = arena.allocate(JAVA_INT);
        ok(ortApi(), slot, object, out);
        return out.get(JAVA_INT, 0);
    }

    /** The {@code size_t} an {@code OrtApi} slot of shape (object, out) wrote. */
    static long sizeOut(Arena arena, OrtApiSlot slot, MemorySegment object) {
        MemorySegment out = arena.allocate(JAVA_LONG);
        ok(ortApi(), slot, object, out);
        return out.get(JAVA_LONG, 0);
    }

    /** A new {@code OrtMemoryInfo} of the CPU ({@code CreateCpuMemoryInfo}, arena allocator, default memory); the caller releases it. */
    static MemorySegment cpuInfo(Arena arena) {
        return pointerOut(arena, ortApi(), OrtApiSlot.CreateCpuMemoryInfo, 0, 0);
    }

    /** A float tensor {@code OrtValue} over a copy of {@code values} in {@code arena}; the caller releases it. */
    static MemorySegment floatTensor(Arena arena, MemorySegment memoryInfo, float[] values, long... shape) {
        return floatTensor(arena, memoryInfo, arena.allocateFrom(java.lang.foreign.ValueLayout.JAVA_FLOAT, values), shape);
    }

    /** A float tensor {@code OrtValue} over {@code data} (not copied), described by {@code memoryInfo}; the caller releases it. */
    static MemorySegment floatTensor(Arena arena, MemorySegment memoryInfo, MemorySegment data, long... shape) {
        return pointerOut(arena, ortApi(), OrtApiSlot.CreateTensorWithDataAsOrtValue, memoryInfo, data, data.byteSize(),
                arena.allocateFrom(JAVA_LONG, shape), (long) shape.length, 1);
    }

    /** Pointers ORT wrote into an array of {@code count} elements. */
    static List<MemorySegment> pointers(MemorySegment array, long count) {
        MemorySegment elements = array.reinterpret(count * ADDRESS.byteSize());
        return java.util.stream.LongStream.range(0, count).mapToObj(i -> elements.getAtIndex(ADDRESS, i)).toList();
    }

    /**
     * Runs {@code createAndRelease} {@code times} times and fails if glibc's heap grew by a quarter of what leaking
     * every object ({@code bytesEach}, chosen large) would cost: a release slot that called another type's release
     * function would crash or leak every object. The objects are big so that the JVM's own native allocations
     * (JIT, class data) stay far below the threshold.
     */
    static void assertReleased(String what, int times, long bytesEach, Runnable createAndRelease) {
        for (int i = 0; i < 500; i++) {
            createAndRelease.run(); // warm the JIT, ORT's lazily created singletons and malloc's arenas
        }
        long before = ProcessMemory.mallocInUseBytes();
        for (int i = 0; i < times; i++) {
            createAndRelease.run();
        }
        long growth = ProcessMemory.mallocInUseBytes() - before;
        long leakedAll = times * bytesEach;
        if (growth > leakedAll / 4) {
            throw new AssertionError(times + " " + what + " created and released grew the heap by " + growth
                    + " bytes; leaking every one would be " + leakedAll);
        }
    }

    /** A string of {@code length} characters, for objects big enough to show in {@link #assertReleased}. */
    static String large(int length) {
        return "x".repeat(length);
    }
}
