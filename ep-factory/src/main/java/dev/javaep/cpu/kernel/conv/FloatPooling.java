package dev.javaep.cpu.kernel.conv;

import static dev.javaep.cpu.kernel.conv.FloatData.F;

import dev.javaep.spi.ops.PoolOps.PoolGeometry;
import java.lang.foreign.MemorySegment;

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

    static void pool(Kind kind, boolean countIncludePad, PoolGeometry g, MemorySegment x, MemorySegment y) {
        Window3 w = Window3.of(g);
        int inSize = w.inSize();
        int outSize = w.outSize();
        long planes = Math.multiplyExact(g.batch(), g.channels());
        float[] in = new float[inSize];
        float[] out = new float[outSize];
        for (long p = 0; p < planes; p++) {
            MemorySegment.copy(x, F, p * inSize * 4L, in, 0, inSize);
            if (kind == Kind.MAX) {
                maxPlane(w, in, out);
            } else {
                averagePlane(w, countIncludePad, in, out);
            }
            MemorySegment.copy(out, 0, y, F, p * outSize * 4L, outSize);
        }
    }

    private static void maxPlane(Window3 w, float[] in, float[] out) {
        int o = 0;
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
                    float max = -Float.MAX_VALUE;
                    for (int jd = d0; jd < d1; jd++) {
                        for (int jh = h0; jh < h1; jh++) {
                            int row = ((sd + jd * w.dilationD()) * w.inH() + sh + jh * w.dilationH()) * w.inW() + sw;
                            for (int jw = w0; jw < w1; jw++) {
                                float v = in[row + jw * w.dilationW()];
                                if (v > max) {
                                    max = v;
                                }
                            }
                        }
                    }
                    out[o] = max;
                }
            }
        }
    }

    private static void averagePlane(Window3 w, boolean countIncludePad, float[] in, float[] out) {
        int o = 0;
        for (int od = 0; od < w.outD(); od++) {
            int sd = od * w.strideD() - w.padD();
            int d0 = Window3.firstTap(sd, w.dilationD());
            int d1 = Window3.endTap(sd, w.dilationD(), w.kD(), w.inD());
            int nd = countIncludePad ? paddedTaps(sd, w.dilationD(), w.kD(), w.padD(), w.inD() + w.padEndD()) : d1 - d0;
            for (int oh = 0; oh < w.outH(); oh++) {
                int sh = oh * w.strideH() - w.padH();
                int h0 = Window3.firstTap(sh, w.dilationH());
                int h1 = Window3.endTap(sh, w.dilationH(), w.kH(), w.inH());
                int nh = countIncludePad ? paddedTaps(sh, w.dilationH(), w.kH(), w.padH(), w.inH() + w.padEndH()) : h1 - h0;
                for (int ow = 0; ow < w.outW(); ow++, o++) {
                    int sw = ow * w.strideW() - w.padW();
                    int w0 = Window3.firstTap(sw, w.dilationW());
                    int w1 = Window3.endTap(sw, w.dilationW(), w.kW(), w.inW());
                    int nw = countIncludePad ? paddedTaps(sw, w.dilationW(), w.kW(), w.padW(), w.inW() + w.padEndW()) : w1 - w0;
                    float sum = 0f;
                    for (int jd = d0; jd < d1; jd++) {
                        for (int jh = h0; jh < h1; jh++) {
                            int row = ((sd + jd * w.dilationD()) * w.inH() + sh + jh * w.dilationH()) * w.inW() + sw;
                            for (int jw = w0; jw < w1; jw++) {
                                sum += in[row + jw * w.dilationW()];
                            }
                        }
                    }
                    out[o] = sum / ((float) nd * nh * nw);
                }
            }
        }
    }

    /** The taps {@code start + j * dilation} ({@code j < k}) inside the padded extent {@code [-padBegin, paddedEnd)}. */
    static int paddedTaps(int start, int dilation, int k, int padBegin, int paddedEnd) {
        return Window3.endTap(start + padBegin, dilation, k, paddedEnd + padBegin) - Window3.firstTap(start + padBegin, dilation);
    }

    /** GlobalMaxPool/GlobalAveragePool: one value per (image, channel) plane; the average sums in double. */
    static void global(Kind kind, long planes, int size, MemorySegment x, MemorySegment y) {
        float[] in = new float[size];
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
