package dev.javaep.cpu.kernel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.cpu.kernel.matmul.FloatMatrixProduct;
import java.lang.foreign.MemorySegment;
import java.util.Random;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

class KernelThreadsTest {

    @Test
    void everyTaskRunsOnceInEveryJob() {
        KernelThreads pool = KernelThreads.acquire(3);
        try {
            for (int job = 0; job < 2_000; job++) { // many back-to-back jobs: a late worker must not run an old job's task
                int tasks = 1 + job % 7;
                AtomicIntegerArray runs = new AtomicIntegerArray(tasks);
                pool.parallelFor(tasks, runs::incrementAndGet);
                for (int t = 0; t < tasks; t++) {
                    assertEquals(1, runs.get(t), "job " + job + " task " + t);
                }
            }
        } finally {
            KernelThreads.release(pool);
        }
    }

    @Test
    void aTaskFailureReachesTheCallerAndThePoolStillWorks() {
        KernelThreads pool = KernelThreads.acquire(2);
        try {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> pool.parallelFor(4, t -> {
                if (t == 3) {
                    throw new IllegalStateException("task 3");
                }
            }));
            assertEquals("task 3", e.getMessage());
            AtomicIntegerArray runs = new AtomicIntegerArray(4);
            pool.parallelFor(4, runs::incrementAndGet);
            assertEquals("[1, 1, 1, 1]", runs.toString());
        } finally {
            KernelThreads.release(pool);
        }
    }

    @Test
    void oneSharedPoolPerThreadCountWhoseWorkersStopWithTheLastUser() {
        KernelThreads first = KernelThreads.acquire(4);
        KernelThreads second = KernelThreads.acquire(4);
        assertSame(first, second);
        assertSame(KernelThreads.INLINE, KernelThreads.acquire(1));
        assertEquals(3, workers());
        KernelThreads.release(first);
        assertEquals(3, workers(), "still used by the second EP");
        KernelThreads.release(second);
        assertEquals(0, workers());
    }

    private static long workers() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("javaep-cpu-") && t.isAlive() && t.isDaemon()).count();
    }

    @Test
    void matrixProductSplitByRowsOrColumnsEqualsTheOneThreadProduct() {
        // split by columns (the first two) and by rows (64 columns are too few for three threads), all above the size
        // from which the product is split
        for (int[] mkn : new int[][] {{64, 96, 160}, {2, 300, 640}, {128, 64, 64}}) {
            int m = mkn[0];
            int k = mkn[1];
            int n = mkn[2];
            Random random = new Random(m);
            MemorySegment a = random(random, m * k);
            MemorySegment b = random(random, k * n);
            float[] inline = new float[m * n];
            float[] split = new float[m * n];
            FloatMatrixProduct.multiplyAccumulate(a, 0, false, b, 0, false, MemorySegment.ofArray(inline), 0, m, k, n, 0.5f);
            KernelThreads pool = KernelThreads.acquire(3);
            try {
                KernelThreads.enter(pool);
                FloatMatrixProduct.multiplyAccumulate(a, 0, false, b, 0, false, MemorySegment.ofArray(split), 0, m, k, n, 0.5f);
            } finally {
                KernelThreads.enter(null);
                KernelThreads.release(pool);
            }
            assertArrayEquals(inline, split, 1e-5f, m + "x" + k + "x" + n);
            assertTrue(inline[inline.length - 1] != 0f);
        }
    }

    private static MemorySegment random(Random random, int count) {
        float[] values = new float[count];
        for (int i = 0; i < count; i++) {
            values[i] = random.nextFloat() - 0.5f;
        }
        return MemorySegment.ofArray(values);
    }
}
