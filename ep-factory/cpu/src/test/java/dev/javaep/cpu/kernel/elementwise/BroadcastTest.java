package dev.javaep.cpu.kernel.elementwise;

import dev.javaep.cpu.kernel.BroadcastRows;
import dev.javaep.cpu.kernel.TestTensors;
import dev.javaep.cpu.kernel.Shapes;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.spi.Broadcasting;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BroadcastTest {

    private static void assertBroadcast(long[] a, long[] b, long... expected) {
        assertArrayEquals(expected, Broadcasting.multidirectional(a, b), TestTensors.shape(a) + " with " + TestTensors.shape(b));
        assertArrayEquals(expected, Broadcasting.multidirectional(b, a), "broadcasting is symmetric");
    }

    @Test
    void multidirectionalFollowsNumpy() {
        assertBroadcast(new long[] {2, 3}, new long[] {2, 3}, 2, 3);
        assertBroadcast(new long[] {}, new long[] {2, 3}, 2, 3);
        assertBroadcast(new long[] {1}, new long[] {2, 3}, 2, 3);
        assertBroadcast(new long[] {3}, new long[] {2, 3}, 2, 3);
        assertBroadcast(new long[] {3, 1}, new long[] {1, 4}, 3, 4);
        assertBroadcast(new long[] {2, 1, 4}, new long[] {3, 1}, 2, 3, 4);
        assertBroadcast(new long[] {5, 1, 1}, new long[] {1, 1, 1, 1}, 1, 5, 1, 1);
        assertBroadcast(new long[] {0, 3}, new long[] {1, 3}, 0, 3);
        assertBroadcast(new long[] {0}, new long[] {1}, 0);
        assertBroadcast(new long[] {}, new long[] {}, new long[0]);
    }

    @Test
    void incompatibleShapesAreRejectedWithBothShapesNamed() {
        var e = assertThrows(IllegalArgumentException.class,
                () -> Broadcasting.multidirectional(new long[] {2, 3}, new long[] {4}));
        assertTrue(e.getMessage().contains("[2, 3]") && e.getMessage().contains("[4]"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Broadcasting.multidirectional(new long[] {0}, new long[] {2}));
        assertThrows(IllegalArgumentException.class,
                () -> Broadcasting.multidirectional(new long[] {2, 1, 3}, new long[] {4, 2}));
    }

    @Test
    void unidirectionalOnlyStretchesTheSource() {
        long[] target = {3, 4};
        for (long[] ok : new long[][] {{}, {1}, {4}, {3, 1}, {1, 4}, {3, 4}, {1, 1}}) {
            assertDoesNotThrow(() -> Broadcasting.requireUnidirectional(ok, target, "C"), TestTensors.shape(ok));
        }
        for (long[] bad : new long[][] {{3}, {4, 3}, {2, 4}, {1, 3, 4}, {3, 4, 1}}) {
            assertThrows(IllegalArgumentException.class, () -> Broadcasting.requireUnidirectional(bad, target, "C"),
                    TestTensors.shape(bad));
        }
    }

    @Test
    void stridesAreZeroWhereTheInputIsStretched() {
        assertArrayEquals(new long[] {12, 4, 1}, Broadcasting.strides(new long[] {2, 3, 4}, 3));
        assertArrayEquals(new long[] {0, 0, 1}, Broadcasting.strides(new long[] {4}, 3));
        assertArrayEquals(new long[] {1, 0}, Broadcasting.strides(new long[] {3, 1}, 2));
        assertArrayEquals(new long[] {0, 0}, Broadcasting.strides(new long[] {}, 2));
    }

    private static final long[][][] SHAPE_PAIRS = {
            {{2, 3, 4}, {2, 3, 4}},
            {{2, 3, 4}, {}},
            {{}, {2, 3, 4}},
            {{2, 3, 4}, {4}},
            {{2, 3, 4}, {3, 1}},
            {{3, 1}, {1, 4}},
            {{2, 1, 4, 1}, {3, 1, 5}},
            {{1, 3, 1, 2}, {2, 1, 5, 1}},
            {{5, 1}, {1}},
            {{1, 1}, {1}},
            {{4, 1, 1, 6}, {4, 1, 1, 6}},
            {{0, 3}, {3}},
    };

    @Test
    void rowsVisitEveryOutputElementWithTheInputElementNumpyReads() {
        for (long[][] pair : SHAPE_PAIRS) {
            long[] a = pair[0];
            long[] b = pair[1];
            BroadcastRows rows = BroadcastRows.of(a, b);
            long[] out = Broadcasting.multidirectional(a, b);
            assertArrayEquals(out, rows.outputShape());
            List<long[]> visited = new ArrayList<>();
            rows.forEachRow((o, ai, bi) -> {
                for (long j = 0; j < rows.rowLength(); j++) {
                    visited.add(new long[] {o + j, ai + j * rows.aStep(), bi + j * rows.bStep()});
                }
            });
            String what = TestTensors.shape(a) + " with " + TestTensors.shape(b);
            assertEquals(Shapes.elementCount(out), visited.size(), what);
            for (int i = 0; i < visited.size(); i++) {
                long[] v = visited.get(i);
                assertEquals(i, v[0], what + ": rows come in output order");
                assertEquals(TestTensors.broadcastSource(i, out, a), v[1], what + ": A index of output " + i);
                assertEquals(TestTensors.broadcastSource(i, out, b), v[2], what + ": B index of output " + i);
            }
        }
    }

    @Test
    void sameShapesAndScalarsBecomeOneRow() {
        BroadcastRows same = BroadcastRows.of(new long[] {2, 3, 4}, new long[] {2, 3, 4});
        assertEquals(1, same.rowCount());
        assertEquals(24, same.rowLength());
        assertEquals(1, same.aStep());
        assertEquals(1, same.bStep());

        BroadcastRows scalar = BroadcastRows.of(new long[] {2, 3, 4}, new long[] {1, 1});
        assertEquals(1, scalar.rowCount());
        assertEquals(1, scalar.aStep());
        assertEquals(0, scalar.bStep());

        BroadcastRows bias = BroadcastRows.of(new long[] {8, 16}, new long[] {16});
        assertEquals(8, bias.rowCount());
        assertEquals(16, bias.rowLength());
    }
}
