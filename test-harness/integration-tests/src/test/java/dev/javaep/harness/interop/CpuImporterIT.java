package dev.javaep.harness.interop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.conformance.models.Models;
import dev.javaep.harness.JavaepRegistration;
import dev.javaep.harness.ProcessMemory;
import dev.javaep.host.EpDevice;
import dev.javaep.host.ExternalMemory;
import dev.javaep.host.ExternalResourceImporter;
import dev.javaep.host.ExternalResourceImporter.MemoryDescriptor;
import dev.javaep.host.ExternalResourceImporter.SemaphoreDescriptor;
import dev.javaep.host.ExternalResourceImporter.TensorDescriptor;
import dev.javaep.host.FileDescriptors;
import dev.javaep.host.IoBinding;
import dev.javaep.host.OrtHost;
import dev.javaep.host.OrtTensor;
import dev.javaep.host.Session;
import dev.javaep.host.SessionOptions;
import dev.javaep.ort.OrtErrorCode;
import dev.javaep.ort.OrtException;
import dev.javaep.ort.OrtInteropApiSlot;
import dev.javaep.ort.OrtInteropLayouts;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.ExternalMemoryType;
import dev.javaep.spi.ExternalSemaphoreType;
import java.io.FileInputStream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * JavaCpuExecutionProvider's importer through the real ORT {@code OrtInteropApi}: zero-copy runs over
 * shared memory the app owns, every bad input with its status code, lifetimes in any release order, and
 * import/release cycles with fds and RSS flat.
 */
class CpuImporterIT {
    private static final String REGISTRATION = "javaep-cpu-importer";
    private static final String JAVA_CPU = "JavaCpuExecutionProvider";
    static final int HEIGHT = 8, WIDTH = 16;
    static final long IMAGE_BYTES = (long) HEIGHT * WIDTH * 4 * Float.BYTES;
    private static final float[] MEAN = {0.485f, 0.456f, 0.406f, 0.5f};
    private static final float[] SCALE = {1 / 0.229f, 1 / 0.224f, 1 / 0.225f, 2f};

    /** VulkanCpuImporterIT registers it too: it runs its Vulkan frames through this class's importer and session. */
    @RegisterExtension
    static final JavaepRegistration JAVAEP = new JavaepRegistration(REGISTRATION);

    private static EpDevice device() {
        return JAVAEP.device(JAVA_CPU);
    }

    static ExternalResourceImporter importer() {
        return JAVAEP.env().createExternalResourceImporter(device()).orElseThrow(() -> new AssertionError("JavaCpu offers no importer"));
    }

    static Session normalizeSession() {
        try (SessionOptions options = JAVAEP.env().createSessionOptions()) {
            options.disableCpuEpFallback().appendExecutionProvider(List.of(device()), Map.of());
            return JAVAEP.env().createSession(Models.normalizeImage(HEIGHT, WIDTH), options);
        }
    }

    static float[] image(int seed) {
        float[] pixels = new float[HEIGHT * WIDTH * 4];
        for (int i = 0; i < pixels.length; i++) {
            pixels[i] = ((i * 31 + seed * 7) % 256) / 255f;
        }
        return pixels;
    }

    static float[] normalized(float[] image) {
        float[] out = new float[image.length];
        for (int i = 0; i < image.length; i++) {
            out[i] = (image[i] - MEAN[i % 4]) * SCALE[i % 4];
        }
        return out;
    }

    static void assertClose(float[] expected, float[] actual, String what) {
        assertEquals(expected.length, actual.length, what + " length");
        for (int i = 0; i < expected.length; i++) {
            assertEquals(expected[i], actual[i], 1e-5f, what + "[" + i + "]");
        }
    }

    @Test
    void capabilitiesAreTruthfulForLinuxAndThisRuntime() {
        try (ExternalResourceImporter importer = importer()) {
            assertTrue(importer.canImportMemory(ExternalMemoryType.VK_MEMORY_OPAQUE_FD));
            assertFalse(importer.canImportMemory(ExternalMemoryType.D3D12_RESOURCE));
            assertFalse(importer.canImportMemory(ExternalMemoryType.D3D12_HEAP));
            assertFalse(importer.canImportMemory(ExternalMemoryType.VK_MEMORY_WIN32));
            assertEquals(minorVersion() >= 30,
                    importer.canImportMemory(ExternalMemoryType.HOST_ALLOCATION), "HOST_ALLOCATION exists from ORT 1.30");
            assertFalse(importer.canImportMemory(99));
            for (ExternalSemaphoreType type : ExternalSemaphoreType.values()) {
                assertFalse(importer.canImportSemaphore(type), type + ": the CPU EP has no semaphores");
            }
        }
    }

    private static int minorVersion() {
        return Integer.parseInt(OrtHost.shared().version().split("\\.")[1]);
    }

    @Test
    void runReadsAndWritesTheAppsSharedMemoryWithoutCopies() {
        float[] pixels = image(1);
        try (MemFd input = new MemFd(IMAGE_BYTES + 4096);
             MemFd output = new MemFd(IMAGE_BYTES);
             ExternalResourceImporter importer = importer();
             Session session = normalizeSession()) {
            input.writeFloats(4096, pixels);
            // The input starts 4 KiB into its allocation: the memory descriptor's offset.
            try (ExternalMemory in = importer.importMemory(ExternalMemoryType.VK_MEMORY_OPAQUE_FD, input.exportFd(),
                         input.size(), 4096);
                 ExternalMemory out = importer.importMemory(ExternalMemoryType.VK_MEMORY_OPAQUE_FD, output.exportFd(),
                         output.size(), 0);
                 OrtTensor image = importer.createTensor(in, TensorDescriptor.of(ElementType.FLOAT,
                         new long[] {HEIGHT, WIDTH, 4}, 0));
                 OrtTensor normalized = importer.createTensor(out, TensorDescriptor.of(ElementType.FLOAT,
                         new long[] {HEIGHT, WIDTH, 4}, 0));
                 IoBinding binding = session.createIoBinding()) {
                assertEquals(ExternalMemoryType.VK_MEMORY_OPAQUE_FD.ortValue(), in.handleType());
                assertEquals(4096, in.offsetBytes());
                assertEquals(device().handle().address(), in.epDevice(), "the handle names its EP device");
                assertTrue(image.isHostAccessible(), "CPU EP tensors are host memory");
                binding.bindInput("image", image).bindOutput("normalized", normalized);
                session.run(binding, null);
                assertClose(normalized(pixels), output.readFloats(0, pixels.length), "the app's output memory");

                // The app writes the next frame into its own memory; the bound tensor sees it.
                float[] next = image(2);
                input.writeFloats(4096, next);
                session.run(binding, null);
                assertClose(normalized(next), output.readFloats(0, next.length), "second frame");
            }
        }
    }

    @Test
    void tensorsAtOffsetsViewOneImport() {
        try (MemFd shared = new MemFd(3 * IMAGE_BYTES);
             ExternalResourceImporter importer = importer();
             ExternalMemory memory = importer.importMemory(ExternalMemoryType.VK_MEMORY_OPAQUE_FD, shared.exportFd(),
                     shared.size(), 0)) {
            float[] pixels = image(3);
            shared.writeFloats(IMAGE_BYTES, pixels);
            try (OrtTensor middle = importer.createTensor(memory, TensorDescriptor.of(ElementType.FLOAT,
                    new long[] {HEIGHT, WIDTH, 4}, IMAGE_BYTES));
                 OrtTensor scalar = importer.createTensor(memory, new TensorDescriptor(
                         TensorDescriptor.of(ElementType.FLOAT, new long[0], 0).version(), ElementType.FLOAT.onnxValue(),
                         null, 0, IMAGE_BYTES))) {
                assertArrayEquals(pixels, middle.toHost().floats());
                assertEquals(0, scalar.shape().length, "rank 0 is a scalar");
                assertEquals(pixels[0], scalar.toHost().floats()[0]);
            }
        }
    }

    // ---- bad inputs: each through the real ORT, each with its status code ---------------------------

    /** One bad call against a fresh importer and a 64 KiB memfd import (the fd is exported per case). */
    private record BadCase(String name, OrtErrorCode code, String message, Consumer<Fixture> call) {
        @Override
        public String toString() {
            return name;
        }
    }

    record Fixture(ExternalResourceImporter importer, MemFd memfd, ExternalMemory memory) {}

    private static final int V = TensorDescriptor.of(ElementType.FLOAT, new long[] {1}, 0).version();

    static Stream<Arguments> badInputs() {
        long fd0 = 1L << 20; // no process has a million fds open here
        return Stream.of(
                bad("memory descriptor version 0", OrtErrorCode.INVALID_ARGUMENT, "set it to ORT_API_VERSION",
                        f -> f.importer.importMemory(memfd(f).withVersion(0))),
                bad("memory descriptor version 23", OrtErrorCode.INVALID_ARGUMENT, "exists since API 24",
                        f -> f.importer.importMemory(memfd(f).withVersion(23))),
                bad("memory descriptor from the future", OrtErrorCode.INVALID_ARGUMENT, "newer than javaep knows",
                        f -> f.importer.importMemory(memfd(f).withVersion(31))),
                bad("NULL memory descriptor", OrtErrorCode.INVALID_ARGUMENT, "",
                        f -> f.importer.importMemory((MemoryDescriptor) null)),
                bad("unknown handle type", OrtErrorCode.INVALID_ARGUMENT, "not an OrtExternalMemoryHandleType",
                        f -> f.importer.importMemory(new MemoryDescriptor(V, 99, f.memfd.exportFd(), 4096, 0))),
                bad("D3D12 resource on Linux", OrtErrorCode.NOT_IMPLEMENTED, "cannot import D3D12_RESOURCE",
                        f -> f.importer.importMemory(MemoryDescriptor.of(ExternalMemoryType.D3D12_RESOURCE, 0x1234, 4096, 0))),
                bad("NULL native handle", OrtErrorCode.INVALID_ARGUMENT, "not a file descriptor",
                        f -> f.importer.importMemory(MemoryDescriptor.of(ExternalMemoryType.VK_MEMORY_OPAQUE_FD, 0, 4096, 0))),
                bad("negative fd", OrtErrorCode.INVALID_ARGUMENT, "not a file descriptor",
                        f -> f.importer.importMemory(MemoryDescriptor.of(ExternalMemoryType.VK_MEMORY_OPAQUE_FD, -1, 4096, 0))),
                bad("fd not open", OrtErrorCode.INVALID_ARGUMENT, "not an open file descriptor",
                        f -> f.importer.importMemory(MemoryDescriptor.of(ExternalMemoryType.VK_MEMORY_OPAQUE_FD, fd0, 4096, 0))),
                bad("size 0", OrtErrorCode.INVALID_ARGUMENT, "size_bytes is 0",
                        f -> f.importer.importMemory(new MemoryDescriptor(V, 3, f.memfd.exportFd(), 0, 0))),
                bad("offset past size", OrtErrorCode.INVALID_ARGUMENT, "is not below size_bytes",
                        f -> f.importer.importMemory(new MemoryDescriptor(V, 3, f.memfd.exportFd(), 4096, 8192))),
                bad("offset equal to size", OrtErrorCode.INVALID_ARGUMENT, "is not below size_bytes",
                        f -> f.importer.importMemory(new MemoryDescriptor(V, 3, f.memfd.exportFd(), 4096, 4096))),
                bad("negative size cast to size_t", OrtErrorCode.INVALID_ARGUMENT, "out of range",
                        f -> f.importer.importMemory(new MemoryDescriptor(V, 3, f.memfd.exportFd(), -4096, 0))),
                bad("size larger than the memfd", OrtErrorCode.INVALID_ARGUMENT, "less than size_bytes",
                        f -> f.importer.importMemory(new MemoryDescriptor(V, 3, f.memfd.exportFd(), 1 << 20, 0))),
                bad("fd of a device, not shared memory", OrtErrorCode.INVALID_ARGUMENT, "not a memfd",
                        f -> f.importer.importMemory(new MemoryDescriptor(V, 3, devNullFd(), 4096, 0))),
                bad("tensor descriptor version 0", OrtErrorCode.INVALID_ARGUMENT, "OrtExternalTensorDescriptor.version is 0",
                        f -> tensor(f, TensorDescriptor.of(ElementType.FLOAT, new long[] {4}, 0).withVersion(0))),
                bad("tensor descriptor from the future", OrtErrorCode.INVALID_ARGUMENT, "newer than javaep knows",
                        f -> tensor(f, TensorDescriptor.of(ElementType.FLOAT, new long[] {4}, 0).withVersion(1000))),
                bad("NULL tensor descriptor", OrtErrorCode.INVALID_ARGUMENT, "",
                        f -> tensor(f, null)),
                bad("NULL memory handle", OrtErrorCode.INVALID_ARGUMENT, "",
                        f -> f.importer.createTensor(null, TensorDescriptor.of(ElementType.FLOAT, new long[] {4}, 0))),
                bad("UNDEFINED element type", OrtErrorCode.INVALID_ARGUMENT, "cannot view external memory",
                        f -> tensor(f, new TensorDescriptor(V, 0, new long[] {4}, 1, 0))),
                bad("STRING element type", OrtErrorCode.INVALID_ARGUMENT, "cannot view external memory",
                        f -> tensor(f, new TensorDescriptor(V, 8, new long[] {4}, 1, 0))),
                bad("INT4 element type", OrtErrorCode.INVALID_ARGUMENT, "cannot view external memory",
                        f -> tensor(f, new TensorDescriptor(V, 22, new long[] {4}, 1, 0))),
                bad("unknown element type", OrtErrorCode.INVALID_ARGUMENT, "not an ONNXTensorElementDataType",
                        f -> tensor(f, new TensorDescriptor(V, 99, new long[] {4}, 1, 0))),
                bad("negative dimension", OrtErrorCode.INVALID_ARGUMENT, "must be concrete",
                        f -> tensor(f, TensorDescriptor.of(ElementType.FLOAT, new long[] {4, -1}, 0))),
                bad("NULL shape with rank 2", OrtErrorCode.INVALID_ARGUMENT, "shape is NULL",
                        f -> tensor(f, new TensorDescriptor(V, 1, null, 2, 0))),
                bad("absurd rank", OrtErrorCode.INVALID_ARGUMENT, "rank 1000 is out of range",
                        f -> tensor(f, new TensorDescriptor(V, 1, new long[] {1}, 1000, 0))),
                bad("shape × element size overflows", OrtErrorCode.INVALID_ARGUMENT, "overflows 64 bits",
                        f -> tensor(f, TensorDescriptor.of(ElementType.FLOAT, new long[] {1L << 31, 1L << 31, 4}, 0))),
                bad("tensor larger than the import", OrtErrorCode.INVALID_ARGUMENT, "needs 65540 bytes",
                        f -> tensor(f, TensorDescriptor.of(ElementType.FLOAT, new long[] {16385}, 0))),
                bad("tensor offset past the import", OrtErrorCode.INVALID_ARGUMENT, "is past the 65536 imported bytes",
                        f -> tensor(f, TensorDescriptor.of(ElementType.FLOAT, new long[] {1}, 65540))),
                bad("tensor past the end at an offset", OrtErrorCode.INVALID_ARGUMENT, "only 4 of the 65536",
                        f -> tensor(f, TensorDescriptor.of(ElementType.FLOAT, new long[] {2}, 65532))),
                bad("misaligned tensor offset", OrtErrorCode.INVALID_ARGUMENT, "not a multiple of the FLOAT element size",
                        f -> tensor(f, TensorDescriptor.of(ElementType.FLOAT, new long[] {4}, 2))),
                bad("a semaphore on the CPU EP", OrtErrorCode.NOT_IMPLEMENTED, "cannot import VK_TIMELINE_SEMAPHORE_OPAQUE_FD",
                        f -> f.importer.importSemaphore(SemaphoreDescriptor.of(ExternalSemaphoreType.VK_TIMELINE_SEMAPHORE_OPAQUE_FD,
                                f.memfd.exportFd()))),
                bad("unknown semaphore type", OrtErrorCode.INVALID_ARGUMENT, "not an OrtExternalSemaphoreType",
                        f -> f.importer.importSemaphore(new SemaphoreDescriptor(V, 7, 5))),
                bad("wait with a NULL semaphore and stream", OrtErrorCode.INVALID_ARGUMENT, "",
                        f -> f.importer.waitSemaphore(null, null, 1)));
    }

    private static Arguments bad(String name, OrtErrorCode code, String message, Consumer<Fixture> call) {
        return Arguments.of(new BadCase(name, code, message, call));
    }

    private static MemoryDescriptor memfd(Fixture f) {
        return MemoryDescriptor.of(ExternalMemoryType.VK_MEMORY_OPAQUE_FD, f.memfd.exportFd(), f.memfd.size(), 0);
    }

    private static void tensor(Fixture f, TensorDescriptor descriptor) {
        f.importer.createTensor(f.memory, descriptor).close();
    }

    /** An fd of /dev/null, this test's own (a dup of the stream's). */
    private static int devNullFd() {
        try (FileInputStream in = new FileInputStream("/dev/null")) {
            int streamFd = FileDescriptors.open().stream()
                    .filter(fd -> FileDescriptors.target(fd).filter("/dev/null"::equals).isPresent())
                    .findFirst().orElseThrow();
            return dev.javaep.os.Posix.dup(streamFd);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badInputs")
    void badInputIsRefusedWithItsCode(BadCase bad) {
        long fdsBefore = openFds();
        try (MemFd memfd = new MemFd(65536);
             ExternalResourceImporter importer = importer();
             ExternalMemory memory = importer.importMemory(ExternalMemoryType.VK_MEMORY_OPAQUE_FD, memfd.exportFd(), 65536, 0)) {
            List<Integer> fdsBeforeCall = FileDescriptors.open();
            OrtException e = assertThrows(OrtException.class, () -> bad.call.accept(new Fixture(importer, memfd, memory)));
            assertEquals(bad.code, e.code(), bad.name + ": " + e.getMessage());
            assertTrue(e.getMessage().contains(bad.message), bad.name + ": " + e.getMessage());
            System.out.println("[CpuImporterIT] " + bad.name + " -> " + e.code() + ": " + e.getMessage());
            // A refused import leaves the caller's fd open (the caller owns it): close what the case exported.
            closeFdsOpenedSince(fdsBeforeCall);
        }
        assertEquals(fdsBefore, openFds(), "open fds after " + bad.name);
    }

    static long openFds() {
        return FileDescriptors.open().size();
    }

    /** Closes the fds a refused case exported and left with the caller (ownership stays with the app on failure). */
    private static void closeFdsOpenedSince(List<Integer> before) {
        FileDescriptors.open().stream().filter(fd -> !before.contains(fd)).forEach(FileDescriptors::close);
    }

    // ---- lifetimes ------------------------------------------------------------------------------------

    @Test
    void handlesAndImporterMayBeReleasedBeforeTheTensorsThatUseThem() {
        float[] pixels = image(4);
        try (MemFd input = new MemFd(IMAGE_BYTES); MemFd output = new MemFd(IMAGE_BYTES);
             Session session = normalizeSession(); IoBinding binding = session.createIoBinding()) {
            input.writeFloats(0, pixels);
            ExternalResourceImporter importer = importer();
            ExternalMemory in = importer.importMemory(ExternalMemoryType.VK_MEMORY_OPAQUE_FD, input.exportFd(), IMAGE_BYTES, 0);
            ExternalMemory out = importer.importMemory(ExternalMemoryType.VK_MEMORY_OPAQUE_FD, output.exportFd(), IMAGE_BYTES, 0);
            long[] shape = {HEIGHT, WIDTH, 4};
            try (OrtTensor image = importer.createTensor(in, TensorDescriptor.of(ElementType.FLOAT, shape, 0));
                 OrtTensor normalized = importer.createTensor(out, TensorDescriptor.of(ElementType.FLOAT, shape, 0))) {
                binding.bindInput("image", image).bindOutput("normalized", normalized);
                importer.releaseImporterOnly(); // the importer first: the imports keep it
                in.close();                     // then the handles: the tensors keep the mappings
                out.close();
            }
            // The Java tensors are closed too; the binding's references keep the mappings alive.
            session.run(binding, null);
            assertClose(normalized(pixels), output.readFloats(0, pixels.length), "run after every handle was released");
            binding.clearInputs();
            binding.clearOutputs(); // the last references: now the mappings go
        }
    }

    @Test
    void aReleasedHandleIsRefusedNotDereferenced() {
        try (MemFd memfd = new MemFd(4096); ExternalResourceImporter importer = importer()) {
            ExternalMemory memory = importer.importMemory(ExternalMemoryType.VK_MEMORY_OPAQUE_FD, memfd.exportFd(), 4096, 0);
            MemorySegment stalePointer = memory.handle();
            memory.close();
            // The stale pointer, passed as a careless app would (ORT core hands it to the EP unchecked).
            OrtException e = assertThrows(OrtException.class, () -> createTensorRaw(importer, stalePointer));
            assertEquals(OrtErrorCode.INVALID_ARGUMENT, e.code(), e.getMessage());
        }
    }

    private static void createTensorRaw(ExternalResourceImporter importer, MemorySegment memoryHandle) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment descriptor = arena.allocate(OrtInteropLayouts.TENSOR_DESCRIPTOR);
            descriptor.set(ValueLayout.JAVA_INT, 0, V);
            descriptor.set(ValueLayout.JAVA_INT, 4, ElementType.FLOAT.onnxValue());
            descriptor.set(ValueLayout.ADDRESS, 8, arena.allocateFrom(ValueLayout.JAVA_LONG, 4));
            descriptor.set(ValueLayout.JAVA_LONG, 16, 1);
            MemorySegment out = arena.allocate(ValueLayout.ADDRESS);
            OrtHost.shared().api().check((MemorySegment) OrtHost.shared().interop()
                    .handle(OrtInteropApiSlot.CreateTensorFromMemory)
                    .invokeExact(importer.handle(), memoryHandle, descriptor, out));
        } catch (Throwable t) {
            throw dev.javaep.ort.OrtApi.rethrow(t);
        }
    }

    // ---- soak -----------------------------------------------------------------------------------------

    @Test
    void hundredThousandImportReleaseCyclesLeaveFdsAndMemoryFlat() {
        int cycles = Integer.getInteger("javaep.importer.cycles", 100_000);
        try (MemFd memfd = new MemFd(IMAGE_BYTES); ExternalResourceImporter importer = importer()) {
            long fdsBefore = openFds();
            long nativeBefore = 0, mallocBefore = 0;
            long start = System.nanoTime();
            for (int i = 0; i < cycles; i++) {
                if (i == cycles / 10) {
                    nativeBefore = ProcessMemory.outsideHeapKib(); // after warm-up
                    mallocBefore = ProcessMemory.mallocInUseBytes();
                }
                try (ExternalMemory memory = importer.importMemory(ExternalMemoryType.VK_MEMORY_OPAQUE_FD, memfd.exportFd(),
                        IMAGE_BYTES, 0);
                     OrtTensor tensor = importer.createTensor(memory, TensorDescriptor.of(ElementType.FLOAT,
                             new long[] {HEIGHT, WIDTH, 4}, 0))) {
                    if (tensor.byteSize() != IMAGE_BYTES) {
                        throw new AssertionError("tensor size " + tensor.byteSize());
                    }
                }
            }
            long nanos = System.nanoTime() - start;
            long nativeAfter = ProcessMemory.outsideHeapKib();
            long mallocAfter = ProcessMemory.mallocInUseBytes();
            long fdsAfter = openFds();
            System.out.printf("[CpuImporterIT] %,d import+tensor+release cycles: %.1f µs each; open fds %d -> %d;"
                    + " malloc in use %,d -> %,d bytes; host memory outside the Java heap %,d -> %,d KiB (cycles %,d-%,d)%n",
                    cycles, nanos / 1e3 / cycles, fdsBefore, fdsAfter, mallocBefore, mallocAfter, nativeBefore, nativeAfter,
                    cycles / 10, cycles);
            assertEquals(fdsBefore, fdsAfter, "open fds");
            // 100 bytes a cycle would be 9 MB here. RSS outside the heap is only printed: in a long test JVM it
            // moves by tens of MiB with the GC's side tables and the code cache.
            assertTrue(mallocAfter - mallocBefore < 8L << 20, "malloc'ed memory grew by " + (mallocAfter - mallocBefore));
        }
    }
}
