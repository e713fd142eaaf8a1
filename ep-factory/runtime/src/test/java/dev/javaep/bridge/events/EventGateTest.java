package dev.javaep.bridge.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.List;
import jdk.jfr.EventType;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The gate every javaep event uses: without a recording nothing is allocated and nothing committed; with one
 * the event carries its fields. (The events as ORT causes them: {@code FlightRecorderEventsIT}.)
 */
class EventGateTest {
    @TempDir
    Path temp;

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    /** The bridge's per-Run path with no recording on: begin, (work), commit. */
    private static long computeWithoutRecording(int times) {
        long seen = 0;
        for (int i = 0; i < times; i++) {
            CompiledNodeComputeEvent compiled = CompiledNodeComputeEvent.beginIfRecorded();
            CompiledNodeComputeEvent.commit(compiled, "ep", "node", 3, "Relu:r");
            KernelComputeEvent kernel = KernelComputeEvent.beginIfRecorded();
            KernelComputeEvent.commit(kernel, "ep", "Relu", "r");
            CopyTensorsEvent copy = CopyTensorsEvent.beginIfRecorded();
            seen += (compiled == null ? 0 : 1) + (kernel == null ? 0 : 1) + (CopyTensorsEvent.endAndCheck(copy) ? 1 : 0);
        }
        return seen;
    }

    @Test
    void withoutARecordingTheHotPathAllocatesNothing() {
        computeWithoutRecording(10_000); // warm up, so class loading and the JIT allocate before we measure
        long before = THREADS.getCurrentThreadAllocatedBytes();
        long seen = computeWithoutRecording(100_000);
        long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
        assertEquals(0, seen, "no recording: every gate answers null");
        // A single event object is 32+ bytes; 100,000 Computes allocating one each would be megabytes.
        assertTrue(allocated < 1024, () -> allocated + " bytes allocated by 100,000 gated Computes");
    }

    @Test
    void aRecordingThatEnablesAnEventGetsItWithItsFields() throws Exception {
        Path file = temp.resolve("gate.jfr");
        try (Recording recording = new Recording()) {
            recording.enable(CompiledNodeComputeEvent.NAME);
            recording.disable(KernelComputeEvent.NAME);
            recording.start();
            CompiledNodeComputeEvent event = CompiledNodeComputeEvent.beginIfRecorded();
            assertNotNull(event, "a recording enables the event");
            assertNull(KernelComputeEvent.beginIfRecorded(), "an event the recording disables stays gated");
            CompiledNodeComputeEvent.commit(event, "JavaTestEp", "fused_0", 2, "Add:a,Relu:r");
            recording.stop();
            recording.dump(file);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getEventType().getName().equals(CompiledNodeComputeEvent.NAME)).toList();
        assertEquals(1, events.size(), events::toString);
        RecordedEvent event = events.getFirst();
        assertEquals("JavaTestEp", event.getString("executionProvider"));
        assertEquals("fused_0", event.getString("node"));
        assertEquals(2, event.getInt("nodeCount"));
        assertEquals("Add:a,Relu:r", event.getString("nodes"));
    }

    @Test
    void everyEventIsInTheJavaepCategoryWithoutStackTraces() {
        for (Class<? extends jdk.jfr.Event> type : List.of(CompiledNodeComputeEvent.class, KernelComputeEvent.class,
                CopyTensorsEvent.class, ExternalMemoryImportEvent.class,
                ExternalSemaphoreEvent.class)) {
            EventType eventType = EventType.getEventType(type);
            assertEquals(List.of("javaep"), eventType.getCategoryNames(), type::getName);
            assertTrue(eventType.getName().startsWith("javaep."), eventType::getName);
            assertTrue(eventType.getSettingDescriptors().stream().noneMatch(s -> s.getName().equals("stackTrace")
                    && s.getDefaultValue().equals("true")), () -> type + " records no stack trace by default");
        }
    }
}
