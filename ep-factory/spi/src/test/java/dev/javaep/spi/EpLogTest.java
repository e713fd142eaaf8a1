package dev.javaep.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** javaep's one log goes to ORT's logger once one is installed, to java.util.logging before and when ORT refuses. */
class EpLogTest {
    private final Logger jul = Logger.getLogger("dev.javaep");
    private final List<String> julLines = new ArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            julLines.add(record.getLevel() + " " + record.getMessage());
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    };
    private Level julLevel;
    private boolean julParents;
    private EpLogger before;

    @BeforeEach
    void captureJul() {
        julLevel = jul.getLevel();
        julParents = jul.getUseParentHandlers();
        jul.setLevel(Level.ALL);
        jul.setUseParentHandlers(false);
        jul.addHandler(capture);
        before = EpLog.useOrtLogger(null);
    }

    @AfterEach
    void restore() {
        jul.removeHandler(capture);
        jul.setLevel(julLevel);
        jul.setUseParentHandlers(julParents);
        EpLog.useOrtLogger(before);
    }

    @Test
    void withoutOrtLinesGoToJavaUtilLoggingAtTheMatchingLevel() {
        EpLog.verbose("v");
        EpLog.info("i");
        EpLog.warning("w");
        EpLog.log(EpLogger.Level.ERROR, "e");
        EpLog.logger().log(EpLogger.Level.FATAL, "f");
        assertEquals(List.of("FINE v", "INFO i", "WARNING w", "SEVERE e", "SEVERE f"), julLines);
    }

    @Test
    void onceOrtsLoggerIsInstalledLinesGoThereOnly() {
        List<String> ortLines = new ArrayList<>();
        EpLog.useOrtLogger((level, message) -> ortLines.add(level + " " + message));
        EpLog.warning("w");
        EpLog.logger().info("from an EP");
        assertEquals(List.of("WARNING w", "INFO from an EP"), ortLines);
        assertEquals(List.of(), julLines);
    }

    @Test
    void aLineOrtRefusesGoesToJavaUtilLogging() {
        EpLog.useOrtLogger((level, message) -> {
            throw new IllegalStateException("Logger_LogMessage failed");
        });
        EpLog.warning("w");
        assertEquals(List.of("FINE ONNX Runtime's logger refused a line: java.lang.IllegalStateException: Logger_LogMessage failed",
                "WARNING w"), julLines);
    }
}
