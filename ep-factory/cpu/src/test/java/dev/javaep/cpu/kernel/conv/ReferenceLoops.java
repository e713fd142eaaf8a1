package dev.javaep.cpu.kernel.conv;

/**
 * Convolution and pooling written straight from the ONNX definitions, for any number of spatial axes, with no
 * window arithmetic shared with the kernels: every output position visits every kernel tap and asks whether the
 * tap lands inside the input. Slow and obvious on purpose.
 */
final class ReferenceLoops {
    private ReferenceLoops() {}

    /** The spatial description a test states by hand (per axis; pads as ONNX lists them: all begins, then all ends). */
    record Spatial(long[] in, long[] kernel, long[] strides, long[] dilations, long[] pads, long[] out) {
        int rank() {
            return in.length;
        }

        long padBegin(int i) {
            return pads[i];
        }

        long padEnd(int i) {
            return pads[i + in.length];
        }
    }

    static long product(long[] v) {
        long n = 1;
        for (long d : v) {
            n *= d;
        }
        return n;
    }

    /** Row-major coordinates of flat index {@code index} in {@code shape}. */
    static long[] coordinates(long index, long[] shape) {
        long[] c = new long[shape.length];
        for (int i = shape.length - 1; i >= 0; i--) {
            c[i] = index % shape[i];
            index /= shape[i];
        }
        return c;
    }

    static long flat(long[] c, long[] shape) {
        long index = 0;
        for (int i = 0; i < shape.length; i++) {
            index = index * shape[i] + c[i];
        }
        return index;
    }

    /** Input position of tap {@code k} of output {@code o}, or null when any axis falls outside the input. */
    static long[] source(Spatial s, long[] o, long[] k) {
        long[] p = new long[s.rank()];
        for (int i = 0; i < p.length; i++) {
            p[i] = o[i] * s.strides()[i] - s.padBegin(i) + k[i] * s.dilations()[i];
            if (p[i] < 0 || p[i] >= s.in()[i]) {
                return null;
            }
        }
        return p;
    }

    /** Conv: X [N, C, in...], W [M, C/group, kernel...], B [M] or null; Y [N, M, out...]. Accumulates in double. */
    static float[] conv(float[] x, float[] w, float[] b, long n, long c, long m, long group, Spatial s) {
        long cg = c / group;
        long mg = m / group;
        long inSize = product(s.in());
        long outSize = product(s.out());
        long kSize = product(s.kernel());
        float[] y = new float[(int) (n * m * outSize)];
        for (long img = 0; img < n; img++) {
            for (long oc = 0; oc < m; oc++) {
                long g = oc / mg;
                for (long o = 0; o < outSize; o++) {
                    long[] oPos = coordinates(o, s.out());
                    double acc = b == null ? 0 : b[(int) oc];
                    for (long ic = 0; ic < cg; ic++) {
                        for (long k = 0; k < kSize; k++) {
                            long[] p = source(s, oPos, coordinates(k, s.kernel()));
                            if (p != null) {
                                acc += (double) x[(int) (((img * c) + g * cg + ic) * inSize + flat(p, s.in()))]
                                        * w[(int) ((oc * cg + ic) * kSize + k)];
                            }
                        }
                    }
                    y[(int) ((img * m + oc) * outSize + o)] = (float) acc;
                }
            }
        }
        return y;
    }

    /**
     * ConvTranspose as the scatter it is defined as: every input value, times every tap of its channel's filter,
     * lands on output {@code i * stride - padBegin + k * dilation} when that is inside Y. W is [C, M/group, kernel...].
     */
    static float[] convTranspose(float[] x, float[] w, float[] b, long n, long c, long m, long group, Spatial s) {
        long cg = c / group;
        long mg = m / group;
        long inSize = product(s.in());
        long outSize = product(s.out());
        long kSize = product(s.kernel());
        double[] y = new double[(int) (n * m * outSize)];
        for (long img = 0; img < n; img++) {
            for (long ic = 0; ic < c; ic++) {
                long g = ic / cg;
                for (long i = 0; i < inSize; i++) {
                    long[] iPos = coordinates(i, s.in());
                    double xv = x[(int) ((img * c + ic) * inSize + i)];
                    for (long j = 0; j < mg; j++) {
                        for (long k = 0; k < kSize; k++) {
                            long[] kPos = coordinates(k, s.kernel());
                            long[] o = new long[s.rank()];
                            boolean inside = true;
                            for (int a = 0; a < o.length; a++) {
                                o[a] = iPos[a] * s.strides()[a] - s.padBegin(a) + kPos[a] * s.dilations()[a];
                                inside &= o[a] >= 0 && o[a] < s.out()[a];
                            }
                            if (inside) {
                                long oc = g * mg + j;
                                y[(int) ((img * m + oc) * outSize + flat(o, s.out()))] += xv * w[(int) ((ic * mg + j) * kSize + k)];
                            }
                        }
                    }
                }
            }
        }
        float[] result = new float[y.length];
        for (int i = 0; i < y.length; i++) {
            long oc = (i / outSize) % m;
            result[i] = (float) (y[i] + (b == null ? 0 : b[(int) oc]));
        }
        return result;
    }

    /** MaxPool (average = false) or AveragePool over X [N, C, in...]. */
    static float[] pool(float[] x, long planes, Spatial s, boolean average, boolean countIncludePad) {
        long inSize = product(s.in());
        long outSize = product(s.out());
        long kSize = product(s.kernel());
        float[] y = new float[(int) (planes * outSize)];
        for (long plane = 0; plane < planes; plane++) {
            for (long o = 0; o < outSize; o++) {
                long[] oPos = coordinates(o, s.out());
                double sum = 0;
                float max = -Float.MAX_VALUE;
                long count = 0;
                for (long k = 0; k < kSize; k++) {
                    long[] kPos = coordinates(k, s.kernel());
                    long[] p = source(s, oPos, kPos);
                    if (p != null) {
                        float v = x[(int) (plane * inSize + flat(p, s.in()))];
                        sum += v;
                        max = Math.max(max, v);
                        count++;
                    } else if (countIncludePad && insidePadded(s, oPos, kPos)) {
                        count++;
                    }
                }
                y[(int) (plane * outSize + o)] = average ? (float) (sum / count) : max;
            }
        }
        return y;
    }

    /** Whether the tap is inside {@code [-padBegin, in + padEnd)} on every axis. */
    private static boolean insidePadded(Spatial s, long[] o, long[] k) {
        for (int i = 0; i < s.rank(); i++) {
            long p = o[i] * s.strides()[i] - s.padBegin(i) + k[i] * s.dilations()[i];
            if (p < -s.padBegin(i) || p >= s.in()[i] + s.padEnd(i)) {
                return false;
            }
        }
        return true;
    }
}
