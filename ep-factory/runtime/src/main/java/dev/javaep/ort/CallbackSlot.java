package dev.javaep.ort;

import java.lang.foreign.FunctionDescriptor;

/**
 * One function-pointer member of a struct that the EP fills and ORT calls ({@code OrtEpFactory},
 * {@code OrtEp}, {@code OrtNodeComputeInfo}, ...). The enums implementing this declare those structs:
 * member offset (LP64 and LLP64 alike: every member is a pointer after the leading uint32 version),
 * the API version that added the member, and its C signature.
 */
public interface CallbackSlot {
    String name();

    long byteOffset();

    int since();

    FunctionDescriptor descriptor();

    /** Whether the callback returns an {@code OrtStatus*} (NULL = success). */
    boolean returnsStatus();
}
