package dev.javaep.ort;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.FunctionDescriptor;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The per-op kernel ABI javaep declares agrees with ORT's 1.24+ headers (ort-abi.md §2.2, §2.8, §5.2). */
class OrtKernelAbiTest {

    @Test
    void ortKernelImplIsVersionAndFlagsThenFourCallbacks() {
        assertEquals(40, OrtKernelImplStruct.SIZE);
        assertEquals(4, OrtKernelImplStruct.FLAGS_OFFSET, "uint32 flags follows uint32 ort_version_supported");
        assertEquals(List.of(8L, 16L, 24L, 32L),
                List.of(OrtKernelImplStruct.values()).stream().map(CallbackSlot::byteOffset).toList());
        assertEquals(List.of("Compute", "Release", "PrePackWeight", "SetSharedPrePackedWeight"),
                List.of(OrtKernelImplStruct.values()).stream().map(Enum::name).toList());
        for (OrtKernelImplStruct slot : OrtKernelImplStruct.values()) {
            assertEquals(24, slot.since(), slot.name());
        }
        assertEquals(FunctionDescriptor.of(CTypes.STATUS, CTypes.POINTER, CTypes.POINTER),
                OrtKernelImplStruct.Compute.descriptor());
        assertTrue(OrtKernelImplStruct.Compute.returnsStatus());
        assertTrue(!OrtKernelImplStruct.Release.returnsStatus(), "Release returns void");
        assertEquals(6, OrtKernelImplStruct.PrePackWeight.descriptor().argumentLayouts().size());
        assertEquals(5, OrtKernelImplStruct.SetSharedPrePackedWeight.descriptor().argumentLayouts().size());
    }

    @Test
    void kernelCreateFuncTakesStateInfoAndOutAndReturnsAStatus() {
        assertEquals(FunctionDescriptor.of(CTypes.STATUS, CTypes.POINTER, CTypes.POINTER, CTypes.POINTER),
                OrtKernelCreateFunc.Create.descriptor());
        assertTrue(OrtKernelCreateFunc.Create.returnsStatus());
        assertThrows(UnsupportedOperationException.class, OrtKernelCreateFunc.Create::byteOffset,
                "a typedef passed by value has no place in a struct");
    }

    @Test
    void getKernelRegistryIsTheOrtEpSlotAt104SinceApi24() {
        assertEquals(104, OrtEpStruct.GetKernelRegistry.byteOffset());
        assertEquals(24, OrtEpStruct.GetKernelRegistry.since());
        assertEquals(FunctionDescriptor.of(CTypes.STATUS, CTypes.POINTER, CTypes.POINTER),
                OrtEpStruct.GetKernelRegistry.descriptor());
    }

    @Test
    void kernelRegistryFunctionsAreOrtEpApiSlots18To40() {
        assertEquals(18, OrtEpApiSlot.CreateKernelRegistry.index());
        assertEquals(20, OrtEpApiSlot.KernelRegistry_AddKernel.index());
        assertEquals(25, OrtEpApiSlot.KernelDefBuilder_SetSinceVersion.index());
        assertEquals(29, OrtEpApiSlot.KernelDefBuilder_AddTypeConstraint.index());
        assertEquals(32, OrtEpApiSlot.KernelDefBuilder_Build.index());
        assertEquals(33, OrtEpApiSlot.ReleaseKernelDef.index());
        assertEquals(40, OrtEpApiSlot.GetTensorDataType.index());
        assertEquals(FunctionDescriptor.of(CTypes.STATUS, CTypes.POINTER, CTypes.POINTER, CTypes.POINTER, CTypes.POINTER),
                OrtEpApiSlot.KernelRegistry_AddKernel.descriptor(), "(registry, def, OrtKernelCreateFunc, void* state)");
        assertEquals(FunctionDescriptor.of(CTypes.STATUS, CTypes.POINTER, CTypes.SIZE_T, CTypes.ENUM),
                OrtEpApiSlot.KernelDefBuilder_SetInputMemType.descriptor());
        for (OrtEpApiSlot slot : List.of(OrtEpApiSlot.CreateKernelRegistry, OrtEpApiSlot.ReleaseKernelRegistry,
                OrtEpApiSlot.KernelRegistry_AddKernel, OrtEpApiSlot.CreateKernelDefBuilder, OrtEpApiSlot.ReleaseKernelDefBuilder,
                OrtEpApiSlot.KernelDefBuilder_Build, OrtEpApiSlot.ReleaseKernelDef, OrtEpApiSlot.GetTensorDataType)) {
            assertEquals(24, slot.since(), slot.name());
        }
        assertEquals(24, OrtApiSlot.KernelInfo_GetOperatorType.since());
        assertEquals(24, OrtApiSlot.KernelInfo_GetOperatorSinceVersion.since());
    }

    @Test
    void memTypesHaveTheirCValues() {
        assertEquals(-2, OrtMemType.CPU_INPUT.value());
        assertEquals(-1, OrtMemType.CPU_OUTPUT.value());
        assertEquals(0, OrtMemType.DEFAULT.value());
    }
}
