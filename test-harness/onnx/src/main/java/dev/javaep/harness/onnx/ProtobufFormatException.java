package dev.javaep.harness.onnx;

/**
 * The bytes are not the ONNX message they were read as (truncated, corrupt, or another format), or the
 * message breaks one of ONNX's rules protobuf cannot check (a tensor without a data type).
 */
public final class ProtobufFormatException extends RuntimeException {
    public ProtobufFormatException(String message) {
        super(message);
    }

    public ProtobufFormatException(String message, Throwable cause) {
        super(message, cause);
    }
}
