package dev.javaep.spi;

import java.util.List;
import java.util.Map;
import java.util.Optional;

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

    /**
     * The allocator for one of the memory spaces this factory offered. ORT calls it once per space
     * (at registration and per session) and closes the result through {@link DeviceAllocator#close()}.
     * Host-memory EPs offer no spaces and never see this call.
     */
    default DeviceAllocator createAllocator(MemorySpace space) {
        throw new UnsupportedOperationException(name() + " offers no device memory");
    }

    /** Copies between host and this EP's device memory; empty for host-memory EPs. */
    default Optional<DataTransfer> dataTransfer() {
        return Optional.empty();
    }

    /** Whether this EP queues work on device streams ({@link #createStream}). */
    default boolean streamAware() {
        return false;
    }

    /** A new stream on the device of {@code location}, for one stream of a session's plan. */
    default DeviceStream createStream(MemoryLocation location) {
        throw new UnsupportedOperationException(name() + " has no device streams");
    }

    /**
     * An importer of app-owned memory and semaphores for one of this factory's devices (what apps get
     * from {@code OrtInteropApi::CreateExternalResourceImporterForDevice}); empty when the EP imports
     * nothing, which apps see as a NULL importer. javaep closes it once the app released it and every
     * handle it imported.
     *
     * @param offer the offer ORT's {@code OrtEpDevice} was made from
     */
    default Optional<ExternalResourceImporter> createImporter(DeviceOffer offer) {
        return Optional.empty();
    }

    @Override
    default void close() {}
}
