package dev.javaep.ort;

/**
 * {@code enum OrtMemType} (onnxruntime_c_api.h): where a kernel's input or output lives, relative to
 * the EP's own memory. A per-op kernel declares host inputs and outputs with these
 * ({@code KernelDefBuilder_SetInputMemType}/{@code _SetOutputMemType}); ORT then inserts the copies.
 */
public enum OrtMemType {
    /** Input in CPU memory, whatever the EP's device. */
    CPU_INPUT(-2),
    /** Output in CPU memory, whatever the EP's device. */
    CPU_OUTPUT(-1),
    /** The EP's own memory. */
    DEFAULT(0);

    private final int value;

    OrtMemType(int value) {
        this.value = value;
    }

    public int value() {
        return value;
    }
}
