package dev.javaep.validation;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import dev.javaep.bridge.OrtRuntime;
import dev.javaep.ort.FunctionSlot;
import dev.javaep.ort.OrtApi;
import dev.javaep.ort.OrtApiBase;
import dev.javaep.ort.OrtApiSlot;
import dev.javaep.ort.OrtErrorCode;
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
 * directly), and whose {@code SyncStream_GetImpl} and {@code KernelInfo_GetEp} answer the vendor's stream and EP
 * where ORT holds the proxies.
 */
@SuppressWarnings("restricted") // the layer stands between two C libraries: raw pointers and native calls are its work
final class ApiInterception {
    /**
     * The number of {@code OrtApi} slots at each API version: the last index of each version in tools/gen_slots.py's
     * ORTAPI_VERSIONS, plus one (25..28 share one count there: the split of 415..423 is not known).
     */
    private static final int[][] API_SLOTS = {{22, 318}, {23, 390}, {24, 415}, {25, 424}, {26, 424}, {27, 424},
        {28, 424}, {29, 425}, {30, 426}};
    /** The same for {@code OrtEpApi} (EPAPI_VERSIONS). */
    private static final int[][] EP_API_SLOTS = {{22, 2}, {23, 16}, {24, 50}, {25, 73}, {26, 73}, {27, 73}, {28, 73},
        {29, 74}, {30, 74}};

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

    ApiInterception(MemorySegment ortApiBase) {
        this.ortApiBase = ortApiBase.reinterpret(16);
        this.ort = new OrtApiBase(ortApiBase);
        this.base = Arena.global().allocate(16, 8);
        base.set(ADDRESS, 0, upcall("getApi", FunctionDescriptor.of(ADDRESS, JAVA_INT), this));
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

    private synchronized MemorySegment getApi(int version) {
        try {
            return apis.computeIfAbsent(version, this::copyApi);
        } catch (Throwable t) {
            EpLog.warning("javaep validation: GetApi(" + version + ") failed: " + t);
            return MemorySegment.NULL;
        }
    }

    private MemorySegment copyApi(int version) {
        MemorySegment real = ort.getApi(version);
        int slots = count(API_SLOTS, version);
        if (real.equals(MemorySegment.NULL) || slots == 0) {
            if (!real.equals(MemorySegment.NULL)) {
                EpLog.warning("javaep validation: the wrapped library asks for API " + version + ", which the layer does "
                        + "not know: it gets ORT's own table, and its EP devices will name its own factories (not validated)");
            }
            return real;
        }
        MemorySegment copy = Arena.global().allocate(slots * 8L, 8);
        copy.copyFrom(real.reinterpret(slots * 8L));
        MemorySegment realGetEpApi = copy.get(ADDRESS, OrtApiSlot.GetEpApi.byteOffset());
        MethodHandle getEpApi = MethodHandles.insertArguments(handle("getEpApi", MethodType.methodType(
                MemorySegment.class, int.class, MemorySegment.class)), 0, this, version, realGetEpApi);
        copy.set(ADDRESS, OrtApiSlot.GetEpApi.byteOffset(), LINKER.upcallStub(getEpApi, FunctionDescriptor.of(ADDRESS),
                Arena.global()));
        return copy;
    }

    private synchronized MemorySegment getEpApi(int version, MemorySegment realGetEpApi) {
        try {
            return epApis.computeIfAbsent(version, v -> copyEpApi(v, realGetEpApi));
        } catch (Throwable t) {
            EpLog.warning("javaep validation: GetEpApi failed: " + t);
            return MemorySegment.NULL;
        }
    }

    private MemorySegment copyEpApi(int version, MemorySegment realGetEpApi) {
        MemorySegment real;
        try {
            real = (MemorySegment) LINKER.downcallHandle(realGetEpApi, FunctionDescriptor.of(ADDRESS)).invokeExact();
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
        int slots = count(EP_API_SLOTS, version);
        MemorySegment copy = Arena.global().allocate(slots * 8L, 8);
        copy.copyFrom(real.reinterpret(slots * 8L));
        createEpDevice = intercept(copy, OrtEpApiSlot.CreateEpDevice, "createEpDevice");
        if (OrtEpApiSlot.SyncStream_GetImpl.index() < slots) {
            syncStreamGetImpl = intercept(copy, OrtEpApiSlot.SyncStream_GetImpl, "syncStreamGetImpl");
            ortSyncStreamGetImpl = syncStreamGetImpl;
        }
        if (KERNEL_INFO_GET_EP.index() < slots) {
            kernelInfoGetEp = intercept(copy, KERNEL_INFO_GET_EP, "kernelInfoGetEp");
        }
        return copy;
    }

    /**
     * {@code OrtStatus* KernelInfo_GetEp(const OrtKernelInfo* info, const OrtEp** ep)} (OrtEpApi index 43, API 24), which
     * javaep itself never calls, so its slot enum does not declare it.
     */
    private static final FunctionSlot KERNEL_INFO_GET_EP = new FunctionSlot.Declared() {
        private final Declaration declaration = new Declaration(43, 24, FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS));

        @Override
        public Declaration declaration() {
            return declaration;
        }

        @Override
        public String name() {
            return "KernelInfo_GetEp";
        }
    };

    /** {@code OrtEpApi::KernelInfo_GetEp}: ORT knows the proxy EP; the vendor's kernel gets its own. */
    private MemorySegment kernelInfoGetEp(MemorySegment info, MemorySegment epOut) {
        try {
            MemorySegment status = (MemorySegment) kernelInfoGetEp.invokeExact(info, epOut);
            if (status.equals(MemorySegment.NULL)) {
                MemorySegment out = epOut.reinterpret(8);
                Proxy proxy = Proxy.find(ObjectKind.EP, out.get(ADDRESS, 0).address());
                if (proxy != null) {
                    out.set(ADDRESS, 0, MemorySegment.ofAddress(proxy.vendor));
                }
            }
            return status;
        } catch (Throwable t) {
            String message = "javaep validation: OrtEpApi::KernelInfo_GetEp failed in the layer: " + t;
            EpLog.warning(message);
            return OrtRuntime.current().api().createStatus(OrtErrorCode.FAIL, message);
        }
    }

    /** Points {@code slot} of {@code table} at this class's method {@code name}; returns ORT's function as a handle. */
    private MethodHandle intercept(MemorySegment table, FunctionSlot slot, String name) {
        MethodHandle real = LINKER.downcallHandle(table.get(ADDRESS, slot.byteOffset()), slot.descriptor());
        table.set(ADDRESS, slot.byteOffset(), upcall(name, slot.descriptor(), this));
        return real;
    }

    /** {@code OrtEpApi::CreateEpDevice}: the proxy of the vendor's factory goes to ORT. */
    private MemorySegment createEpDevice(MemorySegment factory, MemorySegment hardwareDevice, MemorySegment metadata,
                                         MemorySegment options, MemorySegment out) {
        try {
            Proxy proxy = Proxy.factoryOf(factory.address());
            MemorySegment forwarded = proxy == null ? factory : MemorySegment.ofAddress(proxy.address);
            return (MemorySegment) createEpDevice.invokeExact(forwarded, hardwareDevice, metadata, options, out);
        } catch (Throwable t) {
            // An exception escaping this upcall would kill the host: the vendor gets a status instead.
            String message = "javaep validation: OrtEpApi::CreateEpDevice failed in the layer: " + t;
            EpLog.warning(message);
            return OrtRuntime.current().api().createStatus(OrtErrorCode.FAIL, message);
        }
    }

    /** {@code OrtEpApi::SyncStream_GetImpl}: ORT holds the proxy; the vendor gets its own stream back. */
    private MemorySegment syncStreamGetImpl(MemorySegment stream) {
        try {
            MemorySegment impl = (MemorySegment) syncStreamGetImpl.invokeExact(stream);
            Proxy proxy = Proxy.find(ObjectKind.SYNC_STREAM, impl.address());
            return proxy == null ? impl : MemorySegment.ofAddress(proxy.vendor);
        } catch (Throwable t) {
            EpLog.warning("javaep validation: OrtEpApi::SyncStream_GetImpl failed in the layer: " + t);
            return MemorySegment.NULL;
        }
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

    private static int count(int[][] table, int version) {
        for (int[] row : table) {
            if (row[0] == version) {
                return row[1];
            }
        }
        return 0;
    }

    private static MethodHandle handle(String name, MethodType type) {
        try {
            return MethodHandles.lookup().findVirtual(ApiInterception.class, name, type);
        } catch (ReflectiveOperationException e) {
            throw new LinkageError(name, e);
        }
    }

    private static MemorySegment upcall(String name, FunctionDescriptor descriptor, ApiInterception self) {
        MethodHandle target = handle(name, descriptor.toMethodType()).bindTo(self);
        return LINKER.upcallStub(target, descriptor, Arena.global());
    }
}
