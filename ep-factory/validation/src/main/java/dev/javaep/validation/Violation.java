package dev.javaep.validation;

/** What a plugin EP library can get wrong that the layer sees, one counter each. */
public enum Violation {
    /** A slot ORT calls unchecked at the version the vendor declares is NULL. */
    REQUIRED_SLOT_NULL,
    /** A call succeeded but left an out-parameter it must fill NULL or untouched. */
    OUT_PARAMETER_UNSET,
    /** A call returned NULL where the contract wants a value (a name, a memory info). */
    NULL_RESULT,
    /** A release of an object the layer never saw (not made by this library, or not an object of that kind). */
    RELEASE_OF_UNKNOWN,
    /** An object released twice. */
    DOUBLE_RELEASE,
    /** A call on an object already released (not forwarded). */
    USE_AFTER_RELEASE,
    /** Objects made through a factory or EP still live when it is released. */
    LEAK,
    /** An allocation not aligned to ORT's {@code kAllocAlignment} (64 bytes). */
    MISALIGNED_ALLOCATION,
    /** A Free of a pointer the allocator never returned (or freed twice). */
    FREE_OF_UNKNOWN_POINTER,
    /** A count out of range (more EP devices than ORT has room for). */
    COUNT_OUT_OF_RANGE,
    /** A call slower than the threshold ({@code javaep.validate.slow.ms}). */
    SLOW_CALL,
    /** Compute entered on one compute state by two threads at once (forwarded anyway). */
    CONCURRENT_COMPUTE,
    /**
     * An importer's {@code CanImportMemory}/{@code CanImportSemaphore} contradicted by its {@code Import*}: true for a
     * type whose import then fails with {@code ORT_NOT_IMPLEMENTED}, or false for a type it then imports.
     */
    CAN_IMPORT_LIE,
    /**
     * A memory or semaphore handle given to an importer that did not make it (another importer's, another library's,
     * or none): not forwarded.
     */
    FOREIGN_HANDLE,
    /**
     * An import descriptor ORT passes on that no importer can take (NULL, a version javaep does not know, size 0,
     * offset not below size, a handle type out of range): the caller's mistake, forwarded for the vendor to refuse.
     */
    BAD_DESCRIPTOR,
    /**
     * An importer's {@code WaitSemaphore}/{@code SignalSemaphore} given a stream its library did not make (another
     * EP's) or one released: the caller's mistake, forwarded for the vendor to refuse.
     */
    FOREIGN_STREAM,
    /**
     * Imported handles still live at their importer's {@code Release}: an order ORT allows (javaep's own importers
     * keep an import's importer alive) but a crash where the vendor's handles need their importer; the handles'
     * later releases are forwarded, and those still live at the factory's release are a {@link #LEAK}.
     */
    OUTLIVES_IMPORTER;

    /**
     * A warning rather than a breach of the contract: a slow call, or a compute state ORT runs on two threads at
     * once (ORT calls Compute concurrently for concurrent Runs of one session; a state-free Compute is fine with it),
     * a bad import descriptor or another EP's stream (the app's mistakes, which the vendor is to refuse with a
     * status), or handles that outlive their importer (allowed, and fatal only to an importer that cannot take it).
     */
    public boolean isWarning() {
        return this == SLOW_CALL || this == CONCURRENT_COMPUTE || this == BAD_DESCRIPTOR || this == FOREIGN_STREAM
                || this == OUTLIVES_IMPORTER;
    }
}
