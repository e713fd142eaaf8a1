package dev.javaep.cuda.kernel.ptx;

import static dev.javaep.cuda.kernel.ptx.KernelParam.f32;
import static dev.javaep.cuda.kernel.ptx.KernelParam.layout;
import static dev.javaep.cuda.kernel.ptx.KernelParam.ptr;
import static dev.javaep.cuda.kernel.ptx.KernelParam.u32;
import static dev.javaep.cuda.kernel.ptx.KernelParam.u64;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Every entry point of {@link PtxModule#source()}: {@link #entryName()} is the name to give
 * {@code cuModuleGetFunction}, {@link #params()} the parameters in launch order.
 *
 * <p>Conventions shared by all kernels: every tensor is float32, dense and row-major; pointers are
 * device addresses ({@code u64}); counts are element counts, not bytes. The 1-D kernels use a
 * grid-stride loop, {@code for (i = blockIdx.x*blockDim.x + threadIdx.x; i < n; i += blockDim.x*gridDim.x)},
 * so any grid is correct; {@link LaunchShape} has the suggested shapes. Inputs are read through the
 * read-only cache ({@code ld.global.nc}); an output may share memory with an input only when that
 * input has the output's shape (each element is then read before it is written, by the one thread
 * that writes it). Arithmetic is IEEE round-to-nearest without flushing subnormals, except where a
 * kernel says otherwise.
 */
public enum CudaKernel {
    /**
     * {@code ew_add_f32_contig(u64 out, u64 a, u64 b, u64 n)}: {@code out[i] = a[i] + b[i]} for
     * {@code i < n}.
     */
    EW_ADD_F32_CONTIG(BinaryOp.ADD, BinaryForm.CONTIG),
    /**
     * {@code ew_add_f32_contig4(u64 out, u64 a, u64 b, u64 n4)}: as {@link #EW_ADD_F32_CONTIG} over
     * {@code 4*n4} elements with 16-byte vector loads and stores; all three pointers must be 16-byte
     * aligned.
     */
    EW_ADD_F32_CONTIG4(BinaryOp.ADD, BinaryForm.CONTIG4),
    /**
     * {@code ew_add_f32_bcast(u64 out, u64 a, u64 b, u64 n, u32 rank, .b8 layout[192])}:
     * {@code out[i] = a[offA(i)] + b[offB(i)]} for {@code i < n}, with the offsets of
     * {@link BroadcastLayout#offsetsOf(long)}.
     */
    EW_ADD_F32_BCAST(BinaryOp.ADD, BinaryForm.BCAST),
    /** {@code ew_sub_f32_contig(u64 out, u64 a, u64 b, u64 n)}: {@code out[i] = a[i] - b[i]}. */
    EW_SUB_F32_CONTIG(BinaryOp.SUB, BinaryForm.CONTIG),
    /** {@code ew_sub_f32_contig4(u64 out, u64 a, u64 b, u64 n4)}: vectorised {@link #EW_SUB_F32_CONTIG}. */
    EW_SUB_F32_CONTIG4(BinaryOp.SUB, BinaryForm.CONTIG4),
    /**
     * {@code ew_sub_f32_bcast(u64 out, u64 a, u64 b, u64 n, u32 rank, .b8 layout[192])}:
     * {@code out[i] = a[offA(i)] - b[offB(i)]}.
     */
    EW_SUB_F32_BCAST(BinaryOp.SUB, BinaryForm.BCAST),
    /** {@code ew_mul_f32_contig(u64 out, u64 a, u64 b, u64 n)}: {@code out[i] = a[i] * b[i]}. */
    EW_MUL_F32_CONTIG(BinaryOp.MUL, BinaryForm.CONTIG),
    /** {@code ew_mul_f32_contig4(u64 out, u64 a, u64 b, u64 n4)}: vectorised {@link #EW_MUL_F32_CONTIG}. */
    EW_MUL_F32_CONTIG4(BinaryOp.MUL, BinaryForm.CONTIG4),
    /**
     * {@code ew_mul_f32_bcast(u64 out, u64 a, u64 b, u64 n, u32 rank, .b8 layout[192])}:
     * {@code out[i] = a[offA(i)] * b[offB(i)]}.
     */
    EW_MUL_F32_BCAST(BinaryOp.MUL, BinaryForm.BCAST),
    /**
     * {@code ew_div_f32_contig(u64 out, u64 a, u64 b, u64 n)}: {@code out[i] = a[i] / b[i]},
     * IEEE {@code div.rn.f32} (x/0 = ±inf, 0/0 = NaN).
     */
    EW_DIV_F32_CONTIG(BinaryOp.DIV, BinaryForm.CONTIG),
    /** {@code ew_div_f32_contig4(u64 out, u64 a, u64 b, u64 n4)}: vectorised {@link #EW_DIV_F32_CONTIG}. */
    EW_DIV_F32_CONTIG4(BinaryOp.DIV, BinaryForm.CONTIG4),
    /**
     * {@code ew_div_f32_bcast(u64 out, u64 a, u64 b, u64 n, u32 rank, .b8 layout[192])}:
     * {@code out[i] = a[offA(i)] / b[offB(i)]}, IEEE division.
     */
    EW_DIV_F32_BCAST(BinaryOp.DIV, BinaryForm.BCAST),

    /**
     * {@code un_relu_f32(u64 out, u64 in, u64 n)}: {@code out[i] = in[i] < 0 ? 0 : in[i]}; NaN stays
     * NaN and -0 stays -0 (numpy's {@code maximum(x, 0)}).
     */
    UN_RELU_F32(UnaryOp.RELU, false),
    /** {@code un_relu_f32_v4(u64 out, u64 in, u64 n4)}: vectorised {@link #UN_RELU_F32}, 16-byte aligned. */
    UN_RELU_F32_V4(UnaryOp.RELU, true),
    /**
     * {@code un_sigmoid_f32(u64 out, u64 in, u64 n)}: {@code out[i] = 1/(1+exp(-x))}, evaluated as
     * {@code e = exp(-|x|); x >= 0 ? 1/(1+e) : e/(1+e)} so neither side overflows; relative error
     * below 1e-6; NaN stays NaN.
     */
    UN_SIGMOID_F32(UnaryOp.SIGMOID, false),
    /** {@code un_sigmoid_f32_v4(u64 out, u64 in, u64 n4)}: vectorised {@link #UN_SIGMOID_F32}. */
    UN_SIGMOID_F32_V4(UnaryOp.SIGMOID, true),
    /**
     * {@code un_tanh_f32(u64 out, u64 in, u64 n)}: {@code out[i] = tanh(x)}: the odd Taylor series
     * to x^17 for {@code |x| < 0.55}, else {@code copysign((1-e)/(1+e), x)} with
     * {@code e = exp(-2|x|)}; relative error below 1e-6, ±1 for large |x|, NaN stays NaN.
     */
    UN_TANH_F32(UnaryOp.TANH, false),
    /** {@code un_tanh_f32_v4(u64 out, u64 in, u64 n4)}: vectorised {@link #UN_TANH_F32}. */
    UN_TANH_F32_V4(UnaryOp.TANH, true),

    /**
     * {@code softmax_rows_f32(u64 out, u64 in, u64 rows, u64 cols)}: for each row r of the
     * {@code [rows, cols]} matrix, {@code m = max_c in[r,c]; s = sum_c exp(in[r,c] - m);
     * out[r,c] = exp(in[r,c] - m) * (1/s)}. One warp per row, rows grid-strided over the grid's warps;
     * {@code blockDim.x} must be a multiple of 32 ({@code blockDim.y = blockDim.z = 1}). A row of
     * -inf gives NaN; a NaN anywhere in a row makes the whole row NaN.
     */
    SOFTMAX_ROWS_F32(Family.SOFTMAX_ROWS,
            List.of(ptr("out"), ptr("in"), u64("rows"), u64("cols"))),
    /**
     * {@code softmax_strided_f32(u64 out, u64 in, u64 outer, u64 axis, u64 inner)}: softmax along
     * the middle dimension of an {@code [outer, axis, inner]} tensor; one thread per
     * {@code (outer, inner)} pair, grid-strided over {@code outer*inner}; same formula as
     * {@link #SOFTMAX_ROWS_F32}.
     */
    SOFTMAX_STRIDED_F32(Family.SOFTMAX_STRIDED,
            List.of(ptr("out"), ptr("in"), u64("outer"), u64("axis"), u64("inner"))),

    /**
     * {@code gemm_f32(u64 y, u64 a, u64 b, u64 c, u32 m, u32 n, u32 k, u32 transA, u32 transB,
     * f32 alpha, f32 beta, u64 cRowStride, u64 cColStride, u32 hasC, u64 aBatchStride,
     * u64 bBatchStride, u64 yBatchStride)}: for batch {@code z = blockIdx.z},
     * <pre>
     *   A' = transA ? A^T : A   (A stored row-major [m,k], or [k,m] when transA)
     *   B' = transB ? B^T : B   (B stored row-major [k,n], or [n,k] when transB)
     *   Y[i,j] = alpha * sum_{l<k} A'[i,l] * B'[l,j] + (hasC != 0 ? beta * c[i*cRowStride + j*cColStride] : 0)
     * </pre>
     * with {@code a}, {@code b}, {@code y} advanced by {@code z*aBatchStride}, {@code z*bBatchStride},
     * {@code z*yBatchStride} elements (0 broadcasts one matrix to all batches; {@code c} is shared by
     * all batches). Y is row-major {@code [m,n]}. The sum is accumulated in float32 with fma, in
     * increasing l. Launch with {@code blockDim = (16,16,1)} exactly (the entry declares
     * {@code .reqntid 16,16,1}) and {@code grid = (ceil(n/16), ceil(m/16), batches)}; so
     * {@code m <= 16*65535} and at most 65535 batches per launch. {@code y} must not overlap
     * {@code a} or {@code b}. MatMul is {@code alpha = 1, hasC = 0, transA = transB = 0}.
     */
    GEMM_F32(Family.GEMM, List.of(
            ptr("y"), ptr("a"), ptr("b"), ptr("c"),
            u32("m"), u32("n"), u32("k"), u32("transA"), u32("transB"),
            f32("alpha"), f32("beta"),
            u64("cRowStride"), u64("cColStride"), u32("hasC"),
            u64("aBatchStride"), u64("bBatchStride"), u64("yBatchStride")));

    /** The ONNX elementwise binary operators. */
    public enum BinaryOp {
        ADD("Add"), SUB("Sub"), MUL("Mul"), DIV("Div");

        private final String opType;

        BinaryOp(String opType) {
            this.opType = opType;
        }

        /** The ONNX op type, e.g. {@code "Add"}. */
        public String opType() {
            return opType;
        }
    }

    /** How a binary kernel addresses its operands. */
    public enum BinaryForm {
        /** a, b and out all have n elements. */
        CONTIG,
        /** As {@link #CONTIG} with float4 accesses: n = 4*n4 and 16-byte aligned pointers. */
        CONTIG4,
        /** Multidirectional broadcasting through a {@link BroadcastLayout}. */
        BCAST
    }

    /** The ONNX activation operators. */
    public enum UnaryOp {
        RELU("Relu"), SIGMOID("Sigmoid"), TANH("Tanh");

        private final String opType;

        UnaryOp(String opType) {
            this.opType = opType;
        }

        /** The ONNX op type, e.g. {@code "Relu"}. */
        public String opType() {
            return opType;
        }
    }

    /** Which emitter writes the entry; kernels of one family share their code shape. */
    enum Family {
        BINARY_CONTIG, BINARY_CONTIG4, BINARY_BCAST, UNARY, UNARY_V4, SOFTMAX_ROWS, SOFTMAX_STRIDED, GEMM
    }

    private final Family family;
    private final List<KernelParam> params;
    private final BinaryOp binaryOp;
    private final UnaryOp unaryOp;

    CudaKernel(BinaryOp op, BinaryForm form) {
        this.binaryOp = op;
        this.unaryOp = null;
        switch (form) {
            case CONTIG -> {
                family = Family.BINARY_CONTIG;
                params = List.of(ptr("out"), ptr("a"), ptr("b"), u64("n"));
            }
            case CONTIG4 -> {
                family = Family.BINARY_CONTIG4;
                params = List.of(ptr("out"), ptr("a"), ptr("b"), u64("n4"));
            }
            default -> {
                family = Family.BINARY_BCAST;
                params = List.of(ptr("out"), ptr("a"), ptr("b"), u64("n"), u32("rank"), layout("layout"));
            }
        }
    }

    CudaKernel(UnaryOp op, boolean vec4) {
        this.binaryOp = null;
        this.unaryOp = op;
        this.family = vec4 ? Family.UNARY_V4 : Family.UNARY;
        this.params = List.of(ptr("out"), ptr("in"), u64(vec4 ? "n4" : "n"));
    }

    CudaKernel(Family family, List<KernelParam> params) {
        this.binaryOp = null;
        this.unaryOp = null;
        this.family = family;
        this.params = params;
    }

    /** The {@code .entry} name in the module, e.g. {@code ew_add_f32_contig4}. */
    public String entryName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The parameters in launch order ({@code kernelParams[i]} points at the value of {@code params().get(i)}). */
    public List<KernelParam> params() {
        return params;
    }

    /** The operator of an {@code ew_*} kernel. */
    public Optional<BinaryOp> binaryOp() {
        return Optional.ofNullable(binaryOp);
    }

    /** The operator of an {@code un_*} kernel. */
    public Optional<UnaryOp> unaryOp() {
        return Optional.ofNullable(unaryOp);
    }

    Family family() {
        return family;
    }

    /** The binary kernel for {@code op} in the given addressing form. */
    public static CudaKernel binary(BinaryOp op, BinaryForm form) {
        return valueOf("EW_" + op.name() + "_F32_" + form.name());
    }

    /** The unary kernel for {@code op}, the float4 variant when {@code vec4}. */
    public static CudaKernel unary(UnaryOp op, boolean vec4) {
        return valueOf("UN_" + op.name() + "_F32" + (vec4 ? "_V4" : ""));
    }

    /** The C-like signature, e.g. {@code ew_add_f32_contig(u64 out, u64 a, u64 b, u64 n)}. */
    public String signature() {
        StringBuilder s = new StringBuilder(entryName()).append('(');
        for (int i = 0; i < params.size(); i++) {
            KernelParam p = params.get(i);
            s.append(i == 0 ? "" : ", ").append(switch (p.kind()) {
                case POINTER, U64 -> "u64 " + p.name();
                case U32 -> "u32 " + p.name();
                case F32 -> "f32 " + p.name();
                case BROADCAST_LAYOUT -> ".b8 " + p.name() + "[" + BroadcastLayout.BYTES + "]";
            });
        }
        return s.append(')').toString();
    }
}
