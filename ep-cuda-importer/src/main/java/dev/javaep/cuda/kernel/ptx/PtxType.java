package dev.javaep.cuda.kernel.ptx;

/** The register types the emitters declare. */
enum PtxType {
    PRED(".pred"), U32(".u32"), S32(".s32"), B32(".b32"), F32(".f32"), U64(".u64");

    final String ptx;

    PtxType(String ptx) {
        this.ptx = ptx;
    }
}
