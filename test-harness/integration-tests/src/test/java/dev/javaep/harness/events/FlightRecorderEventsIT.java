package dev.javaep.harness.events;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.bridge.events.CompiledNodeComputeEvent;
import dev.javaep.bridge.events.CopyTensorsEvent;
import dev.javaep.bridge.events.ExternalMemoryImportEvent;
import dev.javaep.bridge.events.ExternalSemaphoreEvent;
import dev.javaep.bridge.events.KernelComputeEvent;
import dev.javaep.harness.AddReluMulGroup;
import dev.javaep.harness.JavaepRegistration;
import dev.javaep.harness.abi.ProbeDeviceFactory;
import dev.javaep.harness.kernels.JavaKernelRegistryTestExecutionProvider;
import dev.javaep.harness.onnx.Dim;
import dev.javaep.harness.onnx.OnnxModelWriter;
import dev.javaep.host.EpDevice;
import dev.javaep.host.ExternalMemory;
import dev.javaep.host.ExternalResourceImporter;
import dev.javaep.host.ExternalSemaphore;
import dev.javaep.host.OrtHost;
import dev.javaep.host.Session;
import dev.javaep.host.SyncStream;
import dev.javaep.host.TensorData;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.ExternalMemoryType;
import dev.javaep.spi.ExternalSemaphoreType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.ParseException;
import java.util.List;
import java.util.Map;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * javaep's JDK Flight Recorder events through the real ORT, in this JVM: a recording with the JDK's
 * "default" settings (what {@code -XX:StartFlightRecording} uses) sees every Compute of a compiled group
 * (JavaCpu), every per-op kernel Compute, CopyTensors, a memory import and semaphore waits and signals (the
 * probe device EP), each with the fields Mission Control shows.
 */
class FlightRecorderEventsIT {
    private static final String REGISTRATION = "javaep-jfr-events";
    private static final String JAVA_CPU = "JavaCpuExecutionProvider";
    private static final String KERNELS = JavaKernelRegistryTestExecutionProvider.NAME;
    private static final String PROBE = ProbeDeviceFactory.NAME;
    @RegisterExtension
    static final JavaepRegistration JAVAEP = new JavaepRegistration(REGISTRATION, OrtHost.LogLevel.WARNING, JAVA_CPU, KERNELS, PROBE);

    @TempDir
    Path temp;

    private static Session session(byte[] model, String epName) {
        return JAVAEP.session(model, epName, false);
    }

    /** Runs {@code work} inside a recording with the JDK's default settings and returns its events, read back. */
    private List<RecordedEvent> record(Runnable work) throws IOException, ParseException {
        Path file = temp.resolve("javaep.jfr");
        try (Recording recording = new Recording(Configuration.getConfiguration("default"))) {
            recording.start();
            work.run();
            recording.stop();
            recording.dump(file);
        }
        assertTrue(Files.size(file) > 0);
        return RecordingFile.readAllEvents(file);
    }

    private static List<RecordedEvent> named(List<RecordedEvent> events, String name) {
        return events.stream().filter(e -> e.getEventType().getName().equals(name)).toList();
    }

    private static void assertJavaepEvent(RecordedEvent event) {
        assertEquals(List.of("javaep"), event.getEventType().getCategoryNames().subList(0, 1), event::toString);
        assertTrue(event.getDuration().toNanos() > 0, () -> "a measured duration: " + event);
        assertEquals(null, event.getStackTrace(), "javaep's events carry no stack trace (the frames are the bridge's)");
    }

    @Test
    void aCompiledGroupReportsEachComputeWithItsNodes() throws Exception {
        try (Session session = session(AddReluMulGroup.model("jfr_group"), JAVA_CPU)) {
            List<RecordedEvent> events = record(() -> {
                for (int run = 0; run < 3; run++) {
                    assertArrayEquals(AddReluMulGroup.OUT, session.run(AddReluMulGroup.INPUTS).get("out").floats(), 1e-6f);
                }
            });
            List<RecordedEvent> computes = named(events, CompiledNodeComputeEvent.NAME).stream()
                    .filter(e -> e.getString("nodes").contains("Relu:")).toList();
            assertEquals(3, computes.size(), () -> "one event per Run for the one group: " + computes);
            for (RecordedEvent compute : computes) {
                assertJavaepEvent(compute);
                assertEquals(JAVA_CPU, compute.getString("executionProvider"));
                assertEquals(3, compute.getInt("nodeCount"), "Add, Relu and Mul run as one compiled group");
                assertTrue(compute.getString("node").startsWith(JAVA_CPU), () -> "ORT's fused node name: " + compute);
                assertEquals(AddReluMulGroup.OP_TYPES, AddReluMulGroup.opTypes(compute.getString("nodes")),
                        "the group's nodes in the order they run");
            }
        }
    }

    @Test
    void perOpKernelsReportEachComputeWithOpTypeAndNode() throws Exception {
        byte[] model = new OnnxModelWriter("jfr_kernels")
                .input("x", ElementType.FLOAT, Dim.of(4))
                .input("y", ElementType.FLOAT, Dim.of(4))
                .output("out", ElementType.FLOAT, Dim.of(4))
                .node("Add", List.of("x", "y"), List.of("sum"))
                .node("Relu", List.of("sum"), List.of("out"))
                .toByteArray();
        Map<String, TensorData> inputs = Map.of(
                "x", TensorData.ofFloats(new long[] {4}, -2f, -1f, 1f, 2f),
                "y", TensorData.ofFloats(new long[] {4}, 1f, 0.5f, 0.5f, 1f));
        try (Session session = session(model, KERNELS)) {
            List<RecordedEvent> events = record(() -> assertArrayEquals(new float[] {0f, 0f, 1.5f, 3f},
                    session.run(inputs).get("out").floats(), 1e-6f));
            List<RecordedEvent> kernels = named(events, KernelComputeEvent.NAME).stream()
                    .filter(e -> e.getString("executionProvider").equals(KERNELS)).toList();
            assertEquals(List.of("Add:Add_0", "Relu:Relu_1"), kernels.stream()
                    .map(e -> e.getString("opType") + ":" + e.getString("node")).sorted().toList());
            kernels.forEach(FlightRecorderEventsIT::assertJavaepEvent);
        }
    }

    @Test
    void aDeviceEpReportsCopiesImportsAndSemaphores() throws Exception {
        byte[] model = new OnnxModelWriter("jfr_probe_device")
                .input("minuend", ElementType.FLOAT, Dim.of(2), Dim.of(3))
                .input("subtrahend", ElementType.FLOAT, Dim.of(3))
                .output("difference", ElementType.FLOAT, Dim.of(2), Dim.of(3))
                .node("Sub", List.of("minuend", "subtrahend"), List.of("difference"))
                .toByteArray();
        Map<String, TensorData> inputs = Map.of(
                "minuend", TensorData.ofFloats(new long[] {2, 3}, 1f, 2f, 3f, 4f, 5f, 6f),
                "subtrahend", TensorData.ofFloats(new long[] {3}, 1f, 1f, 1f));
        EpDevice device = JAVAEP.env().epDevice(PROBE);
        List<RecordedEvent> events;
        long streamHandle;
        try (Session session = session(model, PROBE);
             SyncStream stream = JAVAEP.env().createSyncStream(device);
             ExternalResourceImporter importer = JAVAEP.env().createExternalResourceImporter(device).orElseThrow()) {
            streamHandle = stream.handle();
            events = record(() -> {
                ProbeDeviceFactory.clearRecords();
                assertArrayEquals(new float[] {0f, 1f, 2f, 3f, 4f, 5f}, session.run(inputs).get("difference").floats(), 1e-6f);
                // The probe importer never touches the fd (987654) or the fence handle: it records what it is asked.
                try (ExternalMemory memory = importer.importMemory(ExternalMemoryType.VK_MEMORY_OPAQUE_FD, 987_654, 4096, 1024);
                     ExternalSemaphore fence = importer.importSemaphore(ExternalSemaphoreType.D3D12_FENCE, 0xfe4ce)) {
                    assertEquals(4096, memory.sizeBytes());
                    importer.waitSemaphore(fence, stream, 77);
                    importer.signalSemaphore(fence, stream, 88);
                }
            });
        }

        List<RecordedEvent> computes = named(events, CompiledNodeComputeEvent.NAME).stream()
                .filter(e -> e.getString("executionProvider").equals(PROBE)).toList();
        assertEquals(1, computes.size(), computes::toString);
        assertEquals(1, computes.getFirst().getInt("nodeCount"));

        List<RecordedEvent> copies = named(events, CopyTensorsEvent.NAME).stream()
                .filter(e -> e.getString("executionProvider").equals(PROBE)).toList();
        assertFalse(copies.isEmpty(), "ORT copies the host inputs to the probe device and the output back");
        copies.forEach(FlightRecorderEventsIT::assertJavaepEvent);
        long copiedBytes = ProbeDeviceFactory.COPIES.stream().mapToLong(ProbeDeviceFactory.Transfer::bytes).sum();
        assertEquals(copiedBytes, copies.stream().mapToLong(e -> e.getLong("bytes")).sum(),
                "the events count the bytes the EP's data transfer was asked to copy");
        assertEquals(ProbeDeviceFactory.COPIES.size(), copies.stream().mapToInt(e -> e.getInt("copies")).sum());
        assertTrue(copies.stream().anyMatch(e -> e.getString("direction").equals("HOST_TO_DEVICE")), copies::toString);
        assertTrue(copies.stream().anyMatch(e -> e.getString("direction").equals("DEVICE_TO_HOST")), copies::toString);
        assertTrue(copies.stream().allMatch(e -> e.getString("device").startsWith("GPU " + ProbeDeviceFactory.MEMORY_DEVICE_ID)),
                copies::toString);

        List<RecordedEvent> imports = named(events, ExternalMemoryImportEvent.NAME);
        assertEquals(1, imports.size(), imports::toString);
        assertJavaepEvent(imports.getFirst());
        assertEquals(PROBE, imports.getFirst().getString("executionProvider"));
        assertEquals("VK_MEMORY_OPAQUE_FD", imports.getFirst().getString("type"));
        assertEquals(4096 - 1024, imports.getFirst().getLong("bytes"), "the imported range [offset, size)");

        List<RecordedEvent> semaphores = named(events, ExternalSemaphoreEvent.NAME);
        assertEquals(2, semaphores.size(), semaphores::toString);
        for (var expected : List.of(Map.entry("wait", 77L), Map.entry("signal", 88L))) {
            List<RecordedEvent> semaphore = semaphores.stream()
                    .filter(e -> expected.getKey().equals(e.getString("operation"))).toList();
            assertEquals(1, semaphore.size(), semaphores::toString);
            assertJavaepEvent(semaphore.getFirst());
            assertEquals("D3D12_FENCE", semaphore.getFirst().getString("type"));
            assertEquals(expected.getValue(), semaphore.getFirst().getLong("value"));
            assertEquals(streamHandle, semaphore.getFirst().getLong("stream"), "the EP's own stream handle");
        }
    }
}
