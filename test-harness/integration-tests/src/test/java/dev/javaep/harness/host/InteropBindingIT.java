package dev.javaep.harness.host;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.harness.JavaepRegistration;
import dev.javaep.host.EpDevice;
import dev.javaep.host.ExternalResourceImporter;
import dev.javaep.host.ExternalResourceImporter.MemoryDescriptor;
import dev.javaep.host.ExternalResourceImporter.SemaphoreDescriptor;
import dev.javaep.host.ExternalResourceImporter.TensorDescriptor;
import dev.javaep.host.OrtHost;
import dev.javaep.ort.FunctionTable;
import dev.javaep.ort.OrtErrorCode;
import dev.javaep.ort.OrtException;
import dev.javaep.ort.OrtInteropApiSlot;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.ExternalMemoryType;
import dev.javaep.spi.ExternalSemaphoreType;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The host binding of {@code OrtInteropApi} against the real ORT 1.29: the table resolves, and ORT
 * core's own answers (a NULL EP device, an EP without an importer) come through as the binding
 * promises. The EPs' importers have tests of their own.
 */
class InteropBindingIT {
    private static final String REGISTRATION = "javaep-interop-binding";
    private static final String ORT_CPU = "CPUExecutionProvider";
    @RegisterExtension
    static final JavaepRegistration JAVAEP = new JavaepRegistration(REGISTRATION, OrtHost.LogLevel.WARNING);

    @Test
    void interopTableHasEverySlotJavaepDeclares() {
        OrtHost host = OrtHost.shared();
        FunctionTable interop = host.interop();
        assertSame(interop, host.interop(), "the table is fetched once");
        assertEquals(host.api().version(), interop.version(), "read at the negotiated version");
        for (OrtInteropApiSlot slot : OrtInteropApiSlot.values()) {
            assertTrue(interop.has(slot), "OrtInteropApi::" + slot.name() + " missing in ORT " + host.version());
        }
    }

    @Test
    void nullEpDeviceIsRefusedByOrtCore() {
        OrtException refused = assertThrows(OrtException.class, () -> JAVAEP.env().createExternalResourceImporter(null));
        assertEquals(OrtErrorCode.INVALID_ARGUMENT, refused.code(), refused.getMessage());
        System.out.println("[InteropBindingIT] NULL ep_device: " + refused);
    }

    @Test
    void epWithoutAnImporterGivesEmpty() {
        // ORT's own CPU EP has no importer: ORT answers success with a NULL importer
        EpDevice cpu = JAVAEP.env().epDevice(ORT_CPU);
        Optional<ExternalResourceImporter> importer = JAVAEP.env().createExternalResourceImporter(cpu);
        importer.ifPresent(ExternalResourceImporter::close);
        assertTrue(importer.isEmpty(), "ORT's CPU EP offers no external resource importer");
    }

    @Test
    void descriptorFactoriesFillTheHostVersion() {
        int version = OrtHost.shared().api().version();
        MemoryDescriptor memory = MemoryDescriptor.of(ExternalMemoryType.VK_MEMORY_OPAQUE_FD, 42, 1 << 21, 256);
        assertEquals(new MemoryDescriptor(version, 3, 42, 1 << 21, 256), memory);
        assertEquals(Optional.of(ExternalMemoryType.VK_MEMORY_OPAQUE_FD), memory.type());
        assertEquals(99, memory.withVersion(99).version());

        SemaphoreDescriptor semaphore = SemaphoreDescriptor.of(ExternalSemaphoreType.VK_TIMELINE_SEMAPHORE_OPAQUE_FD, 7);
        assertEquals(new SemaphoreDescriptor(version, 2, 7), semaphore);

        long[] shape = {2, 3};
        TensorDescriptor tensor = TensorDescriptor.of(ElementType.FLOAT, shape, 64);
        shape[0] = 5; // the record keeps its own copy
        assertEquals(new TensorDescriptor(version, ElementType.FLOAT.onnxValue(), new long[] {2, 3}, 2, 64), tensor);
        assertArrayEquals(new long[] {2, 3}, tensor.shape());
        assertEquals(3, tensor.withRank(3).rank(), "rank may disagree with the shape, for tests");
        assertNull(new TensorDescriptor(version, 1, null, 2, 0).shape(), "a null shape stays null (a NULL pointer)");
    }
}
