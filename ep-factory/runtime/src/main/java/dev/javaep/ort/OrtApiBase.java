package dev.javaep.ort;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * {@code struct OrtApiBase { const OrtApi* (*GetApi)(uint32_t); const char* (*GetVersionString)(void); }}
 * (frozen by ORT) and API-version negotiation.
 */
public final class OrtApiBase {
    private static final long GET_API_OFFSET = 0;
    private static final long GET_VERSION_STRING_OFFSET = 8;

    private final MethodHandle getApi;
    private final MethodHandle getVersionString;

    public OrtApiBase(MemorySegment apiBase) {
        if (apiBase.equals(MemorySegment.NULL)) {
            throw new OrtException(OrtErrorCode.INVALID_ARGUMENT, "javaep: ORT passed a NULL OrtApiBase");
        }
        MemorySegment base = apiBase.reinterpret(16);
        Linker linker = Linker.nativeLinker();
        this.getApi = linker.downcallHandle(base.get(ADDRESS, GET_API_OFFSET), FunctionDescriptor.of(ADDRESS, JAVA_INT));
        this.getVersionString = linker.downcallHandle(base.get(ADDRESS, GET_VERSION_STRING_OFFSET), FunctionDescriptor.of(ADDRESS));
    }

    public String versionString() {
        try {
            return OrtApi.cString((MemorySegment) getVersionString.invokeExact());
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    /** {@code GetApi(version)}: the table, or NULL when the runtime does not offer that version. */
    public MemorySegment getApi(int version) {
        try {
            return (MemorySegment) getApi.invokeExact(version);
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    /**
     * The newest API version in [{@link OrtApi#MINIMUM_API_VERSION}, {@link OrtApi#COMPILED_API_VERSION}] the runtime
     * offers. ORT 1.x offers API x; asking for the right one first avoids ORT's stderr complaint about
     * every version it lacks.
     */
    public OrtApi negotiate() {
        String version = versionString();
        int preferred = Math.min(OrtApi.COMPILED_API_VERSION, minorVersion(version));
        for (int v = Math.max(preferred, OrtApi.MINIMUM_API_VERSION); v >= OrtApi.MINIMUM_API_VERSION; v--) {
            MemorySegment table = getApi(v);
            if (!table.equals(MemorySegment.NULL)) {
                return new OrtApi(table, v);
            }
        }
        throw new OrtException(OrtErrorCode.NOT_IMPLEMENTED, "javaep: ONNX Runtime " + version
                + " offers no C API between " + OrtApi.MINIMUM_API_VERSION + " and " + OrtApi.COMPILED_API_VERSION
                + "; javaep needs ONNX Runtime 1." + OrtApi.MINIMUM_API_VERSION + " or newer");
    }

    /** The minor version of an ORT version string ("1.29.0" → 29): the API version that runtime offers. */
    public static int minorVersion(String version) {
        try {
            String[] parts = version.split("[.\\-+]");
            return Integer.parseInt(parts[1]);
        } catch (RuntimeException e) {
            return OrtApi.COMPILED_API_VERSION;
        }
    }
}
