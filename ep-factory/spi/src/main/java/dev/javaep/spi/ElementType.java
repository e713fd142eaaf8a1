package dev.javaep.spi;

/**
 * ONNX tensor element types, with their {@code ONNXTensorElementDataType} values and sizes.
 * Types whose size is not a whole number of bytes, or that are not plain numbers, report size 0.
 */
public enum ElementType {
    UNDEFINED(0, 0),
    FLOAT(1, 4),
    UINT8(2, 1),
    INT8(3, 1),
    UINT16(4, 2),
    INT16(5, 2),
    INT32(6, 4),
    INT64(7, 8),
    STRING(8, 0),
    BOOL(9, 1),
    FLOAT16(10, 2),
    DOUBLE(11, 8),
    UINT32(12, 4),
    UINT64(13, 8),
    COMPLEX64(14, 8),
    COMPLEX128(15, 16),
    BFLOAT16(16, 2),
    FLOAT8E4M3FN(17, 1),
    FLOAT8E4M3FNUZ(18, 1),
    FLOAT8E5M2(19, 1),
    FLOAT8E5M2FNUZ(20, 1),
    UINT4(21, 0),
    INT4(22, 0),
    FLOAT4E2M1(23, 0);

    private static final ElementType[] BY_VALUE = values();

    private final int onnxValue;
    private final int byteSize;

    ElementType(int onnxValue, int byteSize) {
        this.onnxValue = onnxValue;
        this.byteSize = byteSize;
    }

    /** The {@code ONNXTensorElementDataType} / {@code TensorProto.DataType} value. */
    public int onnxValue() {
        return onnxValue;
    }

    /** Bytes per element, or 0 when elements are not whole bytes (4-bit types) or not numbers (string). */
    public int byteSize() {
        return byteSize;
    }

    public static ElementType fromOnnx(int value) {
        if (value < 0 || value >= BY_VALUE.length) {
            throw new IllegalArgumentException("unknown ONNX tensor element type " + value);
        }
        return BY_VALUE[value];
    }
}
