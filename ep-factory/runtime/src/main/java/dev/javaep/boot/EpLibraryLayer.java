package dev.javaep.boot;

import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

/**
 * A layer that libjavaep puts in front of another plugin EP library instead of offering its own Java EPs: the
 * validation layer (javaep-validation, found through {@link java.util.ServiceLoader} so that boot needs no arrow up
 * to it). Configured by {@value EpLibrary#VALIDATE_PROPERTY} / {@value EpLibrary#VALIDATE_ENV} /
 * {@code validate.library} in javaep.properties.
 */
public interface EpLibraryLayer {
    /**
     * ORT's {@code CreateEpFactories}, answered with the layer's proxies of {@code library}'s factories; throws what
     * fails (the caller makes the status).
     */
    void createEpFactories(Path library, String registrationName, MemorySegment ortApiBase, MemorySegment defaultLogger,
                           MemorySegment factoriesOut, long maxFactories, MemorySegment numFactoriesOut);

    /** Whether {@code factory} is one of this layer's proxies (then {@link #releaseEpFactory} releases it). */
    boolean owns(MemorySegment factory);

    /** ORT's {@code ReleaseEpFactory} of a proxy: the wrapped library's status (0 = success), passed on unchanged. */
    long releaseEpFactory(MemorySegment factory);
}
