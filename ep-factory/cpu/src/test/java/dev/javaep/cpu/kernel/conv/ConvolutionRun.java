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
record ConvolutionRun(String op, Reference reference, boolean transposed) {
    /** W [m, c/group, kernel...]; an output sums c/group · kernel products. */
    static final ConvolutionRun CONV = new ConvolutionRun("Conv", ReferenceLoops::conv, false);
    /** W [c, m/group, kernel...]; an output gathers up to c · kernel products. */
    static final ConvolutionRun CONV_TRANSPOSE = new ConvolutionRun("ConvTranspose", ReferenceLoops::convTranspose, true);

    /** {@link ReferenceLoops#conv} or {@link ReferenceLoops#convTranspose}. */
    interface Reference {
        float[] compute(float[] x, float[] w, float[] b, long n, long c, long m, long group, Spatial spatial);
    }

    /**
     * Runs the op with X [n, c, in...] and optionally B [m], and compares with the reference given the pads and output
     * size the test states by hand ({@code pads}: begins then ends; for ConvTranspose what is cropped from the full
     * output). A float32 result may differ from the double reference by 1e-5 a product (the sums run in another
     * order), a float16 one by 1e-3 (it rounds the result once).
     */
    void check(ElementType type, long n, long c, long m, long group, long[] in, long[] kernel, long[] strides,
               long[] dilations, long[] pads, long[] out, boolean bias, Attribute... attributes) {
        Random random = new Random(Arrays.hashCode(in) * 31L + c * 7 + m + group + Arrays.hashCode(kernel));
        long[] xShape = concat(new long[] {n, c}, in);
        long[] wShape = concat(transposed ? new long[] {c, m / group} : new long[] {m, c / group}, kernel);
        float[] x = KernelRun.random(random, ReferenceLoops.product(xShape));
        float[] w = KernelRun.random(random, ReferenceLoops.product(wShape));
        float[] b = bias ? KernelRun.random(random, m) : null;
        if (type == ElementType.FLOAT16) {
            x = KernelRun.roundedToHalf(x);
            w = KernelRun.roundedToHalf(w);
            b = b == null ? null : KernelRun.roundedToHalf(b);
        }
        float[] expected = reference.compute(x, w, b, n, c, m, group, new Spatial(in, kernel, strides, dilations, pads, out));
        long[][] shapes = bias ? new long[][] {xShape, wShape, {m}} : new long[][] {xShape, wShape};
        float[][] data = bias ? new float[][] {x, w, b} : new float[][] {x, w};
        List<Attribute> all = new ArrayList<>(List.of(attributes));
        if (group != 1) {
            all.add(integer("group", group));
        }
        String what = op + " X" + Arrays.toString(xShape) + " W" + Arrays.toString(wShape) + " " + all;
        long products = (transposed ? c : c / group) * ReferenceLoops.product(kernel);
        float tolerance = type == ElementType.FLOAT ? 1e-5f * products : 1e-3f;
        for (int version : new int[] {1, 11, 22}) {
            float[] actual = KernelRun.run(KernelRun.node(op, version, type, shapes, all.toArray(Attribute[]::new)),
                    type, data, shapes, concat(new long[] {n, m}, out));
            KernelRun.assertClose(expected, actual, tolerance, what + " opset " + version);
        }
    }

    static long[] concat(long[] a, long[] b) {
        long[] r = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

    /** A shape, pads or strides, written inline. */
    static long[] l(long... values) {
        return values;
    }
}
