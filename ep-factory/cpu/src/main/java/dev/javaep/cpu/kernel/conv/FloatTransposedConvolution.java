package dev.javaep.cpu.kernel.conv;

import static dev.javaep.cpu.kernel.conv.FloatData.F;

import dev.javaep.cpu.kernel.matmul.FloatMatrixProduct;
import dev.javaep.spi.ops.ConvOps.ConvGeometry;
import java.lang.foreign.MemorySegment;

/**
 * ConvTranspose on float32 segments, per image and group, as a matrix product and a scatter (col2im): for a run of
 * input rows, {@code columns[M/g * K, run] = W_g^T * X_g} (W is stored {@code [C, M/g, k...]}, so W_g is
 * {@code [C/g, M/g * K]} and the product reads it transposed), then each column value is added to the output
 * position its tap lands on, {@code o = i * stride - pad + j * dilation}, when that lies inside Y. Y starts as the
 * bias; positions no tap reaches (an output_shape larger than the full output) keep it. Not thread-safe.
 */
final class FloatTransposedConvolution {
    private final ConvGeometry g;
    private final Window3 w;
    private final int cg;
    private final int mg;
    private final int k;

    FloatTransposedConvolution(ConvGeometry geometry) {
        this.g = geometry;
        this.w = Window3.of(geometry);
        this.cg = Math.toIntExact(geometry.inChannelsPerGroup());
        this.mg = Math.toIntExact(geometry.outChannelsPerGroup());
        this.k = w.kernelSize();
    }

    void run(MemorySegment x, MemorySegment weights, MemorySegment b, MemorySegment y) {
        int inSize = w.inSize();
        int outSize = w.outSize();
        long batch = g.batch();
        int groups = Math.toIntExact(g.group());
        FloatConvolution.fillBias(b, y, batch, Math.toIntExact(g.outChannels()), outSize);
        if (inSize == 0 || outSize == 0 || mg == 0) {
            return;
        }
        int mk = mg * k;
        int rows = w.inD() * w.inH();
        int rowsPerRun = Math.clamp(FloatConvolution.COLUMN_BUDGET / Math.max(1L, (long) mk * w.inW()), 1, rows);
        int runColumns = rowsPerRun * w.inW();
        boolean oneRun = rowsPerRun == rows;
        float[] columns = FloatConvolution.buffer(FloatConvolution.COLUMNS, mk * runColumns);
        MemorySegment columnSegment = MemorySegment.ofArray(columns);
        float[] input = oneRun ? null : FloatConvolution.buffer(FloatConvolution.TILE, cg * runColumns);
        MemorySegment inputSegment = oneRun ? null : MemorySegment.ofArray(input);
        float[] out = FloatConvolution.buffer(FloatConvolution.OUT, mg * outSize);
        for (long n = 0; n < batch; n++) {
            for (int group = 0; group < groups; group++) {
                long xStart = (n * g.inChannels() + (long) group * cg) * inSize;
                long yStart = (n * g.outChannels() + (long) group * mg) * outSize;
                MemorySegment.copy(y, F, yStart * 4L, out, 0, mg * outSize);
                for (int row0 = 0; row0 < rows; row0 += rowsPerRun) {
                    int runRows = Math.min(rowsPerRun, rows - row0);
                    int cols = runRows * w.inW();
                    java.util.Arrays.fill(columns, 0, mk * cols, 0f);
                    if (oneRun) {
                        FloatMatrixProduct.multiplyAccumulate(weights, (long) group * cg * mk, true, x, xStart, false,
                                columnSegment, 0, mk, cg, cols, 1f);
                    } else {
                        for (int c = 0; c < cg; c++) {
                            MemorySegment.copy(x, F, (xStart + (long) c * inSize + (long) row0 * w.inW()) * 4L, input, c * cols, cols);
                        }
                        FloatMatrixProduct.multiplyAccumulate(weights, (long) group * cg * mk, true, inputSegment, 0, false,
                                columnSegment, 0, mk, cg, cols, 1f);
                    }
                    scatter(columns, cols, row0, runRows, out);
                }
                MemorySegment.copy(out, 0, y, F, yStart * 4L, mg * outSize);
            }
        }
    }

    /** Adds column row {@code (m, kd, kh, kw)}, column {@code (input row, iw)} to the output position it reaches. */
    private void scatter(float[] columns, int cols, int row0, int runRows, float[] out) {
        int outSize = w.outSize();
        int r = 0;
        for (int m = 0; m < mg; m++) {
            int plane = m * outSize;
            for (int kd = 0; kd < w.kD(); kd++) {
                for (int kh = 0; kh < w.kH(); kh++) {
                    for (int kw = 0; kw < w.kW(); kw++, r++) {
                        int base = r * cols;
                        int offsetW = kw * w.dilationW() - w.padW();
                        // inputs whose output column iw * strideW + offsetW lies in [0, outW)
                        int iwFirst = Math.min(w.inW(), offsetW >= 0 ? 0 : Math.ceilDiv(-offsetW, w.strideW()));
                        int iwEnd = Math.max(iwFirst, Math.min(w.inW(), Math.ceilDiv(w.outW() - offsetW, w.strideW())));
                        for (int i = 0; i < runRows; i++) {
                            int row = row0 + i;
                            int od = (row / w.inH()) * w.strideD() - w.padD() + kd * w.dilationD();
                            int oh = (row % w.inH()) * w.strideH() - w.padH() + kh * w.dilationH();
                            if (od < 0 || od >= w.outD() || oh < 0 || oh >= w.outH()) {
                                continue;
                            }
                            int outRow = plane + (od * w.outH() + oh) * w.outW() + offsetW;
                            int at = base + i * w.inW();
                            for (int iw = iwFirst; iw < iwEnd; iw++) {
                                out[outRow + iw * w.strideW()] += columns[at + iw];
                            }
                        }
                    }
                }
            }
        }
    }
}
