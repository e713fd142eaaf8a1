package dev.javaep.harness.gpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.javaep.conformance.models.Models;
import dev.javaep.cuda.driver.CudaDriver;
import dev.javaep.examples.jcuda.JCudaApp;
import dev.javaep.examples.jcuda.VmmBuffer;
import dev.javaep.examples.vulkan.TimelineSemaphore;
import dev.javaep.examples.vulkan.VulkanBuffer;
import dev.javaep.examples.vulkan.VulkanBuffer.Placement;
import dev.javaep.examples.vulkan.VulkanContext;
import dev.javaep.examples.vulkan.VulkanUnavailableException;
import dev.javaep.harness.ProcessMemory;
import dev.javaep.harness.TestPaths;
import dev.javaep.harness.interop.ImportedImageRun;
import dev.javaep.host.EpDevice;
import dev.javaep.host.ExternalMemory;
import dev.javaep.host.ExternalResourceImporter;
import dev.javaep.host.ExternalResourceImporter.MemoryDescriptor;
import dev.javaep.host.ExternalResourceImporter.SemaphoreDescriptor;
import dev.javaep.host.ExternalResourceImporter.TensorDescriptor;
import dev.javaep.host.ExternalSemaphore;
import dev.javaep.host.FileDescriptors;
import dev.javaep.host.IoBinding;
import dev.javaep.host.OrtEnvironment;
import dev.javaep.host.OrtHost;
import dev.javaep.host.OrtTensor;
import dev.javaep.host.RunOptions;
import dev.javaep.host.Session;
import dev.javaep.host.SessionOptions;
import dev.javaep.host.SyncStream;
import dev.javaep.ort.OrtErrorCode;
import dev.javaep.ort.OrtException;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.ExternalMemoryType;
import dev.javaep.spi.ExternalSemaphoreType;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * JavaCudaExecutionProvider's importer on a real NVIDIA GPU, with the apps that own the memory: a Vulkan
 * app (LWJGL on the NVIDIA driver; the flow of ORT's own nv_vulkan_test.cc) and a CUDA app (JCuda VMM
 * buffers). Device matching by UUID, a 1,000-frame loop synchronised only on the GPU, bad inputs with
 * their codes, and 100,000 import/release cycles with device memory and fds flat.
 */
@Tag("gpu")
class CudaImporterIT {
    private static final String REGISTRATION = "javaep-cuda-importer";
    private static final int HEIGHT = 270, WIDTH = 480; // a quarter-HD RGBA frame: 2 MiB
    private static final long IMAGE_BYTES = (long) HEIGHT * WIDTH * 4 * Float.BYTES;
    private static final float[] MEAN = {0.485f, 0.456f, 0.406f, 0.5f};
    private static final float[] SCALE = {1 / 0.229f, 1 / 0.224f, 1 / 0.225f, 2f};
    private static final long TIMEOUT = TimeUnit.SECONDS.toNanos(60);

    private static OrtEnvironment env;
    private static EpDevice device;

    @BeforeAll
    static void register() {
        env = OrtHost.shared().createEnvironment("javaep-cuda-importer", OrtHost.LogLevel.ERROR);
        env.registerExecutionProviderLibrary(REGISTRATION, TestPaths.loaderLibrary());
        device = CudaGpu.device(env);
    }

    @AfterAll
    static void unregister() {
        if (env != null) {
            env.unregisterExecutionProviderLibrary(REGISTRATION);
            env.close();
        }
    }

    private static ExternalResourceImporter importer() {
        return env.createExternalResourceImporter(device).orElseThrow(() -> new AssertionError("JavaCuda offers no importer"));
    }

    /** The NVIDIA Vulkan device that is this EP device's GPU, found by the UUID the EP publishes. */
    private static VulkanContext vulkanOfTheEpDevice() {
        try {
            return VulkanContext.open(Optional.of(uuidOf(device)));
        } catch (VulkanUnavailableException e) {
            assumeTrue(false, "GPU Vulkan test skipped: " + e.getMessage());
            throw new AssertionError(e);
        }
    }

    /** "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" → the 16 bytes. */
    private static byte[] uuidOf(EpDevice device) {
        String uuid = device.epMetadata().get("cuda.uuid");
        assertTrue(uuid != null && uuid.startsWith("GPU-"), "cuda.uuid metadata: " + uuid);
        return HexFormat.of().parseHex(uuid.substring(4).replace("-", ""));
    }

    private static Session normalizeSession(int height, int width) {
        try (SessionOptions options = env.createSessionOptions()) {
            options.disableCpuEpFallback().appendExecutionProvider(List.of(device), Map.of());
            return env.createSession(Models.normalizeImage(height, width), options);
        }
    }

    private static float normalized(float value, int channel) {
        return (value - MEAN[channel]) * SCALE[channel];
    }

    private static float[] ramp(int count) {
        float[] values = new float[count];
        for (int i = 0; i < count; i++) {
            values[i] = (i % 997) / 997f;
        }
        return values;
    }

    @Test
    void theVulkanDeviceUuidIsTheEpDevicesCudaUuid() {
        try (VulkanContext vulkan = VulkanContext.open()) {
            String vulkanUuid = HexFormat.of().formatHex(vulkan.deviceUuid());
            String cudaUuid = device.epMetadata().get("cuda.uuid").substring(4).replace("-", "");
            System.out.println("[CudaImporterIT] Vulkan " + vulkan.describe() + "; EP device cuda.uuid "
                    + device.epMetadata().get("cuda.uuid"));
            assertEquals(cudaUuid, vulkanUuid, "Vulkan deviceUUID == cuda.uuid");
        } catch (VulkanUnavailableException e) {
            assumeTrue(false, "GPU Vulkan test skipped: " + e.getMessage());
        }
    }

    @Test
    void capabilitiesOnLinux() {
        try (ExternalResourceImporter importer = importer()) {
            assertTrue(importer.canImportMemory(ExternalMemoryType.VK_MEMORY_OPAQUE_FD));
            assertTrue(importer.canImportSemaphore(ExternalSemaphoreType.VK_TIMELINE_SEMAPHORE_OPAQUE_FD));
            for (ExternalMemoryType windowsOnly : List.of(ExternalMemoryType.D3D12_RESOURCE, ExternalMemoryType.D3D12_HEAP,
                    ExternalMemoryType.VK_MEMORY_WIN32, ExternalMemoryType.HOST_ALLOCATION)) {
                assertFalse(importer.canImportMemory(windowsOnly), windowsOnly.name());
            }
            assertFalse(importer.canImportSemaphore(ExternalSemaphoreType.D3D12_FENCE));
            assertFalse(importer.canImportSemaphore(ExternalSemaphoreType.VK_TIMELINE_SEMAPHORE_WIN32));
        }
    }

    /**
     * Per frame: Vulkan writes the input and signals 3f+1; ORT waits for it on its stream, runs, signals
     * 3f+2; Vulkan waits 3f+2 and copies four output values into a results buffer, signalling 3f+3, which the
     * next frame's upload waits for. The host submits and never waits inside the loop; it checks every
     * frame's values once at the end.
     */
    @Test
    void vulkanFrameLoopSynchronisedOnTheGpu() {
        int frames = Integer.getInteger("javaep.frames", 1000);
        int pixels = HEIGHT * WIDTH * 4;
        float[] base = ramp(pixels);
        try (VulkanContext vulkan = vulkanOfTheEpDevice();
             VulkanBuffer upload = vulkan.createBuffer(IMAGE_BYTES, Placement.HOST_VISIBLE, false);
             VulkanBuffer frameValues = vulkan.createBuffer(frames * 16L, Placement.HOST_VISIBLE, false);
             VulkanBuffer results = vulkan.createBuffer(frames * 16L, Placement.HOST_VISIBLE, false);
             VulkanBuffer readback = vulkan.createBuffer(IMAGE_BYTES, Placement.HOST_VISIBLE, false);
             VulkanBuffer input = vulkan.createBuffer(IMAGE_BYTES, Placement.DEVICE_LOCAL, true);
             VulkanBuffer output = vulkan.createBuffer(IMAGE_BYTES, Placement.DEVICE_LOCAL, true);
             TimelineSemaphore timeline = vulkan.createTimelineSemaphore(0, true);
             ExternalResourceImporter importer = importer();
             SyncStream stream = env.createSyncStream(device);
             RunOptions runOptions = RunOptions.create().syncStream(stream);
             Session session = normalizeSession(HEIGHT, WIDTH)) {
            upload.writeFloats(base);
            float[] values = new float[frames * 4];
            for (int f = 0; f < frames; f++) {
                java.util.Arrays.fill(values, 4 * f, 4 * f + 4, f / (float) frames);
            }
            frameValues.writeFloats(values);
            vulkan.submit(c -> c.copy(upload, 0, input, 0, IMAGE_BYTES), List.of(), List.of(timeline.at(1)));
            assertTrue(timeline.waitOnHost(1, TIMEOUT), "initial upload");
            timeline.signalFromHost(3); // frame 0 waits for 3·0 + 3 - 3 = "previous readback" value 3

            long[] shape = {HEIGHT, WIDTH, 4};
            try (ExternalMemory in = importer.importMemory(ExternalMemoryType.VK_MEMORY_OPAQUE_FD, input.exportOpaqueFd(),
                         input.allocationSize(), 0);
                 ExternalMemory out = importer.importMemory(ExternalMemoryType.VK_MEMORY_OPAQUE_FD, output.exportOpaqueFd(),
                         output.allocationSize(), 0);
                 ExternalSemaphore semaphore = importer.importSemaphore(ExternalSemaphoreType.VK_TIMELINE_SEMAPHORE_OPAQUE_FD,
                         timeline.exportOpaqueFd());
                 OrtTensor image = importer.createTensor(in, TensorDescriptor.of(ElementType.FLOAT, shape, 0));
                 OrtTensor normalizedOut = importer.createTensor(out, TensorDescriptor.of(ElementType.FLOAT, shape, 0));
                 IoBinding binding = session.createIoBinding()) {
                assertFalse(image.isHostAccessible(), "the imported tensor is device memory");
                binding.bindInput("image", image).bindOutput("normalized", normalizedOut);
                long start = System.nanoTime();
                for (int f = 0; f < frames; f++) {
                    long n = 3L * f + 3; // frame f's values: n+1 uploaded, n+2 inferred, n+3 read back
                    int frame = f;
                    vulkan.submit(c -> c.copy(frameValues, 16L * frame, input, 0, 16), List.of(timeline.at(n)),
                            List.of(timeline.at(n + 1)));
                    importer.waitSemaphore(semaphore, stream, n + 1);
                    session.run(binding, runOptions);
                    importer.signalSemaphore(semaphore, stream, n + 2);
                    vulkan.submit(c -> c.copy(output, 0, results, 16L * frame, 16), List.of(timeline.at(n + 2)),
                            List.of(timeline.at(n + 3)));
                }
                long submitted = System.nanoTime();
                long last = 3L * frames + 3;
                assertTrue(timeline.waitOnHost(last, TIMEOUT), "the last frame's readback (timeline " + timeline.value() + ")");
                long finished = System.nanoTime();
                vulkan.submit(c -> c.copy(output, 0, readback, 0, IMAGE_BYTES), List.of(), List.of(timeline.at(last + 1)));
                assertTrue(timeline.waitOnHost(last + 1, TIMEOUT), "final readback");

                float[] perFrame = results.readFloats(frames * 4);
                int wrong = 0;
                for (int f = 0; f < frames; f++) {
                    for (int c = 0; c < 4; c++) {
                        if (Math.abs(perFrame[4 * f + c] - normalized(f / (float) frames, c)) > 1e-4f) {
                            wrong++;
                        }
                    }
                }
                assertEquals(0, wrong, "frames whose output Vulkan read back was not that frame's");
                float[] lastFrame = readback.readFloats(pixels);
                for (int i = 4; i < pixels; i += 997) {
                    assertEquals(normalized(base[i], i % 4), lastFrame[i], 1e-4f, "pixel value " + i);
                }
                System.out.printf("[CudaImporterIT] Vulkan frame loop: %,d frames, every frame's output checked by Vulkan;"
                        + " %.1f µs per frame to submit, %.1f ms from the last submit to the last readback%n",
                        frames, (submitted - start) / 1e3 / frames, (finished - submitted) / 1e6);
            }
            vulkan.waitIdle();
        }
    }

    @Test
    void aJCudaAppHandsItsVmmBuffersToOrt() {
        assumeTrue(JCudaApp.isAvailable(), "JCuda test skipped: " + JCudaApp.unavailableReason().orElse(""));
        int height = 64, width = 64, count = height * width * 4;
        float[] pixels = ramp(count);
        try (JCudaApp app = JCudaApp.open(Integer.parseInt(device.epMetadata().get("cuda.device_id")));
             VmmBuffer input = app.allocate(count * 4L);
             VmmBuffer output = app.allocate(count * 4L);
             ExternalResourceImporter importer = importer();
             SyncStream stream = env.createSyncStream(device);
             RunOptions runOptions = RunOptions.create().syncStream(stream);
             Session session = normalizeSession(height, width)) {
            assertArrayEquals(uuidOf(device), app.deviceUuid(), "JCuda's device is the EP device");
            input.writeFloats(pixels);
            output.fill(-1f);
            ImportedImageRun.run(session, importer, runOptions, new long[] {height, width, 4},
                    new ImportedImageRun.ExportedBuffer(input.exportFd(), input.size()),
                    new ImportedImageRun.ExportedBuffer(output.exportFd(), output.size()));
            app.synchronize();
            float[] result = output.readFloats(count);
            for (int i = 0; i < count; i++) {
                assertEquals(normalized(pixels[i], i % 4), result[i], 1e-4f, "pixel " + i);
            }
            System.out.println("[CudaImporterIT] JCuda app: " + count + " floats in a VMM buffer (" + input.size()
                    + " bytes allocated), normalized by ORT into its second VMM buffer, read back by JCuda: equal");
        }
    }

    // ---- bad inputs on the GPU ---------------------------------------------------------------------------

    private record BadCase(String name, OrtErrorCode code, String message, Consumer<ExternalResourceImporter> call) {}

    @Test
    void badInputsOnTheGpuAreRefusedWithTheirCodes() throws IOException {
        int v = TensorDescriptor.of(ElementType.FLOAT, new long[] {1}, 0).version();
        try (VulkanContext vulkan = vulkanOfTheEpDevice();
             VulkanBuffer buffer = vulkan.createBuffer(1 << 20, Placement.DEVICE_LOCAL, true);
             TimelineSemaphore timeline = vulkan.createTimelineSemaphore(0, true);
             ExternalResourceImporter importer = importer();
             SyncStream stream = env.createSyncStream(device)) {
            long size = buffer.allocationSize();
            List<BadCase> cases = List.of(
                    new BadCase("D3D12 resource on Linux", OrtErrorCode.NOT_IMPLEMENTED, "cannot import D3D12_RESOURCE",
                            i -> i.importMemory(MemoryDescriptor.of(ExternalMemoryType.D3D12_RESOURCE, 0x1234, size, 0))),
                    new BadCase("host allocation", OrtErrorCode.NOT_IMPLEMENTED, "cannot import HOST_ALLOCATION",
                            i -> i.importMemory(MemoryDescriptor.of(ExternalMemoryType.HOST_ALLOCATION, 0x1234, size, 0))),
                    new BadCase("D3D12 fence on Linux", OrtErrorCode.NOT_IMPLEMENTED, "cannot import D3D12_FENCE",
                            i -> i.importSemaphore(SemaphoreDescriptor.of(ExternalSemaphoreType.D3D12_FENCE, 0x1234))),
                    new BadCase("fd not open", OrtErrorCode.INVALID_ARGUMENT, "not an open file descriptor",
                            i -> i.importMemory(MemoryDescriptor.of(ExternalMemoryType.VK_MEMORY_OPAQUE_FD, 1 << 20, size, 0))),
                    new BadCase("size_bytes larger than the allocation", OrtErrorCode.INVALID_ARGUMENT, "CUDA",
                            i -> i.importMemory(MemoryDescriptor.of(ExternalMemoryType.VK_MEMORY_OPAQUE_FD,
                                    refused(buffer.exportOpaqueFd()), size * 64, 0))),
                    new BadCase("a semaphore fd passed as memory", OrtErrorCode.INVALID_ARGUMENT, "CUDA",
                            i -> i.importMemory(MemoryDescriptor.of(ExternalMemoryType.VK_MEMORY_OPAQUE_FD,
                                    refused(timeline.exportOpaqueFd()), size, 0))),
                    // Not here: a memory fd passed as a timeline semaphore. CUDA 13 imports it without complaint (seen on
                    // an H200), and both are opaque driver fds, so javaep cannot tell them apart either (docs say so).
                    new BadCase("semaphore descriptor version 0", OrtErrorCode.INVALID_ARGUMENT, "set it to ORT_API_VERSION",
                            i -> i.importSemaphore(new SemaphoreDescriptor(0, 2, refused(timeline.exportOpaqueFd())))),
                    new BadCase("wait without a stream", OrtErrorCode.INVALID_ARGUMENT, "",
                            i -> {
                                try (ExternalSemaphore s = i.importSemaphore(ExternalSemaphoreType.VK_TIMELINE_SEMAPHORE_OPAQUE_FD,
                                        timeline.exportOpaqueFd())) {
                                    i.waitSemaphore(s, null, 1);
                                }
                            }),
                    new BadCase("tensor larger than the import", OrtErrorCode.INVALID_ARGUMENT, "needs",
                            i -> {
                                try (ExternalMemory m = i.importMemory(ExternalMemoryType.VK_MEMORY_OPAQUE_FD,
                                        buffer.exportOpaqueFd(), size, 0)) {
                                    i.createTensor(m, TensorDescriptor.of(ElementType.FLOAT, new long[] {size / 4 + 1}, 0)).close();
                                }
                            }),
                    new BadCase("misaligned tensor offset", OrtErrorCode.INVALID_ARGUMENT, "not a multiple",
                            i -> {
                                try (ExternalMemory m = i.importMemory(ExternalMemoryType.VK_MEMORY_OPAQUE_FD,
                                        buffer.exportOpaqueFd(), size, 0)) {
                                    i.createTensor(m, new TensorDescriptor(v, 1, new long[] {4}, 1, 6)).close();
                                }
                            }));
            for (BadCase bad : cases) {
                REFUSED_FDS.clear();
                OrtException e = assertThrows(OrtException.class, () -> bad.call.accept(importer), bad.name);
                System.out.println("[CudaImporterIT] " + bad.name + " -> " + e.code() + ": " + e.getMessage());
                assertEquals(bad.code, e.code(), bad.name + ": " + e.getMessage());
                assertTrue(e.getMessage().contains(bad.message), bad.name + ": " + e.getMessage());
                // A refused import leaves the exported fd with the app: it must still be open. Close it.
                for (int fd : REFUSED_FDS) {
                    assertTrue(FileDescriptors.isOpen(fd), bad.name + ": the refused fd " + fd + " must still be the app's");
                    FileDescriptors.close(fd);
                }
            }
        }
    }

    /** fds handed to imports that are meant to fail: the app still owns them afterwards. */
    private static final List<Integer> REFUSED_FDS = new ArrayList<>();

    private static int refused(int fd) {
        REFUSED_FDS.add(fd);
        return fd;
    }

    private static List<Integer> openFds() {
        return FileDescriptors.open();
    }

    // ---- soak ---------------------------------------------------------------------------------------------

    @Test
    void hundredThousandImportReleaseCyclesLeaveDeviceMemoryAndFdsFlat() {
        int cycles = Integer.getInteger("javaep.importer.cycles", 100_000);
        CudaDriver driver = CudaGpu.driver();
        try (VulkanContext vulkan = vulkanOfTheEpDevice();
             VulkanBuffer buffer = vulkan.createBuffer(IMAGE_BYTES, Placement.DEVICE_LOCAL, true);
             TimelineSemaphore timeline = vulkan.createTimelineSemaphore(0, true);
             ExternalResourceImporter importer = importer()) {
            long[] shape = {HEIGHT, WIDTH, 4};
            long fdsBefore = 0, deviceBefore = 0, nativeBefore = 0, mallocBefore = 0;
            long start = System.nanoTime();
            for (int i = 0; i < cycles; i++) {
                if (i == cycles / 10) {
                    fdsBefore = openFds().size();
                    deviceBefore = CudaGpu.freeDeviceMemory(driver);
                    nativeBefore = ProcessMemory.outsideHeapKib();
                    mallocBefore = ProcessMemory.mallocInUseBytes();
                }
                try (ExternalMemory memory = importer.importMemory(ExternalMemoryType.VK_MEMORY_OPAQUE_FD,
                        buffer.exportOpaqueFd(), buffer.allocationSize(), 0);
                     OrtTensor tensor = importer.createTensor(memory, TensorDescriptor.of(ElementType.FLOAT, shape, 0))) {
                    if (tensor.byteSize() != IMAGE_BYTES) {
                        throw new AssertionError("tensor bytes " + tensor.byteSize());
                    }
                }
                if (i % 10 == 0) {
                    importer.importSemaphore(ExternalSemaphoreType.VK_TIMELINE_SEMAPHORE_OPAQUE_FD, timeline.exportOpaqueFd())
                            .close();
                }
            }
            long nanos = System.nanoTime() - start;
            long fdsAfter = openFds().size();
            long deviceAfter = CudaGpu.freeDeviceMemory(driver);
            long nativeAfter = ProcessMemory.outsideHeapKib();
            long mallocAfter = ProcessMemory.mallocInUseBytes();
            System.out.printf("[CudaImporterIT] %,d memory imports (+ %,d semaphore imports) with a tensor each: %.1f µs per"
                    + " cycle; from cycle %,d: open fds %d -> %d, free device memory %,d -> %,d bytes (Δ %+,d),"
                    + " malloc in use %,d -> %,d bytes, host memory outside the Java heap %,d -> %,d KiB%n", cycles,
                    cycles / 10, nanos / 1e3 / cycles, cycles / 10, fdsBefore, fdsAfter, deviceBefore, deviceAfter,
                    deviceAfter - deviceBefore, mallocBefore, mallocAfter, nativeBefore, nativeAfter);
            assertEquals(fdsBefore, fdsAfter, "open fds");
            assertTrue(Math.abs(deviceAfter - deviceBefore) <= 4L << 20, "free device memory moved by "
                    + (deviceAfter - deviceBefore));
            assertTrue(mallocAfter - mallocBefore < 8L << 20, "malloc'ed memory grew by " + (mallocAfter - mallocBefore));
        }
    }
}
