package dev.javaep.spi;

/**
 * What a factory learns about the runtime it was loaded into.
 *
 * @param registrationName the name the host registered the library under
 * @param ortApiVersion    the ORT C API version javaep negotiated with the runtime
 * @param ortVersion       the runtime's version string, e.g. "1.29.0"
 */
public record FactoryContext(String registrationName, int ortApiVersion, String ortVersion, EpLogger logger) {}
