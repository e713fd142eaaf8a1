package dev.javaep.spi;

/**
 * Whether this runtime has JDK Flight Recorder. A jlink'ed runtime may leave the {@code jdk.jfr} module
 * out; javaep's event classes (and an EP author's) extend {@code jdk.jfr.Event}, so callers test {@link #AVAILABLE} before they
 * touch one, and without JFR no event class is ever loaded and nothing fails.
 */
public final class FlightRecorder {
    public static final boolean AVAILABLE = ModuleLayer.boot().findModule("jdk.jfr").isPresent();

    private FlightRecorder() {}
}
