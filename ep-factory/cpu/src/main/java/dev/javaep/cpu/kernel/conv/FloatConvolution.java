package dev.javaep.cpu.kernel.conv;

import static dev.javaep.cpu.kernel.conv.FloatData.F;

import dev.javaep.cpu.kernel.matmul.FloatMatrixProduct;
import dev.javaep.spi.ops.ConvOps.ConvGeometry;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * Conv on float32 segments, per image and group, in one of three forms:
 * <ul>
 *   <li><b>pointwise</b> (1x1 kernel, stride 1, no padding): X's channels already are the columns of a matrix
 *       product, {@code Y_g[M/g, P] += W_g[M/g, C/g] * X_g[C/g, P]};</li>
 *   <li><b>depthwise</b> (one input channel per group): a direct loop per kernel tap over whole output rows, which
 *       the JIT vectorises; im2col would copy every input K times to multiply it by a single row;</li>
 *   <li><b>im2col</b> otherwise: the input patches of a run of output rows are copied into a column matrix
 *       {@code [C/g * K, rows * OW]} (zeros where the window reads padding), multiplied by {@code W_g[M/g, C/g * K]}
 *       with {@link FloatMatrixProduct}. The run is sized so that the column matrix stays near 1 MiB.</li>
 * </ul>
 * Y starts as the bias (or zeros) and the products accumulate into it. Not thread-safe; one instance per call.
 */
final class FloatConvolution {
    /** Column-matrix floats per run of output rows (1 MiB). */
    static final int COLUMN_BUDGET = 1 << 18;

    private final ConvGeometry g;
    private final Window3 w;
    private final int cg;
    private final int mg;
    private final int k;

    FloatConvolution(ConvGeometry geometry) {
        this.g = geometry;
        this.w = Window3.of(geometry);
        this.cg = Math.toIntExact(geometry.inChannelsPerGroup());
        this.mg = Math.toIntExact(geometry.outChannelsPerGroup());
        this.k = w.kernelSize();
    }

    /** Y = conv(X, W) + B; {@code b} may be null. Segments hold float32 elements in the ONNX layouts. */
    void run(MemorySegment x, MemorySegment weights, MemorySegment b, MemorySegment y) {
        int inSize = w.inSize();
        int outSize = w.outSize();
        long batch = g.batch();
        int groups = Math.toIntExact(g.group());
        fillBias(b, y, batch, Math.toIntExact(g.outChannels()), outSize);
        if (outSize == 0 || cg == 0) {
            return;
        }
        boolean pointwise = k == 1 && w.strideD() == 1 && w.strideH() == 1 && w.strideW() == 1
                && w.padD() + w.padH() + w.padW() + w.padEndD() + w.padEndH() + w.padEndW() == 0;
        if (pointwise) {
            FloatMatrixProduct product = new FloatMatrixProduct(cg, outSize);
            for (long n = 0; n < batch; n++) {
                for (int group = 0; group < groups; group++) {
                    product.multiplyAccumulate(weights, (long) group * mg * cg, false,
                            x, (n * g.inChannels() + (long) group * cg) * inSize, false,
                            y, (n * g.outChannels() + (long) group * mg) * outSize, mg, cg, outSize, 1f);
                }
            }
        } else if (cg == 1) {
            depthwise(x, weights, y, batch, groups);
        } else {
            im2col(x, weights, y, batch, groups);
        }
    }

    static void fillBias(MemorySegment b, MemorySegment y, long batch, int channels, int size) {
        for (long n = 0; n < batch; n++) {
            for (int m = 0; m < channels; m++) {
                float bias = b == null ? 0f : b.getAtIndex(F, m);
                long start = (n * channels + m) * size;
                for (int i = 0; i < size; i++) {
                    y.setAtIndex(F, start + i, bias);
                }
            }
        }
    }

    private void depthwise(MemorySegment x, MemorySegment weights, MemorySegment y, long batch, int groups) {
        int inSize = w.inSize();
        int outSize = w.outSize();
        float[] in = new float[inSize];
        float[] out = new float[outSize];
        float[] taps = new float[k];
        for (long n = 0; n < batch; n++) {
            for (int group = 0; group < groups; group++) {
                MemorySegment.copy(x, F, (n * g.inChannels() + group) * inSize * 4L, in, 0, inSize);
                for (int j = 0; j < mg; j++) {
                    int m = group * mg + j;
                    long yStart = (n * g.outChannels() + m) * outSize;
                    MemorySegment.copy(y, F, yStart * 4L, out, 0, outSize);
                    MemorySegment.copy(weights, F, (long) m * k * 4L, taps, 0, k);
                    depthwisePlane(in, taps, out);
                    MemorySegment.copy(out, 0, y, F, yStart * 4L, outSize);
                }
            }
        }
    }

    /** {@code out += conv(in, taps)} for one input channel and one output channel. */
    void depthwisePlane(float[] in, float[] taps, float[] out) {
        for (int kd = 0; kd < w.kD(); kd++) {
            for (int kh = 0; kh < w.kH(); kh++) {
                for (int kw = 0; kw < w.kW(); kw++) {
                    float tap = taps[(kd * w.kH() + kh) * w.kW() + kw];
                    int offsetW = kw * w.dilationW() - w.padW();
                    // outputs whose input column ow * strideW + offsetW lies in [0, inW)
                    int owFirst = offsetW >= 0 ? 0 : Math.ceilDiv(-offsetW, w.strideW());
                    int owEnd = Math.min(w.outW(), Math.max(0, Math.ceilDiv(w.inW() - offsetW, w.strideW())));
                    for (int od = 0; od < w.outD(); od++) {
                        int id = od * w.strideD() - w.padD() + kd * w.dilationD();
                        if (id < 0 || id >= w.inD()) {
                            continue;
                        }
                        for (int oh = 0; oh < w.outH(); oh++) {
                            int ih = oh * w.strideH() - w.padH() + kh * w.dilationH();
                            if (ih < 0 || ih >= w.inH()) {
                                continue;
                            }
                            int inRow = (id * w.inH() + ih) * w.inW() + offsetW;
                            int outRow = (od * w.outH() + oh) * w.outW();
                            if (w.strideW() == 1) {
                                for (int ow = owFirst; ow < owEnd; ow++) {
                                    out[outRow + ow] += tap * in[inRow + ow];
                                }
                            } else {
                                for (int ow = owFirst; ow < owEnd; ow++) {
                                    out[outRow + ow] += tap * in[inRow + ow * w.strideW()];
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    private void im2col(MemorySegment x, MemorySegment weights, MemorySegment y, long batch, int groups) {
        int inSize = w.inSize();
        int outSize = w.outSize();
        int rows = w.outD() * w.outH();
        int ck = cg * k;
        int rowsPerRun = Math.clamp(COLUMN_BUDGET / Math.max(1L, (long) ck * w.outW()), 1, rows);
        int runColumns = rowsPerRun * w.outW();
        float[] columns = new float[ck * runColumns];
        MemorySegment columnSegment = MemorySegment.ofArray(columns);
        boolean oneRun = rowsPerRun == rows;
        float[] tile = oneRun ? null : new float[mg * runColumns];
        MemorySegment tileSegment = oneRun ? null : MemorySegment.ofArray(tile);
        FloatMatrixProduct product = new FloatMatrixProduct(ck, runColumns);
        float[] inRow = new float[w.inW()];
        for (long n = 0; n < batch; n++) {
            for (int group = 0; group < groups; group++) {
                long xStart = (n * g.inChannels() + (long) group * cg) * inSize;
                long yStart = (n * g.outChannels() + (long) group * mg) * outSize;
                for (int row0 = 0; row0 < rows; row0 += rowsPerRun) {
                    int runRows = Math.min(rowsPerRun, rows - row0);
                    int cols = runRows * w.outW();
                    fillColumns(x, xStart, row0, runRows, cols, columns, inRow);
                    if (oneRun) {
                        product.multiplyAccumulate(weights, (long) group * mg * ck, false, columnSegment, 0, false,
                                y, yStart, mg, ck, cols, 1f);
                        continue;
                    }
                    long outStart = (long) row0 * w.outW();
                    for (int m = 0; m < mg; m++) {
                        MemorySegment.copy(y, F, (yStart + (long) m * outSize + outStart) * 4L, tile, m * cols, cols);
                    }
                    product.multiplyAccumulate(weights, (long) group * mg * ck, false, columnSegment, 0, false,
                            tileSegment, 0, mg, ck, cols, 1f);
                    for (int m = 0; m < mg; m++) {
                        MemorySegment.copy(tile, m * cols, y, F, (yStart + (long) m * outSize + outStart) * 4L, cols);
                    }
                }
            }
        }
    }

    /**
     * Fills the column matrix {@code [C/g * K, cols]} for output rows {@code row0 .. row0 + runRows} (a row is one
     * (od, oh)): row {@code (c, kd, kh, kw)}, column {@code (row, ow)} holds the input the tap reads, or 0 in padding.
     */
    private void fillColumns(MemorySegment x, long xStart, int row0, int runRows, int cols, float[] columns, float[] inRow) {
        int inSize = w.inSize();
        int outW = w.outW();
        int r = 0;
        for (int c = 0; c < cg; c++) {
            long channel = xStart + (long) c * inSize;
            for (int kd = 0; kd < w.kD(); kd++) {
                for (int kh = 0; kh < w.kH(); kh++) {
                    for (int kw = 0; kw < w.kW(); kw++, r++) {
                        int base = r * cols;
                        int offsetW = kw * w.dilationW() - w.padW();
                        int owFirst = Math.min(outW, offsetW >= 0 ? 0 : Math.ceilDiv(-offsetW, w.strideW()));
                        int owEnd = Math.max(owFirst, Math.min(outW, Math.ceilDiv(w.inW() - offsetW, w.strideW())));
                        for (int i = 0; i < runRows; i++) {
                            int row = row0 + i;
                            int od = row / w.outH();
                            int oh = row % w.outH();
                            int id = od * w.strideD() - w.padD() + kd * w.dilationD();
                            int ih = oh * w.strideH() - w.padH() + kh * w.dilationH();
                            int at = base + i * outW;
                            if (id < 0 || id >= w.inD() || ih < 0 || ih >= w.inH()) {
                                Arrays.fill(columns, at, at + outW, 0f);
                                continue;
                            }
                            long inStart = channel + ((long) id * w.inH() + ih) * w.inW();
                            Arrays.fill(columns, at, at + owFirst, 0f);
                            if (w.strideW() == 1) {
                                MemorySegment.copy(x, F, (inStart + owFirst + offsetW) * 4L, columns, at + owFirst, owEnd - owFirst);
                            } else {
                                MemorySegment.copy(x, F, inStart * 4L, inRow, 0, w.inW());
                                for (int ow = owFirst; ow < owEnd; ow++) {
                                    columns[at + ow] = inRow[ow * w.strideW() + offsetW];
                                }
                            }
                            Arrays.fill(columns, at + owEnd, at + outW, 0f);
                        }
                    }
                }
            }
        }
    }
}
