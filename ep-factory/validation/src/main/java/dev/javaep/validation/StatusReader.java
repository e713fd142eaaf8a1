package dev.javaep.validation;

import dev.javaep.ort.OrtApi;
import dev.javaep.ort.OrtErrorCode;
import dev.javaep.spi.EpLog;
import java.lang.foreign.MemorySegment;

/**
 * Notes a status the vendor returns without releasing it: it goes on to ORT unchanged ({@link OrtApi#toException}
 * would release it), so it is read through {@link OrtApi#statusCode} and {@link OrtApi#statusMessage}.
 */
final class StatusReader {
    private final OrtApi api;

    StatusReader(OrtApi api) {
        this.api = api;
    }

    /** The code of a non-NULL status. */
    OrtErrorCode code(long status) {
        return api.statusCode(MemorySegment.ofAddress(status));
    }

    /** Logs a non-NULL status: not a violation (failing is an EP's right), but what a vendor wants to see in the trace. */
    void log(String callback, long status) {
        OrtErrorCode code = code(status);
        String message = api.statusMessage(MemorySegment.ofAddress(status));
        EpLog.info("javaep validation: " + callback + " returned status " + code + ": " + message);
        Settings settings = Settings.current;
        if (settings != null && settings.reports() != null) {
            settings.reports().add(ReportFile.STATUS, callback, code + ": " + message);
        }
    }
}
