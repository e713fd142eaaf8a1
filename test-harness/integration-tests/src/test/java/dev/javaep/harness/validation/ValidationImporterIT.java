package dev.javaep.harness.validation;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.harness.conformance.gallery.GalleryAddFactory;
import dev.javaep.harness.conformance.gallery.LyingImporterFactory;
import dev.javaep.harness.interop.MemFd;
import dev.javaep.host.ExternalMemory;
import dev.javaep.host.ExternalResourceImporter;
import dev.javaep.host.ExternalResourceImporter.TensorDescriptor;
import dev.javaep.host.FileDescriptors;
import dev.javaep.host.OrtEnvironment;
import dev.javaep.host.OrtTensor;
import dev.javaep.ort.OrtErrorCode;
import dev.javaep.ort.OrtException;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.ExternalMemoryType;
import dev.javaep.validation.Violation;
import dev.javaep.validation.Violations;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The external-resource importer behind the validation layer (docs/validation-layer.md): JavaCpu's importer imports an
 * app's memfd through the layer's proxies with no violation and the data right; the conformance gallery's lying
 * importer (CanImportMemory true, ImportMemory refusing) is reported as {@link Violation#CAN_IMPORT_LIE}.
 */
class ValidationImporterIT {
    private static final String JAVA_CPU = "JavaCpuExecutionProvider";
    private static final float[] PIXELS = {1.5f, -2f, 3.25f, 0f, 7f, 8f, -9.5f, 10f};

    @TempDir
    static Path work;

    @Test
    void javaCpuImportsThroughTheLayerWithNoViolationAndTheDataRight() throws IOException {
        Violations.clear();
        Path trace = work.resolve("importer-trace.json");
        float[] read = ValidationLayerIT.withRegistration("validation-importer", ValidationLayerIT.layer(work, Map.of(
                "javaep.factories", JAVA_CPU, "javaep.validate.trace", trace.toString())), env -> {
            try (ExternalResourceImporter importer = importer(env, JAVA_CPU); MemFd shared = new MemFd(4096)) {
                assertTrue(importer.canImportMemory(ExternalMemoryType.VK_MEMORY_OPAQUE_FD));
                shared.writeFloats(64, PIXELS);
                try (ExternalMemory memory = importer.importMemory(ExternalMemoryType.VK_MEMORY_OPAQUE_FD,
                        shared.exportFd(), shared.size(), 0);
                     OrtTensor tensor = importer.createTensor(memory, TensorDescriptor.of(ElementType.FLOAT,
                             new long[] {2, 4}, 64))) {
                    return tensor.toHost().floats();
                }
            }
        });

        assertArrayEquals(PIXELS, read, "the tensor over the imported memfd reads the app's bytes");
        assertEquals(Map.of(), Violations.counts(), () -> "violations: " + Violations.recent());
        Map<String, Integer> events = ValidationLayerIT.eventCounts(Files.readString(trace));
        for (String callback : List.of("OrtEpFactory::CreateExternalResourceImporterForDevice",
                "OrtExternalResourceImporterImpl::CanImportMemory", "OrtExternalResourceImporterImpl::ImportMemory",
                "OrtExternalResourceImporterImpl::CreateTensorFromMemory", "OrtExternalMemoryHandle::Release",
                "OrtExternalResourceImporterImpl::Release")) {
            assertTrue(events.getOrDefault(callback, 0) > 0, callback + " went through the layer: " + events);
        }
    }

    @Test
    void theGallerysLyingImporterIsReportedAsALie() {
        Violations.clear();
        String lying = GalleryAddFactory.nameOf(LyingImporterFactory.class);
        ValidationLayerIT.withRegistration("validation-lying-importer", ValidationLayerIT.layer(work, Map.of(
                "javaep.factories", lying)), env -> {
            try (ExternalResourceImporter importer = importer(env, lying); MemFd shared = new MemFd(4096)) {
                assertTrue(importer.canImportMemory(ExternalMemoryType.VK_MEMORY_OPAQUE_FD), "the lie");
                int fd = shared.exportFd();
                try {
                    OrtException refused = assertThrows(OrtException.class, () -> importer.importMemory(
                            ExternalMemoryType.VK_MEMORY_OPAQUE_FD, fd, shared.size(), 0).close());
                    assertEquals(OrtErrorCode.NOT_IMPLEMENTED, refused.code(), refused.getMessage());
                } finally {
                    FileDescriptors.close(fd); // a refused import leaves the fd the app's
                }
            }
            return null;
        });

        assertEquals(Map.of(Violation.CAN_IMPORT_LIE, 1L), Violations.counts(), () -> "violations: " + Violations.recent());
        Violations.Report lie = Violations.recent().getFirst();
        assertEquals("OrtExternalResourceImporterImpl::ImportMemory", lie.callback());
        assertTrue(lie.detail().startsWith("CanImportMemory(" + ExternalMemoryType.VK_MEMORY_OPAQUE_FD.ortValue()
                + ") answered true"), lie.detail());
    }

    private static ExternalResourceImporter importer(OrtEnvironment env, String epName) {
        return env.createExternalResourceImporter(env.epDevice(epName))
                .orElseThrow(() -> new AssertionError(epName + " offers no importer behind the layer"));
    }
}
