package dev.javaep.harness.ort;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.javaep.ort.OrtApi;
import dev.javaep.ort.OrtApiSlot;
import dev.javaep.ort.Platform;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** An {@code OrtEnv}: plugin-EP libraries are registered here, sessions are created from it. */
public final class OrtEnvironment implements AutoCloseable {
    private static final String[] HARDWARE_TYPES = {"CPU", "GPU", "NPU"};

    private final OrtHost host;
    private final OrtApi api;
    private MemorySegment env;

    OrtEnvironment(OrtHost host, MemorySegment env) {
        this.host = host;
        this.api = host.api();
        this.env = env;
    }

    public OrtHost host() {
        return host;
    }

    public MemorySegment handle() {
        return env;
    }

    /** {@code RegisterExecutionProviderLibrary}: ORT dlopens {@code library} and asks it for EP factories. */
    public void registerExecutionProviderLibrary(String registrationName, Path library) {
        try (Arena arena = Arena.ofConfined()) {
            api.check((MemorySegment) api.table().handle(OrtApiSlot.RegisterExecutionProviderLibrary).invokeExact(env,
                    arena.allocateFrom(registrationName), Platform.ortCharString(arena, library.toAbsolutePath().toString())));
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    /** Release every session and value that used the library's EPs first (ORT does not reference-count them). */
    public void unregisterExecutionProviderLibrary(String registrationName) {
        try (Arena arena = Arena.ofConfined()) {
            api.check((MemorySegment) api.table().handle(OrtApiSlot.UnregisterExecutionProviderLibrary)
                    .invokeExact(env, arena.allocateFrom(registrationName)));
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    public List<EpDevice> epDevices() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment devicesOut = arena.allocate(ADDRESS);
            MemorySegment countOut = arena.allocate(JAVA_LONG);
            api.check((MemorySegment) api.table().handle(OrtApiSlot.GetEpDevices).invokeExact(env, devicesOut, countOut));
            long count = countOut.get(JAVA_LONG, 0);
            MemorySegment array = devicesOut.get(ADDRESS, 0).reinterpret(count * ADDRESS.byteSize());
            List<EpDevice> result = new ArrayList<>();
            for (long i = 0; i < count; i++) {
                result.add(epDevice(array.getAtIndex(ADDRESS, i)));
            }
            return result;
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    private EpDevice epDevice(MemorySegment device) throws Throwable {
        var table = api.table();
        String name = OrtApi.cString((MemorySegment) table.handle(OrtApiSlot.EpDevice_EpName).invokeExact(device));
        String vendor = OrtApi.cString((MemorySegment) table.handle(OrtApiSlot.EpDevice_EpVendor).invokeExact(device));
        var metadata = api.keyValuePairs((MemorySegment) table.handle(OrtApiSlot.EpDevice_EpMetadata).invokeExact(device));
        var options = api.keyValuePairs((MemorySegment) table.handle(OrtApiSlot.EpDevice_EpOptions).invokeExact(device));
        MemorySegment hardware = (MemorySegment) table.handle(OrtApiSlot.EpDevice_Device).invokeExact(device);
        int type = api.hardwareDeviceType(hardware);
        return new EpDevice(device, name, vendor, metadata, options,
                type >= 0 && type < HARDWARE_TYPES.length ? HARDWARE_TYPES[type] : "UNKNOWN(" + type + ")",
                api.hardwareDeviceVendorId(hardware), api.hardwareDeviceVendor(hardware), api.hardwareDeviceMetadata(hardware));
    }

    /** The first EP device whose EP has this name. */
    public EpDevice epDevice(String epName) {
        return epDevices().stream().filter(d -> d.epName().equals(epName)).findFirst()
                .orElseThrow(() -> new IllegalStateException("no EP device named " + epName + " among " + epDevices()));
    }

    public Session createSession(Path model, SessionOptions options) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            api.check((MemorySegment) api.table().handle(OrtApiSlot.CreateSession).invokeExact(env,
                    Platform.ortCharString(arena, model.toAbsolutePath().toString()), options.handle(), out));
            return new Session(api, out.get(ADDRESS, 0));
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    public Session createSession(byte[] model, SessionOptions options) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment data = arena.allocateFrom(java.lang.foreign.ValueLayout.JAVA_BYTE, model);
            MemorySegment out = arena.allocate(ADDRESS);
            api.check((MemorySegment) api.table().handle(OrtApiSlot.CreateSessionFromArray).invokeExact(env, data,
                    (long) model.length, options.handle(), out));
            return new Session(api, out.get(ADDRESS, 0));
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    public SessionOptions createSessionOptions() {
        return SessionOptions.create(api, env);
    }

    /**
     * Releases this handle. ORT's environment is a process-wide singleton: CreateEnv hands every caller the
     * same one, and the last release destroys it.
     */
    @Override
    public void close() {
        if (env != null) {
            try {
                api.table().handle(OrtApiSlot.ReleaseEnv).invokeExact(env);
            } catch (Throwable t) {
                throw OrtApi.rethrow(t);
            }
            env = null;
        }
    }
}
