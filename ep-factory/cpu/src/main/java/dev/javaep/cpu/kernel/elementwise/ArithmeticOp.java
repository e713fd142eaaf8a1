package dev.javaep.cpu.kernel.elementwise;

/** The four ONNX binary arithmetic operators javaep computes elementwise. */
enum ArithmeticOp {
    ADD("Add"),
    SUB("Sub"),
    MUL("Mul"),
    DIV("Div");

    private final String opType;

    ArithmeticOp(String opType) {
        this.opType = opType;
    }

    /** The ONNX op type this operator implements. */
    String opType() {
        return opType;
    }
}
