package dev.javaep.validation;

import static dev.javaep.validation.Proxy.MEMORY;

import dev.javaep.bridge.UpcallGuard;
import dev.javaep.ort.OrtErrorCode;
import dev.javaep.ort.OrtException;
import dev.javaep.ort.OrtKernelCreateFunc;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The kernel-registry path (OrtEp::GetKernelRegistry, API 24): the vendor registers each kernel with its own
 * {@code OrtKernelCreateFunc} and state through the copied {@code OrtEpApi::KernelRegistry_AddKernel}
 * ({@link ApiInterception}), which registers {@link #CREATE} instead, with a state that names the vendor's pair. ORT
 * calls it once per node at session initialization; it calls the vendor's function and hands ORT a {@link ObjectKind#KERNEL}
 * proxy of the {@code OrtKernelImpl} made, whose Compute and Release are then checked like every other slot.
 *
 * <p>A registration is a (function, state) pair the vendor chose, the same pair again gets the same state: a vendor that
 * builds its registry per EP with static states adds nothing per session. ORT keeps the state as long as its copy of the
 * registry, which the layer cannot see end, so the pairs are kept for the process (16 bytes of Java each).
 */
@SuppressWarnings("restricted") // the layer stands between two C libraries: raw pointers and native calls are its work
final class KernelCreations {
    private record Registration(long function, long state) {}

    private static final Map<Registration, Long> STATES = new ConcurrentHashMap<>();
    private static final Map<Long, Registration> BY_STATE = new ConcurrentHashMap<>();
    /** The states ORT gets: 1, 2, ...; never dereferenced, only looked up. */
    private static final AtomicLong NEXT_STATE = new AtomicLong(1);
    private static final String CALLBACK = Breadcrumbs.KERNEL_CREATE_NAME;
    /** The vendor's create function: {@code (long function, long state, long info, long out) -> long status}. */
    private static final MethodHandle VENDOR_CREATE;
    /** The layer's {@code OrtKernelCreateFunc}, one for every registration (the state tells them apart). */
    static final MemorySegment CREATE;

    static {
        FunctionDescriptor asLongs = UpcallGuard.addressesAsLongs(OrtKernelCreateFunc.Create.descriptor());
        MethodHandle downcall = Linker.nativeLinker().downcallHandle(asLongs);
        try {
            MethodHandle ofAddress = MethodHandles.lookup().findStatic(MemorySegment.class, "ofAddress",
                    MethodType.methodType(MemorySegment.class, long.class));
            VENDOR_CREATE = MethodHandles.filterArguments(downcall, 0, ofAddress);
            CREATE = UpcallGuard.stub(OrtKernelCreateFunc.Create, MethodHandles.lookup().findStatic(KernelCreations.class,
                    "create", asLongs.toMethodType()), Arena.global());
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private KernelCreations() {}

    /** The state ORT gets in place of the vendor's {@code state} for its create {@code function}. */
    static long state(long function, long state) {
        return STATES.computeIfAbsent(new Registration(function, state), r -> {
            long id = NEXT_STATE.getAndIncrement();
            BY_STATE.put(id, r);
            return id;
        });
    }

    /** {@code OrtStatus* OrtKernelCreateFunc(void* state, const OrtKernelInfo* info, OrtKernelImpl** kernel_out)}. */
    private static long create(long state, long info, long out) throws Throwable {
        Registration registration = BY_STATE.get(state);
        if (registration == null) {
            throw new OrtException(OrtErrorCode.INVALID_ARGUMENT, "javaep validation: " + CALLBACK + " called with state 0x"
                    + Long.toHexString(state) + ", which the layer never registered");
        }
        Settings settings = Settings.current;
        MEMORY.set(ValueLayout.JAVA_LONG, out, Site.UNSET);
        long start = System.nanoTime();
        Breadcrumbs crumbs = settings.breadcrumbs();
        Breadcrumbs.Trail trail = crumbs == null ? null : crumbs.enter(Breadcrumbs.KERNEL_CREATE);
        long status;
        try {
            status = (long) VENDOR_CREATE.invokeExact(registration.function(), registration.state(), info, out);
        } finally {
            if (trail != null) {
                crumbs.exit(trail);
            }
        }
        long nanos = System.nanoTime() - start;
        if (settings.trace() != null) {
            settings.trace().record(CALLBACK, start, nanos);
        }
        if (nanos > settings.slowNanos()) {
            // a warning only, even in strict mode: the kernel it made would have nobody to release it
            Violations.report(Violation.SLOW_CALL, CALLBACK, "took " + nanos / 1_000_000 + " ms (threshold "
                    + settings.slowNanos() / 1_000_000 + " ms)");
        }
        long kernel = MEMORY.get(ValueLayout.JAVA_LONG, out);
        if (status != 0) {
            settings.statuses().log(CALLBACK, status);
            if (kernel == Site.UNSET) {
                MEMORY.set(ValueLayout.JAVA_LONG, out, 0L);
            }
            return status;
        }
        if (kernel == Site.UNSET || kernel == 0) {
            MEMORY.set(ValueLayout.JAVA_LONG, out, 0L);
            String detail = "succeeded but left its OrtKernelImpl** " + (kernel == 0 ? "NULL" : "unset");
            Violations.report(Violation.OUT_PARAMETER_UNSET, CALLBACK, detail);
            // ORT would call Compute through NULL: a status is the one safe answer, strict or not
            throw new OrtException(OrtErrorCode.FAIL, "javaep validation: " + CALLBACK + " " + detail);
        }
        MEMORY.set(ValueLayout.JAVA_LONG, out, Proxy.create(ObjectKind.KERNEL, kernel, null, settings.stubs(),
                settings.knownVersion()).address);
        return 0;
    }
}
