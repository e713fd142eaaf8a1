package dev.javaep.host;

import static java.lang.foreign.ValueLayout.ADDRESS;

import dev.javaep.ort.FunctionSlot;
import dev.javaep.ort.FunctionTable;
import dev.javaep.ort.OrtApi;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The two shapes every object of the binding repeats around ORT's C API, written once: a status-returning call
 * whose last parameter receives a pointer (ORT's {@code Create*}/{@code Get*} functions), and the handle accessor
 * that refuses a closed object.
 */
final class OrtCalls {
    private OrtCalls() {}

    /**
     * Calls {@code slot} of {@code table} with {@code arguments} and then a pointer out-parameter; throws ORT's
     * status as an {@link dev.javaep.ort.OrtException} unless it succeeded; returns the pointer ORT wrote.
     */
    static MemorySegment pointerOut(OrtApi api, FunctionTable table, FunctionSlot slot, MemorySegment... arguments) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            api.check(switch (arguments.length) {
                case 0 -> table.call(slot, out);
                case 1 -> table.call(slot, arguments[0], out);
                case 2 -> table.call(slot, arguments[0], arguments[1], out);
                case 3 -> table.call(slot, arguments[0], arguments[1], arguments[2], out);
                default -> throw new IllegalArgumentException(slot.name() + ": " + arguments.length + " arguments before the"
                        + " out-parameter; FunctionTable.call takes at most 3");
            });
            return out.get(ADDRESS, 0);
        }
    }

    /** {@link #pointerOut(OrtApi, FunctionTable, FunctionSlot, MemorySegment...)} on the {@code OrtApi} table. */
    static MemorySegment pointerOut(OrtApi api, FunctionSlot slot, MemorySegment... arguments) {
        return pointerOut(api, api.table(), slot, arguments);
    }

    /** {@code handle} while its object is open; a closed object has set it to null. */
    static MemorySegment live(MemorySegment handle, String type) {
        if (handle == null) {
            throw new IllegalStateException(type + " is closed");
        }
        return handle;
    }
}
