package dev.javaep.bridge;

import dev.javaep.spi.EpLogger;
import java.io.PrintWriter;
import java.io.StringWriter;

/**
 * javaep's own log lines, written to ORT's default logger once one is known (so they appear with the
 * host's ORT log settings), to stderr before that. {@code JAVAEP_DEBUG=1} also prints stack traces.
 */
final class BridgeLog {
    private static final boolean DEBUG = "1".equals(System.getenv("JAVAEP_DEBUG"));

    private BridgeLog() {}

    static void failure(String callback, Throwable t) {
        String message = UpcallGuard.messageOf(callback, t);
        if (DEBUG) {
            StringWriter trace = new StringWriter();
            t.printStackTrace(new PrintWriter(trace));
            stderr(message + "\n" + trace);
        }
        logger().log(EpLogger.Level.WARNING, message);
    }

    static EpLogger logger() {
        if (OrtRuntime.isInitialized()) {
            OrtRuntime runtime = OrtRuntime.current();
            return new OrtLogger(runtime.api(), runtime.defaultLogger());
        }
        return (level, message) -> stderr(level + ": " + message);
    }

    static void stderr(String message) {
        System.err.println("javaep: " + message);
    }
}
