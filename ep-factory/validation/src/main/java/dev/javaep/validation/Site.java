package dev.javaep.validation;

import static dev.javaep.validation.Proxy.MEMORY;

import dev.javaep.ort.CallbackSlot;
import dev.javaep.ort.OrtErrorCode;
import dev.javaep.ort.OrtException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Set;

/**
 * One slot of one kind of proxy, bound into its stub: the vendor's downcall and the checks around it
 * ({@link SlotRule}). A record, so the JIT trusts its fields as constants in the stub it is bound into.
 */
record Site(ObjectKind kind, CallbackSlot slot, int ordinal, String callback, SlotRule rule, boolean returnsStatus,
            MethodHandle downcall) {
    /** ORT's {@code kAllocAlignment}: what ORT assumes of every allocation (docs/conformance.md, allocators.alignment). */
    static final long ALLOC_ALIGNMENT = 64;
    /** Written into a required out-parameter before the call: still there after a success means the vendor never set it. */
    static final long UNSET = 0x0BADC0DE0BADC0DEL;
    /** The vendor pointers a ReleaseNodeComputeInfos forwards, per thread, from before the vendor's call to exit. */
    private static final ThreadLocal<Arena> RELEASE_ARRAYS = new ThreadLocal<>();

    /** The proxy {@code self} names; a released or unknown one is refused (thrown: the guard answers ORT). */
    Proxy enter(long self, long a1) {
        Proxy p = Proxy.at(kind, self);
        if (p == null) {
            throw new OrtException(OrtErrorCode.INVALID_ARGUMENT, "javaep validation: " + callback + " called on 0x"
                    + Long.toHexString(self) + ", which is no " + kind.structName + " this library made");
        }
        if (p.released) {
            boolean again = rule.action() == SlotRule.Action.RELEASE_SELF;
            throw refused(again ? Violation.DOUBLE_RELEASE : Violation.USE_AFTER_RELEASE, p.describe() + " was released"
                    + (again ? " already" : ""));
        }
        if (rule.action() == SlotRule.Action.COMPUTE) {
            enterCompute(p, a1);
        }
        return p;
    }

    /** Notes that {@code state} is in Compute; reports it when it already was (on another thread: ORT shares a state). */
    private void enterCompute(Proxy p, long state) {
        if (p.computing.compareAndSet(0, state)) {
            return;
        }
        boolean again = p.computing.get() == state || p.live.putIfAbsent(state, Thread.currentThread().threadId()) != null;
        if (again) {
            Violations.report(Violation.CONCURRENT_COMPUTE, callback, "compute state 0x" + Long.toHexString(state) + " of "
                    + p.describe() + " is already in Compute on another thread; forwarded anyway");
        }
    }

    private static void exitCompute(Proxy p, long state) {
        if (!p.computing.compareAndSet(state, 0)) {
            p.live.remove(state);
        }
    }

    /** Notes in the breadcrumbs (when on) that this thread is now in the vendor's callback; null when off. */
    Breadcrumbs.Trail crumbIn() {
        Breadcrumbs crumbs = Settings.current.breadcrumbs();
        return crumbs == null ? null : crumbs.enter(Breadcrumbs.id(kind, ordinal));
    }

    /** Notes that the callback {@link #crumbIn} noted returned. */
    void crumbOut(Breadcrumbs.Trail trail) {
        if (trail != null) {
            trail.owner.exit(trail); // not Settings.current again: a re-registration may have changed it meanwhile
        }
    }

    /** Prepares the call's arguments: marks required out-parameters, translates proxies back; returns argument 1 as forwarded. */
    long before(Proxy p, long a1, long a2, long a3, long a4, long a5, long a6) {
        return switch (rule.action()) {
            case CREATE -> {
                if (rule.required()) {
                    MEMORY.set(ValueLayout.JAVA_LONG, argument(rule.argument(), a1, a2, a3, a4, a5, a6), UNSET);
                }
                yield a1;
            }
            case COMPILE -> {
                for (long i = 0; i < a3; i++) {
                    MEMORY.set(ValueLayout.JAVA_LONG, a4 + i * 8, UNSET);
                }
                yield a1;
            }
            case IMPORT -> {
                String wrong = Imports.descriptorProblem(rule.creates(), a1);
                if (wrong != null) {
                    report(Violation.BAD_DESCRIPTOR, wrong + " (forwarded: " + p.describe() + " is to refuse it)");
                }
                if (a2 != 0) {
                    MEMORY.set(ValueLayout.JAVA_LONG, a2, UNSET);
                }
                yield a1;
            }
            case RELEASE_CHILD -> named(rule.creates(), a1, p, true).vendor;
            case USE_HANDLE -> {
                long vendor = named(rule.creates(), a1, p, false).vendor;
                if (rule.creates() == ObjectKind.SEMAPHORE_HANDLE) {
                    checkStream(p, a2);
                }
                yield vendor;
            }
            case RELEASE_COMPUTE_INFOS -> {
                // the vendor reads this array during the call: its arena lives until exit closes it (an automatic
                // arena would be freeable as soon as only its address is left)
                Arena arena = Arena.ofConfined();
                RELEASE_ARRAYS.set(arena);
                try {
                    MemorySegment vendors = arena.allocate(Math.max(1, a2) * 8, 8);
                    for (long i = 0; i < a2; i++) {
                        vendors.setAtIndex(ValueLayout.JAVA_LONG, i, named(ObjectKind.NODE_COMPUTE_INFO,
                                MEMORY.get(ValueLayout.JAVA_LONG, a1 + i * 8), p, true).vendor);
                    }
                    yield vendors.address();
                } catch (RuntimeException | Error e) {
                    RELEASE_ARRAYS.remove();
                    arena.close();
                    throw e;
                }
            }
            default -> a1;
        };
    }

    /** After the vendor's call: trace, time, status, the slot's checks; returns its result (or, strict, a status). */
    long exit(Proxy p, long start, long r, long a1, long a2, long a3, long a4, long a5, long a6) {
        long nanos = System.nanoTime() - start;
        if (rule.action() == SlotRule.Action.RELEASE_COMPUTE_INFOS) {
            Arena arena = RELEASE_ARRAYS.get();
            RELEASE_ARRAYS.remove();
            if (arena != null) {
                arena.close();
            }
        }
        if (rule.action() == SlotRule.Action.COMPUTE) {
            exitCompute(p, a1);
        }
        Settings settings = Settings.current;
        if (settings.trace() != null) {
            settings.trace().record(callback, start, nanos);
        }
        String slow = nanos <= settings.slowNanos() ? null : report(Violation.SLOW_CALL, "took " + nanos / 1_000_000
                + " ms on " + p.describe() + " (threshold " + settings.slowNanos() / 1_000_000 + " ms)");
        boolean succeeded = !returnsStatus || r == 0;
        if (!succeeded) {
            settings.statuses().log(callback, r);
        }
        String violation = succeeded ? check(p, r, a1, a2, a3, a4, a5, a6)
                : rule.action() == SlotRule.Action.IMPORT ? lie(p, a1, false, settings.statuses().code(r)) : null;
        // a slow call that handed ORT a new object stays a success even in strict mode: failing it would leave the
        // object the vendor made with nobody to release it (ORT releases only what a call returned successfully)
        boolean handedOver = succeeded && switch (rule.action()) {
            case CREATE, COMPILE, IMPORT -> true;
            default -> false;
        };
        violation = violation != null ? violation : handedOver ? null : slow;
        if (violation != null && settings.strict() && returnsStatus) {
            throw new OrtException(OrtErrorCode.FAIL, "javaep validation (strict): " + callback + ": " + violation);
        }
        return r;
    }

    /** The slot's own checks after a success; what was wrong (already reported), or null. */
    private String check(Proxy p, long r, long a1, long a2, long a3, long a4, long a5, long a6) {
        return switch (rule.action()) {
            case PLAIN -> null;
            case NON_NULL_RESULT -> r != 0 ? null : report(Violation.NULL_RESULT, "returned NULL on " + p.describe());
            case SUPPORTED_DEVICES -> {
                long count = MEMORY.get(ValueLayout.JAVA_LONG, a5);
                yield count >= 0 && count <= a4 ? null
                        : report(Violation.COUNT_OUT_OF_RANGE, "set *num_ep_devices to " + count + " with room for " + a4);
            }
            case CREATE -> wrapOut(p, argument(rule.argument(), a1, a2, a3, a4, a5, a6));
            case COMPILE -> {
                String wrong = null;
                for (long i = 0; i < a3; i++) {
                    String w = wrapOut(p, a4 + i * 8);
                    wrong = wrong == null ? w : wrong;
                }
                yield wrong;
            }
            case RELEASE_CHILD -> released(Proxy.find(rule.creates(), a1));
            case RELEASE_COMPUTE_INFOS -> {
                for (long i = 0; i < a2; i++) {
                    released(Proxy.find(ObjectKind.NODE_COMPUTE_INFO, MEMORY.get(ValueLayout.JAVA_LONG, a1 + i * 8)));
                }
                yield null;
            }
            case RELEASE_SELF -> released(p);
            case ALLOC -> {
                if (r == 0) {
                    yield null; // out of memory is an answer, not a violation
                }
                String wrong = null;
                if ((r & (ALLOC_ALIGNMENT - 1)) != 0) {
                    wrong = report(Violation.MISALIGNED_ALLOCATION, "returned 0x" + Long.toHexString(r) + " for " + a1
                            + " bytes on " + p.describe() + ": not aligned to ORT's kAllocAlignment (" + ALLOC_ALIGNMENT + ")");
                }
                p.live.put(r, a1);
                yield wrong;
            }
            case FREE -> a1 == 0 || p.live.remove(a1) != null ? null
                    : report(Violation.FREE_OF_UNKNOWN_POINTER, "0x" + Long.toHexString(a1) + " is no live allocation of "
                            + p.describe() + " (never returned by its Alloc, or freed already)");
            case COMPUTE, USE_HANDLE -> null;
            case CAN_IMPORT -> {
                Imports.remember(p, rule.creates(), a1, r != 0);
                yield null;
            }
            case IMPORT -> {
                String unset = wrapOut(p, a2);
                String lie = lie(p, a1, true, OrtErrorCode.OK);
                yield unset != null ? unset : lie;
            }
        };
    }

    /**
     * The proxy of {@code kind} at {@code address}, an argument of this call (which {@code releases} it, or uses it):
     * refused (thrown; the guard answers ORT) when this library, or for an imported handle its importer {@code owner},
     * did not make it, or when it was released.
     */
    private Proxy named(ObjectKind kind, long address, Proxy owner, boolean releases) {
        Proxy named = Proxy.find(kind, address);
        if (named == null || kind.isImportedHandle() && !named.released && named.parent != owner) {
            throw refused(releases ? Violation.RELEASE_OF_UNKNOWN : Violation.FOREIGN_HANDLE, "0x" + Long.toHexString(address)
                    + " is no " + kind.structName + " " + (kind.isImportedHandle() ? owner.describe() : "this library") + " made");
        }
        if (named.released) {
            throw refused(releases ? Violation.DOUBLE_RELEASE : Violation.USE_AFTER_RELEASE, named.describe()
                    + " was released already");
        }
        return named;
    }

    /** Reports a call that is not forwarded; what to throw, so that the guard answers ORT with a status saying why. */
    private OrtException refused(Violation kind, String detail) {
        String why = detail + "; not forwarded";
        report(kind, why);
        return new OrtException(OrtErrorCode.INVALID_ARGUMENT, "javaep validation: " + callback + ": " + why);
    }

    /**
     * Reports a Wait/Signal on a stream the importer's library did not make (another EP's), or one released: the
     * caller's mistake, forwarded for the vendor to refuse.
     */
    private void checkStream(Proxy importer, long stream) {
        long impl = ApiInterception.ortStreamImpl(stream);
        if (impl == -1) {
            return; // NULL (ORT refuses it before) or no ORT tables to ask
        }
        Proxy proxy = Proxy.find(ObjectKind.SYNC_STREAM, impl);
        if (proxy == null || proxy.released || root(proxy) != root(importer)) {
            report(Violation.FOREIGN_STREAM, "OrtSyncStream 0x" + Long.toHexString(stream) + " is "
                    + (proxy != null && proxy.released ? "released" : "no stream of the library behind " + importer.describe())
                    + " (forwarded: the importer is to refuse it)");
        }
    }

    /** The factory an object was made through (itself for a factory). */
    private static Proxy root(Proxy p) {
        Proxy root = p;
        while (root.parent != null) {
            root = root.parent;
        }
        return root;
    }

    /** Reports the import's contradiction of the importer's CanImport answer, if any. */
    private String lie(Proxy importer, long descriptor, boolean succeeded, OrtErrorCode failedCode) {
        String lie = Imports.lie(importer, rule.creates(), callback, descriptor, succeeded, failedCode);
        return lie == null ? null : report(Violation.CAN_IMPORT_LIE, lie);
    }

    private String released(Proxy released) {
        Set<Proxy> leaked = released.release();
        if (leaked.isEmpty()) {
            return null;
        }
        String live = leaked.size() + " object(s) made through " + released.describe() + " still live at its release: "
                + leaked.stream().map(Proxy::describe).toList();
        if (released.kind == ObjectKind.IMPORTER) {
            // Not a leak yet: ORT allows handles to outlive their importer. Still live at the factory's release, they are.
            if (released.parent != null) {
                released.parent.children.addAll(leaked);
            }
            return report(Violation.OUTLIVES_IMPORTER, live + "; their releases are forwarded");
        }
        return report(Violation.LEAK, live);
    }

    /** Wraps the vendor's object the out-parameter at {@code out} received in a proxy, which ORT gets instead. */
    private String wrapOut(Proxy p, long out) {
        long vendor = MEMORY.get(ValueLayout.JAVA_LONG, out);
        if (vendor == UNSET || (vendor == 0 && rule.required())) {
            MEMORY.set(ValueLayout.JAVA_LONG, out, 0L);
            return report(Violation.OUT_PARAMETER_UNSET, "succeeded but left its " + rule.creates().structName + "** "
                    + (vendor == 0 ? "NULL" : "unset") + " (on " + p.describe() + ")");
        }
        if (vendor != 0) {
            Settings settings = Settings.current;
            // a profiler is not counted among its EP's live objects: when ORT releases it, before or after the EP, is
            // the session profiler's business (a LEAK there would be a guess)
            Proxy parent = rule.creates() == ObjectKind.PROFILER ? null : p;
            MEMORY.set(ValueLayout.JAVA_LONG, out, Proxy.create(rule.creates(), vendor, parent, settings.stubs(),
                    settings.knownVersion()).address);
        }
        return null;
    }

    private String report(Violation kind, String detail) {
        Violations.report(kind, callback, detail);
        return detail;
    }

    private static long argument(int index, long a1, long a2, long a3, long a4, long a5, long a6) {
        return switch (index) {
            case 1 -> a1;
            case 2 -> a2;
            case 3 -> a3;
            case 4 -> a4;
            case 5 -> a5;
            case 6 -> a6;
            default -> throw new IllegalArgumentException("no argument " + index);
        };
    }
}
