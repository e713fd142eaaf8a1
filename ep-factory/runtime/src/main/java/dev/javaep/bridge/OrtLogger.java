package dev.javaep.bridge;

import dev.javaep.ort.OrtApi;
import dev.javaep.spi.EpLog;
import dev.javaep.spi.EpLogger;
import java.lang.foreign.MemorySegment;

/** ORT's logger as {@link EpLog}'s destination: writes through {@code Logger_LogMessage} to an {@code OrtLogger}. */
record OrtLogger(OrtApi api, MemorySegment logger) implements EpLogger {
    @Override
    public void log(Level level, String message) {
        api.logMessage(logger, level.ordinal(), message);
    }
}
