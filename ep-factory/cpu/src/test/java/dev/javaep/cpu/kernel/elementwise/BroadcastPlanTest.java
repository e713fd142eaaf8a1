package dev.javaep.cpu.kernel.elementwise;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.javaep.cpu.kernel.Shapes;
import dev.javaep.cpu.kernel.TestTensors;
import org.junit.jupiter.api.Test;

/** Every output element's input indices, walked through rows and chunks, against the dividing reference. */
class BroadcastPlanTest {

    private static void assertWalk(long[]... shapes) {
        BroadcastPlan plan = BroadcastPlan.of(shapes);
        long[] out = plan.outputShape();
        long count = Shapes.elementCount(out);
        boolean[] seen = new boolean[(int) count];
        plan.forEachChunk((o, starts, n) -> {
            for (int i = 0; i < n; i++) {
                seen[(int) (o + i)] = true;
                for (int k = 0; k < shapes.length; k++) {
                    assertEquals(TestTensors.broadcastSource(o + i, out, shapes[k]), starts[k] + i * plan.step(k),
                            "input " + k + " at output " + (o + i) + " of " + TestTensors.shape(out));
                }
            }
        });
        for (int i = 0; i < count; i++) {
            assertEquals(true, seen[i], "output element " + i + " visited");
        }
    }

    @Test
    void walksEveryPatternOfThreeInputs() {
        assertWalk(new long[] {2, 3, 4}, new long[] {2, 3, 4}, new long[] {2, 3, 4});
        assertWalk(new long[] {2, 1, 4}, new long[] {1, 3, 1}, new long[] {4});
        assertWalk(new long[] {}, new long[] {5, 1}, new long[] {1, 1, 7});
        assertWalk(new long[] {3, 1}, new long[] {1}, new long[] {3, 2500}); // rows longer than a chunk
        assertWalk(new long[] {2, 1, 3, 1, 2}, new long[] {4, 1, 1, 1}, new long[] {1, 1, 1, 1, 1});
        assertWalk(new long[] {0, 3}, new long[] {3});
        assertWalk(new long[] {1, 1}, new long[] {1});
    }

    @Test
    void mergesDimensionsInputsShareAndKeepsSteps() {
        BroadcastPlan same = BroadcastPlan.of(new long[] {2, 3, 4}, new long[] {2, 3, 4});
        assertEquals(24, same.rowLength());
        assertEquals(1, same.rowCount());
        BroadcastPlan bias = BroadcastPlan.of(new long[] {8, 16}, new long[] {16}, new long[] {});
        assertEquals(16, bias.rowLength());
        assertArrayEquals(new long[] {1, 1, 0}, new long[] {bias.step(0), bias.step(1), bias.step(2)});
    }

    @Test
    void shapesThatDoNotBroadcastThrow() {
        assertThrows(IllegalArgumentException.class, () -> BroadcastPlan.of(new long[] {2}, new long[] {3}, new long[] {1}));
    }
}
