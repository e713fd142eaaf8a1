package dev.javaep.harness.abi;

import static dev.javaep.harness.abi.Raw.call;
import static dev.javaep.harness.abi.Raw.epApi;
import static dev.javaep.harness.abi.Raw.ok;
import static dev.javaep.harness.abi.Raw.pointerOut;
import static dev.javaep.harness.abi.Raw.sizeOut;
import static dev.javaep.harness.abi.Raw.intOut;
import static dev.javaep.harness.abi.Raw.cpuInfo;
import static dev.javaep.harness.abi.Raw.ortApi;
import static dev.javaep.harness.abi.Raw.pointer;
import static dev.javaep.harness.abi.Raw.string;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.ort.OrtApiSlot;
import dev.javaep.ort.OrtEpApiSlot;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Probes of tensors: a {2, 3, 5} int64 tensor over memory the test owns, so element type (7), rank (3), element
 * count (30), byte size (240), dims and data address are all different numbers.
 */
@ExtendWith(ProbeVersionCondition.class)
@SuppressWarnings("restricted") // raw pointers from ORT are what a probe reads
class TensorProbeIT {
    private static final int INT64 = 7;
    private static final int FLOAT = 1;
    private static final int ONNX_TYPE_TENSOR = 1;
    private static final long[] SHAPE = {2, 3, 5};
    /** {@code OrtApi::GetTypeInfo} (66): not bound by javaep; reads a value's type info for the type-info probes. */
    private static final ProbedSlots.Observer GET_TYPE_INFO = ProbedSlots.Observer.of("ortapi-slots.tsv", "GetTypeInfo", 1,
            FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS));

    /** A {2, 3, 5} int64 tensor over {@code data}, described by {@code memoryInfo}. */
    private static MemorySegment tensor(Arena arena, MemorySegment memoryInfo, MemorySegment data) {
        return pointerOut(arena, ortApi(), OrtApiSlot.CreateTensorWithDataAsOrtValue,
                memoryInfo, data, data.byteSize(), arena.allocateFrom(JAVA_LONG, SHAPE), (long) SHAPE.length, INT64);
    }

    private static MemorySegment data(Arena arena) {
        MemorySegment data = arena.allocate(JAVA_LONG, 30);
        for (int i = 0; i < 30; i++) {
            data.setAtIndex(JAVA_LONG, i, 100 + i);
        }
        return data;
    }

    /** Element type, dims count, dims, element count and HasShape of a type-and-shape info. */
    private static void assertTypeAndShape(Arena arena, MemorySegment info) {
        assertEquals(INT64, intOut(arena, OrtApiSlot.GetTensorElementType, info));
        assertEquals(SHAPE.length, sizeOut(arena, OrtApiSlot.GetDimensionsCount, info));
        MemorySegment dims = arena.allocate(JAVA_LONG, SHAPE.length);
        ok(ortApi(), OrtApiSlot.GetDimensions, info, dims, (long) SHAPE.length);
        assertArrayEquals(SHAPE, dims.toArray(JAVA_LONG));
        assertEquals(30, sizeOut(arena, OrtApiSlot.GetTensorShapeElementCount, info));
        assertTrue((boolean) call(ortApi(), OrtApiSlot.TensorTypeAndShape_HasShape, info));
    }

    @Test
    @Probes(value = {"OrtApi::CreateTensorWithDataAsOrtValue", "OrtApi::IsTensor", "OrtApi::GetValueType",
            "OrtApi::GetTensorMutableData", "OrtApi::GetTensorData", "OrtApi::GetTensorSizeInBytes",
            "OrtApi::GetTensorTypeAndShape", "OrtApi::GetTensorElementType", "OrtApi::GetDimensionsCount",
            "OrtApi::GetDimensions", "OrtApi::GetTensorShapeElementCount", "OrtApi::TensorTypeAndShape_HasShape",
            "OrtApi::ReleaseTensorTypeAndShapeInfo", "OrtApi::GetTensorMemoryInfo", "OrtApi::ReleaseValue"},
            rulesOut = "GetDimensionsCount (61) 3 vs GetTensorShapeElementCount (64) 30 vs GetTensorSizeInBytes 240;"
                    + " GetTensorMutableData/GetTensorData return the test's own address; IsTensor (50) sits between"
                    + " tensor creation and GetTensorMutableData, which would return an address, not 1")
    void aTensorOverTheTestsMemoryDescribesItself() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment cpu = cpuInfo(arena);
            MemorySegment data = data(arena);
            MemorySegment value = tensor(arena, cpu, data);
            assertEquals(1, intOut(arena, OrtApiSlot.IsTensor, value));
            assertEquals(ONNX_TYPE_TENSOR, intOut(arena, OrtApiSlot.GetValueType, value));
            assertEquals(data.address(), pointerOut(arena, OrtApiSlot.GetTensorMutableData, value).address());
            assertEquals(data.address(), pointerOut(arena, OrtApiSlot.GetTensorData, value).address());
            assertEquals(240, sizeOut(arena, OrtApiSlot.GetTensorSizeInBytes, value));

            MemorySegment typeAndShape = pointerOut(arena, OrtApiSlot.GetTensorTypeAndShape, value);
            assertTypeAndShape(arena, typeAndShape);
            call(ortApi(), OrtApiSlot.ReleaseTensorTypeAndShapeInfo, typeAndShape);

            MemorySegment memoryInfo = pointerOut(arena, OrtApiSlot.GetTensorMemoryInfo, value);
            MemorySegment name = pointerOut(arena, ortApi(), OrtApiSlot.MemoryInfoGetName, memoryInfo);
            assertEquals("Cpu", string(name));
            call(ortApi(), OrtApiSlot.ReleaseValue, value);
            call(ortApi(), OrtApiSlot.ReleaseMemoryInfo, cpu);
        }
        long[] bigShape = new long[2048];
        java.util.Arrays.fill(bigShape, 1);
        Raw.assertReleased("type-and-shape infos of rank 2048", 1000, bigShape.length * 8L, () -> {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment out = arena.allocate(ADDRESS);
                MemorySegment cpu = cpuInfo(arena);
                MemorySegment one = arena.allocate(JAVA_LONG);
                ok(ortApi(), OrtApiSlot.CreateTensorWithDataAsOrtValue, cpu, one, 8L, arena.allocateFrom(JAVA_LONG, bigShape),
                        (long) bigShape.length, INT64, out);
                MemorySegment value = pointer(out);
                MemorySegment info = pointerOut(arena, OrtApiSlot.GetTensorTypeAndShape, value);
                call(ortApi(), OrtApiSlot.ReleaseTensorTypeAndShapeInfo, info);
                call(ortApi(), OrtApiSlot.ReleaseValue, value);
                call(ortApi(), OrtApiSlot.ReleaseMemoryInfo, cpu);
            }
        });
    }

    @Test
    @Probes(value = {"OrtApi::GetTensorElementTypeAndShapeDataReference"},
            rulesOut = "RunOptionsSetSyncStream (413) before it returns nothing; the element type, the value's own shape"
                    + " array and its length come back")
    void elementTypeAndShapeByReference() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment cpu = cpuInfo(arena);
            MemorySegment value = tensor(arena, cpu, data(arena));
            MemorySegment type = arena.allocate(JAVA_INT);
            MemorySegment shape = arena.allocate(ADDRESS);
            MemorySegment count = arena.allocate(JAVA_LONG);
            ok(ortApi(), OrtApiSlot.GetTensorElementTypeAndShapeDataReference, value, type, shape, count);
            assertEquals(INT64, type.get(JAVA_INT, 0));
            assertEquals(SHAPE.length, count.get(JAVA_LONG, 0));
            assertArrayEquals(SHAPE, pointer(shape).reinterpret(SHAPE.length * 8L).toArray(JAVA_LONG));
            call(ortApi(), OrtApiSlot.ReleaseValue, value);
            call(ortApi(), OrtApiSlot.ReleaseMemoryInfo, cpu);
        }
    }

    @Test
    @Probes(value = {"OrtApi::CastTypeInfoToTensorInfo", "OrtApi::GetOnnxTypeFromTypeInfo", "OrtApi::ReleaseTypeInfo"},
            rulesOut = "CastTypeInfoToTensorInfo (55) and GetOnnxTypeFromTypeInfo (56) are neighbours: one gives a tensor"
                    + " info whose element type is 7, the other the number 1 (tensor)")
    void aTypeInfoCastsToTheTensorInfo() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment cpu = cpuInfo(arena);
            MemorySegment value = tensor(arena, cpu, data(arena));
            MemorySegment typeInfo = pointerOut(arena, ortApi(), GET_TYPE_INFO, value);
            assertEquals(ONNX_TYPE_TENSOR, intOut(arena, OrtApiSlot.GetOnnxTypeFromTypeInfo, typeInfo));
            MemorySegment tensorInfo = pointerOut(arena, OrtApiSlot.CastTypeInfoToTensorInfo, typeInfo);
            assertTypeAndShape(arena, tensorInfo);
            call(ortApi(), OrtApiSlot.ReleaseTypeInfo, typeInfo);
            call(ortApi(), OrtApiSlot.ReleaseValue, value);
            call(ortApi(), OrtApiSlot.ReleaseMemoryInfo, cpu);
        }
        long[] bigShape = new long[2048];
        java.util.Arrays.fill(bigShape, 1);
        Raw.assertReleased("type infos of rank 2048", 1000, bigShape.length * 8L, () -> {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment out = arena.allocate(ADDRESS);
                MemorySegment cpu = cpuInfo(arena);
                ok(ortApi(), OrtApiSlot.CreateTensorWithDataAsOrtValue, cpu, arena.allocate(JAVA_LONG), 8L,
                        arena.allocateFrom(JAVA_LONG, bigShape), (long) bigShape.length, INT64, out);
                MemorySegment value = pointer(out);
                ok(ortApi(), GET_TYPE_INFO, value, out);
                call(ortApi(), OrtApiSlot.ReleaseTypeInfo, pointer(out));
                call(ortApi(), OrtApiSlot.ReleaseValue, value);
                call(ortApi(), OrtApiSlot.ReleaseMemoryInfo, cpu);
            }
        });
    }

    @Test
    @Probes(value = {"OrtApi::CreateTensorAsOrtValue"},
            rulesOut = "CreateTensorWithDataAsOrtValue (49), its neighbour, takes a memory info and data: here ORT allocates"
                    + " 96 bytes of float itself")
    void createTensorAsOrtValueAllocatesTheTensor() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment allocator = pointerOut(arena, ortApi(), OrtApiSlot.GetAllocatorWithDefaultOptions);
            MemorySegment value = pointerOut(arena, ortApi(), OrtApiSlot.CreateTensorAsOrtValue,
                    allocator, arena.allocateFrom(JAVA_LONG, 4, 6), 2L, FLOAT);
            assertEquals(96, sizeOut(arena, OrtApiSlot.GetTensorSizeInBytes, value));
            MemorySegment info = pointerOut(arena, OrtApiSlot.GetTensorTypeAndShape, value);
            assertEquals(FLOAT, intOut(arena, OrtApiSlot.GetTensorElementType, info));
            assertEquals(24, sizeOut(arena, OrtApiSlot.GetTensorShapeElementCount, info));
            call(ortApi(), OrtApiSlot.ReleaseTensorTypeAndShapeInfo, info);
            MemorySegment floats = pointerOut(arena, OrtApiSlot.GetTensorMutableData, value).reinterpret(96);
            floats.setAtIndex(java.lang.foreign.ValueLayout.JAVA_FLOAT, 23, 2.5f);
            assertEquals(2.5f, floats.getAtIndex(java.lang.foreign.ValueLayout.JAVA_FLOAT, 23));
            call(ortApi(), OrtApiSlot.ReleaseValue, value);
        }
        Raw.assertReleased("64 KiB tensors ORT allocated", 1000, 64 * 1024, () -> {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment allocator = pointerOut(arena, ortApi(), OrtApiSlot.GetAllocatorWithDefaultOptions);
                MemorySegment value = pointerOut(arena, ortApi(), OrtApiSlot.CreateTensorAsOrtValue,
                        allocator, arena.allocateFrom(JAVA_LONG, 16 * 1024), 1L, FLOAT);
                call(ortApi(), OrtApiSlot.ReleaseValue, value);
            }
        });
    }

    // ---- a deleter the test owns: OrtAllocator { version; Alloc; Free; Info } with upcalls ----

    private static final List<Long> FREED = new CopyOnWriteArrayList<>();
    private static volatile MemorySegment deleterInfo;

    static MemorySegment deleterAlloc(MemorySegment self, long size) {
        throw new AssertionError("ORT never allocates through a deleter");
    }

    static void deleterFree(MemorySegment self, MemorySegment block) {
        FREED.add(block.address());
    }

    static MemorySegment deleterInfo(MemorySegment self) {
        return deleterInfo;
    }

    @Test
    @Probes(value = {"OrtApi::CreateTensorWithDataAndDeleterAsOrtValue"},
            rulesOut = "a tensor over the test's memory whose release calls the test's OrtAllocator::Free with exactly"
                    + " that address: no other slot hands data to a deleter")
    void releasingATensorWithADeleterFreesItsDataThroughTheDeleter() throws ReflectiveOperationException {
        Linker linker = Linker.nativeLinker();
        var lookup = MethodHandles.lookup();
        try (Arena arena = Arena.ofConfined()) {
            deleterInfo = cpuInfo(arena);
            MemorySegment allocator = arena.allocate(MemoryLayout.sequenceLayout(4, ADDRESS));
            allocator.set(JAVA_INT, 0, 1); // ORT_API_VERSION the deleter was "built" for: only Alloc, Free and Info
            allocator.set(ADDRESS, 8, linker.upcallStub(lookup.findStatic(TensorProbeIT.class, "deleterAlloc",
                    MethodType.methodType(MemorySegment.class, MemorySegment.class, long.class)),
                    FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_LONG), arena));
            allocator.set(ADDRESS, 16, linker.upcallStub(lookup.findStatic(TensorProbeIT.class, "deleterFree",
                    MethodType.methodType(void.class, MemorySegment.class, MemorySegment.class)),
                    FunctionDescriptor.ofVoid(ADDRESS, ADDRESS), arena));
            allocator.set(ADDRESS, 24, linker.upcallStub(lookup.findStatic(TensorProbeIT.class, "deleterInfo",
                    MethodType.methodType(MemorySegment.class, MemorySegment.class)),
                    FunctionDescriptor.of(ADDRESS, ADDRESS), arena));
            MemorySegment data = data(arena);
            MemorySegment out = arena.allocate(ADDRESS);
            FREED.clear();
            ok(ortApi(), OrtApiSlot.CreateTensorWithDataAndDeleterAsOrtValue, allocator, data, data.byteSize(),
                    arena.allocateFrom(JAVA_LONG, SHAPE), (long) SHAPE.length, INT64, out);
            MemorySegment value = pointer(out);
            assertEquals(data.address(), pointerOut(arena, OrtApiSlot.GetTensorMutableData, value).address());
            assertEquals(List.of(), FREED, "the data is the tensor's until the tensor is released");
            call(ortApi(), OrtApiSlot.ReleaseValue, value);
            assertEquals(List.of(data.address()), FREED, "ReleaseValue handed the data to the deleter's Free");
            call(ortApi(), OrtApiSlot.ReleaseMemoryInfo, deleterInfo);
        }
    }

    @Test
    @Probes(value = {"OrtEpApi::Value_GetMemoryDevice"},
            rulesOut = "MemoryInfo_GetMemoryDevice (6), its neighbour, given an OrtValue would read garbage: this returns"
                    + " the device of the memory info the tensor was made with (GPU, HOST_ACCESSIBLE, 0x10de, id 3)")
    void aTensorsMemoryDeviceIsItsMemoryInfosDevice() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment pinnedGpu = pointerOut(arena, ortApi(), OrtApiSlot.CreateMemoryInfo_V2,
                    arena.allocateFrom("javaep-probe"), 1, 0x10de, 3, 5, 0L, 0);
            MemorySegment value = tensor(arena, pinnedGpu, data(arena));
            MemorySegment device = (MemorySegment) call(epApi(), OrtEpApiSlot.Value_GetMemoryDevice, value);
            assertEquals(1, (int) call(epApi(), OrtEpApiSlot.MemoryDevice_GetDeviceType, device));
            assertEquals(5, (int) call(epApi(), OrtEpApiSlot.MemoryDevice_GetMemoryType, device));
            assertEquals(0x10de, (int) call(epApi(), OrtEpApiSlot.MemoryDevice_GetVendorId, device));
            assertEquals(3, (int) call(epApi(), OrtEpApiSlot.MemoryDevice_GetDeviceId, device));
            call(ortApi(), OrtApiSlot.ReleaseValue, value);
            call(ortApi(), OrtApiSlot.ReleaseMemoryInfo, pinnedGpu);
        }
    }
}
