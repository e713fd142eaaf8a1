package dev.javaep.harness.gpu;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.javaep.conformance.models.FramePipeline;
import dev.javaep.examples.jcuda.JCudaApp;
import dev.javaep.examples.jcuda.VmmBuffer;
import dev.javaep.examples.vulkan.TimelineSemaphore;
import dev.javaep.examples.vulkan.VulkanBuffer;
import dev.javaep.examples.vulkan.VulkanBuffer.Placement;
import dev.javaep.examples.vulkan.VulkanContext;
import dev.javaep.examples.vulkan.VulkanUnavailableException;
import dev.javaep.harness.TestPaths;
import dev.javaep.host.EpDevice;
import dev.javaep.host.ExternalMemory;
import dev.javaep.host.ExternalResourceImporter;
import dev.javaep.host.ExternalResourceImporter.TensorDescriptor;
import dev.javaep.host.ExternalSemaphore;
import dev.javaep.host.IoBinding;
import dev.javaep.host.OrtEnvironment;
import dev.javaep.host.OrtHost;
import dev.javaep.host.OrtTensor;
import dev.javaep.host.RunOptions;
import dev.javaep.host.Session;
import dev.javaep.host.SessionOptions;
import dev.javaep.host.SyncStream;
import dev.javaep.host.TensorData;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.ExternalMemoryType;
import dev.javaep.spi.ExternalSemaphoreType;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The mission's path end to end: an app that owns GPU memory (Vulkan, and a JCuda VMM app) hands a 1080p RGBA
 * uint8 frame to the frame-pipeline network ({@link FramePipeline}: slice alpha, NCHW, normalise, a 2x sub-pixel
 * Conv upscaler, quantise, alpha re-attached) on JavaCuda with CPU fallback disabled, zero-copy (the input and
 * the 4K output are the app's own memory, imported), synchronised on the GPU with the app's timeline semaphore;
 * the app checks the result in its own memory against ORT CPU's run of the same frame. No host round trip.
 */
@Tag("gpu")
class FramePipelineInteropIT {
    private static final int HEIGHT = 1080, WIDTH = 1920;
    private static final long FRAME_BYTES = (long) HEIGHT * WIDTH * 4;
    private static final long OUT_BYTES = FRAME_BYTES * FramePipeline.SCALE * FramePipeline.SCALE;
    private static final long TIMEOUT = TimeUnit.SECONDS.toNanos(60);

    private static OrtEnvironment env;
    private static EpDevice device;
    private static byte[] frame;
    private static byte[] expected;

    @BeforeAll
    static void register() {
        env = OrtHost.shared().createEnvironment("javaep-frame-interop", OrtHost.LogLevel.ERROR);
        env.registerExecutionProviderLibrary("javaep-frame-interop", TestPaths.loaderLibrary());
        device = CudaGpu.device(env);
        frame = FramePipeline.testFrame(HEIGHT, WIDTH);
        try (SessionOptions onOrt = env.createSessionOptions(); Session ort = env.createSession(FramePipeline.model(), onOrt)) {
            expected = ort.run(Map.of("frame", new TensorData(ElementType.UINT8, new long[] {1, HEIGHT, WIDTH, 4}, frame)))
                    .get("upscaled").data();
        }
    }

    @AfterAll
    static void unregister() {
        if (env != null) {
            env.unregisterExecutionProviderLibrary("javaep-frame-interop");
            env.close();
        }
    }

    private static Session onJavaCuda() {
        try (SessionOptions options = env.createSessionOptions().disableCpuEpFallback()
                .appendExecutionProvider(List.of(device), Map.of())) {
            return env.createSession(FramePipeline.model(), options);
        }
    }

    private static ExternalResourceImporter importer() {
        return env.createExternalResourceImporter(device).orElseThrow(() -> new AssertionError("JavaCuda offers no importer"));
    }

    /** The frame as ORT CPU computes it, within one rounding step per byte (summation order at .5 ties). */
    private static void assertMatchesOrtCpu(byte[] actual, String who) {
        int worst = 0;
        long differing = 0;
        for (int i = 0; i < expected.length; i++) {
            int d = Math.abs((actual[i] & 0xff) - (expected[i] & 0xff));
            worst = Math.max(worst, d);
            differing += d == 0 ? 0 : 1;
        }
        System.out.printf("[FramePipelineInteropIT] %s: %dx%d RGBA -> %dx%d, %d of %d bytes differ from ORT CPU by at most %d%n",
                who, WIDTH, HEIGHT, 2 * WIDTH, 2 * HEIGHT, differing, expected.length, worst);
        assertTrue(worst <= 1 && differing <= expected.length / 100, who + ": differs from ORT CPU by " + worst + " in "
                + differing + " bytes");
    }

    @Test
    void aVulkanFrameRunsThroughTheNetworkInTheAppsMemory() {
        VulkanContext opened;
        try {
            String uuid = device.epMetadata().get("cuda.uuid");
            opened = VulkanContext.open(Optional.of(HexFormat.of().parseHex(uuid.substring(4).replace("-", ""))));
        } catch (VulkanUnavailableException e) {
            assumeTrue(false, "GPU Vulkan test skipped: " + e.getMessage());
            return;
        }
        try (VulkanContext vulkan = opened;
             VulkanBuffer upload = vulkan.createBuffer(FRAME_BYTES, Placement.HOST_VISIBLE, false);
             VulkanBuffer readback = vulkan.createBuffer(OUT_BYTES, Placement.HOST_VISIBLE, false);
             VulkanBuffer input = vulkan.createBuffer(FRAME_BYTES, Placement.DEVICE_LOCAL, true);
             VulkanBuffer output = vulkan.createBuffer(OUT_BYTES, Placement.DEVICE_LOCAL, true);
             TimelineSemaphore timeline = vulkan.createTimelineSemaphore(0, true);
             ExternalResourceImporter importer = importer();
             SyncStream stream = env.createSyncStream(device);
             RunOptions runOptions = RunOptions.create().syncStream(stream);
             Session session = onJavaCuda()) {
            MemorySegment.copy(frame, 0, upload.mapped(), ValueLayout.JAVA_BYTE, 0, frame.length);
            try (ExternalMemory in = importer.importMemory(ExternalMemoryType.VK_MEMORY_OPAQUE_FD, input.exportOpaqueFd(),
                         input.allocationSize(), 0);
                 ExternalMemory out = importer.importMemory(ExternalMemoryType.VK_MEMORY_OPAQUE_FD, output.exportOpaqueFd(),
                         output.allocationSize(), 0);
                 ExternalSemaphore semaphore = importer.importSemaphore(ExternalSemaphoreType.VK_TIMELINE_SEMAPHORE_OPAQUE_FD,
                         timeline.exportOpaqueFd());
                 OrtTensor frameIn = importer.createTensor(in, TensorDescriptor.of(ElementType.UINT8,
                         new long[] {1, HEIGHT, WIDTH, 4}, 0));
                 OrtTensor upscaled = importer.createTensor(out, TensorDescriptor.of(ElementType.UINT8,
                         new long[] {1, 2L * HEIGHT, 2L * WIDTH, 4}, 0));
                 IoBinding binding = session.createIoBinding()) {
                assertFalse(frameIn.isHostAccessible(), "the imported frame is device memory");
                binding.bindInput("frame", frameIn).bindOutput("upscaled", upscaled);
                int frames = 20;
                long start = 0;
                for (int f = 0; f < frames; f++) {
                    long n = 3L * f;
                    if (f == 1) {
                        start = System.nanoTime(); // frame 0 compiles the kernels and plans the group
                    }
                    vulkan.submit(c -> c.copy(upload, 0, input, 0, FRAME_BYTES), List.of(timeline.at(n)), List.of(timeline.at(n + 1)));
                    importer.waitSemaphore(semaphore, stream, n + 1);
                    session.run(binding, runOptions);
                    importer.signalSemaphore(semaphore, stream, n + 2);
                    vulkan.submit(c -> c.copy(output, 0, readback, 0, OUT_BYTES), List.of(timeline.at(n + 2)),
                            List.of(timeline.at(n + 3)));
                }
                assertTrue(timeline.waitOnHost(3L * frames, TIMEOUT), "the last frame's readback (timeline " + timeline.value() + ")");
                double msPerFrame = (System.nanoTime() - start) / 1e6 / (frames - 1);
                byte[] result = readback.mapped().asSlice(0, OUT_BYTES).toArray(ValueLayout.JAVA_BYTE);
                assertMatchesOrtCpu(result, "Vulkan app, " + frames + " frames, " + String.format("%.2f", msPerFrame)
                        + " ms/frame upload+run+readback on the GPU timeline");
            }
            vulkan.waitIdle();
        }
    }

    @Test
    void aJCudaAppsVmmFrameRunsThroughTheNetworkInItsMemory() {
        assumeTrue(JCudaApp.isAvailable(), "JCuda test skipped: " + JCudaApp.unavailableReason().orElse(""));
        try (JCudaApp app = JCudaApp.open(Integer.parseInt(device.epMetadata().get("cuda.device_id")));
             VmmBuffer input = app.allocate(FRAME_BYTES);
             VmmBuffer output = app.allocate(OUT_BYTES);
             ExternalResourceImporter importer = importer();
             SyncStream stream = env.createSyncStream(device);
             RunOptions runOptions = RunOptions.create().syncStream(stream);
             Session session = onJavaCuda()) {
            input.writeFloats(asFloats(frame)); // the app's own upload (its API moves floats; the bits are the frame's)
            try (ExternalMemory in = importer.importMemory(ExternalMemoryType.VK_MEMORY_OPAQUE_FD, input.exportFd(), input.size(), 0);
                 ExternalMemory out = importer.importMemory(ExternalMemoryType.VK_MEMORY_OPAQUE_FD, output.exportFd(), output.size(), 0);
                 OrtTensor frameIn = importer.createTensor(in, TensorDescriptor.of(ElementType.UINT8, new long[] {1, HEIGHT, WIDTH, 4}, 0));
                 OrtTensor upscaled = importer.createTensor(out, TensorDescriptor.of(ElementType.UINT8,
                         new long[] {1, 2L * HEIGHT, 2L * WIDTH, 4}, 0));
                 IoBinding binding = session.createIoBinding()) {
                binding.bindInput("frame", frameIn).bindOutput("upscaled", upscaled);
                session.run(binding, runOptions);
            }
            app.synchronize();
            assertMatchesOrtCpu(asBytes(output.readFloats((int) (OUT_BYTES / 4))), "JCuda VMM app");
        }
    }

    private static float[] asFloats(byte[] bytes) {
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        float[] f = new float[bytes.length / 4];
        for (int i = 0; i < f.length; i++) {
            f[i] = Float.intBitsToFloat(b.getInt(i * 4));
        }
        return f;
    }

    private static byte[] asBytes(float[] floats) {
        ByteBuffer b = ByteBuffer.allocate(floats.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (float v : floats) {
            b.putInt(Float.floatToRawIntBits(v));
        }
        return b.array();
    }
}
