package dev.javaep.validation;

import dev.javaep.ort.CallbackSlot;
import dev.javaep.ort.OrtApi;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One proxied EP-owned object: the struct ORT holds (ours) in front of the vendor's. Behind the struct's last slot sit a
 * magic word and this proxy's id: {@link #at} finds the proxy of a {@code this_ptr} with one read and no hashing.
 *
 * <p>The struct lives as long as the vendor's object, and a little longer: at its release it goes into a quarantine of
 * the last {@value #QUARANTINE} released structs, where a late call or a second release still lands in the layer's
 * stub, finds the released proxy's tombstone by its id and is refused as {@link Violation#USE_AFTER_RELEASE} or
 * {@link Violation#DOUBLE_RELEASE}. Pushed out of the quarantine, the struct's magic word is cleared and it is freed,
 * with its id and its tombstone: a process that makes sessions, streams and notifications for days keeps a bounded
 * number of them. A call through a pointer released longer ago than that is no longer recognised (the memory may
 * hold anything by then).
 */
@SuppressWarnings("restricted") // the layer stands between two C libraries: raw pointers and native calls are its work
final class Proxy {
    private static final long MAGIC = 0x6a61766165705641L; // "javaepVA"
    private static final long TRAILER = 16;
    /** All of memory, to read what ORT passes as {@code this} without making a segment per call. */
    static final MemorySegment MEMORY = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);
    /** How many released structs stay allocated for late calls to be recognised. */
    static final int QUARANTINE = 4096;
    private static final MethodHandle CALLOC = libc("calloc", FunctionDescriptor.of(ValueLayout.JAVA_LONG,
            ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));
    private static final MethodHandle FREE = libc("free", FunctionDescriptor.ofVoid(ValueLayout.JAVA_LONG));
    private static final Object LOCK = new Object();
    private static volatile Proxy[] byId = new Proxy[64];
    private static int nextId;
    /** Ids of freed structs, for new proxies (under LOCK). */
    private static final ArrayDeque<Integer> freeIds = new ArrayDeque<>();
    /** The released proxies whose structs are still allocated, oldest first (under LOCK). */
    private static final ArrayDeque<Proxy> quarantine = new ArrayDeque<>();
    /** Proxy address → proxy, for arguments (not {@code this}) that name an object: rare calls, checked before reading. */
    private static final Map<Long, Proxy> BY_ADDRESS = new ConcurrentHashMap<>();
    /** Vendor factory address → its proxy, for the CreateEpDevice swap. */
    private static final Map<Long, Proxy> FACTORY_BY_VENDOR = new ConcurrentHashMap<>();

    final ObjectKind kind;
    final long vendor;
    final long address;
    /** The vendor's function pointers by slot ordinal, read when the proxy was made. */
    final long[] functions;
    final int version;
    final Proxy parent;
    /** The objects made through this one and not yet released (leak check at its release). */
    final Set<Proxy> children;
    /** ALLOCATOR: live allocations (address → bytes); NODE_COMPUTE_INFO: further compute states in Compute (state → thread). */
    final Map<Long, Long> live;
    /** NODE_COMPUTE_INFO: the compute state in Compute when only one is (the usual case: no map entry per call), or 0. */
    final AtomicLong computing;
    /**
     * IMPORTER: what its {@code CanImportMemory} (low half) and {@code CanImportSemaphore} (high half) answered, two
     * bits per type value 0..15 (asked, answered true), for the lie check at the import of that type.
     */
    final AtomicLong answers;
    volatile boolean released;

    private Proxy(ObjectKind kind, long vendor, long address, long[] functions, int version, Proxy parent) {
        this.kind = kind;
        this.vendor = vendor;
        this.address = address;
        this.functions = functions;
        this.version = version;
        this.parent = parent;
        this.children = ConcurrentHashMap.newKeySet();
        this.live = new ConcurrentHashMap<>();
        this.computing = new AtomicLong();
        this.answers = new AtomicLong();
    }

    /**
     * What stays of a released proxy: enough to recognise a late call or a second release and to name the object;
     * none of its maps. Without it a process that makes sessions for days (or the kit's 1,000 session cycles) would
     * keep every proxy's maps and function table alive: about 1 KiB of Java heap a session.
     */
    private Proxy(Proxy released) {
        this.kind = released.kind;
        this.vendor = released.vendor;
        this.address = released.address;
        this.functions = NO_FUNCTIONS;
        this.version = released.version;
        this.parent = null;
        this.children = Set.of();
        this.live = Map.of();
        this.computing = RELEASED_WORD;
        this.answers = RELEASED_WORD;
        this.released = true;
    }

    private static final long[] NO_FUNCTIONS = {};
    private static final AtomicLong RELEASED_WORD = new AtomicLong();

    /**
     * A proxy of the vendor's object at {@code vendor}: its version is the vendor's (capped at what javaep knows), its
     * slots the layer's stubs where the vendor's are non-NULL and NULL elsewhere; required slots the vendor left NULL
     * are reported. An imported handle's data fields are copied as they are at its import.
     */
    static Proxy create(ObjectKind kind, long vendor, Proxy parent, Stubs stubs, int knownVersion) {
        int vendorVersion = MEMORY.get(ValueLayout.JAVA_INT, vendor);
        int version = Math.min(vendorVersion, knownVersion);
        MemorySegment struct = allocate(kind.size + TRAILER);
        struct.set(ValueLayout.JAVA_INT, 0, version);
        // What sits between the version and the first slot is copied: a handle's data fields (device, descriptor),
        // which ORT and the app may read, and OrtKernelImpl's flags.
        long dataEnd = kind.slots.getFirst().byteOffset();
        MemorySegment.copy(MEMORY, vendor + 4, struct, 4, dataEnd - 4);
        long[] functions = new long[kind.slots.size()];
        for (CallbackSlot slot : kind.slots) {
            if (slot.since() > version) {
                continue;
            }
            long function = MEMORY.get(ValueLayout.JAVA_LONG, vendor + slot.byteOffset());
            functions[((Enum<?>) slot).ordinal()] = function;
            if (function != 0) {
                struct.set(ValueLayout.ADDRESS, slot.byteOffset(), stubs.stub(kind, slot));
            } else if (kind.required.contains(slot)) {
                Violations.report(Violation.REQUIRED_SLOT_NULL, kind.callbackName(slot), "the vendor's " + kind.structName
                        + " at 0x" + Long.toHexString(vendor) + " declares version " + vendorVersion
                        + " but leaves this slot NULL; ORT calls it without a check");
            }
        }
        Proxy proxy = new Proxy(kind, vendor, struct.address(), functions, version, parent);
        struct.set(ValueLayout.JAVA_LONG, kind.size, MAGIC);
        synchronized (LOCK) {
            Integer free = freeIds.poll();
            int id = free != null ? free : nextId++;
            Proxy[] table = byId;
            if (id >= table.length) {
                table = Arrays.copyOf(table, table.length * 2);
            }
            table[id] = proxy;
            struct.set(ValueLayout.JAVA_LONG, kind.size + 8, id);
            byId = table;
        }
        BY_ADDRESS.put(proxy.address, proxy);
        if (kind == ObjectKind.FACTORY) {
            FACTORY_BY_VENDOR.put(vendor, proxy);
        }
        if (parent != null) {
            parent.children.add(proxy);
        }
        return proxy;
    }

    /** The proxy whose struct is at {@code self} (the {@code this} ORT passed to a stub of {@code kind}), or null. */
    static Proxy at(ObjectKind kind, long self) {
        if (self == 0 || MEMORY.get(ValueLayout.JAVA_LONG, self + kind.size) != MAGIC) {
            return null;
        }
        long id = MEMORY.get(ValueLayout.JAVA_LONG, self + kind.size + 8);
        Proxy[] table = byId;
        return id >= 0 && id < table.length ? table[(int) id] : null;
    }

    /** The proxy at address {@code proxy} when it is one of {@code kind}, or null (a pointer the layer never made). */
    static Proxy find(ObjectKind kind, long proxy) {
        Proxy found = BY_ADDRESS.get(proxy);
        return found != null && found.kind == kind ? found : null;
    }

    /** The proxy ORT knows for the vendor's factory at {@code vendor}, or null. */
    static Proxy factoryOf(long vendor) {
        return FACTORY_BY_VENDOR.get(vendor);
    }

    long function(int ordinal) {
        return functions[ordinal];
    }

    /**
     * Marks this released and puts its tombstone where ORT's pointers find it; the objects made through it that are
     * still live are returned (leaks, when any).
     */
    Set<Proxy> release() {
        Proxy tombstone = new Proxy(this);
        synchronized (LOCK) {
            if (released) {
                return Set.of(); // two threads released it at once: the first one's tombstone stands
            }
            released = true;
            byId[id()] = tombstone;
            quarantine.add(tombstone);
            if (quarantine.size() > QUARANTINE) {
                quarantine.poll().free();
            }
        }
        BY_ADDRESS.put(address, tombstone);
        if (parent != null) {
            parent.children.remove(this);
            if (parent.parent != null && parent.released) {
                parent.parent.children.remove(this); // a handle its released importer handed to the factory
            }
        }
        if (kind == ObjectKind.FACTORY) {
            FACTORY_BY_VENDOR.remove(vendor, this);
        }
        return Set.copyOf(children);
    }

    private int id() {
        return (int) MEMORY.get(ValueLayout.JAVA_LONG, address + kind.size + 8);
    }

    /** Frees a tombstone's struct, pushed out of the quarantine, with its id (under LOCK). */
    private void free() {
        int id = id();
        MEMORY.set(ValueLayout.JAVA_LONG, address + kind.size, 0L); // no longer a proxy, whatever the memory becomes
        byId[id] = null;
        freeIds.push(id);
        BY_ADDRESS.remove(address, this);
        try {
            FREE.invokeExact(address);
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    /** How many released structs are still allocated (for tests). */
    static int quarantined() {
        synchronized (LOCK) {
            return quarantine.size();
        }
    }

    private static MemorySegment allocate(long bytes) {
        long address;
        try {
            address = (long) CALLOC.invokeExact(1L, bytes);
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
        if (address == 0) {
            throw new OutOfMemoryError("javaep validation: no memory for a proxy of " + bytes + " bytes");
        }
        return MemorySegment.ofAddress(address).reinterpret(bytes);
    }

    private static MethodHandle libc(String name, FunctionDescriptor descriptor) {
        Linker linker = Linker.nativeLinker();
        return linker.downcallHandle(linker.defaultLookup().find(name).orElseThrow(), descriptor);
    }

    String describe() {
        return kind.structName + " 0x" + Long.toHexString(address) + " (vendor's 0x" + Long.toHexString(vendor) + ")";
    }
}
