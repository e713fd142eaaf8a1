package dev.javaep.bridge;

import dev.javaep.spi.EpLogger;

/** Loggers for EP code. */
public final class Logging {
    private Logging() {}

    /** An {@link EpLogger} writing to the runtime's default ORT logger. */
    public static EpLogger ortLogger(OrtRuntime runtime) {
        return new OrtLogger(runtime.api(), runtime.defaultLogger());
    }
}
