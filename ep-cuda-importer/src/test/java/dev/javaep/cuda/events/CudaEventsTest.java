package dev.javaep.cuda.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Path;
import java.util.List;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * JavaCuda's events as a recording sees them (the launches and copies themselves need a GPU: the GPU suite
 * runs them; here the events are committed as {@code CudaKernelLibrary.launch} and {@code CudaDataTransfer} do).
 */
class CudaEventsTest {
    @TempDir
    Path temp;

    @Test
    void withoutARecordingNothingIsBegun() {
        assertNull(CudaKernelLaunchEvent.beginIfRecorded());
        assertNull(CudaMemcpyEvent.beginIfRecorded());
    }

    @Test
    void launchesAndCopiesCarryTheirGeometryAndStream() throws Exception {
        Path file = temp.resolve("cuda.jfr");
        try (Recording recording = new Recording(Configuration.getConfiguration("default"))) {
            recording.start();
            CudaKernelLaunchEvent.commit(CudaKernelLaunchEvent.beginIfRecorded(), "ew_add_f32_same", 132, 2, 1, 256, 1, 1, 0x7f00L);
            CudaMemcpyEvent.commit(CudaMemcpyEvent.beginIfRecorded(), 4096, CudaMemcpyEvent.Direction.HOST_TO_DEVICE, 1,
                    0x7f00L, "MemcpyFromHost");
            recording.stop();
            recording.dump(file);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getEventType().getName().startsWith("javaep.cuda.")).toList();
        assertEquals(2, events.size(), events::toString);
        RecordedEvent launch = events.stream().filter(e -> e.getEventType().getName().equals(CudaKernelLaunchEvent.NAME))
                .findFirst().orElseThrow();
        assertEquals(List.of("javaep", "CUDA"), launch.getEventType().getCategoryNames());
        assertEquals("ew_add_f32_same", launch.getString("kernel"));
        assertEquals(List.of(132, 2, 1, 256, 1, 1), List.of(launch.getInt("gridX"), launch.getInt("gridY"),
                launch.getInt("gridZ"), launch.getInt("blockX"), launch.getInt("blockY"), launch.getInt("blockZ")));
        assertEquals(0x7f00L, launch.getLong("stream"));
        RecordedEvent copy = events.stream().filter(e -> e.getEventType().getName().equals(CudaMemcpyEvent.NAME))
                .findFirst().orElseThrow();
        assertEquals(4096, copy.getLong("bytes"));
        assertEquals("HOST_TO_DEVICE", copy.getString("direction"));
        assertEquals(1, copy.getInt("device"));
        assertEquals(0x7f00L, copy.getLong("stream"));
        assertEquals("MemcpyFromHost", copy.getString("origin"));
    }
}
