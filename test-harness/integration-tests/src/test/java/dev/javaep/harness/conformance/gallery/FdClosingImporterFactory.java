package dev.javaep.harness.conformance.gallery;

import dev.javaep.os.Posix;
import dev.javaep.spi.DeviceOffer;
import dev.javaep.spi.ExternalMemoryDescriptor;
import dev.javaep.spi.ExternalResourceImporter;
import dev.javaep.spi.ImportedMemory;
import java.util.Optional;

/**
 * Gallery: imports memfds correctly, but its error path closes the fd before refusing a descriptor whose size the file
 * does not hold; the caller, told the import failed, still owns that fd and closes it again, maybe after its number
 * went to another file. The kit must flag {@code importer.caller-handles-untouched}.
 */
public final class FdClosingImporterFactory extends GalleryAddFactory {
    @Override
    public Optional<ExternalResourceImporter> createImporter(DeviceOffer offer) {
        return Optional.of(fdImporter(FdClosingImporterFactory::importMemory));
    }

    private static ImportedMemory importMemory(ExternalMemoryDescriptor descriptor) {
        int fd = descriptor.fileDescriptor();
        long fileSize = Posix.fstat(fd).size();
        if (fileSize < descriptor.sizeBytes()) {
            Posix.close(fd); // the bug: a refused import leaves the fd to the caller
            throw new IllegalArgumentException("fd " + fd + " holds " + fileSize + " bytes, less than size_bytes");
        }
        long base = Posix.mapShared(fd, fileSize);
        Posix.close(fd); // taken on success, as javaep's EPs take it
        return new ImportedMemory() {
            @Override
            public long address() {
                return base + descriptor.offsetBytes();
            }

            @Override
            public long byteSize() {
                return descriptor.mappedBytes();
            }

            @Override
            public void close() {
                Posix.unmap(base, fileSize);
            }
        };
    }
}
