package dev.javaep.harness.abi;

import static dev.javaep.harness.abi.Raw.call;
import static dev.javaep.harness.abi.Raw.epApi;
import static dev.javaep.harness.abi.Raw.ok;
import static dev.javaep.harness.abi.Raw.stringOut;
import static dev.javaep.harness.abi.Raw.intOut;
import static dev.javaep.harness.abi.Raw.ortApi;
import static dev.javaep.harness.abi.Raw.pointer;
import static dev.javaep.harness.abi.Raw.pointerOut;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.ort.OrtApiSlot;
import dev.javaep.ort.OrtEpApiSlot;
import dev.javaep.ort.OrtErrorCode;
import dev.javaep.ort.OrtException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Probes of memory infos, memory devices and ORT's default allocator. Every field is given a value no other
 * field has (device id 3, vendor 0x10de, HOST_ACCESSIBLE = 5, GPU = 1, ARENA = 1, CPU_OUTPUT = -1), so a getter
 * that read a neighbouring field would return the wrong number.
 */
@ExtendWith(ProbeVersionCondition.class)
@SuppressWarnings("restricted") // raw pointers from ORT are what a probe reads
class MemoryProbeIT {
    // OrtAllocatorType, OrtMemType, OrtMemoryInfoDeviceType, OrtDeviceMemoryType
    private static final int DEVICE_ALLOCATOR = 0;
    private static final int ARENA_ALLOCATOR = 1;
    private static final int MEM_TYPE_CPU_OUTPUT = -1;
    private static final int MEM_TYPE_DEFAULT = 0;
    private static final int DEVICE_CPU = 0;
    private static final int DEVICE_GPU = 1;
    private static final int HOST_ACCESSIBLE = 5;
    private static final int NVIDIA = 0x10de;

    private static MemorySegment createV2(Arena arena, String name, int deviceType, int vendor, int deviceId, int memType) {
        return pointerOut(arena, ortApi(), OrtApiSlot.CreateMemoryInfo_V2,
                arena.allocateFrom(name), deviceType, vendor, deviceId, memType, 64L, ARENA_ALLOCATOR);
    }

    private static String name(Arena arena, MemorySegment info) {
        return stringOut(arena, OrtApiSlot.MemoryInfoGetName, info);
    }

    @Test
    @Probes(value = {"OrtApi::CreateMemoryInfo", "OrtApi::MemoryInfoGetName", "OrtApi::MemoryInfoGetId",
            "OrtApi::MemoryInfoGetMemType", "OrtApi::MemoryInfoGetType", "OrtApi::ReleaseMemoryInfo"},
            rulesOut = "GetName/GetId/GetMemType/GetType (71..74) share a shape; id 2, mem type -1 and allocator type 1"
                    + " tell them apart")
    void createMemoryInfoKeepsNameIdMemTypeAndAllocatorType() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            ok(ortApi(), OrtApiSlot.CreateMemoryInfo, arena.allocateFrom("Cuda"), ARENA_ALLOCATOR, 2, MEM_TYPE_CPU_OUTPUT, out);
            MemorySegment info = pointer(out);
            assertEquals("Cuda", name(arena, info));
            assertEquals(2, intOut(arena, OrtApiSlot.MemoryInfoGetId, info));
            assertEquals(MEM_TYPE_CPU_OUTPUT, intOut(arena, OrtApiSlot.MemoryInfoGetMemType, info));
            assertEquals(ARENA_ALLOCATOR, intOut(arena, OrtApiSlot.MemoryInfoGetType, info));
            call(ortApi(), OrtApiSlot.ReleaseMemoryInfo, info);

            OrtException refused = Raw.failure(ortApi(), OrtApiSlot.CreateMemoryInfo, arena.allocateFrom("NoSuchDevice"),
                    DEVICE_ALLOCATOR, 0, MEM_TYPE_DEFAULT, out);
            assertEquals(OrtErrorCode.INVALID_ARGUMENT, refused.code(), refused::getMessage);
            assertTrue(refused.getMessage().contains("not supported"), refused::getMessage);
        }
        String longName = Raw.large(64 * 1024);
        Raw.assertReleased("memory infos with a 64 KiB name", 1000, longName.length(), () -> {
            try (Arena arena = Arena.ofConfined()) {
                call(ortApi(), OrtApiSlot.ReleaseMemoryInfo, createV2(arena, longName, DEVICE_GPU, NVIDIA, 1, 0));
            }
        });
    }

    @Test
    @Probes(value = {"OrtApi::CreateCpuMemoryInfo"},
            rulesOut = "CreateMemoryInfo (68) takes a name first: called with (type, mem type, out) it would fail")
    void createCpuMemoryInfoIsTheCpuDevice() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment info = pointerOut(arena, ortApi(), OrtApiSlot.CreateCpuMemoryInfo,
                    ARENA_ALLOCATOR, MEM_TYPE_CPU_OUTPUT);
            assertEquals("Cpu", name(arena, info));
            assertEquals(0, intOut(arena, OrtApiSlot.MemoryInfoGetId, info));
            assertEquals(ARENA_ALLOCATOR, intOut(arena, OrtApiSlot.MemoryInfoGetType, info));
            assertEquals(MEM_TYPE_CPU_OUTPUT, intOut(arena, OrtApiSlot.MemoryInfoGetMemType, info));
            call(ortApi(), OrtApiSlot.ReleaseMemoryInfo, info);
        }
    }

    @Test
    @Probes(value = {"OrtApi::CreateMemoryInfo_V2", "OrtApi::MemoryInfoGetDeviceType", "OrtApi::MemoryInfoGetDeviceMemType",
            "OrtApi::MemoryInfoGetVendorId"},
            rulesOut = "GetDeviceMemType (321) and GetVendorId (322) are neighbours of one shape: 5 vs 0x10de;"
                    + " GetDeviceType (225) returns GPU = 1, not the device id 3")
    void createMemoryInfoV2KeepsDeviceTypeVendorDeviceIdAndMemoryType() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment info = createV2(arena, "javaep-probe", DEVICE_GPU, NVIDIA, 3, HOST_ACCESSIBLE);
            assertEquals("javaep-probe", name(arena, info));
            assertEquals(3, intOut(arena, OrtApiSlot.MemoryInfoGetId, info));
            assertEquals(ARENA_ALLOCATOR, intOut(arena, OrtApiSlot.MemoryInfoGetType, info));
            MemorySegment deviceType = arena.allocate(JAVA_INT);
            call(ortApi(), OrtApiSlot.MemoryInfoGetDeviceType, info, deviceType);
            assertEquals(DEVICE_GPU, deviceType.get(JAVA_INT, 0));
            assertEquals(HOST_ACCESSIBLE, (int) call(ortApi(), OrtApiSlot.MemoryInfoGetDeviceMemType, info));
            assertEquals(NVIDIA, (int) call(ortApi(), OrtApiSlot.MemoryInfoGetVendorId, info));
            call(ortApi(), OrtApiSlot.ReleaseMemoryInfo, info);
        }
    }

    @Test
    @Probes(value = {"OrtApi::CompareMemoryInfo"},
            rulesOut = "MemoryInfoGetName (71), its neighbour, would write a pointer, not 0 for equal and non-0 for different infos")
    void compareMemoryInfoTellsEqualFromDifferent() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = createV2(arena, "javaep-probe", DEVICE_GPU, NVIDIA, 3, HOST_ACCESSIBLE);
            MemorySegment sameAsA = createV2(arena, "javaep-probe", DEVICE_GPU, NVIDIA, 3, HOST_ACCESSIBLE);
            MemorySegment otherDevice = createV2(arena, "javaep-probe", DEVICE_GPU, NVIDIA, 4, HOST_ACCESSIBLE);
            MemorySegment result = arena.allocate(JAVA_INT);
            ok(ortApi(), OrtApiSlot.CompareMemoryInfo, a, sameAsA, result);
            assertEquals(0, result.get(JAVA_INT, 0), "equal memory infos compare as 0");
            result.set(JAVA_INT, 0, 0);
            ok(ortApi(), OrtApiSlot.CompareMemoryInfo, a, otherDevice, result);
            assertNotEquals(0, result.get(JAVA_INT, 0), "another device id compares as different");
            for (MemorySegment info : new MemorySegment[] {a, sameAsA, otherDevice}) {
                call(ortApi(), OrtApiSlot.ReleaseMemoryInfo, info);
            }
        }
    }

    @Test
    @Probes(value = {"OrtApi::GetEpApi", "OrtEpApi::MemoryInfo_GetMemoryDevice", "OrtEpApi::MemoryDevice_GetDeviceType",
            "OrtEpApi::MemoryDevice_GetMemoryType", "OrtEpApi::MemoryDevice_GetVendorId", "OrtEpApi::MemoryDevice_GetDeviceId",
            "OrtEpApi::MemoryDevice_AreEqual"},
            rulesOut = "the four MemoryDevice getters (9..12) share a shape: GPU = 1, HOST_ACCESSIBLE = 5, 0x10de and 3;"
                    + " AreEqual (8) answers true only for the same device")
    void memoryDevicesOfMemoryInfosCarryTheirFields() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment gpuPinned = createV2(arena, "javaep-probe", DEVICE_GPU, NVIDIA, 3, HOST_ACCESSIBLE);
            MemorySegment gpuPinnedAgain = createV2(arena, "another-name", DEVICE_GPU, NVIDIA, 3, HOST_ACCESSIBLE);
            MemorySegment cpuInfo = createV2(arena, "Cpu", DEVICE_CPU, 0, 0, 0);
            MemorySegment device = (MemorySegment) call(epApi(), OrtEpApiSlot.MemoryInfo_GetMemoryDevice, gpuPinned);
            assertEquals(DEVICE_GPU, (int) call(epApi(), OrtEpApiSlot.MemoryDevice_GetDeviceType, device));
            assertEquals(HOST_ACCESSIBLE, (int) call(epApi(), OrtEpApiSlot.MemoryDevice_GetMemoryType, device));
            assertEquals(NVIDIA, (int) call(epApi(), OrtEpApiSlot.MemoryDevice_GetVendorId, device));
            assertEquals(3, (int) call(epApi(), OrtEpApiSlot.MemoryDevice_GetDeviceId, device));
            MemorySegment sameDevice = (MemorySegment) call(epApi(), OrtEpApiSlot.MemoryInfo_GetMemoryDevice, gpuPinnedAgain);
            MemorySegment cpuDevice = (MemorySegment) call(epApi(), OrtEpApiSlot.MemoryInfo_GetMemoryDevice, cpuInfo);
            assertTrue((boolean) call(epApi(), OrtEpApiSlot.MemoryDevice_AreEqual, device, sameDevice),
                    "the same device under another name is equal");
            assertFalse((boolean) call(epApi(), OrtEpApiSlot.MemoryDevice_AreEqual, device, cpuDevice));
            assertEquals(DEVICE_CPU, (int) call(epApi(), OrtEpApiSlot.MemoryDevice_GetDeviceType, cpuDevice));
            for (MemorySegment info : new MemorySegment[] {gpuPinned, gpuPinnedAgain, cpuInfo}) {
                call(ortApi(), OrtApiSlot.ReleaseMemoryInfo, info);
            }
        }
    }

    @Test
    @Probes(value = {"OrtApi::GetAllocatorWithDefaultOptions", "OrtApi::AllocatorAlloc", "OrtApi::AllocatorFree",
            "OrtApi::AllocatorGetInfo"},
            rulesOut = "Alloc/Free/GetInfo (75..77): the block is writable and freed (the heap does not grow over 1000"
                    + " rounds of 64 KiB), GetInfo gives the CPU device's info")
    void theDefaultAllocatorAllocatesFreesAndDescribesItself() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment allocator = pointerOut(arena, ortApi(), OrtApiSlot.GetAllocatorWithDefaultOptions);
            MemorySegment info = pointerOut(arena, ortApi(), OrtApiSlot.AllocatorGetInfo, allocator);
            assertEquals("Cpu", name(arena, info));
            MemorySegment block = pointerOut(arena, ortApi(), OrtApiSlot.AllocatorAlloc, allocator, 4096L);
            MemorySegment memory = block.reinterpret(4096);
            memory.fill((byte) 0x5a);
            assertEquals(0x5a5a5a5a5a5a5a5aL, memory.get(JAVA_LONG, 4088));
            ok(ortApi(), OrtApiSlot.AllocatorFree, allocator, block);

            Raw.assertReleased("64 KiB blocks", 1000, 64 * 1024, () -> {
                try (Arena round = Arena.ofConfined()) {
                    MemorySegment big = pointerOut(round, ortApi(), OrtApiSlot.AllocatorAlloc, allocator, 64 * 1024L);
                    ok(ortApi(), OrtApiSlot.AllocatorFree, allocator, big);
                }
            });
        }
    }
}
