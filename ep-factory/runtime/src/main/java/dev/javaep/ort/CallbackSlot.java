package dev.javaep.ort;

import java.lang.foreign.FunctionDescriptor;

/**
 * One function-pointer member of a struct that the EP fills and ORT calls ({@code OrtEpFactory},
 * {@code OrtEp}, {@code OrtNodeComputeInfo}, ...). The enums implementing this name those members; where each
 * sits and what it is comes from docs/reference/callback-structs.tsv, generated into {@code CallbackStructMembers}
 * by tools/gen_slots.py.
 */
public interface CallbackSlot {
    /**
     * A member as the struct declares it.
     *
     * @param byteOffset where its pointer sits (LP64 and LLP64 alike: every member is a pointer)
     * @param since      the API version that added the member
     * @param descriptor its C signature
     */
    record Member(long byteOffset, int since, FunctionDescriptor descriptor) {}

    String name();

    /** This member's row of the table. */
    default Member member() {
        return CallbackStructMembers.lookup(this);
    }

    default long byteOffset() { return member().byteOffset(); }

    default int since() { return member().since(); }

    default FunctionDescriptor descriptor() { return member().descriptor(); }

    /** Whether the callback returns an {@code OrtStatus*} (NULL = success). */
    default boolean returnsStatus() { return CTypes.returnsStatus(descriptor()); }
}
