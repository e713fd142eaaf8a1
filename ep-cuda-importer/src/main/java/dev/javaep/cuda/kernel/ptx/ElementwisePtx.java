package dev.javaep.cuda.kernel.ptx;

import static dev.javaep.cuda.kernel.ptx.PtxWriter.at;
import static dev.javaep.cuda.kernel.ptx.PtxWriter.vec;

import dev.javaep.cuda.kernel.ptx.CudaKernel.BinaryOp;
import dev.javaep.cuda.kernel.ptx.CudaKernel.UnaryOp;

/**
 * The elementwise kernels: {@code ew_<op>_f32_contig}, {@code _contig4}, {@code _bcast} and
 * {@code un_<op>_f32}, {@code _v4}. Reference (Java, float arithmetic):
 * <pre>{@code
 * contig:  for (i = 0; i < n; i++)  out[i] = a[i] OP b[i];
 * contig4: for (i = 0; i < 4*n4; i++) out[i] = a[i] OP b[i];         // float4 accesses
 * bcast:   for (i = 0; i < n; i++) { long[] o = layout.offsetsOf(i); out[i] = a[o[0]] OP b[o[1]]; }
 * un:      for (i = 0; i < n; i++)  out[i] = f(in[i]);               // f of PtxMath
 * un_v4:   for (i = 0; i < 4*n4; i++) out[i] = f(in[i]);
 * }</pre>
 */
final class ElementwisePtx {
    private ElementwisePtx() {}

    private static String instruction(BinaryOp op) {
        return switch (op) {
            case ADD -> "add.rn.f32";
            case SUB -> "sub.rn.f32";
            case MUL -> "mul.rn.f32";
            case DIV -> "div.rn.f32";
        };
    }

    /** contig ({@code vec4} false) and contig4: one loop, a float or a float4 per step. */
    static String binaryContig(CudaKernel kernel, boolean vec4) {
        PtxWriter w = new PtxWriter(kernel);
        String opcode = instruction(kernel.binaryOp().orElseThrow());
        String out = w.globalPointer("out");
        String a = w.globalPointer("a");
        String b = w.globalPointer("b");
        String n = w.param(PtxType.U64, vec4 ? "n4" : "n");
        String off = w.reg(PtxType.U64, "off");
        String pa = w.reg(PtxType.U64, "pa");
        String pb = w.reg(PtxType.U64, "pb");
        String po = w.reg(PtxType.U64, "po");
        Lanes x = Lanes.of(w, "x", vec4);
        Lanes y = Lanes.of(w, "y", vec4);
        Lanes z = Lanes.of(w, "z", vec4);
        w.blank();
        w.gridStrideLoop(n, i -> {
            w.op("shl.b64", off, i, vec4 ? "4" : "2").why(vec4 ? "byte offset of float4 i" : "byte offset of element i");
            w.op("add.u64", pa, a, off);
            w.op("add.u64", pb, b, off);
            w.op("add.u64", po, out, off);
            w.op("ld.global.nc" + x.type(), x.operand(), at(pa));
            w.op("ld.global.nc" + y.type(), y.operand(), at(pb));
            for (int l = 0; l < z.count(); l++) {
                w.op(opcode, z.lane(l), x.lane(l), y.lane(l));
            }
            w.op("st.global" + z.type(), at(po), z.operand());
        });
        w.op("ret");
        return w.render();
    }

    /**
     * Multidirectional broadcasting: the output index is split into coordinates from the innermost
     * dimension out ({@code rank-1 ... 0}), each coordinate times that dimension's input stride. When
     * {@code n < 2^32} every dimension and offset fits in 32 bits, and the cheaper 32-bit division is
     * used; otherwise the same steps run in 64 bits.
     */
    static String binaryBroadcast(CudaKernel kernel) {
        PtxWriter w = new PtxWriter(kernel);
        String opcode = instruction(kernel.binaryOp().orElseThrow());
        String out = w.globalPointer("out");
        String a = w.globalPointer("a");
        String b = w.globalPointer("b");
        String n = w.param(PtxType.U64, "n");
        String rank = w.param(PtxType.U32, "rank");
        String wide = w.reg(PtxType.PRED, "wide");
        String wideLabel = w.label("wide_index");
        w.comment("layout: u64 outDims[8] at +0, aStrides[8] at +64, bStrides[8] at +128; entries >= rank unused");
        w.op("setp.gt.u64", wide, n, "4294967295");
        w.braIf(wide, wideLabel);
        w.blank();
        w.comment("n < 2^32: index math in 32 bits");
        w.gridStrideLoop(n, i -> broadcastElement(w, opcode, out, a, b, rank, i, false));
        w.op("ret");
        w.blank();
        w.place(wideLabel);
        w.comment("n >= 2^32: index math in 64 bits");
        w.gridStrideLoop(n, i -> broadcastElement(w, opcode, out, a, b, rank, i, true));
        w.op("ret");
        return w.render();
    }

    private static void broadcastElement(PtxWriter w, String opcode, String out, String a, String b, String rank,
            String i, boolean wide) {
        PtxType t = wide ? PtxType.U64 : PtxType.U32;
        String bits = wide ? ".u64" : ".u32";
        String sfx = wide ? "64" : "32";
        String q = w.reg(t, "q" + sfx);
        String qNext = w.reg(t, "qnext" + sfx);
        String coord = w.reg(t, "coord" + sfx);
        String dim = w.reg(t, "dim" + sfx);
        String sa = w.reg(t, "sa" + sfx);
        String sb = w.reg(t, "sb" + sfx);
        String offA = w.reg(t, "offa" + sfx);
        String offB = w.reg(t, "offb" + sfx);
        String raw = w.reg(PtxType.U64, "layout_entry");
        String skip = w.reg(PtxType.PRED, "skip_dim");
        String pa = w.reg(PtxType.U64, "pa");
        String pb = w.reg(PtxType.U64, "pb");
        String po = w.reg(PtxType.U64, "po");
        String x = w.reg(PtxType.F32, "x");
        String y = w.reg(PtxType.F32, "y");
        String z = w.reg(PtxType.F32, "z");

        if (wide) {
            w.op("mov.u64", q, i);
        } else {
            w.op("cvt.u32.u64", q, i).why("i < n < 2^32");
        }
        w.op("mov" + bits, offA, "0");
        w.op("mov" + bits, offB, "0");
        for (int d = BroadcastLayout.MAX_RANK - 1; d >= 0; d--) {
            String next = w.label("dim" + d + "_done_" + sfx);
            w.comment("dimension " + d + (d == 0
                    ? ", the outermost: its coordinate is what is left of the index"
                    : ": coord = q % outDims[" + d + "]; q /= outDims[" + d + "]"));
            w.op("setp.le.u32", skip, rank, Integer.toString(d)).why("only dimensions < rank exist");
            w.braIf(skip, next);
            if (d == 0) {
                w.op("mov" + bits, coord, q);
            } else {
                loadLayoutEntry(w, dim, raw, 8L * d, wide);
                w.op("div" + bits, qNext, q, dim);
                w.op("mul.lo" + bits, coord, qNext, dim);
                w.op("sub" + bits, coord, q, coord);
                w.op("mov" + bits, q, qNext);
            }
            loadLayoutEntry(w, sa, raw, 64 + 8L * d, wide);
            loadLayoutEntry(w, sb, raw, 128 + 8L * d, wide);
            w.op("mad.lo" + bits, offA, coord, sa, offA);
            w.op("mad.lo" + bits, offB, coord, sb, offB);
            w.place(next);
        }
        if (wide) {
            w.op("shl.b64", pa, offA, "2");
            w.op("shl.b64", pb, offB, "2");
        } else {
            w.op("mul.wide.u32", pa, offA, "4");
            w.op("mul.wide.u32", pb, offB, "4");
        }
        w.op("add.u64", pa, a, pa);
        w.op("add.u64", pb, b, pb);
        w.op("shl.b64", po, i, "2");
        w.op("add.u64", po, out, po);
        w.op("ld.global.nc.f32", x, at(pa));
        w.op("ld.global.nc.f32", y, at(pb));
        w.op(opcode, z, x, y);
        w.op("st.global.f32", at(po), z);
    }

    private static void loadLayoutEntry(PtxWriter w, String into, String raw, long byteOffset, boolean wide) {
        if (wide) {
            w.op("ld.param.u64", into, "[layout+" + byteOffset + "]");
        } else {
            w.op("ld.param.u64", raw, "[layout+" + byteOffset + "]");
            w.op("cvt.u32.u64", into, raw);
        }
    }

    /** un ({@code vec4} false) and un_v4: one loop, a float or a float4 per step. */
    static String unary(CudaKernel kernel, boolean vec4) {
        PtxWriter w = new PtxWriter(kernel);
        UnaryOp op = kernel.unaryOp().orElseThrow();
        String out = w.globalPointer("out");
        String in = w.globalPointer("in");
        String n = w.param(PtxType.U64, vec4 ? "n4" : "n");
        String off = w.reg(PtxType.U64, "off");
        String pi = w.reg(PtxType.U64, "pi");
        String po = w.reg(PtxType.U64, "po");
        Lanes x = Lanes.of(w, "x", vec4);
        Lanes y = Lanes.of(w, "y", vec4);
        w.blank();
        w.gridStrideLoop(n, i -> {
            w.op("shl.b64", off, i, vec4 ? "4" : "2");
            w.op("add.u64", pi, in, off);
            w.op("add.u64", po, out, off);
            w.op("ld.global.nc" + x.type(), x.operand(), at(pi));
            for (int l = 0; l < y.count(); l++) {
                if (vec4) {
                    w.comment("lane " + l);
                }
                PtxMath.apply(w, op, y.lane(l), x.lane(l));
            }
            w.op("st.global" + y.type(), at(po), y.operand());
        });
        w.op("ret");
        return w.render();
    }

    /** The float registers of one value: a single {@code name}, or lanes {@code name0..name3} of a float4. */
    private record Lanes(String[] registers) {
        static Lanes of(PtxWriter w, String name, boolean vec4) {
            if (!vec4) {
                return new Lanes(new String[] {w.reg(PtxType.F32, name)});
            }
            String[] r = new String[4];
            for (int l = 0; l < 4; l++) {
                r[l] = w.reg(PtxType.F32, name + l);
            }
            return new Lanes(r);
        }

        int count() {
            return registers.length;
        }

        String lane(int l) {
            return registers[l];
        }

        /** The operand of a load or store: the register, or the {@code {x0, x1, x2, x3}} vector. */
        String operand() {
            return registers.length == 1 ? registers[0] : vec(registers);
        }

        /** The type suffix of a load or store: {@code .f32} or {@code .v4.f32}. */
        String type() {
            return registers.length == 1 ? ".f32" : ".v4.f32";
        }
    }
}
