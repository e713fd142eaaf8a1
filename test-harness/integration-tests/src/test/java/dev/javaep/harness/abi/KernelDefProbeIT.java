package dev.javaep.harness.abi;

import static dev.javaep.harness.abi.Raw.call;
import static dev.javaep.harness.abi.Raw.epApi;
import static dev.javaep.harness.abi.Raw.ok;
import static dev.javaep.harness.abi.Raw.pointer;
import static dev.javaep.harness.abi.Raw.pointerOut;
import static dev.javaep.harness.abi.Raw.string;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.ort.OrtEpApiSlot;
import dev.javaep.ort.OrtErrorCode;
import dev.javaep.ort.OrtException;
import dev.javaep.ort.OrtKernelCreateFunc;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Probes of the kernel-definition builder and registry (OrtEpApi, API 24): plain functions, so the test builds a
 * definition with values no two setters share and reads it back through ORT's {@code KernelDef_Get*} (OrtEpApi
 * 34..39, unbound by javaep, indices from the cross-checked table).
 */
@ExtendWith(ProbeVersionCondition.class)
@SuppressWarnings("restricted") // raw pointers from ORT are what a probe reads
class KernelDefProbeIT {
    private static final ProbedSlots.Observer GET_OPERATOR_TYPE = observer("KernelDef_GetOperatorType",
            FunctionDescriptor.of(ADDRESS, ADDRESS));
    private static final ProbedSlots.Observer GET_DOMAIN = observer("KernelDef_GetDomain", FunctionDescriptor.of(ADDRESS, ADDRESS));
    private static final ProbedSlots.Observer GET_SINCE_VERSION = observer("KernelDef_GetSinceVersion",
            FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, ADDRESS));
    private static final ProbedSlots.Observer GET_EXECUTION_PROVIDER = observer("KernelDef_GetExecutionProvider",
            FunctionDescriptor.of(ADDRESS, ADDRESS));
    private static final ProbedSlots.Observer GET_INPUT_MEM_TYPE = observer("KernelDef_GetInputMemType",
            FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_LONG, ADDRESS));
    private static final ProbedSlots.Observer GET_OUTPUT_MEM_TYPE = observer("KernelDef_GetOutputMemType",
            FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_LONG, ADDRESS));
    private static final int FLOAT = 1;
    private static final int INT64 = 7;
    private static final int CPU_INPUT = -2;
    private static final int CPU_OUTPUT = -1;

    private static ProbedSlots.Observer observer(String name, FunctionDescriptor descriptor) {
        return ProbedSlots.Observer.of("ortepapi-slots.tsv", name, 24, descriptor);
    }

    static MemorySegment neverCalled(MemorySegment state, MemorySegment info, MemorySegment out) {
        throw new AssertionError("a registry that is never used creates no kernel");
    }

    private static MemorySegment dataType(Arena arena, int elementType) {
        return pointerOut(arena, epApi(), OrtEpApiSlot.GetTensorDataType, elementType);
    }

    private static MemorySegment build(Arena arena, String opType) {
        MemorySegment out = arena.allocate(ADDRESS);
        ok(epApi(), OrtEpApiSlot.CreateKernelDefBuilder, out);
        MemorySegment builder = pointer(out);
        ok(epApi(), OrtEpApiSlot.KernelDefBuilder_SetOperatorType, builder, arena.allocateFrom(opType));
        ok(epApi(), OrtEpApiSlot.KernelDefBuilder_SetDomain, builder, arena.allocateFrom("probe.domain"));
        ok(epApi(), OrtEpApiSlot.KernelDefBuilder_SetSinceVersion, builder, 3, 11);
        ok(epApi(), OrtEpApiSlot.KernelDefBuilder_SetExecutionProvider, builder, arena.allocateFrom("JavaProbeEP"));
        ok(epApi(), OrtEpApiSlot.KernelDefBuilder_SetInputMemType, builder, 1L, CPU_INPUT);
        ok(epApi(), OrtEpApiSlot.KernelDefBuilder_SetOutputMemType, builder, 0L, CPU_OUTPUT);
        MemorySegment types = arena.allocate(ADDRESS, 2);
        types.setAtIndex(ADDRESS, 0, dataType(arena, FLOAT));
        types.setAtIndex(ADDRESS, 1, dataType(arena, INT64));
        ok(epApi(), OrtEpApiSlot.KernelDefBuilder_AddTypeConstraint, builder, arena.allocateFrom("T"), types, 2L);
        ok(epApi(), OrtEpApiSlot.KernelDefBuilder_Build, builder, out);
        call(epApi(), OrtEpApiSlot.ReleaseKernelDefBuilder, builder);
        return pointer(out);
    }

    private static int memType(Arena arena, ProbedSlots.Observer slot, MemorySegment def, long index) {
        MemorySegment out = arena.allocate(JAVA_INT);
        ok(epApi(), slot, def, index, out);
        return out.get(JAVA_INT, 0);
    }

    @Test
    @Probes(value = {"OrtEpApi::CreateKernelDefBuilder", "OrtEpApi::KernelDefBuilder_SetOperatorType",
            "OrtEpApi::KernelDefBuilder_SetDomain", "OrtEpApi::KernelDefBuilder_SetSinceVersion",
            "OrtEpApi::KernelDefBuilder_SetExecutionProvider", "OrtEpApi::KernelDefBuilder_SetInputMemType",
            "OrtEpApi::KernelDefBuilder_SetOutputMemType", "OrtEpApi::KernelDefBuilder_AddTypeConstraint",
            "OrtEpApi::KernelDefBuilder_Build", "OrtEpApi::ReleaseKernelDefBuilder", "OrtEpApi::ReleaseKernelDef",
            "OrtEpApi::GetTensorDataType"},
            rulesOut = "SetOperatorType/SetDomain (23/24) and SetInputMemType/SetOutputMemType (27/28) are pairs of one"
                    + " shape: op 'ProbeOp' vs domain 'probe.domain', input 1 = CPU_INPUT vs output 0 = CPU_OUTPUT read"
                    + " back apart; versions 3..11; GetTensorDataType gives one type per element type")
    void aKernelDefinitionReadsBackWhatTheBuilderWasTold() {
        try (Arena arena = Arena.ofConfined()) {
            assertEquals(dataType(arena, FLOAT), dataType(arena, FLOAT), "ORT's data types are singletons");
            assertNotEquals(dataType(arena, FLOAT), dataType(arena, INT64));
            MemorySegment def = build(arena, "ProbeOp");
            assertEquals("ProbeOp", string((MemorySegment) call(epApi(), GET_OPERATOR_TYPE, def)));
            assertEquals("probe.domain", string((MemorySegment) call(epApi(), GET_DOMAIN, def)));
            assertEquals("JavaProbeEP", string((MemorySegment) call(epApi(), GET_EXECUTION_PROVIDER, def)));
            MemorySegment start = arena.allocate(JAVA_INT);
            MemorySegment end = arena.allocate(JAVA_INT);
            ok(epApi(), GET_SINCE_VERSION, def, start, end);
            assertEquals(List.of(3, 11), List.of(start.get(JAVA_INT, 0), end.get(JAVA_INT, 0)));
            assertEquals(CPU_INPUT, memType(arena, GET_INPUT_MEM_TYPE, def, 1));
            assertEquals(0, memType(arena, GET_INPUT_MEM_TYPE, def, 0), "input 0 stays in the EP's memory");
            assertEquals(CPU_OUTPUT, memType(arena, GET_OUTPUT_MEM_TYPE, def, 0));
            call(epApi(), OrtEpApiSlot.ReleaseKernelDef, def);
        }
        String opType = Raw.large(64 * 1024);
        Raw.assertReleased("kernel definitions of a 64 KiB op type, and their builders", 1000, 2L * opType.length(), () -> {
            try (Arena arena = Arena.ofConfined()) {
                call(epApi(), OrtEpApiSlot.ReleaseKernelDef, build(arena, opType));
            }
        });
    }

    @Test
    @Probes(value = {"OrtEpApi::CreateKernelRegistry", "OrtEpApi::KernelRegistry_AddKernel", "OrtEpApi::ReleaseKernelRegistry"},
            rulesOut = "AddKernel takes a definition and refuses a NULL definition or create function, naming which"
                    + " (INVALID_ARGUMENT); ReleaseKernelRegistry frees 1000 registries holding a 64 KiB definition each")
    void aKernelRegistryTakesADefinitionAndItsCreateFunction() throws ReflectiveOperationException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment create = Linker.nativeLinker().upcallStub(MethodHandles.lookup().findStatic(KernelDefProbeIT.class,
                    "neverCalled", MethodType.methodType(MemorySegment.class, MemorySegment.class, MemorySegment.class,
                            MemorySegment.class)), OrtKernelCreateFunc.Create.descriptor(), arena);
            MemorySegment registry = pointerOut(arena, epApi(), OrtEpApiSlot.CreateKernelRegistry);
            MemorySegment def = build(arena, "ProbeOp");
            ok(epApi(), OrtEpApiSlot.KernelRegistry_AddKernel, registry, def, create, MemorySegment.NULL);
            OrtException noDef = Raw.failure(epApi(), OrtEpApiSlot.KernelRegistry_AddKernel, registry, MemorySegment.NULL, create,
                    MemorySegment.NULL);
            assertEquals(OrtErrorCode.INVALID_ARGUMENT, noDef.code());
            assertTrue(noDef.getMessage().contains("OrtKernelDef"), noDef::getMessage);
            OrtException noFunc = Raw.failure(epApi(), OrtEpApiSlot.KernelRegistry_AddKernel, registry, def, MemorySegment.NULL,
                    MemorySegment.NULL);
            assertEquals(OrtErrorCode.INVALID_ARGUMENT, noFunc.code());
            assertTrue(noFunc.getMessage().contains("OrtKernelCreateFunc"), noFunc::getMessage);
            call(epApi(), OrtEpApiSlot.ReleaseKernelRegistry, registry);
            call(epApi(), OrtEpApiSlot.ReleaseKernelDef, def);

            String opType = Raw.large(64 * 1024);
            Raw.assertReleased("kernel registries with a 64 KiB definition", 1000, opType.length(), () -> {
                try (Arena round = Arena.ofConfined()) {
                    MemorySegment roundRegistry = pointerOut(round, epApi(), OrtEpApiSlot.CreateKernelRegistry);
                    MemorySegment kernelDef = build(round, opType);
                    ok(epApi(), OrtEpApiSlot.KernelRegistry_AddKernel, roundRegistry, kernelDef, create, MemorySegment.NULL);
                    call(epApi(), OrtEpApiSlot.ReleaseKernelDef, kernelDef);
                    call(epApi(), OrtEpApiSlot.ReleaseKernelRegistry, roundRegistry);
                }
            });
        }
    }
}
