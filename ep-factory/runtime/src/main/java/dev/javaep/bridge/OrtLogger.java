package dev.javaep.bridge;

import dev.javaep.ort.OrtApi;
import dev.javaep.spi.EpLogger;
import java.lang.foreign.MemorySegment;

/** An {@link EpLogger} writing to an {@code OrtLogger} through {@code Logger_LogMessage}. */
record OrtLogger(OrtApi api, MemorySegment logger) implements EpLogger {
    @Override
    public void log(Level level, String message) {
        if (logger == null || logger.equals(MemorySegment.NULL)) {
            BridgeLog.stderr(level + ": " + message);
            return;
        }
        api.logMessage(logger, level.ordinal(), message);
    }
}
