package dev.javaep.bridge;

import dev.javaep.ort.OrtApi;
import dev.javaep.ort.OrtApiBase;
import dev.javaep.ort.OrtEpApi;
import dev.javaep.ort.OrtErrorCode;
import dev.javaep.ort.OrtException;
import dev.javaep.ort.OrtFeature;
import dev.javaep.spi.EpLog;
import java.lang.foreign.MemorySegment;

/**
 * The ONNX Runtime javaep was registered into: its API tables at the negotiated version and its
 * default logger, where {@link EpLog} sends javaep's log lines from {@link #install} on. One per process: ORT hands
 * every registration the same {@code OrtApiBase}.
 */
public record OrtRuntime(OrtApi api, OrtEpApi epApi, String ortVersion, MemorySegment defaultLogger) {

    private static volatile OrtRuntime current;

    /** The runtime of the most recent registration. */
    public static OrtRuntime current() {
        OrtRuntime runtime = current;
        if (runtime == null) {
            throw new OrtException(OrtErrorCode.FAIL, "javaep: no ONNX Runtime has registered javaep yet");
        }
        return runtime;
    }

    public static boolean isInitialized() {
        return current != null;
    }

    public static OrtRuntime install(OrtRuntime runtime) {
        OrtRuntime previous = current;
        if (previous != null && !previous.api().address().equals(runtime.api().address())) {
            EpLog.warning("javaep: a second ONNX Runtime image (" + runtime.ortVersion() + ") registers javaep in this "
                    + "process; callbacks create statuses and log through the newest one");
        }
        current = runtime;
        EpLog.useOrtLogger(runtime.defaultLogger().equals(MemorySegment.NULL) ? null
                : new OrtLogger(runtime.api(), runtime.defaultLogger()));
        return runtime;
    }

    /** The API version javaep negotiated (at most the one it was compiled for). */
    public int apiVersion() {
        return api.version();
    }

    /**
     * The API version of the running ORT itself (1.x offers API x), which may be newer than
     * {@link #apiVersion()}: what decides whether an enum value the runtime defines can arrive.
     */
    public int runtimeApiVersion() {
        return OrtApiBase.minorVersion(ortVersion);
    }

    /** Whether javaep uses {@code feature} with this runtime: implemented, and the runtime has it ({@link OrtFeature}). */
    public boolean offers(OrtFeature feature) {
        return feature.implemented() && feature.availableIn(apiVersion(), runtimeApiVersion());
    }
}
