package dev.javaep.spi;

/**
 * A destination for log lines. The one EPs get ({@link FactoryContext#logger()}) is {@link EpLog}'s: ONNX Runtime's
 * log (the host's logger), so EP messages appear where ORT's own do.
 */
public interface EpLogger {
    /** ORT's severities ({@code OrtLoggingLevel}), in its order. */
    enum Level { VERBOSE, INFO, WARNING, ERROR, FATAL }

    void log(Level level, String message);

    default void info(String message) {
        log(Level.INFO, message);
    }

    default void warning(String message) {
        log(Level.WARNING, message);
    }

    default void verbose(String message) {
        log(Level.VERBOSE, message);
    }
}
