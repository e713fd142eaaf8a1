package dev.javaep.cuda.kernel.ptx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class LaunchShapeTest {
    @Test
    void linearKernelsGet256ThreadsAndACappedGrid() {
        assertEquals(new LaunchShape(1, 1, 1, 256, 1, 1), LaunchShape.linear(1));
        assertEquals(new LaunchShape(2, 1, 1, 256, 1, 1), LaunchShape.linear(257));
        assertEquals(new LaunchShape(LaunchShape.MAX_LINEAR_BLOCKS, 1, 1, 256, 1, 1), LaunchShape.linear(1L << 40));
        assertThrows(IllegalArgumentException.class, () -> LaunchShape.linear(0));
    }

    @Test
    void softmaxRowsPutsEightRowsInABlock() {
        assertEquals(new LaunchShape(1, 1, 1, 256, 1, 1), LaunchShape.softmaxRows(8));
        assertEquals(new LaunchShape(2, 1, 1, 256, 1, 1), LaunchShape.softmaxRows(9));
    }

    @Test
    void gemmTilesYAndLayersBatches() {
        assertEquals(new LaunchShape(3, 2, 5, 16, 16, 1), LaunchShape.gemm(17, 33, 5));
        assertEquals(new LaunchShape(1, 1, 1, 16, 16, 1), LaunchShape.gemm(1, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> LaunchShape.gemm(16L * 65535 + 1, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> LaunchShape.gemm(1, 1, 65536));
    }
}
