package dev.javaep.ort;

import java.lang.foreign.AddressLayout;
import java.lang.foreign.ValueLayout;

/**
 * C types as FFM layouts, named after the C types in ORT's headers. Both ABIs javaep targets
 * (LP64 Linux, LLP64 Windows x64) have 8-byte pointers and 8-byte size_t.
 */
public final class CTypes {
    private CTypes() {}

    public static final AddressLayout POINTER = ValueLayout.ADDRESS;
    /** An {@code OrtStatus*}; NULL means success. */
    public static final AddressLayout STATUS = ValueLayout.ADDRESS.withName("OrtStatus*");

    /** Whether a callback or function with this descriptor returns an {@code OrtStatus*}. */
    public static boolean returnsStatus(java.lang.foreign.FunctionDescriptor descriptor) {
        return descriptor.returnLayout().map(STATUS::equals).orElse(false);
    }
    public static final ValueLayout.OfLong SIZE_T = ValueLayout.JAVA_LONG;
    public static final ValueLayout.OfLong INT64 = ValueLayout.JAVA_LONG;
    public static final ValueLayout.OfLong UINT64 = ValueLayout.JAVA_LONG;
    public static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
    public static final ValueLayout.OfInt UINT32 = ValueLayout.JAVA_INT;
    /** C enums are int. */
    public static final ValueLayout.OfInt ENUM = ValueLayout.JAVA_INT;
    /** C {@code bool}/{@code _Bool}: one byte. */
    public static final ValueLayout.OfBoolean BOOL = ValueLayout.JAVA_BOOLEAN;
    public static final ValueLayout.OfFloat FLOAT = ValueLayout.JAVA_FLOAT;
}
