package dev.javaep.ort;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.ValueLayout;

/**
 * One function pointer in one of ORT's C function tables ({@code OrtApi}, {@code OrtEpApi},
 * {@code OrtInteropApi}). The enums implementing this are the single place javaep declares those
 * tables: index, the API version that added the slot, and the C signature.
 */
public interface FunctionSlot {
    /** The C member name. */
    String name();

    /** Zero-based pointer index in the table. */
    int index();

    /** The ORT API version that added this slot; calling it on an older runtime is refused. */
    int since();

    FunctionDescriptor descriptor();

    default long byteOffset() {
        return index() * ValueLayout.ADDRESS.byteSize();
    }

    /** A slot as a table row declares it. */
    record Declaration(int index, int since, FunctionDescriptor descriptor) {}

    /** A slot whose facts are one {@link Declaration}: the slot enums tools/gen_slots.py generates. */
    interface Declared extends FunctionSlot {
        Declaration declaration();

        @Override
        default int index() {
            return declaration().index();
        }

        @Override
        default int since() {
            return declaration().since();
        }

        @Override
        default FunctionDescriptor descriptor() {
            return declaration().descriptor();
        }
    }
}
