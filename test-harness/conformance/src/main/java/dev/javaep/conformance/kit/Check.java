package dev.javaep.conformance.kit;

/**
 * One check: a stable id ({@code group.name}), a one-line description, and the code that runs it in the child JVM.
 * The body returns what it measured (the reason text of a pass); it ends with {@link #fail} or {@link #skip}
 * otherwise. Any other exception it throws is a failure whose reason is the exception.
 */
public record Check(String id, String description, Body body) {
    @FunctionalInterface
    public interface Body {
        String run(KitContext context) throws Exception;
    }

    /** Ends a check as failed. */
    public static final class Failed extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Failed(String reason) {
            super(reason, null, false, false);
        }
    }

    /** Ends a check as not applicable to this EP. */
    public static final class Skipped extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Skipped(String reason) {
            super(reason, null, false, false);
        }
    }

    public static Failed fail(String reason) {
        return new Failed(reason);
    }

    public static Skipped skip(String reason) {
        return new Skipped(reason);
    }

    /** The group of the id ({@code "registration"} of {@code "registration.factory-names"}). */
    public String group() {
        return id.substring(0, id.indexOf('.'));
    }
}
