package dev.javaep.cpu.kernel.conv;

import static dev.javaep.cpu.kernel.conv.FloatData.F;

import dev.javaep.spi.ops.PoolOps.MaxPoolIndices;
import dev.javaep.spi.ops.PoolOps.PoolGeometry;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * MaxPool and AveragePool on float32 segments, one (image, channel) plane at a time, and the global pools. Window
 * {@code o} along an axis reads {@code o * stride - padBegin + j * dilation}; only the taps inside the input
 * contribute. MaxPool takes the largest of them (ignoring NaN, as ONNX Runtime does); AveragePool divides their sum by their count, or with
 * count_include_pad by the number of taps inside the padded input {@code [-padBegin, in + padEnd)} (a ceil_mode
 * window that runs past the end padding counts only up to it, as ONNX and PyTorch define it).
 */
final class FloatPooling {
    private FloatPooling() {}

    enum Kind { MAX, AVERAGE }

    /**
     * A windowed pool of one geometry: its windows along each axis and its plane buffers, worked out once (a
     * {@code PoolKernel} plan keeps one per input shape and thread), so a Run allocates nothing. Not thread-safe.
     */
    static final class Windows {
        private final boolean max;
        private final Window3 w;
        private final long planes;
        private final Axis d;
        private final Axis h;
        private final Axis wAxis;
        private final float[] in;
        private final float[] out;

        Windows(Kind kind, boolean countIncludePad, PoolGeometry g) {
            this.max = kind == Kind.MAX;
            this.w = Window3.of(g);
            this.planes = Math.multiplyExact(g.batch(), g.channels());
            this.d = new Axis(w.outD(), w.strideD(), w.padD(), w.padEndD(), w.dilationD(), w.kD(), w.inD(), countIncludePad);
            this.h = new Axis(w.outH(), w.strideH(), w.padH(), w.padEndH(), w.dilationH(), w.kH(), w.inH(), countIncludePad);
            this.wAxis = new Axis(w.outW(), w.strideW(), w.padW(), w.padEndW(), w.dilationW(), w.kW(), w.inW(), countIncludePad);
            this.in = new float[w.inSize()];
            this.out = new float[w.outSize()];
        }

        void pool(MemorySegment x, MemorySegment y) {
            int inSize = w.inSize();
            int outSize = w.outSize();
            for (long p = 0; p < planes; p++) {
                MemorySegment.copy(x, F, p * inSize * 4L, in, 0, inSize);
                plane(max, w, d, h, wAxis, in, out);
                MemorySegment.copy(out, 0, y, F, p * outSize * 4L, outSize);
            }
        }
    }

    /**
     * The windows along one axis, worked out once per call rather than per output: for output {@code o}, the
     * position of tap 0 ({@code start}), the taps inside the input ({@code first .. end}) and the divisor's share.
     */
    private record Axis(int[] start, int[] first, int[] end, int[] count) {
        Axis(int out, int stride, int pad, int padEnd, int dilation, int k, int in, boolean countIncludePad) {
            this(new int[out], new int[out], new int[out], new int[out]);
            for (int o = 0; o < out; o++) {
                start[o] = o * stride - pad;
                first[o] = Window3.firstTap(start[o], dilation);
                end[o] = Window3.endTap(start[o], dilation, k, in);
                count[o] = countIncludePad ? paddedTaps(start[o], dilation, k, pad, in + padEnd) : end[o] - first[o];
            }
        }
    }

    private static void plane(boolean max, Window3 w, Axis d, Axis h, Axis wAxis, float[] in, float[] out) {
        int o = 0;
        for (int od = 0; od < w.outD(); od++) {
            for (int oh = 0; oh < w.outH(); oh++) {
                for (int ow = 0; ow < w.outW(); ow++, o++) {
                    int sw = wAxis.start[ow];
                    int w0 = wAxis.first[ow];
                    int w1 = wAxis.end[ow];
                    float acc = max ? -Float.MAX_VALUE : 0f;
                    for (int jd = d.first[od]; jd < d.end[od]; jd++) {
                        for (int jh = h.first[oh]; jh < h.end[oh]; jh++) {
                            int row = ((d.start[od] + jd * w.dilationD()) * w.inH() + h.start[oh] + jh * w.dilationH()) * w.inW() + sw;
                            for (int jw = w0; jw < w1; jw++) {
                                float v = in[row + jw * w.dilationW()];
                                // a select, not a branch: random data would mispredict half of them
                                acc = max ? (v > acc ? v : acc) : acc + v;
                            }
                        }
                    }
                    out[o] = max ? acc : acc / ((float) d.count[od] * h.count[oh] * wAxis.count[ow]);
                }
            }
        }
    }

    /**
     * MaxPool with its Indices output: as {@link #pool} for the values, and per output the index ({@link MaxPoolIndices})
     * of the first tap larger than all before it. A window whose taps are all -inf, NaN or padding keeps -FLT_MAX (as
     * the plain kernel) and the index of its first tap inside X.
     */
    static void maxWithIndices(PoolGeometry g, Window3 w, MaxPoolIndices order, MemorySegment x, MemorySegment y,
                               MemorySegment indices, float[] in) {
        int inSize = w.inSize();
        int outSize = w.outSize();
        long planes = Math.multiplyExact(g.batch(), g.channels());
        for (long p = 0; p < planes; p++) {
            MemorySegment.copy(x, F, p * inSize * 4L, in, 0, inSize);
            long o = p * outSize;
            for (int od = 0; od < w.outD(); od++) {
                int sd = od * w.strideD() - w.padD();
                int d0 = Window3.firstTap(sd, w.dilationD());
                int d1 = Window3.endTap(sd, w.dilationD(), w.kD(), w.inD());
                for (int oh = 0; oh < w.outH(); oh++) {
                    int sh = oh * w.strideH() - w.padH();
                    int h0 = Window3.firstTap(sh, w.dilationH());
                    int h1 = Window3.endTap(sh, w.dilationH(), w.kH(), w.inH());
                    for (int ow = 0; ow < w.outW(); ow++, o++) {
                        int sw = ow * w.strideW() - w.padW();
                        int w0 = Window3.firstTap(sw, w.dilationW());
                        int w1 = Window3.endTap(sw, w.dilationW(), w.kW(), w.inW());
                        float best = -Float.MAX_VALUE;
                        int bd = sd + d0 * w.dilationD();
                        int bh = sh + h0 * w.dilationH();
                        int bw = sw + w0 * w.dilationW();
                        for (int jd = d0; jd < d1; jd++) {
                            int pd = sd + jd * w.dilationD();
                            for (int jh = h0; jh < h1; jh++) {
                                int ph = sh + jh * w.dilationH();
                                for (int jw = w0; jw < w1; jw++) {
                                    int pw = sw + jw * w.dilationW();
                                    float v = in[(pd * w.inH() + ph) * w.inW() + pw];
                                    if (v > best) {
                                        best = v;
                                        bd = pd;
                                        bh = ph;
                                        bw = pw;
                                    }
                                }
                            }
                        }
                        y.setAtIndex(F, o, best);
                        indices.setAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, o,
                                order.index(p, w.inD(), w.inH(), w.inW(), bd, bh, bw));
                    }
                }
            }
        }
    }

    /** The taps {@code start + j * dilation} ({@code j < k}) inside the padded extent {@code [-padBegin, paddedEnd)}. */
    static int paddedTaps(int start, int dilation, int k, int padBegin, int paddedEnd) {
        return Window3.endTap(start + padBegin, dilation, k, paddedEnd + padBegin) - Window3.firstTap(start + padBegin, dilation);
    }

    /**
     * GlobalMaxPool/GlobalAveragePool: one value per (image, channel) plane; the average sums in double. {@code in}:
     * a plane buffer of {@code size} floats.
     */
    static void global(Kind kind, long planes, int size, MemorySegment x, MemorySegment y, float[] in) {
        for (long p = 0; p < planes; p++) {
            MemorySegment.copy(x, F, p * size * 4L, in, 0, size);
            float result;
            if (kind == Kind.MAX) {
                result = -Float.MAX_VALUE;
                for (float v : in) {
                    if (v > result) {
                        result = v;
                    }
                }
            } else {
                double sum = 0;
                for (float v : in) {
                    sum += v;
                }
                result = (float) (sum / size);
            }
            y.setAtIndex(F, p, result);
        }
    }
}
