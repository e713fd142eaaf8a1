package dev.javaep.cuda.kernel.ptx;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

class BroadcastLayoutTest {

    /** numpy's rule, written the slow way: the input's own coordinates, 0 on its size-1 dims, row-major. */
    private static long numpyOffset(long[] outCoord, long[] inShape) {
        int shift = outCoord.length - inShape.length;
        long offset = 0;
        for (int j = 0; j < inShape.length; j++) {
            long coord = inShape[j] == 1 ? 0 : outCoord[j + shift];
            offset = offset * inShape[j] + coord;
        }
        return offset;
    }

    /** Checks every output element of {@code layout} against numpy's rule, walking coordinates as an odometer. */
    private static void assertMatchesNumpy(BroadcastLayout layout, long[] out, long[] a, long[] b) {
        long n = Arrays.stream(out).reduce(1, Math::multiplyExact);
        assertEquals(n, layout.elementCount(), layout.toString());
        long[] coord = new long[out.length];
        for (long i = 0; i < n; i++) {
            long[] got = layout.offsetsOf(i);
            String where = layout + " at " + i + " = " + Arrays.toString(coord);
            assertEquals(numpyOffset(coord, a), got[0], "a " + Arrays.toString(a) + ", " + where);
            assertEquals(numpyOffset(coord, b), got[1], "b " + Arrays.toString(b) + ", " + where);
            for (int d = out.length - 1; d >= 0 && ++coord[d] == out[d]; d--) {
                coord[d] = 0;
            }
        }
    }

    private static void check(long[] out, long[] a, long[] b) {
        assertMatchesNumpy(BroadcastLayout.of(out, a, b), out, a, b);
        BroadcastLayout merged = BroadcastLayout.coalesced(out, a, b);
        assertMatchesNumpy(merged, out, a, b);
        assertTrue(merged.rank() <= out.length, merged.toString());
    }

    @Test
    void stridesAreRightAlignedAndZeroWhereStretched() {
        assertArrayEquals(new long[] {12, 4, 1}, BroadcastLayout.strides(new long[] {2, 3, 4}, new long[] {2, 3, 4}));
        assertArrayEquals(new long[] {0, 0, 1}, BroadcastLayout.strides(new long[] {2, 3, 4}, new long[] {4}));
        assertArrayEquals(new long[] {3, 0, 1}, BroadcastLayout.strides(new long[] {2, 4, 3}, new long[] {2, 1, 3}));
        assertArrayEquals(new long[] {0, 1, 0}, BroadcastLayout.strides(new long[] {2, 4, 3}, new long[] {4, 1}));
        assertArrayEquals(new long[] {0, 0}, BroadcastLayout.strides(new long[] {2, 3}, new long[] {}));
        assertArrayEquals(new long[] {}, BroadcastLayout.strides(new long[] {}, new long[] {}));
    }

    @Test
    void numpyStyleCases() {
        check(new long[] {2, 3}, new long[] {2, 3}, new long[] {2, 3});
        check(new long[] {2, 3}, new long[] {}, new long[] {2, 3});
        check(new long[] {2, 3}, new long[] {2, 3}, new long[] {3});
        check(new long[] {2, 3}, new long[] {2, 1}, new long[] {1, 3});
        check(new long[] {3, 4}, new long[] {3, 1}, new long[] {1, 4});
        check(new long[] {2, 4, 3}, new long[] {2, 1, 3}, new long[] {4, 1});
        check(new long[] {2, 3, 4, 5}, new long[] {2, 3, 4, 5}, new long[] {5});
        check(new long[] {1, 5, 1, 1}, new long[] {5, 1, 1}, new long[] {1, 1, 1, 1});
        check(new long[] {}, new long[] {}, new long[] {});
        check(new long[] {1}, new long[] {}, new long[] {1});
        check(new long[] {2, 2, 2, 2, 2, 2, 2, 2}, new long[] {2, 1, 2, 1, 2, 1, 2, 1}, new long[] {1, 2, 1, 2, 1, 2, 1, 2});
    }

    @Test
    void aConcreteAddMatchesTheHandWrittenLoop() {
        // a = arange(6).reshape(2,1,3), b = arange(4).reshape(4,1) * 10: (a + b)[i,j,k] = a[i,0,k] + b[j,0]
        float[] a = {0, 1, 2, 3, 4, 5};
        float[] b = {0, 10, 20, 30};
        BroadcastLayout layout = BroadcastLayout.coalesced(new long[] {2, 4, 3}, new long[] {2, 1, 3}, new long[] {4, 1});
        int i = 0;
        for (int x = 0; x < 2; x++) {
            for (int y = 0; y < 4; y++) {
                for (int z = 0; z < 3; z++, i++) {
                    long[] off = layout.offsetsOf(i);
                    assertEquals(a[x * 3 + z] + b[y], a[(int) off[0]] + b[(int) off[1]], "at " + x + "," + y + "," + z);
                }
            }
        }
    }

    @Test
    void randomShapesAgreeWithNumpy() {
        Random random = new Random(52);
        for (int trial = 0; trial < 400; trial++) {
            int rank = random.nextInt(7);
            long[] out = new long[rank];
            long[] a = new long[rank];
            long[] b = new long[rank];
            for (int d = 0; d < rank; d++) {
                out[d] = 1 + random.nextInt(4);
                a[d] = random.nextInt(3) == 0 ? 1 : out[d];
                b[d] = random.nextInt(3) == 0 ? 1 : out[d];
                if (a[d] != out[d] && b[d] != out[d]) {
                    b[d] = out[d]; // one of them must carry the output's size
                }
            }
            long[] aShape = Arrays.copyOfRange(a, random.nextInt(rank + 1), rank);
            long[] bShape = Arrays.copyOfRange(b, random.nextInt(rank + 1), rank);
            // the output is the broadcast of what is left
            long[] outShape = new long[rank];
            for (int d = 0; d < rank; d++) {
                long da = d >= rank - aShape.length ? aShape[d - rank + aShape.length] : 1;
                long db = d >= rank - bShape.length ? bShape[d - rank + bShape.length] : 1;
                outShape[d] = Math.max(da, db);
            }
            check(outShape, aShape, bShape);
        }
    }

    @Test
    void coalescingMergesWhatBothInputsWalkTogether() {
        BroadcastLayout l = BroadcastLayout.coalesced(new long[] {2, 3, 4, 5}, new long[] {2, 3, 4, 5}, new long[] {5});
        assertEquals(2, l.rank());
        assertArrayEquals(new long[] {24, 5}, l.outDims());
        assertArrayEquals(new long[] {5, 1}, l.aStrides());
        assertArrayEquals(new long[] {0, 1}, l.bStrides());

        l = BroadcastLayout.coalesced(new long[] {2, 3}, new long[] {2, 3}, new long[] {2, 3});
        assertArrayEquals(new long[] {6}, l.outDims());
        assertArrayEquals(new long[] {1}, l.aStrides());

        l = BroadcastLayout.coalesced(new long[] {2, 3}, new long[] {}, new long[] {2, 3});
        assertArrayEquals(new long[] {6}, l.outDims());
        assertArrayEquals(new long[] {0}, l.aStrides());
        assertArrayEquals(new long[] {1}, l.bStrides());

        l = BroadcastLayout.coalesced(new long[] {3, 4}, new long[] {3, 1}, new long[] {1, 4});
        assertEquals(2, l.rank());

        l = BroadcastLayout.coalesced(new long[] {1, 1}, new long[] {1}, new long[] {1, 1});
        assertEquals(0, l.rank());
        assertEquals(1, l.elementCount());
        assertArrayEquals(new long[] {0, 0}, l.offsetsOf(0));

        l = BroadcastLayout.coalesced(new long[] {3, 0, 2}, new long[] {3, 1, 2}, new long[] {0, 1});
        assertEquals(0, l.elementCount());
    }

    @Test
    void ranksAboveEightRunWhenTheyMerge() {
        long[] ten = {2, 2, 2, 2, 2, 2, 2, 2, 2, 2};
        assertThrows(IllegalArgumentException.class, () -> BroadcastLayout.of(ten, ten, new long[] {2}));
        BroadcastLayout l = BroadcastLayout.coalesced(ten, ten, new long[] {2});
        assertEquals(2, l.rank());
        assertMatchesNumpy(l, ten, ten, new long[] {2});

        long[] out = {2, 2, 2, 2, 2, 2, 2, 2, 2};
        long[] a = {2, 1, 2, 1, 2, 1, 2, 1, 2};
        long[] b = {1, 2, 1, 2, 1, 2, 1, 2, 1};
        var e = assertThrows(IllegalArgumentException.class, () -> BroadcastLayout.coalesced(out, a, b));
        assertTrue(e.getMessage().contains("9 after merging"), e.getMessage());
    }

    @Test
    void incompatibleShapesAreRejectedWithTheShapesNamed() {
        var e = assertThrows(IllegalArgumentException.class,
                () -> BroadcastLayout.of(new long[] {2, 3}, new long[] {2, 3}, new long[] {4}));
        assertTrue(e.getMessage().contains("[4]") && e.getMessage().contains("[2, 3]"), e.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> BroadcastLayout.of(new long[] {3}, new long[] {2, 3}, new long[] {3}));
    }

    @Test
    void packsLittleEndianDimsThenStridesPaddedWithOnesAndZeros() {
        BroadcastLayout l = BroadcastLayout.of(new long[] {2, 4, 3}, new long[] {2, 1, 3}, new long[] {4, 1});
        byte[] bytes = l.toBytes();
        assertEquals(192, bytes.length);
        ByteBuffer buf = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        long[] all = new long[24];
        for (int i = 0; i < 24; i++) {
            all[i] = buf.getLong();
        }
        assertArrayEquals(new long[] {
            2, 4, 3, 1, 1, 1, 1, 1,
            3, 0, 1, 0, 0, 0, 0, 0,
            0, 1, 0, 0, 0, 0, 0, 0,
        }, all);
        assertEquals(2, bytes[0]);
        assertEquals(0, bytes[1]);

        try (Arena arena = Arena.ofConfined()) {
            MemorySegment seg = l.allocate(arena);
            assertEquals(192, seg.byteSize());
            assertEquals(0, seg.address() % 8, "kernel parameter is 8-byte aligned");
            assertArrayEquals(bytes, seg.toArray(ValueLayout.JAVA_BYTE));
        }
    }
}
