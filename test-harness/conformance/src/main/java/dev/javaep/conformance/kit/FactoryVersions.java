package dev.javaep.conformance.kit;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.javaep.host.OrtHost;
import dev.javaep.ort.OrtApi;
import dev.javaep.ort.OrtEpFactoryStruct;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code registration.ort-version-supported}. ORT keeps the {@code OrtEpFactory} pointers it gets to itself (no C API
 * function hands them to a host: an {@code OrtEpDevice} answers its EP's name, vendor, metadata and options, not its
 * factory), so the kit calls the library's own {@code CreateEpFactories} with the host's {@code OrtApiBase}, reads
 * each factory's {@code ort_version_supported} and required members, and gives them back through
 * {@code ReleaseEpFactory}. A host has no {@code OrtLogger} to pass, so the default logger is NULL: an EP that logs
 * through it without a check crashes here, which the kit reports against this check.
 */
final class FactoryVersions {
    /** Plugin EPs came with ORT 1.22 (API 22); ORT refuses an {@code OrtEp} below it. */
    static final int FIRST_PLUGIN_API = 22;
    /** Far beyond any ORT release: a value above it is garbage (an uninitialised field), not a newer header. */
    static final int IMPLAUSIBLE_API = 1000;
    private static final int MAX_FACTORIES = 16;
    /** The members ORT calls without a NULL check, by the API version that added them. */
    private static final List<OrtEpFactoryStruct> REQUIRED = List.of(OrtEpFactoryStruct.GetName, OrtEpFactoryStruct.GetVendor,
            OrtEpFactoryStruct.GetSupportedDevices, OrtEpFactoryStruct.CreateEp, OrtEpFactoryStruct.ReleaseEp,
            OrtEpFactoryStruct.GetVendorId, OrtEpFactoryStruct.GetVersion);

    private FactoryVersions() {}

    static String check(KitContext context) {
        try {
            return probe(context);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    private static String probe(KitContext context) throws Throwable {
        context.devices(); // registered as ORT registers it first: this is a second, direct load
        OrtHost host = OrtHost.shared();
        int hostApi = host.api().version();
        Linker linker = Linker.nativeLinker();
        SymbolLookup library = SymbolLookup.libraryLookup(context.options().library(), Arena.global());
        SymbolLookup ort = SymbolLookup.libraryLookup(host.library(), Arena.global());
        MethodHandle create = linker.downcallHandle(library.findOrThrow("CreateEpFactories"),
                FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS));
        MethodHandle release = linker.downcallHandle(library.findOrThrow("ReleaseEpFactory"), FunctionDescriptor.of(ADDRESS, ADDRESS));
        MemorySegment apiBase = (MemorySegment) linker.downcallHandle(ort.findOrThrow("OrtGetApiBase"),
                FunctionDescriptor.of(ADDRESS)).invokeExact();
        List<String> problems = new ArrayList<>();
        List<String> seen = new ArrayList<>();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment factories = arena.allocate(ADDRESS, MAX_FACTORIES);
            MemorySegment count = arena.allocate(JAVA_LONG);
            host.api().check((MemorySegment) create.invokeExact(arena.allocateFrom(KitContext.REGISTRATION + "-probe"),
                    apiBase, MemorySegment.NULL, factories, (long) MAX_FACTORIES, count));
            long n = count.get(JAVA_LONG, 0);
            if (n == 0) {
                throw Check.fail("CreateEpFactories succeeded with no factory, yet RegisterExecutionProviderLibrary added EP devices");
            }
            for (int i = 0; i < n; i++) {
                MemorySegment factory = factories.getAtIndex(ADDRESS, i).reinterpret(OrtEpFactoryStruct.SIZE);
                try {
                    describe(factory, hostApi, problems, seen);
                } finally {
                    MemorySegment status = (MemorySegment) release.invokeExact(factories.getAtIndex(ADDRESS, i));
                    host.api().check(status);
                }
            }
        }
        if (!problems.isEmpty()) {
            throw Check.fail(String.join("; ", problems) + " (host API " + hostApi + ")");
        }
        return String.join(", ", seen) + " against host API " + hostApi;
    }

    private static void describe(MemorySegment factory, int hostApi, List<String> problems, List<String> seen) throws Throwable {
        int version = factory.get(JAVA_INT, 0);
        MemorySegment getName = factory.get(ADDRESS, OrtEpFactoryStruct.GetName.byteOffset());
        String name = getName.equals(MemorySegment.NULL) ? "(no GetName)" : OrtApi.cString((MemorySegment) Linker.nativeLinker()
                .downcallHandle(getName, OrtEpFactoryStruct.GetName.descriptor()).invokeExact(factory));
        if (version < FIRST_PLUGIN_API || version > IMPLAUSIBLE_API) {
            problems.add(name + ": ort_version_supported " + version + " is not a plugin-EP API version (22 or later;"
                    + " set it to ORT_API_VERSION of the header built against)");
            return;
        }
        for (OrtEpFactoryStruct member : REQUIRED) {
            if (member.since() <= Math.min(version, hostApi) && factory.get(ADDRESS, member.byteOffset()).equals(MemorySegment.NULL)) {
                problems.add(name + ": " + member + " is NULL, and ORT calls it at API " + member.since() + "+ without a check");
            }
        }
        String streams = "";
        // a factory older than a member may have a shorter struct: read no member above its version
        MemorySegment isStreamAware = version >= OrtEpFactoryStruct.IsStreamAware.since()
                ? factory.get(ADDRESS, OrtEpFactoryStruct.IsStreamAware.byteOffset()) : MemorySegment.NULL;
        if (!isStreamAware.equals(MemorySegment.NULL)) {
            boolean aware = (boolean) Linker.nativeLinker().downcallHandle(isStreamAware,
                    OrtEpFactoryStruct.IsStreamAware.descriptor()).invokeExact(factory);
            streams = aware ? ", stream-aware" : ", not stream-aware";
        }
        String relation = version == hostApi ? "= host" : version < hostApi ? "< host: ORT calls no member newer than " + version
                : "> host: the factory must not rely on members above " + hostApi;
        seen.add(name + " ort_version_supported " + version + " (" + relation + ")" + streams);
    }
}
