package dev.javaep.ort;

/**
 * An error that crosses the ORT boundary: thrown when an ORT call returns an {@code OrtStatus}, and
 * thrown by EP code to choose the {@link OrtErrorCode} ORT sees (the upcall guard turns it back into
 * an {@code OrtStatus}).
 */
public class OrtException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final OrtErrorCode code;

    public OrtException(OrtErrorCode code, String message) {
        super(message);
        this.code = code;
    }

    public OrtException(OrtErrorCode code, String message, Throwable cause) {
        super(message, cause);
        this.code = code;
    }

    public OrtErrorCode code() {
        return code;
    }

    @Override
    public String toString() {
        return "OrtException[" + code + "]: " + getMessage();
    }
}
