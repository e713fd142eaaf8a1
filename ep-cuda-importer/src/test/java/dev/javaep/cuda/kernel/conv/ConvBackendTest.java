package dev.javaep.cuda.kernel.conv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The choice between cuDNN and the direct kernels, without a GPU: absent cuDNN never declines, it falls back and says so. */
class ConvBackendTest {
    private final List<String> lines = new ArrayList<>();
    private final Handler handler = new Handler() {
        @Override
        public void publish(LogRecord record) {
            lines.add(record.getMessage());
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    };

    @BeforeEach
    void listen() {
        Logger.getLogger("dev.javaep").addHandler(handler);
    }

    @AfterEach
    void stop() {
        Logger.getLogger("dev.javaep").removeHandler(handler);
    }

    @Test
    void cudnnAskedForButAbsentFallsBackToDirectWithALogLine() {
        assertEquals(ConvBackend.DIRECT, ConvBackend.choose("cudnn", false, "cuDNN 9 was not found (tried [x])", null));
        assertTrue(lines.stream().anyMatch(l -> l.contains("direct CUDA C kernels") && l.contains("cuDNN 9 was not found")),
                lines::toString);
    }

    @Test
    void theDefaultIsCudnnWherePresentAndDirectOtherwise() {
        assertEquals(ConvBackend.CUDNN, ConvBackend.choose(null, true, "", "9.14.0 (libcudnn.so.9)"));
        assertTrue(lines.stream().anyMatch(l -> l.contains("through cuDNN 9.14.0")), lines::toString);
        assertEquals(ConvBackend.DIRECT, ConvBackend.choose("", false, "absent", null));
        assertEquals(ConvBackend.DIRECT, ConvBackend.choose("Direct", true, "", "9.14.0"));
        assertEquals(ConvBackend.CUDNN, ConvBackend.choose(" CUDNN ", true, "", "9.14.0"));
    }

    @Test
    void anUnknownBackendIsAnError() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ConvBackend.choose("winograd", true, "", "9.14.0"));
        assertTrue(e.getMessage().contains("javaep.cuda.conv=winograd"), e.getMessage());
    }
}
