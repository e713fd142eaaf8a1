package dev.javaep.ort;

/** {@code OrtErrorCode}: the codes an {@code OrtStatus} carries. */
public enum OrtErrorCode {
    OK(0),
    FAIL(1),
    INVALID_ARGUMENT(2),
    NO_SUCHFILE(3),
    NO_MODEL(4),
    ENGINE_ERROR(5),
    RUNTIME_EXCEPTION(6),
    INVALID_PROTOBUF(7),
    MODEL_LOADED(8),
    NOT_IMPLEMENTED(9),
    INVALID_GRAPH(10),
    EP_FAIL(11),
    MODEL_LOAD_CANCELED(12),
    MODEL_REQUIRES_COMPILATION(13),
    NOT_FOUND(14);

    private final int value;

    OrtErrorCode(int value) {
        this.value = value;
    }

    public int value() {
        return value;
    }

    public static OrtErrorCode of(int value) {
        for (OrtErrorCode code : values()) {
            if (code.value == value) {
                return code;
            }
        }
        return FAIL;
    }
}
