package dev.javaep.harness.onnx;

/** The bytes are not the protobuf message they were read as (truncated, corrupt, or another format). */
public final class ProtobufFormatException extends RuntimeException {
    public ProtobufFormatException(String message) {
        super(message);
    }
}
