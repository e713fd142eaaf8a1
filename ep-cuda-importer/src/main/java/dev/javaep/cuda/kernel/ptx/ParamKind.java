package dev.javaep.cuda.kernel.ptx;

/**
 * The type of one kernel parameter, as the launcher must pass it to {@code cuLaunchKernel}: each
 * entry of {@code kernelParams} points at a host value of {@link #byteSize()} bytes, little-endian.
 */
public enum ParamKind {
    /** A device address ({@code CUdeviceptr}), 8 bytes. */
    POINTER(8, ".u64"),
    /** An unsigned 64-bit count, stride or offset, 8 bytes. */
    U64(8, ".u64"),
    /** An unsigned 32-bit value (sizes of GEMM, flags, ranks), 4 bytes. */
    U32(4, ".u32"),
    /** A float32 scalar, 4 bytes. */
    F32(4, ".f32"),
    /**
     * The 192-byte broadcast layout of the {@code ew_*_f32_bcast} kernels, 8-byte aligned: see
     * {@link BroadcastLayout}.
     */
    BROADCAST_LAYOUT(BroadcastLayout.BYTES, ".align 8 .b8");

    private final int byteSize;
    private final String ptxType;

    ParamKind(int byteSize, String ptxType) {
        this.byteSize = byteSize;
        this.ptxType = ptxType;
    }

    /** How many bytes the host value behind the {@code kernelParams} entry has. */
    public int byteSize() {
        return byteSize;
    }

    /** The PTX declaration of a parameter of this kind, e.g. {@code .param .u64 out}. */
    String ptxDeclaration(String name) {
        return this == BROADCAST_LAYOUT
                ? ".param " + ptxType + " " + name + "[" + byteSize + "]"
                : ".param " + ptxType + " " + name;
    }
}
