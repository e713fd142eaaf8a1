package dev.javaep.spi;

// A planted layering violation (LayeringTest): the SPI, which may use the JDK only, calls into the bridge.
// Mentions that are no dependency must not count: dev.javaep.cli.JavaepCli in this comment, and the string below.
import dev.javaep.bridge.UpcallGuard;

final class PlantedSpiReachingIntoTheBridge {
    static final String NOT_A_DEPENDENCY = "dev.javaep.cli.JavaepCli";

    /** Neither does dev.javaep.host.OrtHost in Javadoc. */
    Object guard() {
        return UpcallGuard.class;
    }
}
