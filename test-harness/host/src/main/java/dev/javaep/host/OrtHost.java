package dev.javaep.host;

import static java.lang.foreign.ValueLayout.ADDRESS;

import dev.javaep.ort.FunctionTable;
import dev.javaep.ort.OrtApi;
import dev.javaep.ort.OrtApiBase;
import dev.javaep.ort.OrtApiSlot;
import dev.javaep.ort.OrtErrorCode;
import dev.javaep.ort.OrtException;
import dev.javaep.ort.OrtInteropApiSlot;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.nio.file.Path;

/**
 * A Java host of ONNX Runtime's C API over FFM: loads {@code libonnxruntime}, negotiates the API and
 * creates environments. The library stays loaded for the life of the process (ORT does not support
 * unloading itself).
 */
public final class OrtHost {
    private static volatile OrtHost shared;

    private final Path library;
    private final OrtApi api;
    private final String version;
    private volatile FunctionTable interop;

    private OrtHost(Path library) {
        this.library = library;
        SymbolLookup lookup = SymbolLookup.libraryLookup(library, Arena.global());
        MemorySegment getApiBase = lookup.find("OrtGetApiBase")
                .orElseThrow(() -> new IllegalStateException(library + " has no OrtGetApiBase: not an ONNX Runtime library"));
        MemorySegment apiBase;
        try {
            apiBase = (MemorySegment) Linker.nativeLinker().downcallHandle(getApiBase, FunctionDescriptor.of(ADDRESS)).invokeExact();
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
        OrtApiBase base = new OrtApiBase(apiBase);
        this.api = base.negotiate();
        this.version = base.versionString();
    }

    /** The process's ORT, loaded from {@link OrtLibrary#locate()} on first use. */
    public static OrtHost shared() {
        OrtHost host = shared;
        if (host == null) {
            synchronized (OrtHost.class) {
                host = shared;
                if (host == null) {
                    shared = host = new OrtHost(OrtLibrary.locate());
                }
            }
        }
        return host;
    }

    public OrtApi api() {
        return api;
    }

    public String version() {
        return version;
    }

    /**
     * The runtime's {@code OrtInteropApi} table ({@code GetInteropApi}, API 24), read at the negotiated
     * version; fetched on first use, since most hosts never import external memory.
     *
     * @throws OrtException NOT_IMPLEMENTED when the runtime is older than API 24 or has no interop API
     *     (a minimal build returns NULL)
     */
    public FunctionTable interop() {
        FunctionTable table = interop;
        if (table == null) {
            synchronized (this) {
                table = interop;
                if (table == null) {
                    interop = table = fetchInteropApi();
                }
            }
        }
        return table;
    }

    private FunctionTable fetchInteropApi() {
        if (api.version() < OrtApiSlot.GetInteropApi.since()) {
            throw new OrtException(OrtErrorCode.NOT_IMPLEMENTED, "javaep: the interop API (OrtApi::GetInteropApi) needs"
                    + " ORT API " + OrtApiSlot.GetInteropApi.since() + " (ONNX Runtime 1.24) but " + library
                    + " offers API " + api.version() + "; use a newer ONNX Runtime");
        }
        MemorySegment table;
        try {
            table = api.table().call(OrtApiSlot.GetInteropApi);
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
        if (table.equals(MemorySegment.NULL)) {
            throw new OrtException(OrtErrorCode.NOT_IMPLEMENTED, "javaep: ONNX Runtime " + version + " at " + library
                    + " returned no OrtInteropApi (a minimal build has none); use a full ONNX Runtime build");
        }
        return new FunctionTable("OrtInteropApi", table, api.version(), OrtInteropApiSlot.tableLength());
    }

    public Path library() {
        return library;
    }

    /** Creates (or, as ORT does, returns the process's existing) environment. */
    public OrtEnvironment createEnvironment(String logId, LogLevel level) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            api.check((MemorySegment) api.table().handle(OrtApiSlot.CreateEnv)
                    .invokeExact(level.ordinal(), arena.allocateFrom(logId), out));
            return new OrtEnvironment(this, out.get(ADDRESS, 0));
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    /** {@code OrtLoggingLevel}. */
    public enum LogLevel { VERBOSE, INFO, WARNING, ERROR, FATAL }
}
