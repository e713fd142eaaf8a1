package dev.javaep.spi;

/** Writes to ONNX Runtime's log (the host's logger), so EP messages appear where ORT's own do. */
public interface EpLogger {
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
