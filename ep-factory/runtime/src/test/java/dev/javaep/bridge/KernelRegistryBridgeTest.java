package dev.javaep.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.ort.OrtKernelImplStruct;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.KernelDefinition;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What the per-op kernel bridge hands ORT, checked without ORT: kernel versions and the OrtKernelImpl struct. */
class KernelRegistryBridgeTest {

    private static KernelDefinition relu(int since, int last) {
        return KernelDefinition.of("Relu", since, last, Map.of("T", Set.of(ElementType.FLOAT)), info -> context -> {});
    }

    @Test
    void anOpenEndedKernelIsRefusedBecauseALaterOpVersionMayMeanSomethingElse() {
        // ORT matches an INT_MAX end only to the kernel's first version; javaep asks for the real last one.
        var e = assertThrows(IllegalArgumentException.class, () -> relu(6, Integer.MAX_VALUE));
        assertTrue(e.getMessage().contains("last opset version"), e.getMessage());
        assertTrue(relu(6, 14).covers(new dev.javaep.spi.Node(1, "r", "Relu", "", 14, java.util.List.of(),
                java.util.List.of(), Map.of())));
        assertFalse(relu(6, 14).covers(new dev.javaep.spi.Node(1, "r", "Relu", "", 16, java.util.List.of(),
                java.util.List.of(), Map.of())));
    }

    @Test
    void opKernelStructsHaveComputeAndReleaseAndLeaveFlagsAndPrePackingZero() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment impl = OpKernelBridge.STRUCT.allocate(arena, 24);
            assertEquals(OrtKernelImplStruct.SIZE, impl.byteSize());
            assertEquals(24, impl.get(ValueLayout.JAVA_INT, 0), "ort_version_supported");
            assertEquals(0, impl.get(ValueLayout.JAVA_INT, OrtKernelImplStruct.FLAGS_OFFSET), "flags must be 0");
            assertNotEquals(MemorySegment.NULL, impl.get(ValueLayout.ADDRESS, OrtKernelImplStruct.Compute.byteOffset()));
            assertNotEquals(MemorySegment.NULL, impl.get(ValueLayout.ADDRESS, OrtKernelImplStruct.Release.byteOffset()));
            assertEquals(MemorySegment.NULL, impl.get(ValueLayout.ADDRESS, OrtKernelImplStruct.PrePackWeight.byteOffset()),
                    "optional: NULL tells ORT the kernel pre-packs nothing");
            assertEquals(MemorySegment.NULL,
                    impl.get(ValueLayout.ADDRESS, OrtKernelImplStruct.SetSharedPrePackedWeight.byteOffset()));
        }
    }
}
