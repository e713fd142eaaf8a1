package dev.javaep.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The allocator's address → stream table agrees with a {@code HashMap} through puts, removes and growth, and boxes nothing. */
class AllocationStreamsTest {
    @Test
    void agreesWithAMapThroughRandomAllocationsAndFrees() {
        AllocationStreams table = new AllocationStreams();
        Map<Long, Long> expected = new HashMap<>();
        List<Long> live = new ArrayList<>();
        Random random = new Random(13);
        for (int i = 0; i < 200_000; i++) {
            if (live.isEmpty() || random.nextInt(3) > 0 && live.size() < 5_000) {
                // pool-like addresses: 256-byte aligned, clustered (the low bits alike)
                long address = 0x7f00_0000_0000L + 256L * random.nextInt(1 << 20);
                long stream = random.nextInt(4) * 0x1000L;
                table.put(address, stream);
                if (expected.put(address, stream) == null) {
                    live.add(address);
                }
            } else {
                long address = live.remove(random.nextInt(live.size()));
                assertEquals((long) expected.remove(address), table.remove(address));
            }
            if (i % 10_000 == 0) {
                assertEquals(expected.size(), table.size());
            }
        }
        for (Map.Entry<Long, Long> e : expected.entrySet()) {
            assertEquals((long) e.getValue(), table.remove(e.getKey()));
        }
        assertEquals(0, table.size());
        assertEquals(AllocationStreams.ABSENT, table.remove(0x7f00_0000_0100L), "a freed address is no longer known");
    }

    @Test
    void aFreeOfWhatWasNeverAllocatedIsAbsentAndZeroIsNoAddress() {
        AllocationStreams table = new AllocationStreams();
        table.put(0x1000, 0x5A);
        assertEquals(AllocationStreams.ABSENT, table.remove(0x2000));
        assertEquals(AllocationStreams.ABSENT, table.remove(0));
        assertThrows(IllegalArgumentException.class, () -> table.put(0, 1));
        assertEquals(0x5A, table.remove(0x1000));
    }

    @Test
    void anAllocationAndItsFreeAllocateNothingOnTheHeap() {
        AllocationStreams table = new AllocationStreams();
        for (long a = 1; a <= 32; a++) {
            table.put(a << 8, 7); // a few live ones, as in a Run
        }
        double lowest = Double.MAX_VALUE;
        for (int batch = 0; batch < 20; batch++) {
            long before = allocated();
            for (int i = 0; i < 5_000; i++) {
                table.put(0x9000_0000L + (i & 15) * 256L, 0x5A);
                table.remove(0x9000_0000L + (i & 15) * 256L);
            }
            lowest = Math.min(lowest, (allocated() - before) / 5_000.0);
        }
        assertTrue(lowest < 1, "bytes per allocation and free: " + lowest);
    }

    private static long allocated() {
        return ((com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean())
                .getCurrentThreadAllocatedBytes();
    }
}
