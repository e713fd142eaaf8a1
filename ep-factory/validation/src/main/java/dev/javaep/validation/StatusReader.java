package dev.javaep.validation;

import dev.javaep.ort.FunctionSlot;
import dev.javaep.ort.OrtApi;
import dev.javaep.ort.OrtApiSlot;
import dev.javaep.ort.OrtErrorCode;
import dev.javaep.spi.EpLog;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/** Reads a status the vendor returns (code and message) without releasing it: it goes on to ORT unchanged. */
@SuppressWarnings("restricted") // the layer stands between two C libraries: raw pointers and native calls are its work
final class StatusReader {
    private final MethodHandle errorCode;
    private final MethodHandle errorMessage;

    StatusReader(MemorySegment ortApi) {
        this.errorCode = bind(ortApi, OrtApiSlot.GetErrorCode);
        this.errorMessage = bind(ortApi, OrtApiSlot.GetErrorMessage);
    }

    private static MethodHandle bind(MemorySegment api, FunctionSlot slot) {
        MemorySegment function = api.reinterpret(slot.byteOffset() + 8).get(ValueLayout.ADDRESS, slot.byteOffset());
        return Linker.nativeLinker().downcallHandle(function, slot.descriptor());
    }

    /** The code of a non-NULL status. */
    int code(long status) {
        try {
            return (int) errorCode.invokeExact(MemorySegment.ofAddress(status));
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    /** Logs a non-NULL status: not a violation (failing is an EP's right), but what a vendor wants to see in the trace. */
    void log(String callback, long status) {
        try {
            MemorySegment s = MemorySegment.ofAddress(status);
            int code = code(status);
            String message = OrtApi.cString((MemorySegment) errorMessage.invokeExact(s));
            EpLog.info("javaep validation: " + callback + " returned status " + OrtErrorCode.of(code) + ": " + message);
            Settings settings = Settings.current;
            if (settings != null && settings.reports() != null) {
                settings.reports().add(ReportFile.STATUS, callback, OrtErrorCode.of(code) + ": " + message);
            }
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }
}
