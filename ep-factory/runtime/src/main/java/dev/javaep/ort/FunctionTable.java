package dev.javaep.ort;

import java.lang.foreign.AddressLayout;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A C function table ORT handed us ({@code const OrtApi*} and friends), at a negotiated API
 * version. Binds a downcall handle per slot on first use and refuses slots the runtime does not have.
 */
public final class FunctionTable {
    private static final Linker LINKER = Linker.nativeLinker();

    private final String tableName;
    private final MemorySegment table;
    private final int version;
    private final AtomicReferenceArray<MethodHandle> handles;

    /**
     * @param slotCount number of slots javaep declares for this table (the table is read up to it)
     */
    public FunctionTable(String tableName, MemorySegment table, int version, int slotCount) {
        if (table == null || table.equals(MemorySegment.NULL)) {
            throw new OrtException(OrtErrorCode.FAIL, "javaep: ORT returned no " + tableName + " table");
        }
        this.tableName = tableName;
        this.table = table.reinterpret(slotCount * ValueLayout.ADDRESS.byteSize());
        this.version = version;
        this.handles = new AtomicReferenceArray<>(slotCount);
    }

    public int version() {
        return version;
    }

    public MemorySegment address() {
        return table;
    }

    /** Whether the runtime has this slot (its version is new enough and the pointer is set). */
    public boolean has(FunctionSlot slot) {
        return slot.since() <= version && !functionPointer(slot).equals(MemorySegment.NULL);
    }

    /** The downcall handle of a slot; throws {@link OrtException} (NOT_IMPLEMENTED) when the runtime lacks it. */
    public MethodHandle handle(FunctionSlot slot) {
        MethodHandle handle = handles.get(slot.index());
        if (handle != null) {
            return handle;
        }
        if (slot.since() > version) {
            throw new OrtException(OrtErrorCode.NOT_IMPLEMENTED, "javaep: " + tableName + "::" + slot.name()
                    + " needs ORT API " + slot.since() + " but the runtime offers API " + version
                    + "; use a newer ONNX Runtime");
        }
        MemorySegment fn = functionPointer(slot);
        if (fn.equals(MemorySegment.NULL)) {
            throw new OrtException(OrtErrorCode.NOT_IMPLEMENTED,
                    "javaep: this ONNX Runtime build has no " + tableName + "::" + slot.name());
        }
        handle = LINKER.downcallHandle(fn, slot.descriptor());
        handles.compareAndSet(slot.index(), null, handle);
        return handles.get(slot.index());
    }

    /**
     * A new downcall handle of the slot's function with every pointer as a {@code JAVA_LONG} address (the same C
     * signature on 64-bit platforms): for calls on a Run's hot path, where each returned pointer or status would
     * otherwise be a new {@link MemorySegment}. {@code critical} ({@link Linker.Option#critical}) skips the thread
     * state transition; only for functions that return at once and never call back into Java. Not cached: bind once.
     */
    public MethodHandle addressHandle(FunctionSlot slot, boolean critical) {
        handle(slot); // refuses a slot the runtime lacks, saying why
        FunctionDescriptor descriptor = slot.descriptor();
        MemoryLayout[] arguments = descriptor.argumentLayouts().stream().map(FunctionTable::asLong).toArray(MemoryLayout[]::new);
        FunctionDescriptor asLongs = descriptor.returnLayout().map(r -> FunctionDescriptor.of(asLong(r), arguments))
                .orElseGet(() -> FunctionDescriptor.ofVoid(arguments));
        return critical ? LINKER.downcallHandle(functionPointer(slot), asLongs, Linker.Option.critical(false))
                : LINKER.downcallHandle(functionPointer(slot), asLongs);
    }

    private static MemoryLayout asLong(MemoryLayout layout) {
        return layout instanceof AddressLayout ? ValueLayout.JAVA_LONG : layout;
    }

    // ---- calls by C shape: one invokeExact each, what it throws rethrown unchecked (OrtApi.rethrow) ----------
    // P is a pointer (an OrtStatus* too: check it with OrtApi.check), J an int64/size_t. A slot whose descriptor
    // has another shape fails with WrongMethodTypeException. A shape used once invokes its handle where it is used.
    // One line each: they differ in nothing but the shape.

    /** {@code void F(P)}: the Release functions. */
    public void callVoid(FunctionSlot slot, MemorySegment a) {
        try { handle(slot).invokeExact(a); } catch (Throwable t) { throw OrtApi.rethrow(t); }
    }

    /** {@code int F(P)}: an int or enum an object says of itself. */
    public int callInt(FunctionSlot slot, MemorySegment a) {
        try { return (int) handle(slot).invokeExact(a); } catch (Throwable t) { throw OrtApi.rethrow(t); }
    }

    /** {@code P F()}. */
    public MemorySegment call(FunctionSlot slot) {
        try { return (MemorySegment) handle(slot).invokeExact(); } catch (Throwable t) { throw OrtApi.rethrow(t); }
    }

    /** {@code P F(P)}. */
    public MemorySegment call(FunctionSlot slot, MemorySegment a) {
        try { return (MemorySegment) handle(slot).invokeExact(a); } catch (Throwable t) { throw OrtApi.rethrow(t); }
    }

    /** {@code P F(P, P)}: most often {@code OrtStatus* F(object, out)}. */
    public MemorySegment call(FunctionSlot slot, MemorySegment a, MemorySegment b) {
        try { return (MemorySegment) handle(slot).invokeExact(a, b); } catch (Throwable t) { throw OrtApi.rethrow(t); }
    }

    /** {@code P F(P, P, P)}. */
    public MemorySegment call(FunctionSlot slot, MemorySegment a, MemorySegment b, MemorySegment c) {
        try { return (MemorySegment) handle(slot).invokeExact(a, b, c); } catch (Throwable t) { throw OrtApi.rethrow(t); }
    }

    /** {@code P F(P, P, P, P)}. */
    public MemorySegment call(FunctionSlot slot, MemorySegment a, MemorySegment b, MemorySegment c, MemorySegment d) {
        try { return (MemorySegment) handle(slot).invokeExact(a, b, c, d); } catch (Throwable t) { throw OrtApi.rethrow(t); }
    }

    /** {@code P F(P, P, J)}: most often {@code OrtStatus* F(object, array, n)}. */
    public MemorySegment call(FunctionSlot slot, MemorySegment a, MemorySegment b, long n) {
        try { return (MemorySegment) handle(slot).invokeExact(a, b, n); } catch (Throwable t) { throw OrtApi.rethrow(t); }
    }

    /** {@code P F(P, J, P)}: most often {@code OrtStatus* F(object, index, out)}. */
    public MemorySegment call(FunctionSlot slot, MemorySegment a, long index, MemorySegment b) {
        try { return (MemorySegment) handle(slot).invokeExact(a, index, b); } catch (Throwable t) { throw OrtApi.rethrow(t); }
    }

    private MemorySegment functionPointer(FunctionSlot slot) {
        return table.get(ValueLayout.ADDRESS, slot.byteOffset());
    }
}
