package dev.javaep.harness.interop;

import dev.javaep.host.ExternalMemory;
import dev.javaep.host.ExternalResourceImporter;
import dev.javaep.host.ExternalResourceImporter.TensorDescriptor;
import dev.javaep.host.IoBinding;
import dev.javaep.host.OrtTensor;
import dev.javaep.host.RunOptions;
import dev.javaep.host.Session;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.ExternalMemoryType;

/**
 * The zero-copy Run the importer ITs make of an app's two buffers: both are imported as opaque-fd memory, viewed
 * as float tensors of one shape and bound as the image-normalizing model's input {@code image} and output
 * {@code normalized}, so ORT reads the app's input and writes into its output with no host copy.
 */
public final class ImportedImageRun {
    private ImportedImageRun() {}

    /** An app buffer exported as an opaque fd (which the importer takes over) and the size of its allocation. */
    public record ExportedBuffer(int fd, long allocationSize) {}

    /** One Run; the imports and tensors are released before it returns, the buffers' contents stay the app's. */
    public static void run(Session session, ExternalResourceImporter importer, RunOptions runOptions, long[] shape,
                           ExportedBuffer input, ExportedBuffer output) {
        try (ExternalMemory in = importer.importMemory(ExternalMemoryType.VK_MEMORY_OPAQUE_FD, input.fd(), input.allocationSize(), 0);
             ExternalMemory out = importer.importMemory(ExternalMemoryType.VK_MEMORY_OPAQUE_FD, output.fd(), output.allocationSize(), 0);
             OrtTensor image = importer.createTensor(in, TensorDescriptor.of(ElementType.FLOAT, shape, 0));
             OrtTensor normalized = importer.createTensor(out, TensorDescriptor.of(ElementType.FLOAT, shape, 0));
             IoBinding binding = session.createIoBinding()) {
            binding.bindInput("image", image).bindOutput("normalized", normalized);
            session.run(binding, runOptions);
        }
    }
}
