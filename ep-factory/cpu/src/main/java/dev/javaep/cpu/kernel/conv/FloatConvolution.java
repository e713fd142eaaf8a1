package dev.javaep.cpu.kernel.conv;

import static dev.javaep.cpu.kernel.conv.FloatData.F;

import dev.javaep.cpu.kernel.KernelThreads;
import dev.javaep.cpu.kernel.VectorSupport;
import dev.javaep.spi.ops.ConvOps.ConvGeometry;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * Conv on float32 segments, per image and group, in one of three forms:
 * <ul>
 *   <li><b>depthwise</b> (1 or 2 spatial axes, one input channel and fewer than {@link ConvPanels#ROWS} output
 *       channels per group): per channel, the phase planes below, and per output position a vector accumulator over
 *       the kernel taps; a product would multiply every input by a single row;</li>
 *   <li><b>shifted rows</b> (1 or 2 spatial axes, pointwise convolutions included): the group's input is copied once
 *       into zero-bordered planes, split by stride phase: {@code [C/g, strideH, strideW, Hq, Wq]}, input
 *       {@code (ih, iw)} at padded position {@code (ph, pw) = (ih + padH, iw + padW)} going to phase
 *       {@code (ph % strideH, pw % strideW)}, row {@code ph / strideH}, column {@code pw / strideW}. Output
 *       {@code (oh, ow)} then reads tap {@code (kh, kw)} at row {@code oh + kh * dilationH / strideH} and column
 *       {@code ow + kw * dilationW / strideW} of phase {@code (kh * dilationH % strideH, kw * dilationW % strideW)}: the
 *       input row of a (channel, tap) is a phase plane read from an offset on, at positions {@code oh * Wq + ow}, of
 *       which the {@code Wq - OW} past each output row are computed and dropped. No input is copied more than once
 *       (im2col copies it K times);</li>
 *   <li><b>im2col</b> otherwise (3 spatial axes, depthwise ones included): the input patches of a run of output rows
 *       are copied into a column matrix {@code [C/g * K, rows * OW]} (zeros where the window reads padding). The run is
 *       sized so that the column matrix stays near 1 MiB.</li>
 * </ul>
 * All take the weights from {@link ConvPanels} (packed once per plan when constant; bias added in
 * registers; Y written once). Not thread-safe: one instance per geometry and thread (a {@link ConvKernel} plan's), which
 * keeps the task bodies it hands the kernel threads (made once: a lambda per call was an allocation per Run) and the
 * call's operands while it runs.
 */
final class FloatConvolution {
    /** Column-matrix floats per run of output rows (1 MiB). */
    static final int COLUMN_BUDGET = 1 << 18;
    /** Multiply-adds from which the depthwise convolution and the column filling are split across kernel threads. */
    private static final long PARALLEL_MULTIPLY_ADDS = 1L << 17;
    /**
     * The thread's reusable heap buffers ({@link #buffer}): an input row or plane (phase and column filling), the
     * depthwise output positions, im2col columns, the product's output tile, the phase planes.
     */
    static final int IN = 0;
    static final int OUT = 1;
    static final int COLUMNS = 2;
    static final int TILE = 3;
    static final int PADDED = 4;
    private static final ThreadLocal<float[][]> BUFFERS = ThreadLocal.withInitial(() -> new float[5][0]);

    private final ConvGeometry g;
    private final Window3 w;
    private final int cg;
    private final int mg;
    private final int k;
    private final boolean depthwise;
    private final boolean shiftedRows;
    /** A phase plane's height and width, and floats per channel (all phases), for shifted rows. */
    private final int phaseH;
    private final int phaseW;
    private final int channelFloats;
    /** Per phase {@code a * strideW + b}: whether a tap reads it (a 1x1 kernel with a stride reads one of them). */
    private final boolean[] phaseRead;
    /** The weights (and bias) in panels of four output channels. */
    private final ConvPanels panels;
    /** Where each input row (channel, tap) of the product starts: fixed for shifted rows, per run for im2col. */
    private final int[] rowAt;
    private int rowAtColumns = -1;
    private final KernelThreads.Body depthwiseTasks = this::depthwiseTask;
    private final KernelThreads.Body columnTasks = this::columnTask;
    /** The call's operands and split, for the task bodies. */
    private MemorySegment x;
    private MemorySegment y;
    private int groups;
    private long planes;
    private long planesPerTask;
    private long xStart;
    private int row0;
    private int runRows;
    private int cols;
    private float[] columns;
    /** The depthwise convolution's heap copy of X and its outputs, for the task bodies. */
    private float[] source;
    private float[] out;
    private int channelsPerTask;

    /** {@code constantWeights}: W is a constant initializer, so its packing is kept from the first call on. */
    FloatConvolution(ConvGeometry geometry, boolean constantWeights) {
        this.g = geometry;
        this.w = Window3.of(geometry);
        this.cg = Math.toIntExact(geometry.inChannelsPerGroup());
        this.mg = Math.toIntExact(geometry.outChannelsPerGroup());
        this.k = w.kernelSize();
        this.shiftedRows = w.inD() == 1 && w.kD() == 1 && w.padD() == 0 && w.padEndD() == 0;
        this.depthwise = shiftedRows && cg == 1 && mg < ConvPanels.ROWS;
        int sH = w.strideH();
        int sW = w.strideW();
        this.phaseH = Math.ceilDiv(w.inH() + w.padH() + w.padEndH(), sH);
        this.phaseW = Math.ceilDiv(w.inW() + w.padW() + w.padEndW(), sW);
        this.channelFloats = sH * sW * phaseH * phaseW;
        this.phaseRead = new boolean[sH * sW];
        this.panels = new ConvPanels(Math.toIntExact(geometry.group()), mg, cg * k, constantWeights);
        this.rowAt = new int[cg * k];
        if (shiftedRows) {
            for (int c = 0, p = 0; c < cg; c++) {
                for (int kh = 0; kh < w.kH(); kh++) {
                    for (int kw = 0; kw < w.kW(); kw++, p++) {
                        int tapH = kh * w.dilationH();
                        int tapW = kw * w.dilationW();
                        int phase = tapH % sH * sW + tapW % sW;
                        phaseRead[phase] = true;
                        rowAt[p] = c * channelFloats + phase * phaseH * phaseW + tapH / sH * phaseW + tapW / sW;
                    }
                }
            }
        }
        if (shiftedRows) {
            panels.layout(rowAt, cg, phaseW, w.outW(), w.outSize(), 0);
        }
    }

    /** Whether {@link #run} reads W this call (not once constant weights are packed): a float16 W need not be converted. */
    boolean needsWeights() {
        return panels.needsWeights();
    }

    /**
     * Y = conv(X, W) + B; {@code b} may be null, {@code weights} too when {@link #needsWeights} is false. Segments hold
     * float32 elements in the ONNX layouts.
     */
    void run(MemorySegment x, MemorySegment weights, MemorySegment b, MemorySegment y) {
        int outSize = w.outSize();
        long batch = g.batch();
        int groups = Math.toIntExact(g.group());
        if (outSize == 0) {
            return;
        }
        if (cg == 0) {
            fillBias(b, y, batch, Math.toIntExact(g.outChannels()), outSize);
            return;
        }
        this.x = x;
        this.y = y;
        try {
            panels.prepare(weights, b);
            if (depthwise) {
                depthwise(x, y, batch, groups);
            } else if (shiftedRows) {
                shiftedRows(x, y, batch, groups);
            } else {
                im2col(x, y, batch, groups);
            }
        } finally {
            this.x = this.y = null; // the Run's memory is not kept reachable from the plan
            this.columns = this.source = this.out = null;
        }
    }

    /** The shifted-rows form: each group's input copied once into zero-bordered phase planes, then one product. */
    private void shiftedRows(MemorySegment x, MemorySegment y, long batch, int groups) {
        float[] planes = buffer(PADDED, cg * channelFloats + ConvPanels.SLACK);
        float[] out = buffer(OUT, mg * w.outSize());
        int positions = (w.outH() - 1) * phaseW + w.outW();
        for (long n = 0; n < batch; n++) {
            for (int group = 0; group < groups; group++) {
                long xStart = (n * g.inChannels() + (long) group * cg) * w.inSize();
                long yStart = (n * g.outChannels() + (long) group * mg) * w.outSize();
                fillPhases(x, xStart, cg, planes);
                panels.multiply(group, planes, positions, out);
                MemorySegment.copy(out, 0, y, F, yStart * Float.BYTES, mg * w.outSize());
            }
        }
    }

    /** Copies {@code channels} channels from {@code xStart} into the phase planes that taps read, zeros around. */
    private void fillPhases(MemorySegment x, long xStart, int channels, float[] planes) {
        int inH = w.inH();
        int inW = w.inW();
        if (!padded()) { // stride 1, no padding: the planes are X's
            MemorySegment.copy(x, F, xStart * Float.BYTES, planes, 0, channels * inH * inW);
            return;
        }
        // one bulk copy: a segment copy per channel or row costs more than the small planes' rows move
        float[] source = buffer(IN, channels * inH * inW + ConvPanels.SLACK); // the slack: ConvVectors.everyOther
        MemorySegment.copy(x, F, xStart * Float.BYTES, source, 0, channels * inH * inW);
        fillPhases(source, 0, channels, planes);
    }

    /** Whether the phase planes differ from X's planes (a stride or padding). */
    private boolean padded() {
        return !(w.strideH() == 1 && w.strideW() == 1 && channelFloats == w.inH() * w.inW());
    }

    /** {@link #fillPhases(MemorySegment, long, int, float[])} from X's planes on the heap, at {@code sourceAt}. */
    private void fillPhases(float[] source, int sourceAt, int channels, float[] planes) {
        int inH = w.inH();
        int inW = w.inW();
        int sH = w.strideH();
        int sW = w.strideW();
        int phaseSize = phaseH * phaseW;
        for (int c = 0; c < channels; c++) {
            int channel = c * channelFloats;
            for (int phase = 0; phase < phaseRead.length; phase++) {
                if (phaseRead[phase]) {
                    Arrays.fill(planes, channel + phase * phaseSize, channel + (phase + 1) * phaseSize, 0f);
                }
            }
            for (int ih = 0; ih < inH; ih++) {
                int ph = ih + w.padH();
                int rowStart = channel + ph % sH * sW * phaseSize + ph / sH * phaseW; // phase (ph % sH, 0), row ph / sH
                int from = sourceAt + (c * inH + ih) * inW;
                if (sW == 1) {
                    if (phaseRead[ph % sH]) {
                        System.arraycopy(source, from, planes, rowStart + w.padW(), inW);
                    }
                    continue;
                }
                for (int b = 0; b < sW; b++) {
                    if (!phaseRead[ph % sH * sW + b]) {
                        continue;
                    }
                    // the inputs of phase column b: padded columns pw = iw + padW with pw % sW == b, at pw / sW; a counted
                    // loop with linear indices, whose range checks the JIT hoists
                    int iw = Math.floorMod(b - w.padW(), sW);
                    int at = rowStart + b * phaseSize + (iw + w.padW()) / sW;
                    int first = from + iw;
                    int count = Math.ceilDiv(inW - iw, sW);
                    int i = sW == 2 && VectorSupport.AVAILABLE ? ConvVectors.everyOther(source, first, planes, at, count) : 0;
                    for (; i < count; i++) {
                        planes[at + i] = source[first + i * sW];
                    }
                }
            }
        }
    }

    /** This thread's buffer {@code which}, at least {@code size} floats long (grown, never shrunk: no allocation per Run). */
    static float[] buffer(int which, int size) {
        float[][] buffers = BUFFERS.get();
        if (buffers[which].length < size) {
            buffers[which] = new float[size];
        }
        return buffers[which];
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

    /**
     * X's planes are copied to the heap and the outputs back to Y by the calling thread, in one copy each (X's planes are
     * contiguous, one channel per group, and so are their outputs in Y); the kernel threads work on the heap only.
     */
    private void depthwise(MemorySegment x, MemorySegment y, long batch, int groups) {
        KernelThreads pool = KernelThreads.current();
        long planes = batch * groups;
        int inSize = w.inSize();
        int outSize = w.outSize();
        float[] source = buffer(IN, Math.toIntExact(planes * inSize) + ConvPanels.SLACK);
        float[] out = buffer(OUT, Math.toIntExact(planes * mg * outSize));
        MemorySegment.copy(x, F, 0, source, 0, (int) planes * inSize);
        // a task is a run of whole channels; split only when the work outweighs a hand-off
        int tasks = (long) outSize * k * planes * mg < PARALLEL_MULTIPLY_ADDS ? 1 : (int) Math.min(planes, pool.tasks());
        if (tasks == 1) {
            depthwisePlanes(source, out, groups, 0, planes);
        } else {
            this.source = source;
            this.out = out;
            this.groups = groups;
            this.planes = planes;
            this.planesPerTask = Math.ceilDiv(planes, tasks);
            pool.parallelFor(tasks, depthwiseTasks);
        }
        MemorySegment.copy(out, 0, y, F, 0, (int) planes * mg * outSize);
    }

    private void depthwiseTask(int t) {
        depthwisePlanes(source, out, groups, t * planesPerTask, Math.min(planes, (t + 1) * planesPerTask));
    }

    /** Depthwise convolution of the planes {@code [first, end)} (plane = image * groups + group) of X's heap copy. */
    private void depthwisePlanes(float[] source, float[] out, int groups, long first, long end) {
        float[] phases = buffer(PADDED, channelFloats + ConvPanels.SLACK);
        int positions = (w.outH() - 1) * phaseW + w.outW();
        float[] values = buffer(TILE, positions + ConvPanels.SLACK);
        int inSize = w.inSize();
        int outSize = w.outSize();
        for (int plane = (int) first; plane < end; plane++) {
            int group = plane % groups;
            if (padded()) {
                fillPhases(source, plane * inSize, 1, phases);
            } else {
                System.arraycopy(source, plane * inSize, phases, 0, inSize);
            }
            for (int j = 0; j < mg; j++) {
                panels.oneChannel(group, j, phases, rowAt, positions, values);
                ConvPanels.store(values, 0, 0, positions, phaseW, w.outW(), out, (plane * mg + j) * outSize);
            }
        }
    }

    private void im2col(MemorySegment x, MemorySegment y, long batch, int groups) {
        int inSize = w.inSize();
        int outSize = w.outSize();
        int rows = w.outD() * w.outH();
        int ck = cg * k;
        int rowsPerRun = Math.clamp(COLUMN_BUDGET / Math.max(1L, (long) ck * w.outW()), 1, rows);
        float[] columns = buffer(COLUMNS, ck * rowsPerRun * w.outW() + ConvPanels.SLACK);
        float[] out = buffer(OUT, mg * outSize);
        for (long n = 0; n < batch; n++) {
            for (int group = 0; group < groups; group++) {
                long xStart = (n * g.inChannels() + (long) group * cg) * inSize;
                long yStart = (n * g.outChannels() + (long) group * mg) * outSize;
                for (int row0 = 0; row0 < rows; row0 += rowsPerRun) {
                    int runRows = Math.min(rowsPerRun, rows - row0);
                    int cols = runRows * w.outW();
                    fillColumns(x, xStart, row0, runRows, cols, columns);
                    if (rowAtColumns != cols) { // a run's width: the last run may be shorter
                        for (int p = 0; p < ck; p++) {
                            rowAt[p] = p * cols;
                        }
                        rowAtColumns = cols;
                    }
                    panels.layout(rowAt, ck, cols, cols, outSize, row0 * w.outW());
                    panels.multiply(group, columns, cols, out);
                }
                MemorySegment.copy(out, 0, y, F, yStart * Float.BYTES, mg * outSize);
            }
        }
    }

    /** {@link #fillColumns} for all channels, split across the kernel threads when the column matrix is large. */
    private void fillColumns(MemorySegment x, long xStart, int row0, int runRows, int cols, float[] columns) {
        KernelThreads pool = KernelThreads.current();
        int tasks = (long) cg * k * cols < PARALLEL_MULTIPLY_ADDS / 2 ? 1 : Math.min(cg, pool.tasks());
        if (tasks == 1) {
            fillColumns(x, xStart, row0, runRows, cols, columns, 0, cg);
            return;
        }
        this.xStart = xStart;
        this.row0 = row0;
        this.runRows = runRows;
        this.cols = cols;
        this.columns = columns;
        this.channelsPerTask = Math.ceilDiv(cg, tasks);
        pool.parallelFor(tasks, columnTasks);
    }

    private void columnTask(int t) {
        fillColumns(x, xStart, row0, runRows, cols, columns, t * channelsPerTask, Math.min(cg, (t + 1) * channelsPerTask));
    }

    /**
     * Fills rows {@code [cFirst * K, cEnd * K)} of the column matrix {@code [C/g * K, cols]} for output rows
     * {@code row0 .. row0 + runRows} (a row is one (od, oh)): row {@code (c, kd, kh, kw)}, column {@code (row, ow)}
     * holds the input the tap reads, or 0 in padding. Each channel's plane is first copied to the heap in one bulk
     * copy, so the per-tap work is array copies (stride 1) or array reads, never per-element segment accesses.
     */
    private void fillColumns(MemorySegment x, long xStart, int row0, int runRows, int cols, float[] columns,
                             int cFirst, int cEnd) {
        int inSize = w.inSize();
        int inW = w.inW();
        int outW = w.outW();
        int strideW = w.strideW();
        float[] plane = buffer(IN, inSize);
        int r = cFirst * k;
        for (int c = cFirst; c < cEnd; c++) {
            MemorySegment.copy(x, F, (xStart + (long) c * inSize) * 4L, plane, 0, inSize);
            for (int kd = 0; kd < w.kD(); kd++) {
                for (int kh = 0; kh < w.kH(); kh++) {
                    for (int kw = 0; kw < w.kW(); kw++, r++) {
                        int base = r * cols;
                        int offsetW = kw * w.dilationW() - w.padW();
                        int owFirst = Math.min(outW, offsetW >= 0 ? 0 : Math.ceilDiv(-offsetW, strideW));
                        int owEnd = Math.max(owFirst, Math.min(outW, Math.ceilDiv(inW - offsetW, strideW)));
                        int id = 0;
                        int oh = 0;
                        int od = 0;
                        if (runRows > 0) {
                            od = row0 / w.outH();
                            oh = row0 % w.outH();
                            id = od * w.strideD() - w.padD() + kd * w.dilationD();
                        }
                        for (int i = 0, at = base; i < runRows; i++, at += outW) {
                            int ih = oh * w.strideH() - w.padH() + kh * w.dilationH();
                            if (id < 0 || id >= w.inD() || ih < 0 || ih >= w.inH()) {
                                zero(columns, at, at + outW);
                            } else {
                                // the few padding columns are zeroed in a loop: Arrays.fill's call costs more
                                int inStart = (id * w.inH() + ih) * inW + offsetW;
                                zero(columns, at, at + owFirst);
                                if (strideW == 1) {
                                    System.arraycopy(plane, inStart + owFirst, columns, at + owFirst, owEnd - owFirst);
                                } else {
                                    for (int ow = owFirst; ow < owEnd; ow++) {
                                        columns[at + ow] = plane[inStart + ow * strideW];
                                    }
                                }
                                zero(columns, at + owEnd, at + outW);
                            }
                            if (++oh == w.outH()) { // the next output row starts the next output depth
                                oh = 0;
                                od++;
                                id = od * w.strideD() - w.padD() + kd * w.dilationD();
                            }
                        }
                    }
                }
            }
        }
    }

    private static void zero(float[] values, int from, int to) {
        for (int i = from; i < to; i++) {
            values[i] = 0f;
        }
    }
}
