package dev.javaep.harness.conformance.gallery;

import dev.javaep.spi.DeviceOffer;
import dev.javaep.spi.ExternalMemoryDescriptor;
import dev.javaep.spi.ExternalMemoryType;
import dev.javaep.spi.ExternalResourceImporter;
import dev.javaep.spi.ExternalSemaphoreType;
import dev.javaep.spi.ImportedMemory;
import java.util.Optional;

/**
 * Gallery: the importer's {@code CanImportMemory} answers true for the Linux fd type, but {@code ImportMemory} refuses
 * every fd (an importer whose capability table was copied from another platform's). The kit must flag
 * {@code importer.can-import-truthful}.
 */
public final class LyingImporterFactory extends GalleryAddFactory {
    public static final String NAME = "JavaGalleryLyingImporterExecutionProvider";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Optional<ExternalResourceImporter> createImporter(DeviceOffer offer) {
        return Optional.of(new ExternalResourceImporter() {
            @Override
            public boolean canImportMemory(ExternalMemoryType type) {
                return type == ExternalMemoryType.VK_MEMORY_OPAQUE_FD;
            }

            @Override
            public boolean canImportSemaphore(ExternalSemaphoreType type) {
                return false;
            }

            @Override
            public ImportedMemory importMemory(ExternalMemoryDescriptor descriptor) {
                throw new UnsupportedOperationException("the gallery's lying importer imports nothing");
            }
        });
    }
}
