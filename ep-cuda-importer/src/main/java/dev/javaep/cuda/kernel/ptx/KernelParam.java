package dev.javaep.cuda.kernel.ptx;

/** One parameter of a kernel entry: its PTX name and its kind, in launch order. */
public record KernelParam(String name, ParamKind kind) {
    static KernelParam ptr(String name) {
        return new KernelParam(name, ParamKind.POINTER);
    }

    static KernelParam u64(String name) {
        return new KernelParam(name, ParamKind.U64);
    }

    static KernelParam u32(String name) {
        return new KernelParam(name, ParamKind.U32);
    }

    static KernelParam f32(String name) {
        return new KernelParam(name, ParamKind.F32);
    }

    static KernelParam layout(String name) {
        return new KernelParam(name, ParamKind.BROADCAST_LAYOUT);
    }

    @Override
    public String toString() {
        return kind.name().toLowerCase(java.util.Locale.ROOT) + " " + name;
    }
}
