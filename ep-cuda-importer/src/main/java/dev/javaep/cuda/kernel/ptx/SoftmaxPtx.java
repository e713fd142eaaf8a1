package dev.javaep.cuda.kernel.ptx;

import static dev.javaep.cuda.kernel.ptx.PtxWriter.at;
import static dev.javaep.cuda.kernel.ptx.PtxWriter.f32;

/**
 * The softmax kernels. Reference (Java, float arithmetic, {@code exp} of {@link PtxMath}):
 * <pre>{@code
 * // softmax_rows_f32: x is [rows, cols]; lane l of the row's warp handles c = l, l+32, ...
 * for (r = 0; r < rows; r++) {
 *     float m = -inf;  for (c) m = max(m, x[r,c]);          // max.f32 (ignores NaN)
 *     float s = 0;     for (c) s += exp(x[r,c] - m);        // per-lane partial sums, then a butterfly
 *     float inv = 1 / s;                                     // rcp.rn
 *     for (c) out[r,c] = exp(x[r,c] - m) * inv;
 * }
 * // softmax_strided_f32: x is [outer, axis, inner]; the same along axis for each (o, i) pair
 * }</pre>
 * The input is read three times rather than caching exponentials in {@code out}, so {@code out}
 * may be {@code in}.
 */
final class SoftmaxPtx {
    private SoftmaxPtx() {}

    private static final String NEG_INF = "0fFF800000";
    private static final int FULL_WARP = 0xffffffff;

    static String rows(CudaKernel kernel) {
        PtxWriter w = new PtxWriter(kernel);
        String out = w.globalPointer("out");
        String in = w.globalPointer("in");
        String rows = w.param(PtxType.U64, "rows");
        String cols = w.param(PtxType.U64, "cols");
        String tid = w.reg(PtxType.U32, "tid_x");
        String ntid = w.reg(PtxType.U32, "ntid_x");
        String ctaid = w.reg(PtxType.U32, "ctaid_x");
        String nctaid = w.reg(PtxType.U32, "nctaid_x");
        String lane32 = w.reg(PtxType.U32, "lane32");
        String lane = w.reg(PtxType.U64, "lane");
        String row = w.reg(PtxType.U64, "row");
        String warps = w.reg(PtxType.U64, "warps");
        String rowBytes = w.reg(PtxType.U64, "row_bytes");
        String inRow = w.reg(PtxType.U64, "in_row");
        String outRow = w.reg(PtxType.U64, "out_row");
        String tmp = w.reg(PtxType.U64, "tmp");
        String more = w.reg(PtxType.PRED, "more");
        String m = w.reg(PtxType.F32, "row_max");
        String sum = w.reg(PtxType.F32, "row_sum");
        String inv = w.reg(PtxType.F32, "row_inv");
        String x = w.reg(PtxType.F32, "x");
        String d = w.reg(PtxType.F32, "d");
        String e = w.reg(PtxType.F32, "e");
        String other = w.reg(PtxType.F32, "other");

        w.comment("one warp per row: warp = global thread id / 32, lane = threadIdx.x % 32 (blockDim.x % 32 == 0)");
        w.op("mov.u32", tid, "%tid.x");
        w.op("mov.u32", ntid, "%ntid.x");
        w.op("mov.u32", ctaid, "%ctaid.x");
        w.op("mov.u32", nctaid, "%nctaid.x");
        w.op("and.b32", lane32, tid, "31");
        w.op("cvt.u64.u32", lane, lane32);
        w.op("mul.wide.u32", row, ctaid, ntid);
        w.op("cvt.u64.u32", tmp, tid);
        w.op("add.u64", row, row, tmp);
        w.op("shr.u64", row, row, "5");
        w.op("mul.wide.u32", warps, ntid, nctaid);
        w.op("shr.u64", warps, warps, "5").why("warps in the grid: the row stride");
        w.op("shl.b64", rowBytes, cols, "2");
        String rowLoop = w.label("row_loop");
        String allDone = w.label("rows_done");
        w.op("setp.lt.u64", more, row, rows);
        w.braIf("!" + more, allDone);
        w.place(rowLoop);
        w.op("mul.lo.u64", tmp, row, rowBytes);
        w.op("add.u64", inRow, in, tmp);
        w.op("add.u64", outRow, out, tmp);
        w.blank();

        w.comment("pass 1: m = max over the row");
        w.op("mov.f32", m, NEG_INF);
        columns(w, lane, cols, "max", c -> {
            w.op("ld.global.nc.f32", x, at(c.inAddress(inRow)));
            w.op("max.f32", m, m, x);
        });
        butterfly(w, m, other, "max.f32");
        w.blank();

        w.comment("pass 2: s = sum of exp(x - m)");
        w.op("mov.f32", sum, f32(0f));
        columns(w, lane, cols, "sum", c -> {
            w.op("ld.global.nc.f32", x, at(c.inAddress(inRow)));
            w.op("sub.rn.f32", d, x, m);
            PtxMath.expNonPositive(w, e, d);
            w.op("add.rn.f32", sum, sum, e);
        });
        butterfly(w, sum, other, "add.rn.f32");
        w.op("rcp.rn.f32", inv, sum);
        w.blank();

        w.comment("pass 3: out = exp(x - m) / s");
        columns(w, lane, cols, "write", c -> {
            w.op("ld.global.nc.f32", x, at(c.inAddress(inRow)));
            w.op("sub.rn.f32", d, x, m);
            PtxMath.expNonPositive(w, e, d);
            w.op("mul.rn.f32", e, e, inv);
            w.op("st.global.f32", at(c.outAddress(outRow)), e);
        });
        w.blank();
        w.op("add.u64", row, row, warps);
        w.op("setp.lt.u64", more, row, rows);
        w.braIf(more, rowLoop);
        w.place(allDone);
        w.op("ret");
        return w.render();
    }

    /** The column being visited by {@link #columns}: its byte offset in the row. */
    private record Column(PtxWriter w, String byteOffset) {
        String inAddress(String rowBase) {
            String p = w.reg(PtxType.U64, "p_in");
            w.op("add.u64", p, rowBase, byteOffset);
            return p;
        }

        String outAddress(String rowBase) {
            String p = w.reg(PtxType.U64, "p_out");
            w.op("add.u64", p, rowBase, byteOffset);
            return p;
        }
    }

    /** {@code for (c = lane; c < cols; c += 32) body(c)}; lanes finish at different times and rejoin after. */
    private static void columns(PtxWriter w, String lane, String cols, String name,
            java.util.function.Consumer<Column> body) {
        String c = w.reg(PtxType.U64, "col");
        String off = w.reg(PtxType.U64, "col_bytes");
        String past = w.reg(PtxType.PRED, "col_past");
        String more = w.reg(PtxType.PRED, "col_more");
        String loop = w.label(name + "_cols");
        String done = w.label(name + "_cols_done");
        w.op("mov.u64", c, lane);
        w.op("setp.ge.u64", past, c, cols);
        w.braIf(past, done);
        w.place(loop);
        w.op("shl.b64", off, c, "2");
        body.accept(new Column(w, off));
        w.op("add.u64", c, c, "32");
        w.op("setp.lt.u64", more, c, cols);
        w.braIf(more, loop);
        w.place(done);
    }

    /** Combines {@code value} across the 32 lanes; every lane ends with the result. */
    private static void butterfly(PtxWriter w, String value, String other, String combine) {
        w.comment("warp butterfly: every lane ends with the " + combine.substring(0, 3) + " of all 32 lanes");
        for (int delta = 16; delta >= 1; delta /= 2) {
            w.op("shfl.sync.bfly.b32", other, value, Integer.toString(delta), "0x1f", String.format("0x%08x", FULL_WARP));
            w.op(combine, value, value, other);
        }
    }

    static String strided(CudaKernel kernel) {
        PtxWriter w = new PtxWriter(kernel);
        String out = w.globalPointer("out");
        String in = w.globalPointer("in");
        String outer = w.param(PtxType.U64, "outer");
        String axis = w.param(PtxType.U64, "axis");
        String inner = w.param(PtxType.U64, "inner");
        String total = w.reg(PtxType.U64, "pairs");
        String o = w.reg(PtxType.U64, "o");
        String r = w.reg(PtxType.U64, "r");
        String base = w.reg(PtxType.U64, "base");
        String step = w.reg(PtxType.U64, "step");
        String inBase = w.reg(PtxType.U64, "in_base");
        String outBase = w.reg(PtxType.U64, "out_base");
        String m = w.reg(PtxType.F32, "axis_max");
        String sum = w.reg(PtxType.F32, "axis_sum");
        String inv = w.reg(PtxType.F32, "axis_inv");
        String x = w.reg(PtxType.F32, "x");
        String d = w.reg(PtxType.F32, "d");
        String e = w.reg(PtxType.F32, "e");

        w.op("mul.lo.u64", total, outer, inner).why("one thread per (outer, inner) pair");
        w.op("shl.b64", step, inner, "2").why("bytes between neighbours along the axis");
        w.blank();
        w.gridStrideLoop(total, t -> {
            w.op("div.u64", o, t, inner);
            w.op("mul.lo.u64", r, o, inner);
            w.op("sub.u64", r, t, r).why("t = o*inner + r");
            w.op("mul.lo.u64", base, o, axis);
            w.op("mad.lo.u64", base, base, inner, r).why("element (o, 0, r)");
            w.op("shl.b64", base, base, "2");
            w.op("add.u64", inBase, in, base);
            w.op("add.u64", outBase, out, base);
            w.blank();
            w.comment("pass 1: max along the axis");
            w.op("mov.f32", m, NEG_INF);
            alongAxis(w, axis, inBase, null, step, "max", (p, q) -> {
                w.op("ld.global.nc.f32", x, at(p));
                w.op("max.f32", m, m, x);
            });
            w.comment("pass 2: sum of exp(x - max)");
            w.op("mov.f32", sum, f32(0f));
            alongAxis(w, axis, inBase, null, step, "sum", (p, q) -> {
                w.op("ld.global.nc.f32", x, at(p));
                w.op("sub.rn.f32", d, x, m);
                PtxMath.expNonPositive(w, e, d);
                w.op("add.rn.f32", sum, sum, e);
            });
            w.op("rcp.rn.f32", inv, sum);
            w.comment("pass 3: out = exp(x - max) / sum");
            alongAxis(w, axis, inBase, outBase, step, "write", (p, q) -> {
                w.op("ld.global.nc.f32", x, at(p));
                w.op("sub.rn.f32", d, x, m);
                PtxMath.expNonPositive(w, e, d);
                w.op("mul.rn.f32", e, e, inv);
                w.op("st.global.f32", at(q), e);
            });
        });
        w.op("ret");
        return w.render();
    }

    /** {@code for (a = 0; a < axis; a++, p += step, q += step) body(p, q)}. */
    private static void alongAxis(PtxWriter w, String axis, String inBase, String outBase, String step, String name,
            java.util.function.BiConsumer<String, String> body) {
        String left = w.reg(PtxType.U64, "left");
        String p = w.reg(PtxType.U64, "p_in");
        String q = w.reg(PtxType.U64, "p_out");
        String empty = w.reg(PtxType.PRED, "axis_empty");
        String more = w.reg(PtxType.PRED, "axis_more");
        String loop = w.label(name + "_axis");
        String done = w.label(name + "_axis_done");
        w.op("mov.u64", left, axis);
        w.op("mov.u64", p, inBase);
        if (outBase != null) {
            w.op("mov.u64", q, outBase);
        }
        w.op("setp.eq.u64", empty, left, "0");
        w.braIf(empty, done);
        w.place(loop);
        body.accept(p, q);
        w.op("add.u64", p, p, step);
        if (outBase != null) {
            w.op("add.u64", q, q, step);
        }
        w.op("sub.u64", left, left, "1");
        w.op("setp.ne.u64", more, left, "0");
        w.braIf(more, loop);
        w.place(done);
    }
}
