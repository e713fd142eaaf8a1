package dev.javaep.cuda.kernel.ptx;

import static dev.javaep.cuda.kernel.ptx.PtxWriter.at;
import static dev.javaep.cuda.kernel.ptx.PtxWriter.f32;

/**
 * {@code gemm_f32}: 16x16 output tile per block, one output per thread, A' and B' staged through
 * shared memory 16 columns of k at a time. Reference (Java, float arithmetic):
 * <pre>{@code
 * for (z : batches) for (i < m) for (j < n) {
 *     float acc = 0;
 *     for (l = 0; l < k; l++) acc = Math.fma(A'(z, i, l), B'(l, z, j), acc);     // l increasing
 *     float r = acc * alpha;
 *     if (hasC != 0) r = Math.fma(beta, c[i*cRowStride + j*cColStride], r);
 *     y[z*yBatchStride + i*n + j] = r;
 * }
 * A'(z, i, l) = a[z*aBatchStride + (transA != 0 ? l*m + i : i*k + l)]
 * B'(l, z, j) = b[z*bBatchStride + (transB != 0 ? j*k + l : l*n + j)]
 * }</pre>
 *
 * <p>Each thread of the block loads one element of each tile per step, with threadIdx.x walking
 * the stored matrix's contiguous dimension (so loads coalesce whether or not the operand is
 * transposed) and writes zero where the tile leaves the matrix; zeros add nothing, so edge tiles
 * need no special case. Threads outside Y still load and meet both barriers, and only skip the
 * store. Tiles have a row pitch of 17 floats so that a transposed load, which writes a tile column,
 * hits 16 different banks.
 */
final class GemmPtx {
    private GemmPtx() {}

    static final int TILE = 16;
    private static final int PITCH = TILE + 1;

    static String gemm(CudaKernel kernel) {
        PtxWriter w = new PtxWriter(kernel);
        w.directive(".reqntid " + TILE + ", " + TILE + ", 1");
        String y = w.globalPointer("y");
        String a = w.globalPointer("a");
        String b = w.globalPointer("b");
        String c = w.globalPointer("c");
        String m = w.param(PtxType.U32, "m");
        String n = w.param(PtxType.U32, "n");
        String k = w.param(PtxType.U32, "k");
        String transA = w.param(PtxType.U32, "transA");
        String transB = w.param(PtxType.U32, "transB");
        String alpha = w.param(PtxType.F32, "alpha");
        String beta = w.param(PtxType.F32, "beta");
        String cRowStride = w.param(PtxType.U64, "cRowStride");
        String cColStride = w.param(PtxType.U64, "cColStride");
        String hasC = w.param(PtxType.U32, "hasC");
        String aBatchStride = w.param(PtxType.U64, "aBatchStride");
        String bBatchStride = w.param(PtxType.U64, "bBatchStride");
        String yBatchStride = w.param(PtxType.U64, "yBatchStride");
        String tileA = w.sharedFloats("tileA", TILE * PITCH);
        String tileB = w.sharedFloats("tileB", TILE * PITCH);

        String tx = w.reg(PtxType.U32, "tx");
        String ty = w.reg(PtxType.U32, "ty");
        String bx = w.reg(PtxType.U32, "bx");
        String by = w.reg(PtxType.U32, "by");
        String bz = w.reg(PtxType.U32, "bz");
        String i0 = w.reg(PtxType.U32, "i0");
        String j0 = w.reg(PtxType.U32, "j0");
        String i = w.reg(PtxType.U32, "i");
        String j = w.reg(PtxType.U32, "j");
        String z = w.reg(PtxType.U64, "z");
        String off = w.reg(PtxType.U64, "off");
        String wide = w.reg(PtxType.U64, "wide");
        String addr = w.reg(PtxType.U64, "addr");
        String aBase = w.reg(PtxType.U64, "a_batch");
        String bBase = w.reg(PtxType.U64, "b_batch");
        String yBase = w.reg(PtxType.U64, "y_batch");

        w.blank();
        w.comment("this thread computes Y[i, j], i = 16*blockIdx.y + threadIdx.y, j = 16*blockIdx.x + threadIdx.x");
        w.op("mov.u32", tx, "%tid.x");
        w.op("mov.u32", ty, "%tid.y");
        w.op("mov.u32", bx, "%ctaid.x");
        w.op("mov.u32", by, "%ctaid.y");
        w.op("mov.u32", bz, "%ctaid.z");
        w.op("shl.b32", i0, by, "4");
        w.op("shl.b32", j0, bx, "4");
        w.op("add.u32", i, i0, ty);
        w.op("add.u32", j, j0, tx);
        w.comment("batch z = blockIdx.z: a, b, y advanced by z * (their batch stride) elements");
        w.op("cvt.u64.u32", z, bz);
        batchBase(w, aBase, a, z, aBatchStride, off);
        batchBase(w, bBase, b, z, bBatchStride, off);
        batchBase(w, yBase, y, z, yBatchStride, off);
        w.blank();

        String ta = w.reg(PtxType.PRED, "ta");
        String tb = w.reg(PtxType.PRED, "tb");
        String rA = w.reg(PtxType.U32, "rA");
        String cA = w.reg(PtxType.U32, "cA");
        String rB = w.reg(PtxType.U32, "rB");
        String cB = w.reg(PtxType.U32, "cB");
        String ldrA = w.reg(PtxType.U32, "ldrA");
        String ldcA = w.reg(PtxType.U32, "ldcA");
        String ldrB = w.reg(PtxType.U32, "ldrB");
        String ldcB = w.reg(PtxType.U32, "ldcB");
        String rowA = w.reg(PtxType.U32, "rowA");
        String colB = w.reg(PtxType.U32, "colB");
        String rowAok = w.reg(PtxType.PRED, "rowA_ok");
        String colBok = w.reg(PtxType.PRED, "colB_ok");
        String rowAoff = w.reg(PtxType.U64, "rowA_off");
        String colBoff = w.reg(PtxType.U64, "colB_off");
        w.comment("A'(r, l) = a[r*ldrA + l*ldcA]: ldrA = k, ldcA = 1 for A [m,k]; ldrA = 1, ldcA = m for A [k,m] (transA)");
        w.comment("this thread loads tile element (rA, cA) of A': (ty, tx), or (tx, ty) when transposed so tx walks memory");
        w.op("setp.ne.u32", ta, transA, "0");
        w.op("selp.u32", rA, tx, ty, ta);
        w.op("selp.u32", cA, ty, tx, ta);
        w.op("selp.u32", ldrA, "1", k, ta);
        w.op("selp.u32", ldcA, m, "1", ta);
        w.op("add.u32", rowA, i0, rA);
        w.op("setp.lt.u32", rowAok, rowA, m);
        w.op("mul.wide.u32", rowAoff, rowA, ldrA);
        w.comment("B'(l, c) = b[l*ldrB + c*ldcB]: ldrB = n, ldcB = 1 for B [k,n]; ldrB = 1, ldcB = k for B [n,k] (transB)");
        w.comment("this thread loads tile element (rB, cB) of B': (ty, tx), or (tx, ty) when transposed");
        w.op("setp.ne.u32", tb, transB, "0");
        w.op("selp.u32", rB, tx, ty, tb);
        w.op("selp.u32", cB, ty, tx, tb);
        w.op("selp.u32", ldrB, "1", n, tb);
        w.op("selp.u32", ldcB, k, "1", tb);
        w.op("add.u32", colB, j0, cB);
        w.op("setp.lt.u32", colBok, colB, n);
        w.op("mul.wide.u32", colBoff, colB, ldcB);
        w.blank();

        String sA = w.reg(PtxType.U32, "sA");
        String sB = w.reg(PtxType.U32, "sB");
        String sAstore = w.reg(PtxType.U32, "sA_store");
        String sBstore = w.reg(PtxType.U32, "sB_store");
        String sArow = w.reg(PtxType.U32, "sA_row");
        String sBcol = w.reg(PtxType.U32, "sB_col");
        String t32 = w.reg(PtxType.U32, "t32");
        w.comment("shared tiles, row pitch " + PITCH + " floats: tileA[r][l] = A'(i0+r, k0+l), tileB[l][c] = B'(k0+l, j0+c)");
        w.op("mov.u32", sA, tileA);
        w.op("mov.u32", sB, tileB);
        w.op("mad.lo.u32", t32, rA, Integer.toString(PITCH), cA);
        w.op("shl.b32", t32, t32, "2");
        w.op("add.u32", sAstore, sA, t32);
        w.op("mad.lo.u32", t32, rB, Integer.toString(PITCH), cB);
        w.op("shl.b32", t32, t32, "2");
        w.op("add.u32", sBstore, sB, t32);
        w.op("mul.lo.u32", t32, ty, Integer.toString(4 * PITCH));
        w.op("add.u32", sArow, sA, t32).why("&tileA[ty][0]");
        w.op("shl.b32", t32, tx, "2");
        w.op("add.u32", sBcol, sB, t32).why("&tileB[0][tx]");
        w.blank();

        String acc = w.reg(PtxType.F32, "acc");
        String k0 = w.reg(PtxType.U32, "k0");
        String kA = w.reg(PtxType.U32, "kA");
        String kB = w.reg(PtxType.U32, "kB");
        String loadA = w.reg(PtxType.PRED, "loadA");
        String loadB = w.reg(PtxType.PRED, "loadB");
        String va = w.reg(PtxType.F32, "va");
        String vb = w.reg(PtxType.F32, "vb");
        String fa = w.reg(PtxType.F32, "fa");
        String fb = w.reg(PtxType.F32, "fb");
        String more = w.reg(PtxType.PRED, "more");
        String tile = w.label("k_tile");
        String tilesDone = w.label("k_tiles_done");
        w.op("mov.f32", acc, f32(0f));
        w.op("mov.u32", k0, "0");
        String noK = w.reg(PtxType.PRED, "no_k");
        w.op("setp.eq.u32", noK, k, "0");
        w.braIf(noK, tilesDone).why("k = 0: Y = alpha*0 (+ beta*C)");
        w.place(tile);
        w.comment("stage A'(i0 + rA, k0 + cA), zero outside A'");
        w.op("add.u32", kA, k0, cA);
        w.op("setp.lt.u32", loadA, kA, k);
        w.op("and.pred", loadA, loadA, rowAok);
        w.op("mov.f32", va, f32(0f));
        w.op("mul.wide.u32", off, kA, ldcA);
        w.op("add.u64", off, off, rowAoff);
        w.op("shl.b64", off, off, "2");
        w.op("add.u64", addr, aBase, off);
        w.opIf(loadA, "ld.global.nc.f32", va, at(addr));
        w.op("st.shared.f32", at(sAstore), va);
        w.comment("stage B'(k0 + rB, j0 + cB), zero outside B'");
        w.op("add.u32", kB, k0, rB);
        w.op("setp.lt.u32", loadB, kB, k);
        w.op("and.pred", loadB, loadB, colBok);
        w.op("mov.f32", vb, f32(0f));
        w.op("mul.wide.u32", off, kB, ldrB);
        w.op("add.u64", off, off, colBoff);
        w.op("shl.b64", off, off, "2");
        w.op("add.u64", addr, bBase, off);
        w.opIf(loadB, "ld.global.nc.f32", vb, at(addr));
        w.op("st.shared.f32", at(sBstore), vb);
        w.op("bar.sync", "0").why("tiles written");
        w.comment("acc += tileA[ty][l] * tileB[l][tx] for l = 0..15");
        for (int l = 0; l < TILE; l++) {
            w.op("ld.shared.f32", fa, at(sArow, 4L * l));
            w.op("ld.shared.f32", fb, at(sBcol, 4L * PITCH * l));
            w.op("fma.rn.f32", acc, fa, fb, acc);
        }
        w.op("bar.sync", "0").why("tiles read; the next step may overwrite them");
        w.op("add.u32", k0, k0, Integer.toString(TILE));
        w.op("setp.lt.u32", more, k0, k);
        w.braIf(more, tile);
        w.place(tilesDone);
        w.blank();

        String outside = w.reg(PtxType.PRED, "outside");
        String outsideJ = w.reg(PtxType.PRED, "outside_j");
        String noC = w.reg(PtxType.PRED, "no_c");
        String res = w.reg(PtxType.F32, "res");
        String cv = w.reg(PtxType.F32, "cv");
        String store = w.label("store");
        String done = w.label("done");
        w.op("setp.ge.u32", outside, i, m);
        w.op("setp.ge.u32", outsideJ, j, n);
        w.op("or.pred", outside, outside, outsideJ);
        w.braIf(outside, done).why("past the barriers: threads outside Y may leave");
        w.op("mul.rn.f32", res, acc, alpha);
        w.op("setp.eq.u32", noC, hasC, "0");
        w.braIf(noC, store);
        w.comment("res = beta * C[i*cRowStride + j*cColStride] + res");
        w.op("cvt.u64.u32", off, i);
        w.op("mul.lo.u64", off, off, cRowStride);
        w.op("cvt.u64.u32", wide, j);
        w.op("mad.lo.u64", off, wide, cColStride, off);
        w.op("shl.b64", off, off, "2");
        w.op("add.u64", addr, c, off);
        w.op("ld.global.nc.f32", cv, at(addr));
        w.op("fma.rn.f32", res, beta, cv, res);
        w.place(store);
        w.op("mul.wide.u32", off, i, n);
        w.op("cvt.u64.u32", wide, j);
        w.op("add.u64", off, off, wide);
        w.op("shl.b64", off, off, "2");
        w.op("add.u64", addr, yBase, off);
        w.op("st.global.f32", at(addr), res);
        w.place(done);
        w.op("ret");
        return w.render();
    }

    private static void batchBase(PtxWriter w, String into, String base, String z, String stride, String off) {
        w.op("mul.lo.u64", off, z, stride);
        w.op("shl.b64", off, off, "2");
        w.op("add.u64", into, base, off);
    }
}
