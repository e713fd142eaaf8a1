package dev.javaep.cuda.kernel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** The workspace planner: no two values alive at once share bytes, everything is 256-byte aligned, and dead values' bytes are reused. */
class IntermediatePlanTest {

    @Test
    void aChainNeedsTwoSlotsHoweverLongItIs() {
        // t0 = f(x); t1 = f(t0); ... each value is read only by the next step
        int n = 12;
        long[] bytes = new long[n];
        int[] first = new int[n];
        int[] last = new int[n];
        for (int i = 0; i < n; i++) {
            bytes[i] = 1000;
            first[i] = i;
            last[i] = i + 1;
        }
        IntermediatePlan plan = valid(bytes, first, last);
        assertEquals(2 * 1024, plan.workspaceBytes(), plan.toString());
    }

    @Test
    void valuesAliveTogetherGetTheirOwnBytes() {
        // three values written by steps 0..2 and all read by step 3
        IntermediatePlan plan = valid(new long[] {100, 300, 600}, new int[] {0, 1, 2}, new int[] {3, 3, 3});
        assertEquals(256 + 512 + 768, plan.workspaceBytes());
    }

    @Test
    void aStepsOutputNeverSharesBytesWithItsInput() {
        // a is last read by step 1, which writes b: lifetimes touch at step 1, so they must not overlap
        IntermediatePlan plan = valid(new long[] {512, 512}, new int[] {0, 1}, new int[] {1, 2});
        assertEquals(1024, plan.workspaceBytes());
        // c is written by step 2, after a's last reader: it takes a's bytes
        plan = valid(new long[] {512, 512, 512}, new int[] {0, 1, 2}, new int[] {1, 2, 3});
        assertEquals(1024, plan.workspaceBytes());
        assertEquals(plan.offsets()[0], plan.offsets()[2]);
    }

    @Test
    void sizesAreRoundedToTheAllocationAlignment() {
        IntermediatePlan plan = valid(new long[] {1, 257, 0, 256}, new int[] {0, 0, 0, 0}, new int[] {1, 1, 1, 1});
        assertArrayEquals(new long[] {256, 512, 0, 256}, plan.sizes());
        for (long offset : plan.offsets()) {
            assertEquals(0, offset % IntermediatePlan.ALIGNMENT);
        }
        assertEquals(1024, plan.workspaceBytes());
    }

    @Test
    void emptyValuesAndNoValuesNeedNoWorkspace() {
        assertEquals(0, valid(new long[] {0, 0}, new int[] {0, 1}, new int[] {1, 2}).workspaceBytes());
        assertEquals(0, valid(new long[0], new int[0], new int[0]).workspaceBytes());
    }

    @Test
    void aSmallValueFillsAGapLeftByLargerOnes() {
        // big0 [0,1] and big1 [2,3] share bytes; small [1,2] overlaps both in time and goes above them
        IntermediatePlan plan = valid(new long[] {4096, 4096, 256}, new int[] {0, 2, 1}, new int[] {1, 3, 2});
        assertEquals(4096 + 256, plan.workspaceBytes());
    }

    @Test
    void randomGroupsArePackedWithoutConflicts() {
        Random random = new Random(11);
        for (int round = 0; round < 500; round++) {
            int n = 1 + random.nextInt(40);
            int steps = 1 + random.nextInt(30);
            long[] bytes = new long[n];
            int[] first = new int[n];
            int[] last = new int[n];
            for (int i = 0; i < n; i++) {
                bytes[i] = random.nextInt(5) == 0 ? 0 : random.nextInt(1 << 16);
                first[i] = random.nextInt(steps);
                last[i] = first[i] + random.nextInt(steps - first[i] + 1);
            }
            IntermediatePlan plan = valid(bytes, first, last);
            long total = 0;
            for (long size : plan.sizes()) {
                total += size;
            }
            assertTrue(plan.workspaceBytes() <= total, "never more than one allocation per value");
            for (int step = 0; step <= steps; step++) {
                long alive = 0;
                for (int i = 0; i < n; i++) {
                    alive += first[i] <= step && step <= last[i] ? plan.sizes()[i] : 0;
                }
                assertTrue(plan.workspaceBytes() >= alive, "holds every value alive at step " + step);
            }
        }
    }

    @Test
    void refusesInconsistentLifetimes() {
        assertThrows(IllegalArgumentException.class, () -> IntermediatePlan.of(new long[] {1}, new int[] {2}, new int[] {1}));
        assertThrows(IllegalArgumentException.class, () -> IntermediatePlan.of(new long[] {-1}, new int[] {0}, new int[] {0}));
        assertThrows(IllegalArgumentException.class, () -> IntermediatePlan.of(new long[] {1, 2}, new int[] {0}, new int[] {0}));
    }

    /** Plans and checks the invariants every plan must keep. */
    private static IntermediatePlan valid(long[] bytes, int[] first, int[] last) {
        IntermediatePlan plan = IntermediatePlan.of(bytes, first, last);
        for (int i = 0; i < bytes.length; i++) {
            assertTrue(plan.sizes()[i] >= bytes[i]);
            assertEquals(0, plan.sizes()[i] % IntermediatePlan.ALIGNMENT);
            assertEquals(0, plan.offsets()[i] % IntermediatePlan.ALIGNMENT);
            assertTrue(plan.offsets()[i] + plan.sizes()[i] <= plan.workspaceBytes());
            for (int j = 0; j < i; j++) {
                boolean aliveTogether = first[i] <= last[j] && first[j] <= last[i];
                boolean overlap = plan.sizes()[i] > 0 && plan.sizes()[j] > 0
                        && plan.offsets()[i] < plan.offsets()[j] + plan.sizes()[j]
                        && plan.offsets()[j] < plan.offsets()[i] + plan.sizes()[i];
                if (aliveTogether && overlap) {
                    fail("values " + j + " and " + i + " are alive together and overlap: " + plan);
                }
            }
        }
        return plan;
    }
}
