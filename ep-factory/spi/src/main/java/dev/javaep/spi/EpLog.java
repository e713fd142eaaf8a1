package dev.javaep.spi;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * javaep's one log: every line javaep writes (runtime, bridge, EPs, drivers) goes through here, and so does what an EP
 * writes to its {@link FactoryContext#logger()}. A line goes to ONNX Runtime's logger once an ONNX Runtime has
 * registered javaep, so it appears where ORT's own lines do, under the host's ORT log settings; to
 * {@code java.util.logging} (logger {@code dev.javaep}) otherwise: before the registration, in a process that runs no
 * ORT (unit tests, tools), and for a line ORT's logger refuses.
 *
 * <p>{@code JAVAEP_DEBUG=1} adds the stack trace to each line logged with a cause.
 */
public final class EpLog {
    private static final Logger FALLBACK = Logger.getLogger("dev.javaep");
    private static final boolean DEBUG = "1".equals(System.getenv("JAVAEP_DEBUG"));
    private static final EpLogger LOGGER = EpLog::log;

    private static volatile EpLogger ort;

    private EpLog() {}

    /** This log as an {@link EpLogger}: what EPs get as {@link FactoryContext#logger()}. */
    public static EpLogger logger() {
        return LOGGER;
    }

    /**
     * Sends the lines that follow to {@code ortLogger}, or back to {@code java.util.logging} for {@code null}.
     * The runtime calls this when an ONNX Runtime registers javaep; an EP never needs to.
     *
     * @return the logger lines went to before
     */
    public static EpLogger useOrtLogger(EpLogger ortLogger) {
        EpLogger previous = ort;
        ort = ortLogger;
        return previous;
    }

    public static void log(EpLogger.Level level, String message) {
        EpLogger target = ort;
        if (target != null) {
            try {
                target.log(level, message);
                return;
            } catch (RuntimeException refused) {
                FALLBACK.logp(Level.FINE, null, null, "ONNX Runtime's logger refused a line: " + refused);
            }
        }
        FALLBACK.logp(julLevel(level), null, null, message);
    }

    public static void warning(String message) {
        log(EpLogger.Level.WARNING, message);
    }

    /** A warning about {@code cause}; with {@code JAVAEP_DEBUG=1} its stack trace follows the message. */
    public static void warning(String message, Throwable cause) {
        if (!DEBUG) {
            warning(message);
            return;
        }
        StringWriter trace = new StringWriter();
        cause.printStackTrace(new PrintWriter(trace));
        warning(message + "\n" + trace);
    }

    public static void info(String message) {
        log(EpLogger.Level.INFO, message);
    }

    public static void verbose(String message) {
        log(EpLogger.Level.VERBOSE, message);
    }

    private static Level julLevel(EpLogger.Level level) {
        return switch (level) {
            case VERBOSE -> Level.FINE;
            case INFO -> Level.INFO;
            case WARNING -> Level.WARNING;
            case ERROR, FATAL -> Level.SEVERE;
        };
    }
}
