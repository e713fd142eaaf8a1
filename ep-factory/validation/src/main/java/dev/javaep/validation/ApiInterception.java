package dev.javaep.validation;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import dev.javaep.bridge.UpcallGuard;
import dev.javaep.ort.CallbackSlot;
import dev.javaep.ort.FunctionSlot;
import dev.javaep.ort.OrtApi;
import dev.javaep.ort.OrtApiBase;
import dev.javaep.ort.OrtApiSlot;
import dev.javaep.ort.OrtEpApiSlot;
import dev.javaep.spi.EpLog;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.HashMap;
import java.util.Map;

/**
 * The {@code OrtApiBase} the wrapped library gets instead of ORT's: its {@code GetApi(v)} answers a copy of ORT's
 * {@code OrtApi} whose {@code GetEpApi} answers a copy of {@code OrtEpApi} whose {@code CreateEpDevice} puts the
 * proxy factory in the EP device where the vendor passes its own (else ORT would call the vendor's factory
 * directly), whose {@code SyncStream_GetImpl} and {@code KernelInfo_GetEp} answer the vendor's stream and EP where ORT
 * holds the proxies, and whose {@code KernelRegistry_AddKernel} registers the layer's kernel-create function in front
 * of the vendor's ({@link KernelCreations}). Each copy is as long as ORT's table at that version (the generated
 * {@code slotsAt}); every function here is an upcall behind {@link UpcallGuard}.
 */
@SuppressWarnings("restricted") // the layer stands between two C libraries: raw pointers and native calls are its work
final class ApiInterception {
    private static final Linker LINKER = Linker.nativeLinker();
    private final OrtApiBase ort;
    private final MemorySegment ortApiBase;
    private final MemorySegment base;
    private final Map<Integer, MemorySegment> apis = new HashMap<>();
    private final Map<Integer, MemorySegment> epApis = new HashMap<>();
    private MethodHandle createEpDevice;
    private MethodHandle syncStreamGetImpl;
    /**
     * ORT's own {@code SyncStream_GetImpl} ({@code (MemorySegment) -> MemorySegment}), for the importer's stream check:
     * it answers the stream impl ORT holds (the layer's proxy, for a stream the wrapped library made). Null until a
     * wrapped library asked for the EP API.
     */
    static volatile MethodHandle ortSyncStreamGetImpl;
    private MethodHandle kernelInfoGetEp;
    private MethodHandle kernelRegistryAddKernel;

    /** A function of ORT's tables the layer answers in ORT's place, as a slot {@link UpcallGuard} can stub. */
    record Intercepted(String name, FunctionDescriptor descriptor) implements CallbackSlot {
        static final Intercepted GET_API = new Intercepted("GetApi", FunctionDescriptor.of(ADDRESS, JAVA_INT));

        static Intercepted of(FunctionSlot slot) {
            return new Intercepted(slot.name(), slot.descriptor());
        }

        @Override
        public long byteOffset() {
            throw new UnsupportedOperationException(name + " is a function of ORT's table, not a member of a struct");
        }

        @Override
        public int since() {
            return 1;
        }
    }

    ApiInterception(MemorySegment ortApiBase) {
        this.ortApiBase = ortApiBase.reinterpret(16);
        this.ort = new OrtApiBase(ortApiBase);
        this.base = Arena.global().allocate(16, 8);
        base.set(ADDRESS, 0, upcall(Intercepted.GET_API, "getApi", this));
        base.set(ADDRESS, 8, this.ortApiBase.get(ADDRESS, 8)); // GetVersionString: ORT's own
    }

    /** What the wrapped library's CreateEpFactories gets as its {@code OrtApiBase*}. */
    MemorySegment apiBase() {
        return base;
    }

    /** The copy of ORT's {@code OrtApi} at {@code version} the wrapped library gets. */
    MemorySegment api(int version) {
        MemorySegment api = getApi(version);
        if (api.equals(MemorySegment.NULL)) {
            throw new IllegalStateException("javaep validation: no OrtApi " + version + " to copy");
        }
        return api;
    }

    /** {@code OrtApiBase::GetApi}. */
    private synchronized MemorySegment getApi(int version) {
        return apis.computeIfAbsent(version, this::copyApi);
    }

    private MemorySegment copyApi(int version) {
        MemorySegment real = ort.getApi(version);
        int slots = OrtApiSlot.slotsAt(version);
        if (real.equals(MemorySegment.NULL) || slots <= OrtApiSlot.GetEpApi.index()) {
            if (!real.equals(MemorySegment.NULL)) {
                EpLog.warning("javaep validation: the wrapped library asks for API " + version + ", which has no EP API or "
                        + "is newer than the layer knows: it gets ORT's own table, and its EP devices will name its own "
                        + "factories (not validated)");
            }
            return real;
        }
        MemorySegment copy = Arena.global().allocate(slots * 8L, 8);
        copy.copyFrom(real.reinterpret(slots * 8L));
        MemorySegment realGetEpApi = copy.get(ADDRESS, OrtApiSlot.GetEpApi.byteOffset());
        MethodHandle getEpApi = MethodHandles.insertArguments(handle("getEpApi", MethodType.methodType(
                MemorySegment.class, int.class, MemorySegment.class)), 0, this, version, realGetEpApi);
        copy.set(ADDRESS, OrtApiSlot.GetEpApi.byteOffset(), UpcallGuard.stub(Intercepted.of(OrtApiSlot.GetEpApi), getEpApi,
                Arena.global()));
        return copy;
    }

    /** {@code OrtApi::GetEpApi} of the copy at {@code version}. */
    private synchronized MemorySegment getEpApi(int version, MemorySegment realGetEpApi) {
        return epApis.computeIfAbsent(version, v -> copyEpApi(v, realGetEpApi));
    }

    private MemorySegment copyEpApi(int version, MemorySegment realGetEpApi) {
        MemorySegment real;
        try {
            real = (MemorySegment) LINKER.downcallHandle(realGetEpApi, FunctionDescriptor.of(ADDRESS)).invokeExact();
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
        int slots = OrtEpApiSlot.slotsAt(version);
        MemorySegment copy = Arena.global().allocate(slots * 8L, 8);
        copy.copyFrom(real.reinterpret(slots * 8L));
        createEpDevice = intercept(copy, slots, OrtEpApiSlot.CreateEpDevice, "createEpDevice");
        syncStreamGetImpl = intercept(copy, slots, OrtEpApiSlot.SyncStream_GetImpl, "syncStreamGetImpl");
        if (syncStreamGetImpl != null) {
            ortSyncStreamGetImpl = syncStreamGetImpl;
        }
        kernelInfoGetEp = intercept(copy, slots, OrtEpApiSlot.KernelInfo_GetEp, "kernelInfoGetEp");
        kernelRegistryAddKernel = intercept(copy, slots, OrtEpApiSlot.KernelRegistry_AddKernel, "kernelRegistryAddKernel");
        return copy;
    }

    /**
     * Points {@code slot} of {@code table} at this class's method {@code name}; returns ORT's function as a handle, or
     * null when the table (of {@code slots} slots) is too old to have it.
     */
    private MethodHandle intercept(MemorySegment table, int slots, OrtEpApiSlot slot, String name) {
        if (slot.index() >= slots) {
            return null;
        }
        MethodHandle real = LINKER.downcallHandle(table.get(ADDRESS, slot.byteOffset()), slot.descriptor());
        table.set(ADDRESS, slot.byteOffset(), upcall(Intercepted.of(slot), name, this));
        return real;
    }

    /** {@code OrtEpApi::KernelInfo_GetEp}: ORT knows the proxy EP; the vendor's kernel gets its own. */
    private MemorySegment kernelInfoGetEp(MemorySegment info, MemorySegment epOut) throws Throwable {
        MemorySegment status = (MemorySegment) kernelInfoGetEp.invokeExact(info, epOut);
        if (status.equals(MemorySegment.NULL)) {
            MemorySegment out = epOut.reinterpret(8);
            Proxy proxy = Proxy.find(ObjectKind.EP, out.get(ADDRESS, 0).address());
            if (proxy != null) {
                out.set(ADDRESS, 0, MemorySegment.ofAddress(proxy.vendor));
            }
        }
        return status;
    }

    /**
     * {@code OrtEpApi::KernelRegistry_AddKernel}: ORT gets the layer's kernel-create function, and a state that names
     * the vendor's function and state, so that each kernel ORT creates comes back wrapped in a proxy.
     */
    private MemorySegment kernelRegistryAddKernel(MemorySegment registry, MemorySegment kernelDef,
                                                  MemorySegment createFunc, MemorySegment state) throws Throwable {
        if (createFunc.equals(MemorySegment.NULL)) {
            // ORT refuses it: nothing to put in front of
            return (MemorySegment) kernelRegistryAddKernel.invokeExact(registry, kernelDef, createFunc, state);
        }
        MemorySegment layerState = MemorySegment.ofAddress(KernelCreations.state(createFunc.address(), state.address()));
        return (MemorySegment) kernelRegistryAddKernel.invokeExact(registry, kernelDef, KernelCreations.CREATE, layerState);
    }

    /** {@code OrtEpApi::CreateEpDevice}: the proxy of the vendor's factory goes to ORT. */
    private MemorySegment createEpDevice(MemorySegment factory, MemorySegment hardwareDevice, MemorySegment metadata,
                                         MemorySegment options, MemorySegment out) throws Throwable {
        Proxy proxy = Proxy.factoryOf(factory.address());
        MemorySegment forwarded = proxy == null ? factory : MemorySegment.ofAddress(proxy.address);
        return (MemorySegment) createEpDevice.invokeExact(forwarded, hardwareDevice, metadata, options, out);
    }

    /** {@code OrtEpApi::SyncStream_GetImpl}: ORT holds the proxy; the vendor gets its own stream back. */
    private MemorySegment syncStreamGetImpl(MemorySegment stream) throws Throwable {
        MemorySegment impl = (MemorySegment) syncStreamGetImpl.invokeExact(stream);
        Proxy proxy = Proxy.find(ObjectKind.SYNC_STREAM, impl.address());
        return proxy == null ? impl : MemorySegment.ofAddress(proxy.vendor);
    }

    /** The stream impl ORT holds for {@code stream} (a proxy's address, for the wrapped library's), or -1: unknown. */
    static long ortStreamImpl(long stream) {
        MethodHandle getImpl = ortSyncStreamGetImpl;
        if (getImpl == null || stream == 0) {
            return -1;
        }
        try {
            return ((MemorySegment) getImpl.invokeExact(MemorySegment.ofAddress(stream))).address();
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    private static MethodHandle handle(String name, MethodType type) {
        try {
            return MethodHandles.lookup().findVirtual(ApiInterception.class, name, type);
        } catch (ReflectiveOperationException e) {
            throw new LinkageError(name, e);
        }
    }

    /** The guarded upcall stub of {@code function}, calling this class's method {@code name} on {@code self}. */
    private static MemorySegment upcall(Intercepted function, String name, ApiInterception self) {
        MethodHandle target = handle(name, function.descriptor().toMethodType()).bindTo(self);
        return UpcallGuard.stub(function, target, Arena.global());
    }
}
