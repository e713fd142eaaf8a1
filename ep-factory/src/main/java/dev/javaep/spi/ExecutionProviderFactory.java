package dev.javaep.spi;

import java.util.List;
import java.util.Map;

/**
 * The entry point of a Java EP. Implement it, list the class in
 * {@code META-INF/services/dev.javaep.spi.ExecutionProviderFactory}, put the jar on javaep's class
 * path, and every ORT host that registers libjavaep sees a new execution provider. No native code.
 *
 * <p>Every method may throw: javaep turns the exception into an {@code OrtStatus} for ORT (an
 * {@code dev.javaep.ort.OrtException} chooses the error code) and the host process lives on.
 */
public interface ExecutionProviderFactory extends AutoCloseable {
    /** Called once, before any other method. */
    default void initialize(FactoryContext context) {}

    /** The EP name apps select, e.g. "JavaCpuExecutionProvider". Must not collide with ORT's built-in EPs. */
    String name();

    String vendor();

    /** PCI vendor id of the EP's vendor, 0 if none. */
    default int vendorId() {
        return 0;
    }

    /** The EP version, SemVer 2.0. */
    String version();

    /** Which of the devices ORT found this EP runs on. */
    List<DeviceOffer> supportedDevices(List<HardwareDevice> devices);

    /**
     * Creates the EP for one session.
     *
     * @param devices        the devices the app selected (from this factory's offers)
     * @param sessionOptions the session's config entries (EP options arrive as "ep.&lt;name&gt;.&lt;key&gt;")
     */
    ExecutionProvider createExecutionProvider(List<HardwareDevice> devices, Map<String, String> sessionOptions);

    @Override
    default void close() {}
}
