package dev.javaep.boot;

import dev.javaep.bridge.OrtRuntime;
import dev.javaep.bridge.UpcallGuard;
import dev.javaep.ort.OrtApi;
import dev.javaep.ort.OrtApiBase;
import dev.javaep.ort.OrtErrorCode;
import dev.javaep.spi.EpLog;
import dev.javaep.spi.EpLogger;
import java.lang.foreign.MemorySegment;

/**
 * Called by the native loader (libjavaep) through JNI, with ORT's arguments as raw addresses. Returns
 * the {@code OrtStatus*} for ORT (0 = success). Every failure becomes a status: made here through ORT's API, or,
 * where that is impossible too, by the loader from the exception this then throws.
 */
public final class NativeEntry {
    private NativeEntry() {}

    /** {@code OrtStatus* CreateEpFactories(const char*, const OrtApiBase*, const OrtLogger*, OrtEpFactory**, size_t, size_t*)}. */
    public static long createEpFactories(long registrationName, long ortApiBase, long defaultLogger, long factories,
                                         long maxFactories, long numFactories) {
        try {
            String name = OrtApi.cString(MemorySegment.ofAddress(registrationName));
            EpLibrary.createEpFactories(name, MemorySegment.ofAddress(ortApiBase), MemorySegment.ofAddress(defaultLogger),
                    MemorySegment.ofAddress(factories), maxFactories, MemorySegment.ofAddress(numFactories));
            return 0L;
        } catch (Throwable t) {
            return failure(ortApiBase, "CreateEpFactories", t);
        }
    }

    /** {@code OrtStatus* ReleaseEpFactory(OrtEpFactory*)}. */
    public static long releaseEpFactory(long factory) {
        try {
            return EpLibrary.releaseEpFactory(MemorySegment.ofAddress(factory));
        } catch (Throwable t) {
            return failure(0L, "ReleaseEpFactory", t);
        }
    }

    private static long failure(long ortApiBase, String entryPoint, Throwable t) {
        String message = nativeAccessDenied(t)
                ? "javaep: this JVM denies javaep native access (" + t.getMessage() + "): start it with "
                        + "--enable-native-access=ALL-UNNAMED (javaep calls ONNX Runtime through FFM)"
                : UpcallGuard.messageOf(entryPoint, t);
        OrtErrorCode code = UpcallGuard.errorCodeOf(t);
        EpLog.log(EpLogger.Level.ERROR, message);
        try {
            if (ortApiBase == 0L) {
                return OrtRuntime.current().api().createStatus(code, message).address();
            }
            // The negotiated API may be what failed; API 1's CreateStatus exists in every runtime.
            OrtApi v1 = new OrtApi(new OrtApiBase(MemorySegment.ofAddress(ortApiBase)).getApi(1), 1);
            return v1.createStatus(code, message).address();
        } catch (Throwable secondary) {
            // No status from Java (a JVM denying native access cannot even call ORT): thrown, it reaches the
            // loader, which makes the status in C. Returning 0 would tell ORT that all went well.
            EpLog.log(EpLogger.Level.ERROR, "javaep: could not create an OrtStatus for ORT: " + secondary);
            throw new IllegalStateException(message, t);
        }
    }

    /** Whether {@code t} is the JVM refusing a restricted method because javaep's module lacks native access. */
    private static boolean nativeAccessDenied(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof IllegalCallerException) {
                return !NativeEntry.class.getModule().isNativeAccessEnabled();
            }
        }
        return false;
    }
}
