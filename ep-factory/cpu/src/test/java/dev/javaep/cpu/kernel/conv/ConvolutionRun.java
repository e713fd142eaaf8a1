package dev.javaep.cpu.kernel.conv;

import static dev.javaep.cpu.kernel.conv.KernelRun.integer;

import dev.javaep.cpu.kernel.conv.ReferenceLoops.Spatial;
import dev.javaep.spi.Attribute;
import dev.javaep.spi.ElementType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * What Conv's and ConvTranspose's tests share: random X, W (and B) rounded to the kernel's type, the reference loop
 * on the same values, and the kernel at opsets 1, 11 and 22 compared with it.
 */
final class ConvolutionRun {
    private ConvolutionRun() {}

    /** {@link ReferenceLoops#conv} or {@link ReferenceLoops#convTranspose}. */
    interface Reference {
        float[] compute(float[] x, float[] w, float[] b, long n, long c, long m, long group, Spatial spatial);
    }

    /**
     * Runs {@code op} with X [n, c, in...], W {@code wShape} and optionally B [m]; a float32 result may differ from
     * the double reference by {@code floatTolerance} (the sums run in another order), a float16 one by 1e-3.
     */
    static void check(String op, Reference reference, Random random, ElementType type, long n, long c, long m, long group,
                      long[] wShape, Spatial spatial, boolean bias, float floatTolerance, Attribute... attributes) {
        long[] xShape = concat(new long[] {n, c}, spatial.in());
        float[] x = KernelRun.random(random, ReferenceLoops.product(xShape));
        float[] w = KernelRun.random(random, ReferenceLoops.product(wShape));
        float[] b = bias ? KernelRun.random(random, m) : null;
        if (type == ElementType.FLOAT16) {
            x = KernelRun.roundedToHalf(x);
            w = KernelRun.roundedToHalf(w);
            b = b == null ? null : KernelRun.roundedToHalf(b);
        }
        float[] expected = reference.compute(x, w, b, n, c, m, group, spatial);
        long[][] shapes = bias ? new long[][] {xShape, wShape, {m}} : new long[][] {xShape, wShape};
        float[][] data = bias ? new float[][] {x, w, b} : new float[][] {x, w};
        List<Attribute> all = new ArrayList<>(List.of(attributes));
        if (group != 1) {
            all.add(integer("group", group));
        }
        String what = op + " X" + Arrays.toString(xShape) + " W" + Arrays.toString(wShape) + " " + all;
        float tolerance = type == ElementType.FLOAT ? floatTolerance : 1e-3f; // float16 rounds the result once
        for (int version : new int[] {1, 11, 22}) {
            float[] actual = KernelRun.run(KernelRun.node(op, version, type, shapes, all.toArray(Attribute[]::new)),
                    type, data, shapes, concat(new long[] {n, m}, spatial.out()));
            KernelRun.assertClose(expected, actual, tolerance, what + " opset " + version);
        }
    }

    static long[] concat(long[] a, long[] b) {
        long[] r = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }
}
