package dev.javaep.harness.conformance.gallery;

import dev.javaep.spi.DeviceOffer;
import dev.javaep.spi.ExternalResourceImporter;
import java.util.Optional;

/**
 * Gallery: the importer's {@code CanImportMemory} answers true for the Linux fd type, but {@code ImportMemory} refuses
 * every fd (an importer whose capability table was copied from another platform's). The kit must flag
 * {@code importer.can-import-truthful}.
 */
public final class LyingImporterFactory extends GalleryAddFactory {
    @Override
    public Optional<ExternalResourceImporter> createImporter(DeviceOffer offer) {
        return Optional.of(fdImporter(descriptor -> {
            throw new UnsupportedOperationException("the gallery's lying importer imports nothing");
        }));
    }
}
