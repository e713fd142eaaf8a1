package dev.javaep.validation;

import static java.lang.foreign.ValueLayout.JAVA_BOOLEAN;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.bridge.UpcallGuard;
import dev.javaep.ort.CallbackSlot;
import dev.javaep.ort.OrtAllocatorStruct;
import dev.javaep.ort.OrtApi;
import dev.javaep.ort.OrtDataTransferImplStruct;
import dev.javaep.ort.OrtEpFactoryStruct;
import dev.javaep.ort.OrtEpStruct;
import dev.javaep.ort.OrtKernelImplStruct;
import dev.javaep.ort.OrtNodeComputeInfoStruct;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The proxies' checks without ORT: a "vendor" made of Java upcalls behind C structs, called through the proxies'
 * stubs exactly as ORT would call them (downcalls of the proxy struct's function pointers). Also measures the layer's
 * cost per forwarded call (printed, not asserted: docs/validation-layer.md quotes it).
 */
@SuppressWarnings("restricted") // the layer stands between two C libraries: raw pointers and native calls are its work
class ProxyChecksTest {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final Arena ARENA = Arena.global();
    private static final AtomicInteger VENDOR_CALLS = new AtomicInteger();
    /** What the vendor's Alloc returns: its own 64-byte-aligned block, or (when set) this planted address. */
    private static volatile long plantedAllocation;
    private static final MemorySegment BLOCK = ARENA.allocate(4096, 64);
    private static final MemorySegment VENDOR_EP = vendorStruct(OrtEpStruct.SIZE, Map.of(
            OrtEpStruct.GetName, stub("name", FunctionDescriptor.of(JAVA_LONG, JAVA_LONG)),
            OrtEpStruct.GetCapability, stub("ok2", FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG)),
            OrtEpStruct.CreateAllocator, stub("createAllocator", FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG))));
    private static volatile boolean createEpSetsItsOut = true;

    @BeforeEach
    void layerSettings() {
        Violations.clear();
        Settings.current = new Settings(false, Long.MAX_VALUE, null, null, new Stubs(), OrtApi.COMPILED_API_VERSION, null, null);
        plantedAllocation = 0;
        createEpSetsItsOut = true;
    }

    @Test
    void aMisalignedAllocationAndAFreeOfAForeignPointerAreFlagged() throws Throwable {
        Proxy allocator = allocatorProxy();
        plantedAllocation = BLOCK.address() + 8;
        long p = callLong(allocator, OrtAllocatorStruct.Alloc, 100);
        assertEquals(BLOCK.address() + 8, p, "the vendor's pointer reaches ORT unchanged");
        callLong(allocator, OrtAllocatorStruct.Free, p);
        callLong(allocator, OrtAllocatorStruct.Free, BLOCK.address() + 1024);
        assertEquals(Map.of(Violation.MISALIGNED_ALLOCATION, 1L, Violation.FREE_OF_UNKNOWN_POINTER, 1L), Violations.counts());
        assertTrue(Violations.recent().getFirst().callback().equals("OrtAllocator::Alloc"), Violations.recent().toString());
    }

    @Test
    void aRequiredSlotLeftNullIsFlaggedAndStaysNull() throws Throwable {
        MemorySegment vendor = vendorStruct(OrtAllocatorStruct.SIZE, Map.of(
                OrtAllocatorStruct.Alloc, stub("alloc", FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG))));
        Proxy proxy = Proxy.create(ObjectKind.ALLOCATOR, vendor.address(), null, Settings.current.stubs(), 23);
        assertEquals(2L, Violations.counts().get(Violation.REQUIRED_SLOT_NULL), Violations.recent().toString());
        assertEquals(0L, slot(proxy, OrtAllocatorStruct.Free), "a slot the vendor left NULL stays NULL in the proxy");
    }

    @Test
    void aCallOnAReleasedObjectIsNotForwarded() throws Throwable {
        MemorySegment vendor = dataTransferVendor();
        Proxy proxy = Proxy.create(ObjectKind.DATA_TRANSFER, vendor.address(), null, Settings.current.stubs(), 23);
        MethodHandle canCopy = LINKER.downcallHandle(MemorySegment.ofAddress(slot(proxy, OrtDataTransferImplStruct.CanCopy)),
                FunctionDescriptor.of(JAVA_BOOLEAN, JAVA_LONG, JAVA_LONG, JAVA_LONG));
        assertTrue((boolean) canCopy.invokeExact(proxy.address, 1L, 2L));
        callLong(proxy, OrtDataTransferImplStruct.Release);
        int before = VENDOR_CALLS.get();
        assertFalse((boolean) canCopy.invokeExact(proxy.address, 1L, 2L));
        assertEquals(before, VENDOR_CALLS.get(), "the released object's vendor is not called");
        assertEquals(Map.of(Violation.USE_AFTER_RELEASE, 1L), Violations.counts());
        assertEquals("OrtDataTransferImpl::CanCopy", Violations.recent().getFirst().callback());
    }

    @Test
    void releasedStructsAreFreedOncePushedOutOfTheQuarantine() throws Throwable {
        MemorySegment vendor = dataTransferVendor();
        Proxy first = Proxy.create(ObjectKind.DATA_TRANSFER, vendor.address(), null, Settings.current.stubs(), 23);
        first.release();
        assertTrue(Proxy.at(ObjectKind.DATA_TRANSFER, first.address).released, "in quarantine: a late call finds the tombstone");
        for (int i = 0; i < Proxy.QUARANTINE; i++) {
            Proxy.create(ObjectKind.DATA_TRANSFER, vendor.address(), null, Settings.current.stubs(), 23).release();
        }
        assertEquals(Proxy.QUARANTINE, Proxy.quarantined(), "a bounded number of released structs stays allocated");
        // the first struct was the one freed by the last release, and nothing was allocated since: its address is no proxy
        assertEquals(null, Proxy.find(ObjectKind.DATA_TRANSFER, first.address));
        assertEquals(Map.of(), Violations.counts());
    }

    @Test
    void kernelsOfAKernelRegistryAreProxiedAndTheirReleasesChecked() throws Throwable {
        MemorySegment vendorKernel = vendorStruct(OrtKernelImplStruct.SIZE, 24, Map.of(
                OrtKernelImplStruct.Compute, stub("ok1", FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG)),
                OrtKernelImplStruct.Release, stub("release", FunctionDescriptor.ofVoid(JAVA_LONG))));
        vendorKernelToCreate = vendorKernel.address();
        long state = KernelCreations.state(stub("createKernel", FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG,
                JAVA_LONG)).address(), 0x5eed);
        MethodHandle create = LINKER.downcallHandle(KernelCreations.CREATE,
                FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG));
        MemorySegment out = ARENA.allocate(8, 8);
        assertEquals(0L, (long) create.invokeExact(state, 0L, out.address()));
        assertEquals(0x5eedL, createdWithState, "the vendor's create function gets its own state");
        Proxy kernel = Proxy.find(ObjectKind.KERNEL, out.get(JAVA_LONG, 0));
        assertTrue(kernel != null && kernel.vendor == vendorKernel.address(), "ORT gets the proxy of the vendor's kernel");

        int before = VENDOR_CALLS.get();
        assertEquals(0L, callLong(kernel, OrtKernelImplStruct.Compute, 0x42));
        callLong(kernel, OrtKernelImplStruct.Release);
        callLong(kernel, OrtKernelImplStruct.Release); // twice: refused, not forwarded
        callLong(kernel, OrtKernelImplStruct.Compute, 0x42); // after Release: refused (the status needs ORT, absent here)
        assertEquals(before + 2, VENDOR_CALLS.get(), "the vendor saw one Compute and one Release");
        assertEquals(Map.of(Violation.DOUBLE_RELEASE, 1L, Violation.USE_AFTER_RELEASE, 1L), Violations.counts());
        assertEquals(List.of("OrtKernelImpl::Release", "OrtKernelImpl::Compute"),
                Violations.recent().stream().map(Violations.Report::callback).toList());

        vendorKernelToCreate = 0; // a create that succeeds with no kernel: refused (a status, with ORT), ORT gets NULL
        long ignored = (long) create.invokeExact(state, 0L, out.address());
        assertEquals(0L, out.get(JAVA_LONG, 0));
        assertEquals(1L, Violations.counts().get(Violation.OUT_PARAMETER_UNSET));
    }

    private static volatile long vendorKernelToCreate;
    private static volatile long createdWithState;

    private static long createKernel(long state, long info, long out) {
        createdWithState = state;
        Proxy.MEMORY.set(JAVA_LONG, out, vendorKernelToCreate);
        return 0L;
    }

    private static long ok1(long self, long a) {
        VENDOR_CALLS.incrementAndGet();
        return 0L;
    }

    @Test
    void createReleaseAndLeaksOfEpsAreChecked() throws Throwable {
        Proxy factory = factoryProxy();
        MemorySegment out = ARENA.allocate(8, 8);
        assertEquals(0L, callLong(factory, OrtEpFactoryStruct.CreateEp, 0, 0, 0, 0, 0, out.address()));
        long ep = out.get(JAVA_LONG, 0);
        assertTrue(ep != VENDOR_EP.address() && Proxy.find(ObjectKind.EP, ep) != null, "ORT gets the proxy of the EP");
        MemorySegment allocatorOut = ARENA.allocate(8, 8);
        Proxy epProxy = Proxy.find(ObjectKind.EP, ep);
        assertEquals(0L, callLong(epProxy, OrtEpStruct.CreateAllocator, 0, allocatorOut.address()));

        callLong(factory, OrtEpFactoryStruct.ReleaseEp, ep);   // the EP's allocator is still live: a leak
        callLong(factory, OrtEpFactoryStruct.ReleaseEp, ep);   // twice
        callLong(factory, OrtEpFactoryStruct.ReleaseEp, 0x1234); // never seen
        createEpSetsItsOut = false;
        callLong(factory, OrtEpFactoryStruct.CreateEp, 0, 0, 0, 0, 0, out.address());
        assertEquals(0L, out.get(JAVA_LONG, 0), "an out-parameter left unset reaches ORT as NULL, not as garbage");
        assertEquals(Map.of(Violation.LEAK, 1L, Violation.DOUBLE_RELEASE, 1L, Violation.RELEASE_OF_UNKNOWN, 1L,
                Violation.OUT_PARAMETER_UNSET, 1L), Violations.counts(), Violations.recent().toString());
    }

    @Test
    void computeEnteredTwiceOnOneStateIsReportedAndForwarded() throws Throwable {
        MemorySegment vendor = vendorStruct(OrtNodeComputeInfoStruct.SIZE, Map.of(
                OrtNodeComputeInfoStruct.CreateState, stub("ok2", FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG)),
                OrtNodeComputeInfoStruct.Compute, stub("blockingCompute", FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG,
                        JAVA_LONG)),
                OrtNodeComputeInfoStruct.ReleaseState, stub("void1", FunctionDescriptor.ofVoid(JAVA_LONG, JAVA_LONG))));
        Proxy compute = Proxy.create(ObjectKind.NODE_COMPUTE_INFO, vendor.address(), null, Settings.current.stubs(), 23);
        computeEntered = new CountDownLatch(1);
        computeMayReturn = new CountDownLatch(1);
        Thread first = Thread.ofPlatform().start(() -> {
            try {
                callLong(compute, OrtNodeComputeInfoStruct.Compute, 0x5a7e, 0);
            } catch (Throwable t) {
                throw new AssertionError(t);
            }
        });
        assertTrue(computeEntered.await(10, TimeUnit.SECONDS));
        int before = VENDOR_CALLS.get();
        callLong(compute, OrtNodeComputeInfoStruct.Compute, 0x5a7e, 0); // runs through while the first waits inside
        computeMayReturn.countDown();
        first.join();
        assertEquals(Map.of(Violation.CONCURRENT_COMPUTE, 1L), Violations.counts(), Violations.recent().toString());
        assertTrue(VENDOR_CALLS.get() > before, "the second Compute is forwarded all the same");
        callLong(compute, OrtNodeComputeInfoStruct.Compute, 0x5a7e, 0);
        assertEquals(1L, Violations.counts().get(Violation.CONCURRENT_COMPUTE), "one Compute after the other is fine");
    }

    /** The layer's cost per forwarded call: the same vendor function called directly and through its proxy. */
    @Test
    void measuresTheCostPerForwardedCall() throws Throwable {
        Proxy allocator = allocatorProxy();
        MemorySegment vendorCompute = vendorStruct(OrtNodeComputeInfoStruct.SIZE, Map.of(
                OrtNodeComputeInfoStruct.CreateState, stub("ok2", FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG)),
                OrtNodeComputeInfoStruct.Compute, stub("ok2", FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG)),
                OrtNodeComputeInfoStruct.ReleaseState, stub("void1", FunctionDescriptor.ofVoid(JAVA_LONG, JAVA_LONG))));
        Proxy compute = Proxy.create(ObjectKind.NODE_COMPUTE_INFO, vendorCompute.address(), null, Settings.current.stubs(), 23);
        MethodHandle computeType = LINKER.downcallHandle(FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG));
        MethodHandle allocType = LINKER.downcallHandle(FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG));
        MethodHandle freeType = LINKER.downcallHandle(FunctionDescriptor.ofVoid(JAVA_LONG, JAVA_LONG));
        MemorySegment vendorComputeFn = MemorySegment.ofAddress(compute.function(OrtNodeComputeInfoStruct.Compute.ordinal()));
        MemorySegment proxyComputeFn = MemorySegment.ofAddress(slot(compute, OrtNodeComputeInfoStruct.Compute));
        MemorySegment vendorAlloc = MemorySegment.ofAddress(allocator.function(OrtAllocatorStruct.Alloc.ordinal()));
        MemorySegment vendorFree = MemorySegment.ofAddress(allocator.function(OrtAllocatorStruct.Free.ordinal()));
        MemorySegment proxyAlloc = MemorySegment.ofAddress(slot(allocator, OrtAllocatorStruct.Alloc));
        MemorySegment proxyFree = MemorySegment.ofAddress(slot(allocator, OrtAllocatorStruct.Free));
        int n = 200_000;
        MemorySegment proxyCreateState = MemorySegment.ofAddress(slot(compute, OrtNodeComputeInfoStruct.CreateState));
        double[] best = {Double.MAX_VALUE, Double.MAX_VALUE, Double.MAX_VALUE, Double.MAX_VALUE, Double.MAX_VALUE};
        for (int round = 0; round < 5; round++) {
            long t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                long r = (long) computeType.invokeExact(vendorComputeFn, vendorCompute.address(), 0x100L, 0L);
            }
            long t1 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                long r = (long) computeType.invokeExact(proxyComputeFn, compute.address, 0x100L, 0L);
            }
            long t2 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                long p = (long) allocType.invokeExact(vendorAlloc, allocator.vendor, 64L);
                freeType.invokeExact(vendorFree, allocator.vendor, p);
            }
            long t3 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                long p = (long) allocType.invokeExact(proxyAlloc, allocator.address, 64L);
                freeType.invokeExact(proxyFree, allocator.address, p);
            }
            long t4 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                long r = (long) computeType.invokeExact(proxyCreateState, compute.address, 0x100L, 0L);
            }
            best[4] = Math.min(best[4], (System.nanoTime() - t4) / (double) n);
            best[0] = Math.min(best[0], (t1 - t0) / (double) n);
            best[1] = Math.min(best[1], (t2 - t1) / (double) n);
            best[2] = Math.min(best[2], (t3 - t2) / (double) n);
            best[3] = Math.min(best[3], (t4 - t3) / (double) n);
        }
        System.out.printf("validation layer cost: Compute %.0f ns direct, %.0f ns through the proxy (+%.0f ns/call); "
                        + "Alloc+Free %.0f ns direct, %.0f ns through the proxy (+%.0f ns/pair); a slot with no check of its "
                        + "own (CreateState) %.0f ns through the proxy%n",
                best[0], best[1], best[1] - best[0], best[2], best[3], best[3] - best[2], best[4]);
        // The breadcrumbs' share: the same Compute through the proxy with them on (a thread-local read, three stores).
        Settings off = Settings.current;
        Settings on = withFiles(off, new Breadcrumbs(Files.createTempFile("javaep-breadcrumbs", ".bin")), null);
        double[] proxied = {Double.MAX_VALUE, Double.MAX_VALUE};
        for (int round = 0; round < 10; round++) {
            Settings.current = round % 2 == 0 ? off : on;
            long t0 = System.nanoTime();
            for (int i = 0; i < n; i++) {
                long r = (long) computeType.invokeExact(proxyComputeFn, compute.address, 0x100L, 0L);
            }
            proxied[round % 2] = Math.min(proxied[round % 2], (System.nanoTime() - t0) / (double) n);
        }
        Settings.current = off;
        System.out.printf("breadcrumbs: Compute through the proxy %.0f ns without, %.0f ns with (%+.0f ns/call)%n",
                proxied[0], proxied[1], proxied[1] - proxied[0]);
        assertEquals(Map.of(), Violations.counts(), () -> Violations.recent().toString());
    }

    @Test
    void breadcrumbsNameTheCallbackInFlightAndFindingsGoToTheReportFile() throws Throwable {
        Path crumbs = Files.createTempFile("javaep-breadcrumbs", ".bin");
        Path reports = Files.createTempFile("javaep-validation", ".txt");
        Settings.current = withFiles(Settings.current, new Breadcrumbs(crumbs), new ReportFile(reports));
        MemorySegment vendor = vendorStruct(OrtNodeComputeInfoStruct.SIZE, Map.of(
                OrtNodeComputeInfoStruct.CreateState, stub("ok2", FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG)),
                OrtNodeComputeInfoStruct.Compute, stub("computeReadingBreadcrumbs", FunctionDescriptor.of(JAVA_LONG, JAVA_LONG,
                        JAVA_LONG, JAVA_LONG)),
                OrtNodeComputeInfoStruct.ReleaseState, stub("void1", FunctionDescriptor.ofVoid(JAVA_LONG, JAVA_LONG))));
        Proxy compute = Proxy.create(ObjectKind.NODE_COMPUTE_INFO, vendor.address(), null, Settings.current.stubs(), 23);
        breadcrumbsFile = crumbs;
        callLong(compute, OrtNodeComputeInfoStruct.Compute, 0x5a7e, 0);
        assertEquals(1, seenInCompute.size(), seenInCompute::toString);
        assertTrue(seenInCompute.getFirst().startsWith("OrtNodeComputeInfo::Compute (thread "), seenInCompute::toString);
        assertEquals(List.of(), Breadcrumbs.inFlight(crumbs), "nothing is in flight after the call returned");

        ReportFile.mark(reports, "step one");
        Proxy allocator = allocatorProxy();
        plantedAllocation = BLOCK.address() + 8;
        callLong(allocator, OrtAllocatorStruct.Alloc, 100);
        List<ReportFile.Line> lines = ReportFile.read(reports);
        assertEquals(1, lines.size(), lines::toString);
        assertEquals(new ReportFile.Line("step one", "MISALIGNED_ALLOCATION", "OrtAllocator::Alloc", lines.getFirst().detail()),
                lines.getFirst());
        assertTrue(lines.getFirst().isViolation() && !lines.getFirst().isWarning());
    }

    @Test
    void theTraceIsWholeJsonAfterEachPeriodicFlush() throws Exception {
        Path file = Files.createTempFile("javaep-trace", ".json");
        Trace trace = new Trace(file);
        trace.record("OrtNodeComputeInfo::Compute", System.nanoTime(), 1500);
        Thread.sleep(Trace.FLUSH_MILLIS + 500); // no release, no shutdown: what a crash would leave
        String json = Files.readString(file);
        assertTrue(json.contains("\"name\":\"OrtNodeComputeInfo::Compute\"") && json.endsWith("\n]}\n"), json);
        trace.record("OrtNodeComputeInfo::Compute", System.nanoTime(), 2500);
        trace.write();
        json = Files.readString(file);
        assertEquals(2, json.split("\"ph\":\"X\"", -1).length - 1, json);
        assertTrue(json.endsWith("}\n]}\n") && json.indexOf("]}") == json.lastIndexOf("]}"), "one closing, at the end: " + json);
    }

    private static Settings withFiles(Settings s, Breadcrumbs breadcrumbs, ReportFile reports) {
        return new Settings(s.strict(), s.slowNanos(), s.trace(), s.statuses(), s.stubs(), s.knownVersion(), breadcrumbs,
                reports);
    }

    private static volatile Path breadcrumbsFile;
    private static final List<String> seenInCompute = new CopyOnWriteArrayList<>();

    /** A Compute that reads, from inside the vendor, what the breadcrumbs file says is running. */
    private static long computeReadingBreadcrumbs(long self, long state, long context) {
        try {
            seenInCompute.addAll(Breadcrumbs.inFlight(breadcrumbsFile));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return 0L;
    }

    // ---- the "vendor": Java upcalls behind C structs --------------------------------------------

    /** A vendor's data transfer with all three slots, each counting its calls. */
    private static MemorySegment dataTransferVendor() {
        return vendorStruct(OrtDataTransferImplStruct.SIZE, Map.of(
                OrtDataTransferImplStruct.Release, stub("release", FunctionDescriptor.ofVoid(JAVA_LONG)),
                OrtDataTransferImplStruct.CanCopy, stub("canCopy", FunctionDescriptor.of(JAVA_BOOLEAN, JAVA_LONG, JAVA_LONG, JAVA_LONG)),
                OrtDataTransferImplStruct.CopyTensors, stub("ok4", FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG,
                        JAVA_LONG, JAVA_LONG, JAVA_LONG))));
    }

    private static Proxy allocatorProxy() {
        MemorySegment vendor = vendorStruct(OrtAllocatorStruct.SIZE, Map.of(
                OrtAllocatorStruct.Alloc, stub("alloc", FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG)),
                OrtAllocatorStruct.Free, stub("void1", FunctionDescriptor.ofVoid(JAVA_LONG, JAVA_LONG)),
                OrtAllocatorStruct.Info, stub("name", FunctionDescriptor.of(JAVA_LONG, JAVA_LONG))));
        return Proxy.create(ObjectKind.ALLOCATOR, vendor.address(), null, Settings.current.stubs(), 23);
    }

    static Proxy factoryProxy() {
        FunctionDescriptor name = FunctionDescriptor.of(JAVA_LONG, JAVA_LONG);
        MemorySegment vendor = vendorStruct(OrtEpFactoryStruct.SIZE, Map.of(
                OrtEpFactoryStruct.GetName, stub("name", name), OrtEpFactoryStruct.GetVendor, stub("name", name),
                OrtEpFactoryStruct.GetVersion, stub("name", name),
                OrtEpFactoryStruct.GetVendorId, stub("vendorId", FunctionDescriptor.of(JAVA_INT, JAVA_LONG)),
                OrtEpFactoryStruct.GetSupportedDevices, stub("ok5", FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG,
                        JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG)),
                OrtEpFactoryStruct.CreateEp, stub("createEp", FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG,
                        JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG)),
                OrtEpFactoryStruct.ReleaseEp, stub("void1", FunctionDescriptor.ofVoid(JAVA_LONG, JAVA_LONG))));
        return Proxy.create(ObjectKind.FACTORY, vendor.address(), null, Settings.current.stubs(), 23);
    }

    private static MemorySegment vendorStruct(long size, Map<CallbackSlot, MemorySegment> functions) {
        return vendorStruct(size, 23, functions);
    }

    /** A vendor's struct of {@code size} bytes declaring {@code version}, with {@code functions} in their slots. */
    static MemorySegment vendorStruct(long size, int version, Map<? extends CallbackSlot, MemorySegment> functions) {
        MemorySegment struct = ARENA.allocate(size, 8);
        struct.set(JAVA_INT, 0, version);
        functions.forEach((slot, function) -> struct.set(JAVA_LONG, slot.byteOffset(), function.address()));
        return struct;
    }

    private static MemorySegment stub(String method, FunctionDescriptor descriptor) {
        return stub(MethodHandles.lookup(), method, descriptor);
    }

    /** An upcall stub of the static {@code method} of the class {@code lookup} looks up in. */
    static MemorySegment stub(MethodHandles.Lookup lookup, String method, FunctionDescriptor descriptor) {
        try {
            MethodHandle target = lookup.findStatic(lookup.lookupClass(), method, descriptor.toMethodType());
            return LINKER.upcallStub(target, descriptor, ARENA);
        } catch (ReflectiveOperationException e) {
            throw new LinkageError(method, e);
        }
    }

    static long slot(Proxy proxy, CallbackSlot slot) {
        return Proxy.MEMORY.get(JAVA_LONG, proxy.address + slot.byteOffset());
    }

    /** Calls the proxy's {@code slot} as ORT would, every argument a long (all slots used here take pointers or sizes). */
    static long callLong(Proxy proxy, CallbackSlot slot, long... arguments) throws Throwable {
        FunctionDescriptor descriptor = UpcallGuard.addressesAsLongs(slot.descriptor());
        MethodHandle call = LINKER.downcallHandle(MemorySegment.ofAddress(slot(proxy, slot)), descriptor);
        Object[] all = new Object[arguments.length + 1];
        all[0] = proxy.address;
        for (int i = 0; i < arguments.length; i++) {
            all[i + 1] = arguments[i];
        }
        Object result = call.invokeWithArguments(all);
        return result instanceof Long value ? value : 0L;
    }

    private static long name(long self) {
        VENDOR_CALLS.incrementAndGet();
        return BLOCK.address();
    }

    private static int vendorId(long self) {
        return 0x4a45;
    }

    private static long alloc(long self, long bytes) {
        long planted = plantedAllocation;
        return planted != 0 ? planted : BLOCK.address();
    }

    private static void void1(long self, long argument) {
        VENDOR_CALLS.incrementAndGet();
    }

    private static void release(long self) {
        VENDOR_CALLS.incrementAndGet();
    }

    private static boolean canCopy(long self, long source, long destination) {
        VENDOR_CALLS.incrementAndGet();
        return true;
    }

    private static long ok2(long self, long a, long b) {
        return 0L;
    }

    private static volatile CountDownLatch computeEntered = new CountDownLatch(0);
    private static volatile CountDownLatch computeMayReturn = new CountDownLatch(0);

    /** The first Compute waits inside the vendor until the test lets it go (after a second has run through). */
    private static long blockingCompute(long self, long state, long context) {
        VENDOR_CALLS.incrementAndGet();
        if (computeEntered.getCount() > 0) {
            computeEntered.countDown();
            try {
                computeMayReturn.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return 0L;
    }

    private static long ok4(long self, long a, long b, long c, long d) {
        return 0L;
    }

    private static long ok5(long self, long a, long b, long c, long d, long e) {
        return 0L;
    }

    private static long createEp(long self, long devices, long metadata, long count, long options, long logger, long out) {
        if (createEpSetsItsOut) {
            Proxy.MEMORY.set(JAVA_LONG, out, VENDOR_EP.address());
        }
        return 0L;
    }

    private static long createAllocator(long self, long memoryInfo, long out) {
        Proxy.MEMORY.set(JAVA_LONG, out, allocatorProxy().vendor);
        return 0L;
    }
}
