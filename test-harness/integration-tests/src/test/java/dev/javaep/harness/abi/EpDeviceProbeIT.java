package dev.javaep.harness.abi;

import static dev.javaep.harness.abi.Raw.call;
import static dev.javaep.harness.abi.Raw.epApi;
import static dev.javaep.harness.abi.Raw.ok;
import static dev.javaep.harness.abi.Raw.stringOut;
import static dev.javaep.harness.abi.Raw.floatTensor;
import static dev.javaep.harness.abi.Raw.cpuInfo;
import static dev.javaep.harness.abi.Raw.ortApi;
import static dev.javaep.harness.abi.Raw.pointer;
import static dev.javaep.harness.abi.Raw.pointerOut;
import static dev.javaep.harness.abi.Raw.string;
import static dev.javaep.harness.abi.SubProbeModel.DIFFERENCE;
import static dev.javaep.harness.abi.SubProbeModel.MINUEND;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.bridge.OrtRuntime;
import dev.javaep.harness.TestPaths;
import dev.javaep.harness.abi.ProbeDeviceFactory.Transfer;
import dev.javaep.harness.onnx.Dim;
import dev.javaep.harness.onnx.OnnxModelWriter;
import dev.javaep.host.OrtEnvironment;
import dev.javaep.host.OrtHost;
import dev.javaep.ort.OrtApiSlot;
import dev.javaep.ort.OrtEpApiSlot;
import dev.javaep.ort.Platform;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.MemoryLocation;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Probes of plugin-EP registration, EP and hardware devices, sessions on a plugin EP, allocators, streams and
 * copies, through {@link ProbeDeviceFactory}: a device EP whose every value (names, vendor and device ids,
 * metadata, options, memory name, stream handles) is distinct and whose every allocation, copy and stream is
 * recorded. javaep registers in this JVM; the probes call ORT's slots directly and read the records back.
 */
@ExtendWith(ProbeVersionCondition.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@SuppressWarnings("restricted") // raw pointers from ORT are what a probe reads
class EpDeviceProbeIT {
    private static final String REGISTRATION = "javaep-abi-probes";
    private static final int GPU = 1;
    private static final int DEFAULT_MEMORY = 0;
    private static final int HOST_ACCESSIBLE = 5;
    /** {@code OrtApi::UpdateEnvWithCustomLogLevel} (226): sets the severity the default logger then reports. */
    private static final ProbedSlots.Observer UPDATE_LOG_LEVEL = ProbedSlots.Observer.of("ortapi-slots.tsv",
            "UpdateEnvWithCustomLogLevel", 1, FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT));

    private static OrtEnvironment env;
    private static byte[] model;

    @BeforeAll
    static void register() {
        env = OrtHost.shared().createEnvironment(REGISTRATION, OrtHost.LogLevel.ERROR);
        model = SubProbeModel.bytes("probe_device_sub");
        String previous = System.getProperty("javaep.factories");
        System.setProperty("javaep.factories", ProbeDeviceFactory.NAME);
        try (Arena arena = Arena.ofConfined()) {
            ok(ortApi(), OrtApiSlot.RegisterExecutionProviderLibrary, env.handle(), arena.allocateFrom(REGISTRATION),
                    Platform.ortCharString(arena, TestPaths.loaderLibrary().toAbsolutePath().toString()));
        } finally {
            if (previous == null) {
                System.clearProperty("javaep.factories");
            } else {
                System.setProperty("javaep.factories", previous);
            }
        }
    }

    @AfterAll
    static void close() {
        if (env != null) {
            if (probeDevice() != null) {
                env.unregisterExecutionProviderLibrary(REGISTRATION);
            }
            env.close();
        }
    }

    /** Every OrtEpDevice of the environment, through {@code GetEpDevices}. */
    private static List<MemorySegment> epDevices() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment devices = arena.allocate(ADDRESS);
            MemorySegment count = arena.allocate(JAVA_LONG);
            ok(ortApi(), OrtApiSlot.GetEpDevices, env.handle(), devices, count);
            return Raw.pointers(pointer(devices), count.get(JAVA_LONG, 0));
        }
    }

    private static String epName(MemorySegment epDevice) {
        return string((MemorySegment) call(ortApi(), OrtApiSlot.EpDevice_EpName, epDevice));
    }

    /** The probe EP's device, or null once unregistered. */
    private static MemorySegment probeDevice() {
        return epDevices().stream().filter(d -> ProbeDeviceFactory.NAME.equals(epName(d))).findFirst().orElse(null);
    }

    private static Map<String, String> pairs(MemorySegment keyValuePairs) {
        return Raw.api().keyValuePairs(keyValuePairs);
    }

    private static String memoryInfoName(Arena arena, MemorySegment info) {
        return stringOut(arena, OrtApiSlot.MemoryInfoGetName, info);
    }

    /** A new importer of the probe device ({@code CreateExternalResourceImporterForDevice}), with the records cleared. */
    private static MemorySegment probeImporter(Arena arena) {
        ProbeDeviceFactory.clearRecords();
        return pointerOut(arena, Raw.interopApi(), dev.javaep.ort.OrtInteropApiSlot.CreateExternalResourceImporterForDevice,
                probeDevice());
    }

    private static MemorySegment deviceMemoryInfo() {
        return (MemorySegment) call(ortApi(), OrtApiSlot.EpDevice_MemoryInfo, probeDevice(), DEFAULT_MEMORY);
    }

    /** A session of the Sub model on the probe device EP, with one EP option. */
    private static MemorySegment session(Arena arena) {
        return session(arena, model);
    }

    private static MemorySegment session(Arena arena, byte[] model) {
        MemorySegment options = pointerOut(arena, ortApi(), OrtApiSlot.CreateSessionOptions);
        ok(ortApi(), OrtApiSlot.SessionOptionsAppendExecutionProvider_V2, options, env.handle(),
                arena.allocateFrom(ADDRESS, probeDevice()), 1L, arena.allocateFrom(ADDRESS, arena.allocateFrom("probe_session_key")),
                arena.allocateFrom(ADDRESS, arena.allocateFrom("probe-session-value")), 1L);
        MemorySegment bytes = arena.allocateFrom(ValueLayout.JAVA_BYTE, model);
        MemorySegment session = pointerOut(arena, ortApi(), OrtApiSlot.CreateSessionFromArray,
                env.handle(), bytes, (long) model.length, options);
        call(ortApi(), OrtApiSlot.ReleaseSessionOptions, options);
        return session;
    }

    /** Runs Sub on host inputs; returns the difference read from the host output ORT copied back. */
    private static float[] run(Arena arena, MemorySegment session, MemorySegment runOptions) {
        return SubProbeModel.run(arena, session, runOptions, "minuend", "subtrahend");
    }

    @Test
    @Order(1)
    @Probes(value = {"OrtApi::RegisterExecutionProviderLibrary", "OrtApi::GetEpDevices", "OrtApi::EpDevice_EpName",
            "OrtApi::EpDevice_EpVendor", "OrtApi::EpDevice_EpMetadata", "OrtApi::EpDevice_EpOptions", "OrtApi::EpDevice_Device",
            "OrtApi::HardwareDevice_Type", "OrtApi::HardwareDevice_VendorId", "OrtApi::HardwareDevice_Vendor",
            "OrtApi::HardwareDevice_DeviceId", "OrtApi::HardwareDevice_Metadata", "OrtEpApi::CreateEpDevice",
            "OrtEpApi::CreateHardwareDevice"},
            rulesOut = "EpDevice_EpName/EpVendor (312/313) and EpMetadata/EpOptions (314/315) are pairs of one shape:"
                    + " name vs vendor and metadata vs options differ; HardwareDevice_VendorId/DeviceId (308/310) read"
                    + " 0x4a45 vs 0x7e57; javaep's CreateEpDevice passes metadata before options and CreateHardwareDevice"
                    + " the vendor id before the device id, or these would come back swapped")
    void theProbeDeviceIsOfferedWithItsNameVendorMetadataOptionsAndHardware() {
        MemorySegment device = probeDevice();
        assertTrue(device != null, () -> "no " + ProbeDeviceFactory.NAME + " among " + epDevices().stream().map(EpDeviceProbeIT::epName).toList());
        assertEquals(ProbeDeviceFactory.VENDOR, string((MemorySegment) call(ortApi(), OrtApiSlot.EpDevice_EpVendor, device)));
        Map<String, String> metadata = pairs((MemorySegment) call(ortApi(), OrtApiSlot.EpDevice_EpMetadata, device));
        assertEquals("ep-metadata", metadata.get("probe.ep"), metadata::toString);
        Map<String, String> options = pairs((MemorySegment) call(ortApi(), OrtApiSlot.EpDevice_EpOptions, device));
        assertEquals(ProbeDeviceFactory.EP_OPTIONS, options);

        MemorySegment hardware = (MemorySegment) call(ortApi(), OrtApiSlot.EpDevice_Device, device);
        assertEquals(GPU, (int) call(ortApi(), OrtApiSlot.HardwareDevice_Type, hardware));
        assertEquals(ProbeDeviceFactory.DEVICE_VENDOR_ID, (int) call(ortApi(), OrtApiSlot.HardwareDevice_VendorId, hardware));
        assertEquals(ProbeDeviceFactory.DEVICE_ID, (int) call(ortApi(), OrtApiSlot.HardwareDevice_DeviceId, hardware));
        assertEquals(ProbeDeviceFactory.DEVICE_VENDOR, string((MemorySegment) call(ortApi(), OrtApiSlot.HardwareDevice_Vendor, hardware)));
        Map<String, String> hardwareMetadata = pairs((MemorySegment) call(ortApi(), OrtApiSlot.HardwareDevice_Metadata, hardware));
        assertEquals("hardware-metadata", hardwareMetadata.get("probe.device"), hardwareMetadata::toString);
    }

    @Test
    @Order(2)
    @Probes(value = {"OrtApi::EpDevice_MemoryInfo", "OrtEpApi::EpDevice_AddAllocatorInfo"},
            rulesOut = "the device's DEFAULT memory is the space the factory offered (its name, GPU, 0x4a45, id 7);"
                    + " asking for HOST_ACCESSIBLE gives none, so the memory type is the argument read")
    void theProbeDevicesMemoryIsTheSpaceItsFactoryOffered() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment info = deviceMemoryInfo();
            assertEquals(ProbeDeviceFactory.MEMORY_NAME, memoryInfoName(arena, info));
            MemorySegment deviceType = arena.allocate(JAVA_INT);
            call(ortApi(), OrtApiSlot.MemoryInfoGetDeviceType, info, deviceType);
            assertEquals(GPU, deviceType.get(JAVA_INT, 0));
            assertEquals(ProbeDeviceFactory.DEVICE_VENDOR_ID, (int) call(ortApi(), OrtApiSlot.MemoryInfoGetVendorId, info));
            MemorySegment id = arena.allocate(JAVA_INT);
            ok(ortApi(), OrtApiSlot.MemoryInfoGetId, info, id);
            assertEquals(ProbeDeviceFactory.MEMORY_DEVICE_ID, id.get(JAVA_INT, 0));
            assertEquals(DEFAULT_MEMORY, (int) call(ortApi(), OrtApiSlot.MemoryInfoGetDeviceMemType, info));
            assertEquals(MemorySegment.NULL, call(ortApi(), OrtApiSlot.EpDevice_MemoryInfo, probeDevice(), HOST_ACCESSIBLE));
        }
    }

    @Test
    @Order(3)
    @Probes(value = {"OrtApi::GetNumHardwareDevices", "OrtApi::GetHardwareDevices"},
            rulesOut = "the count and the list agree, and the list holds the hardware device of ORT's own CPU EP device")
    void theEnvironmentListsTheHardwareItDiscovered() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment count = arena.allocate(JAVA_LONG);
            ok(ortApi(), OrtApiSlot.GetNumHardwareDevices, env.handle(), count);
            long n = count.get(JAVA_LONG, 0);
            assertTrue(n >= 1, "ORT always discovers the CPU");
            MemorySegment devices = arena.allocate(ADDRESS, n);
            ok(ortApi(), OrtApiSlot.GetHardwareDevices, env.handle(), devices, n);
            List<MemorySegment> hardware = Raw.pointers(devices, n);
            MemorySegment cpuEp = epDevices().stream().filter(d -> "CPUExecutionProvider".equals(epName(d))).findFirst().orElseThrow();
            MemorySegment cpuHardware = (MemorySegment) call(ortApi(), OrtApiSlot.EpDevice_Device, cpuEp);
            assertTrue(hardware.contains(cpuHardware), "ORT's CPU EP runs on hardware the environment lists");
            assertTrue(Raw.failure(ortApi(), OrtApiSlot.GetHardwareDevices, env.handle(), devices, 0L).getMessage().contains("num_devices"),
                    "too small an array is refused");
        }
    }

    @Test
    @Order(4)
    @Probes(value = {"OrtEpApi::ReleaseHardwareDevice"},
            rulesOut = "a device made by CreateHardwareDevice reads back its fields, and releasing 1000 devices with 64 KiB"
                    + " of metadata does not grow the heap (ReleaseEpDevice (1) or another release would crash or leak)")
    void aHardwareDeviceMadeByTheEpApiIsReleased() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment metadata = Raw.api().createKeyValuePairs(Map.of("made.by", "probe"));
            MemorySegment device = pointerOut(arena, epApi(), OrtEpApiSlot.CreateHardwareDevice,
                    2, 0x1234, 0x5678, arena.allocateFrom("direct-vendor"), metadata);
            assertEquals(2, (int) call(ortApi(), OrtApiSlot.HardwareDevice_Type, device));
            assertEquals(0x1234, (int) call(ortApi(), OrtApiSlot.HardwareDevice_VendorId, device));
            assertEquals(0x5678, (int) call(ortApi(), OrtApiSlot.HardwareDevice_DeviceId, device));
            assertEquals("direct-vendor", string((MemorySegment) call(ortApi(), OrtApiSlot.HardwareDevice_Vendor, device)));
            assertEquals(Map.of("made.by", "probe"), pairs((MemorySegment) call(ortApi(), OrtApiSlot.HardwareDevice_Metadata, device)));
            call(epApi(), OrtEpApiSlot.ReleaseHardwareDevice, device);
            Raw.api().releaseKeyValuePairs(metadata);
        }
        String value = Raw.large(64 * 1024);
        Raw.assertReleased("hardware devices with 64 KiB of metadata", 1000, value.length(), () -> {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment metadata = Raw.api().createKeyValuePairs(Map.of("big", value));
                MemorySegment device = pointerOut(arena, epApi(), OrtEpApiSlot.CreateHardwareDevice,
                        2, 1, 2, arena.allocateFrom("v"), metadata);
                Raw.api().releaseKeyValuePairs(metadata);
                call(epApi(), OrtEpApiSlot.ReleaseHardwareDevice, device);
            }
        });
    }

    @Test
    @Order(5)
    @Probes(value = {"OrtApi::SessionOptionsAppendExecutionProvider_V2", "OrtApi::KernelContext_GetInputCount", "OrtApi::KernelContext_GetOutputCount",
            "OrtApi::KernelContext_GetInput", "OrtApi::KernelContext_GetOutput", "OrtApi::KernelContext_GetGPUComputeStream",
            "OrtEpApi::EpGraphSupportInfo_AddNodesToFuse"},
            rulesOut = "the EP option reaches the factory; the claimed Sub runs in the probe EP (2 inputs, 1 output, in"
                    + " order: swapped inputs give negative numbers) on a stream the factory made")
    void aSessionOnTheProbeDeviceRunsSubThereAndCopiesThroughItsDataTransfer() {
        ProbeDeviceFactory.clearRecords();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment session = session(arena);
            assertTrue(ProbeDeviceFactory.SESSION_OPTIONS.stream().anyMatch(o -> o.containsValue("probe-session-value")),
                    () -> "the EP option did not reach createExecutionProvider: " + ProbeDeviceFactory.SESSION_OPTIONS);
            assertArrayEquals(DIFFERENCE, run(arena, session, MemorySegment.NULL));
            assertEquals(List.of("2/1"), List.copyOf(ProbeDeviceFactory.COMPUTE_ARITIES));
            long stream = ProbeDeviceFactory.COMPUTE_STREAMS.peek();
            assertTrue(ProbeDeviceFactory.STREAMS_CREATED.contains(stream),
                    () -> "Compute ran on stream " + stream + ", not one the factory made: " + ProbeDeviceFactory.STREAMS_CREATED);
            List<Transfer> copies = List.copyOf(ProbeDeviceFactory.COPIES);
            assertTrue(copies.contains(new Transfer(MemoryLocation.HOST, ProbeDeviceFactory.MEMORY, 24, stream))
                    && copies.contains(new Transfer(MemoryLocation.HOST, ProbeDeviceFactory.MEMORY, 12, stream))
                    && copies.stream().anyMatch(c -> c.from().equals(ProbeDeviceFactory.MEMORY) && c.bytes() == 24),
                    () -> "inputs in, the difference out: " + copies);

            call(ortApi(), OrtApiSlot.ReleaseSession, session);
        }
    }

    @Test
    @Order(6)
    @Probes(value = {"OrtApi::SessionGetMemoryInfoForInputs", "OrtApi::SessionGetMemoryInfoForOutputs",
            "OrtApi::SessionGetEpDeviceForInputs", "OrtApi::SessionGetEpDeviceForOutputs"},
            rulesOut = "the For*Inputs/For*Outputs pairs (380/381, 382/396) share shapes: here the inputs go to the probe"
                    + " device's Sub and the output comes from a Relu on ORT's CPU EP, so inputs read the probe device and"
                    + " its memory, the output the CPU")
    void inputsAndOutputsOfAMixedSessionLiveWhereTheirEpsAre() {
        byte[] mixed = new OnnxModelWriter("probe_device_then_cpu")
                .input("minuend", ElementType.FLOAT, Dim.param("N"), Dim.of(3))
                .input("subtrahend", ElementType.FLOAT, Dim.of(3))
                .output("rectified", ElementType.FLOAT, Dim.param("N"), Dim.of(3))
                .node("Sub", List.of("minuend", "subtrahend"), List.of("difference"))
                .node("Relu", List.of("difference"), List.of("rectified"))
                .toByteArray();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment session = session(arena, mixed);
            MemorySegment infos = arena.allocate(ADDRESS, 2);
            ok(ortApi(), OrtApiSlot.SessionGetMemoryInfoForInputs, session, infos, 2L);
            assertEquals(List.of(ProbeDeviceFactory.MEMORY_NAME, ProbeDeviceFactory.MEMORY_NAME),
                    Raw.pointers(infos, 2).stream().map(info -> memoryInfoName(arena, info)).toList());
            ok(ortApi(), OrtApiSlot.SessionGetMemoryInfoForOutputs, session, infos, 1L);
            assertEquals("Cpu", memoryInfoName(arena, infos.get(ADDRESS, 0)));

            MemorySegment devices = arena.allocate(ADDRESS, 2);
            ok(ortApi(), OrtApiSlot.SessionGetEpDeviceForInputs, session, devices, 2L);
            assertEquals(List.of(probeDevice(), probeDevice()), Raw.pointers(devices, 2));
            devices.set(ADDRESS, 0, MemorySegment.ofAddress(0x5a5a));
            ok(ortApi(), OrtApiSlot.SessionGetEpDeviceForOutputs, session, devices, 1L);
            MemorySegment outputDevice = devices.get(ADDRESS, 0);
            assertTrue(!outputDevice.equals(probeDevice()) && outputDevice.address() != 0x5a5a,
                    () -> "the output's EP device is ORT's CPU EP's or none, and was written: " + outputDevice);
            call(ortApi(), OrtApiSlot.ReleaseSession, session);
        }
    }

    @Test
    @Order(7)
    @Probes(value = {"OrtApi::CreateAllocator", "OrtApi::ReleaseAllocator", "OrtApi::GetSharedAllocator"},
            rulesOut = "both allocators allocate through the probe factory's DeviceAllocator (it records 4096 and 8192"
                    + " bytes); AddSessionConfigEntry (130) and CreateSharedAllocator (375) would not")
    void sessionAndSharedAllocatorsAreTheProbeDevicesAllocator() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment session = session(arena);
            ProbeDeviceFactory.clearRecords();
            MemorySegment out = arena.allocate(ADDRESS);
            ok(ortApi(), OrtApiSlot.CreateAllocator, session, deviceMemoryInfo(), out);
            MemorySegment allocator = pointer(out);
            MemorySegment block = arena.allocate(ADDRESS);
            ok(ortApi(), OrtApiSlot.AllocatorAlloc, allocator, 4096L, block);
            ok(ortApi(), OrtApiSlot.AllocatorFree, allocator, pointer(block));
            call(ortApi(), OrtApiSlot.ReleaseAllocator, allocator);

            ok(ortApi(), OrtApiSlot.GetSharedAllocator, env.handle(), deviceMemoryInfo(), out);
            MemorySegment shared = pointer(out);
            assertNotEquals(MemorySegment.NULL, shared, "the environment shares an allocator for the probe device's memory");
            ok(ortApi(), OrtApiSlot.AllocatorAlloc, shared, 8192L, block);
            ok(ortApi(), OrtApiSlot.AllocatorFree, shared, pointer(block));
            List<Long> allocations = List.copyOf(ProbeDeviceFactory.ALLOCATIONS);
            assertTrue(allocations.contains(4096L) && allocations.contains(8192L), allocations::toString);
            call(ortApi(), OrtApiSlot.ReleaseSession, session);
        }
    }

    @Test
    @Order(8)
    @Probes(value = {"OrtApi::CreateSyncStreamForEpDevice", "OrtApi::SyncStream_GetHandle", "OrtApi::ReleaseSyncStream",
            "OrtApi::CopyTensors", "OrtApi::RunOptionsSetSyncStream", "OrtEpApi::SyncStream_GetImpl",
            "OrtEpApi::SyncStream_GetSyncId", "OrtEpApi::GetSyncIdForLastWaitOnSyncStream"},
            rulesOut = "the stream's handle is the one the factory made; GetImpl returns javaep's OrtSyncStreamImpl, whose"
                    + " GetHandle gives that handle too; CopyTensors copies host → device on that stream (source and"
                    + " destination swapped would copy zeros); a run with the stream in its options computes on it;"
                    + " ReleaseSyncStream closes it. Sync ids are 0 on a stream nothing waited on (weak: only rules out"
                    + " SyncStream_GetImpl (13), which returns a pointer)")
    void anAppStreamCarriesCopiesAndRuns() throws Throwable {
        ProbeDeviceFactory.clearRecords();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment streamOptions = Raw.api().createKeyValuePairs(Map.of());
            MemorySegment out = arena.allocate(ADDRESS);
            ok(ortApi(), OrtApiSlot.CreateSyncStreamForEpDevice, probeDevice(), streamOptions, out);
            Raw.api().releaseKeyValuePairs(streamOptions);
            MemorySegment stream = pointer(out);
            long handle = ((MemorySegment) call(ortApi(), OrtApiSlot.SyncStream_GetHandle, stream)).address();
            assertEquals(List.of(handle), List.copyOf(ProbeDeviceFactory.STREAMS_CREATED));

            MemorySegment impl = ((MemorySegment) call(epApi(), OrtEpApiSlot.SyncStream_GetImpl, stream)).reinterpret(48);
            MemorySegment getHandle = impl.get(ADDRESS, 16);
            long viaImpl = ((MemorySegment) Linker.nativeLinker().downcallHandle(getHandle, FunctionDescriptor.of(ADDRESS, ADDRESS))
                    .invokeExact(impl)).address();
            assertEquals(handle, viaImpl, "SyncStream_GetImpl is the implementation behind this stream");
            assertEquals(0L, (long) call(epApi(), OrtEpApiSlot.SyncStream_GetSyncId, stream));
            assertEquals(0L, (long) call(epApi(), OrtEpApiSlot.GetSyncIdForLastWaitOnSyncStream, stream, stream));

            MemorySegment cpu = cpuInfo(arena);
            MemorySegment host = floatTensor(arena, cpu, MINUEND, 2, 3);
            MemorySegment deviceData = arena.allocate(24, 64);
            MemorySegment device = floatTensor(arena, deviceMemoryInfo(), deviceData, 2, 3);
            ok(ortApi(), OrtApiSlot.CopyTensors, env.handle(), arena.allocateFrom(ADDRESS, host), arena.allocateFrom(ADDRESS, device),
                    stream, 1L);
            assertArrayEquals(MINUEND, deviceData.toArray(JAVA_FLOAT), "host → device");
            assertEquals(List.of(new Transfer(MemoryLocation.HOST, ProbeDeviceFactory.MEMORY, 24, handle)),
                    List.copyOf(ProbeDeviceFactory.COPIES));

            MemorySegment session = session(arena);
            ok(ortApi(), OrtApiSlot.CreateRunOptions, out);
            MemorySegment runOptions = pointer(out);
            call(ortApi(), OrtApiSlot.RunOptionsSetSyncStream, runOptions, stream);
            ProbeDeviceFactory.COMPUTE_STREAMS.clear();
            assertArrayEquals(DIFFERENCE, run(arena, session, runOptions));
            assertEquals(List.of(handle), List.copyOf(ProbeDeviceFactory.COMPUTE_STREAMS), "the run computed on the app's stream");
            call(ortApi(), OrtApiSlot.ReleaseRunOptions, runOptions);
            call(ortApi(), OrtApiSlot.ReleaseSession, session);

            for (MemorySegment value : List.of(host, device)) {
                call(ortApi(), OrtApiSlot.ReleaseValue, value);
            }
            call(ortApi(), OrtApiSlot.ReleaseMemoryInfo, cpu);
            call(ortApi(), OrtApiSlot.ReleaseSyncStream, stream);
            assertTrue(ProbeDeviceFactory.STREAMS_CLOSED.contains(handle), "ReleaseSyncStream closed the factory's stream");
        }
    }

    @Test
    @Order(9)
    @Probes(value = {"OrtApi::Logger_GetLoggingSeverityLevel", "OrtApi::Logger_LogMessage"},
            rulesOut = "the default logger javaep got at registration reports each severity the environment is set to"
                    + " (Logger_LogMessage (247), its neighbour, returns no level). Logger_LogMessage is probed weakly: it"
                    + " accepts a message below the threshold; what ORT's sink prints is not captured")
    void theDefaultLoggerReportsTheEnvironmentsSeverity() {
        MemorySegment logger = OrtRuntime.current().defaultLogger();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment level = arena.allocate(JAVA_INT);
            ok(ortApi(), OrtApiSlot.Logger_GetLoggingSeverityLevel, logger, level);
            int original = level.get(JAVA_INT, 0);
            List<Integer> seen = new ArrayList<>();
            for (int severity : new int[] {4, 1, 3}) {
                ok(ortApi(), UPDATE_LOG_LEVEL, env.handle(), severity);
                ok(ortApi(), OrtApiSlot.Logger_GetLoggingSeverityLevel, logger, level);
                seen.add(level.get(JAVA_INT, 0));
            }
            assertEquals(List.of(4, 1, 3), seen);
            ok(ortApi(), UPDATE_LOG_LEVEL, env.handle(), 4);
            ok(ortApi(), OrtApiSlot.Logger_LogMessage, logger, 0, arena.allocateFrom("javaep probe: below the threshold"),
                    Platform.ortCharString(arena, "EpDeviceProbeIT.java"), 1, arena.allocateFrom("probe"));
            ok(ortApi(), UPDATE_LOG_LEVEL, env.handle(), original);
        }
    }

    @Test
    @Order(10)
    @Probes(value = {"OrtEpApi::GetEnvConfigEntries"},
            rulesOut = "weak: returns a readable OrtKeyValuePairs (this process's environment has no config entries);"
                    + " ReleaseKernelImpl (48) before it takes an OrtKernelImpl")
    void environmentConfigEntriesAreReadable() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment config = pointerOut(arena, epApi(), OrtEpApiSlot.GetEnvConfigEntries);
            assertNotEquals(MemorySegment.NULL, config);
            Map<String, String> entries = pairs(config);
            assertTrue(entries.values().stream().allMatch(v -> v != null), entries::toString);
            call(ortApi(), OrtApiSlot.ReleaseKeyValuePairs, config);
        }
    }

    @Test
    @Order(11)
    @Probes(value = {"OrtApi::GetInteropApi", "OrtInteropApi::CreateExternalResourceImporterForDevice", "OrtInteropApi::CanImportMemory",
            "OrtInteropApi::CanImportSemaphore", "OrtInteropApi::ImportSemaphore", "OrtInteropApi::WaitSemaphore",
            "OrtInteropApi::SignalSemaphore", "OrtInteropApi::ReleaseExternalSemaphoreHandle",
            "OrtInteropApi::ReleaseExternalResourceImporter"},
            rulesOut = "CanImportMemory/CanImportSemaphore (2/6) share a shape: the probe importer takes memory of kind 3"
                    + " and semaphores of kind 0 only; WaitSemaphore/SignalSemaphore (9/10) too: the importer records"
                    + " 'wait 77' and 'signal 88' on the app's stream; the fence handle reaches it unchanged. GetInteropApi"
                    + " (395) returned the table all of this went through")
    void theProbeImporterIsAskedWhatTheInteropCallsSay() {
        var interop = Raw.interopApi();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment importer = probeImporter(arena);
            MemorySegment out = arena.allocate(ADDRESS);
            MemorySegment answer = arena.allocate(ValueLayout.JAVA_BOOLEAN);
            List<String> answers = new ArrayList<>();
            for (int kind : new int[] {0, 3}) {
                ok(interop, dev.javaep.ort.OrtInteropApiSlot.CanImportMemory, importer, kind, answer);
                answers.add("memory " + kind + " " + answer.get(ValueLayout.JAVA_BOOLEAN, 0));
                ok(interop, dev.javaep.ort.OrtInteropApiSlot.CanImportSemaphore, importer, kind, answer);
                answers.add("semaphore " + kind + " " + answer.get(ValueLayout.JAVA_BOOLEAN, 0));
            }
            assertEquals(List.of("memory 0 false", "semaphore 0 true", "memory 3 true", "semaphore 3 false"), answers);
            ok(interop, dev.javaep.ort.OrtInteropApiSlot.CanImportMemory, importer, 4, answer);
            assertEquals(runtimeMinor() >= 30, answer.get(ValueLayout.JAVA_BOOLEAN, 0),
                    "HOST_ALLOCATION (4, API 30, beyond the generated declaration) reaches the importer from ORT 1.30 on");

            MemorySegment descriptor = arena.allocate(dev.javaep.ort.OrtInteropLayouts.SEMAPHORE_DESCRIPTOR);
            descriptor.set(JAVA_INT, 0, dev.javaep.ort.OrtInteropLayouts.FIRST_VERSION);
            descriptor.set(JAVA_INT, 4, 0); // D3D12_FENCE
            descriptor.set(ADDRESS, 8, MemorySegment.ofAddress(0xfe4ce));
            ok(interop, dev.javaep.ort.OrtInteropApiSlot.ImportSemaphore, importer, descriptor, out);
            MemorySegment semaphore = pointer(out);

            MemorySegment streamOptions = Raw.api().createKeyValuePairs(Map.of());
            ok(ortApi(), OrtApiSlot.CreateSyncStreamForEpDevice, probeDevice(), streamOptions, out);
            Raw.api().releaseKeyValuePairs(streamOptions);
            MemorySegment stream = pointer(out);
            long handle = ((MemorySegment) call(ortApi(), OrtApiSlot.SyncStream_GetHandle, stream)).address();
            ok(interop, dev.javaep.ort.OrtInteropApiSlot.WaitSemaphore, importer, semaphore, stream, 77L);
            ok(interop, dev.javaep.ort.OrtInteropApiSlot.SignalSemaphore, importer, semaphore, stream, 88L);
            call(interop, dev.javaep.ort.OrtInteropApiSlot.ReleaseExternalSemaphoreHandle, semaphore);
            call(interop, dev.javaep.ort.OrtInteropApiSlot.ReleaseExternalResourceImporter, importer);
            call(ortApi(), OrtApiSlot.ReleaseSyncStream, stream);
            String on = " on 0x" + Long.toHexString(handle);
            assertEquals(List.of("create", "import D3D12_FENCE 0xfe4ce", "wait 77" + on, "signal 88" + on, "release semaphore",
                    "close"), List.copyOf(ProbeDeviceFactory.IMPORTER_EVENTS));
        }
    }

    private static int runtimeMinor() {
        return Integer.parseInt(OrtHost.shared().version().split("\\.")[1]);
    }

    @Test
    @Order(12)
    @Probes(value = {"OrtInteropApi::ImportMemory", "OrtInteropApi::CreateTensorFromMemory",
            "OrtInteropApi::ReleaseExternalMemoryHandle"},
            rulesOut = "ImportMemory (3) and ImportSemaphore (7) share a shape: the importer records a memory import with"
                    + " the descriptor's fd, size and offset; the tensor lies at the mapped block plus the tensor"
                    + " offset, in the probe device's memory; ReleaseExternalMemoryHandle (4) vs"
                    + " ReleaseExternalSemaphoreHandle (8): the memory is released once handle and tensor are gone")
    void importedMemoryBecomesATensorOfTheProbeDevice() {
        var interop = Raw.interopApi();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment importer = probeImporter(arena);
            MemorySegment out = arena.allocate(ADDRESS);
            MemorySegment memory = arena.allocate(dev.javaep.ort.OrtInteropLayouts.MEMORY_DESCRIPTOR);
            memory.set(JAVA_INT, 0, dev.javaep.ort.OrtInteropLayouts.FIRST_VERSION);
            memory.set(JAVA_INT, 4, 3); // VK_MEMORY_OPAQUE_FD: the probe importer never touches the fd
            memory.set(ADDRESS, 8, MemorySegment.ofAddress(987_654));
            memory.set(JAVA_LONG, 16, 4096);
            memory.set(JAVA_LONG, 24, 1024);
            ok(interop, dev.javaep.ort.OrtInteropApiSlot.ImportMemory, importer, memory, out);
            MemorySegment handle = pointer(out);
            String imported = ProbeDeviceFactory.IMPORTER_EVENTS.stream().filter(e -> e.startsWith("import memory")).findFirst()
                    .orElseThrow(() -> new AssertionError(ProbeDeviceFactory.IMPORTER_EVENTS));
            assertTrue(imported.startsWith("import memory VK_MEMORY_OPAQUE_FD 987654 4096 1024 at 0x"), imported);
            long mapped = Long.parseLong(imported.substring(imported.lastIndexOf("0x") + 2), 16);

            MemorySegment tensorDescriptor = arena.allocate(dev.javaep.ort.OrtInteropLayouts.TENSOR_DESCRIPTOR);
            tensorDescriptor.set(JAVA_INT, 0, dev.javaep.ort.OrtInteropLayouts.FIRST_VERSION);
            tensorDescriptor.set(JAVA_INT, 4, 1); // FLOAT
            tensorDescriptor.set(ADDRESS, 8, arena.allocateFrom(JAVA_LONG, 2, 3));
            tensorDescriptor.set(JAVA_LONG, 16, 2);
            tensorDescriptor.set(JAVA_LONG, 24, 64);
            ok(interop, dev.javaep.ort.OrtInteropApiSlot.CreateTensorFromMemory, importer, handle, tensorDescriptor, out);
            MemorySegment tensor = pointer(out);
            ok(ortApi(), OrtApiSlot.GetTensorMutableData, tensor, out);
            assertEquals(mapped + 64, pointer(out).address(), "the tensor starts 64 bytes into the imported block");
            ok(ortApi(), OrtApiSlot.GetTensorMemoryInfo, tensor, out);
            assertEquals(ProbeDeviceFactory.MEMORY_NAME, memoryInfoName(arena, pointer(out)));

            call(interop, dev.javaep.ort.OrtInteropApiSlot.ReleaseExternalMemoryHandle, handle);
            assertTrue(!ProbeDeviceFactory.IMPORTER_EVENTS.contains("release memory"), "the tensor still uses the memory");
            call(ortApi(), OrtApiSlot.ReleaseValue, tensor);
            assertTrue(ProbeDeviceFactory.IMPORTER_EVENTS.contains("release memory"), ProbeDeviceFactory.IMPORTER_EVENTS::toString);
            call(interop, dev.javaep.ort.OrtInteropApiSlot.ReleaseExternalResourceImporter, importer);
        }
    }

    @Test
    @Order(100)
    @Probes(value = {"OrtApi::UnregisterExecutionProviderLibrary"},
            rulesOut = "the probe device is gone afterwards, ORT's CPU device stays")
    void unregisteringRemovesTheProbeDevice() {
        try (Arena arena = Arena.ofConfined()) {
            ok(ortApi(), OrtApiSlot.UnregisterExecutionProviderLibrary, env.handle(), arena.allocateFrom(REGISTRATION));
        }
        assertEquals(null, probeDevice());
        assertTrue(epDevices().stream().anyMatch(d -> "CPUExecutionProvider".equals(epName(d))));
    }
}
