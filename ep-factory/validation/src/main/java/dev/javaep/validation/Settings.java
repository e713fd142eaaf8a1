package dev.javaep.validation;

/**
 * How the layer runs, fixed at a registration: {@code strict} ({@code JAVAEP_VALIDATE_STRICT=1} or
 * {@code -Djavaep.validate.strict=true}): a violation in a slot that returns a status becomes an error status;
 * {@code slowNanos} ({@code JAVAEP_VALIDATE_SLOW_MS} / {@code javaep.validate.slow.ms}, default 1000 ms);
 * {@code trace} ({@code JAVAEP_VALIDATE_TRACE=file.json} / {@code javaep.validate.trace}), or null;
 * {@code breadcrumbs} ({@code JAVAEP_VALIDATE_BREADCRUMBS} / {@code javaep.validate.breadcrumbs}), or null;
 * {@code reports} ({@link ReportFile#ENVIRONMENT} / {@link ReportFile#PROPERTY}), or null.
 */
record Settings(boolean strict, long slowNanos, Trace trace, StatusReader statuses, Stubs stubs, int knownVersion,
                Breadcrumbs breadcrumbs, ReportFile reports) {
    static volatile Settings current;

    static String setting(String property, String env) {
        String value = System.getProperty(property, System.getenv(env));
        return value == null || value.isBlank() ? null : value.strip();
    }
}
