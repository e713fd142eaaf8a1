package dev.javaep.host;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.javaep.ort.OrtApi;
import dev.javaep.ort.OrtApiSlot;
import dev.javaep.ort.OrtErrorCode;
import dev.javaep.ort.OrtException;
import dev.javaep.ort.Platform;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** An {@code OrtEnv}: plugin-EP libraries are registered here, sessions are created from it. */
public final class OrtEnvironment implements AutoCloseable {
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
            api.check(api.table().call(OrtApiSlot.RegisterExecutionProviderLibrary, env, arena.allocateFrom(registrationName),
                    Platform.ortCharString(arena, library.toAbsolutePath().toString())));
        }
    }

    /** Release every session and value that used the library's EPs first (ORT does not reference-count them). */
    public void unregisterExecutionProviderLibrary(String registrationName) {
        try (Arena arena = Arena.ofConfined()) {
            api.check(api.table().call(OrtApiSlot.UnregisterExecutionProviderLibrary, env,
                    arena.allocateFrom(registrationName)));
        }
    }

    public List<EpDevice> epDevices() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment devicesOut = arena.allocate(ADDRESS);
            MemorySegment countOut = arena.allocate(JAVA_LONG);
            api.check(api.table().call(OrtApiSlot.GetEpDevices, env, devicesOut, countOut));
            long count = countOut.get(JAVA_LONG, 0);
            MemorySegment array = devicesOut.get(ADDRESS, 0).reinterpret(count * ADDRESS.byteSize());
            List<EpDevice> result = new ArrayList<>();
            for (long i = 0; i < count; i++) {
                result.add(EpDevice.of(api, array.getAtIndex(ADDRESS, i)));
            }
            return result;
        }
    }

    /** The first EP device whose EP has this name. */
    public EpDevice epDevice(String epName) {
        return epDevices().stream().filter(d -> d.epName().equals(epName)).findFirst()
                .orElseThrow(() -> new IllegalStateException("no EP device named " + epName + " among " + epDevices()));
    }

    public Session createSession(Path model, SessionOptions options) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            api.check(api.table().call(OrtApiSlot.CreateSession, env,
                    Platform.ortCharString(arena, model.toAbsolutePath().toString()), options.handle(), out));
            return new Session(api, out.get(ADDRESS, 0));
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
     * {@code CreateSyncStreamForEpDevice} with no options: a stream on {@code device}, for
     * {@link #copyTensors} and {@link RunOptions#syncStream}. Fails with an {@link OrtException} unless the
     * device's EP is stream-aware and declares device memory: ORT refuses EP devices that use host memory
     * with INVALID_ARGUMENT "ep_device does not use DEFAULT memory of a non-CPU device."
     */
    public SyncStream createSyncStream(EpDevice device) {
        return SyncStream.create(api, device, Map.of());
    }

    /** {@link #createSyncStream(EpDevice)} with stream options the EP understands. */
    public SyncStream createSyncStream(EpDevice device, Map<String, String> options) {
        return SyncStream.create(api, device, options);
    }

    /**
     * {@code CopyTensors}: copies {@code sources.get(i)} into {@code destinations.get(i)} (same type and
     * shape) through the data transfers registered EP libraries provide: host to device, device to host,
     * device to device. ORT (1.29) has no host-to-host transfer here and answers NOT_IMPLEMENTED unless an
     * EP library registered one.
     *
     * @param stream the stream to queue the copies on, or null to copy synchronously; with a stream the
     *     copies may still be running when this returns
     */
    public void copyTensors(List<OrtTensor> sources, List<OrtTensor> destinations, SyncStream stream) {
        if (sources.size() != destinations.size()) {
            throw new IllegalArgumentException("javaep: copyTensors needs as many destinations as sources, got "
                    + sources.size() + " and " + destinations.size());
        }
        int n = sources.size();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment src = arena.allocate(ADDRESS, Math.max(1, n));
            MemorySegment dst = arena.allocate(ADDRESS, Math.max(1, n));
            for (int i = 0; i < n; i++) {
                src.setAtIndex(ADDRESS, i, sources.get(i).handle());
                dst.setAtIndex(ADDRESS, i, destinations.get(i).handle());
            }
            MemorySegment queue = stream == null ? MemorySegment.NULL : stream.ortStream();
            api.check((MemorySegment) api.table().handle(OrtApiSlot.CopyTensors).invokeExact(env, src, dst, queue, (long) n));
        } catch (OrtException e) {
            if (e.code() == OrtErrorCode.NOT_IMPLEMENTED && allHostAccessible(sources) && allHostAccessible(destinations)) {
                throw new OrtException(e.code(), e.getMessage() + " (javaep: ORT's CopyTensors copies only through data"
                        + " transfers EP libraries registered, and none copies host to host; copy host memory directly,"
                        + " e.g. MemorySegment.copy between OrtTensor.hostSegment()s)", e);
            }
            throw e;
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    private static boolean allHostAccessible(List<OrtTensor> tensors) {
        return tensors.stream().allMatch(OrtTensor::isHostAccessible);
    }

    /**
     * {@code CreateExternalResourceImporterForDevice} (the interop API, ORT 1.24): an importer for memory and
     * semaphores other APIs allocated, on {@code device}'s EP. Empty when ORT answers success with no
     * importer: the EP offers none (or its factory predates API 24).
     *
     * @param device null passes a NULL device, for tests of ORT's own check (it answers INVALID_ARGUMENT)
     * @throws OrtException with the EP's code when the EP refuses, NOT_IMPLEMENTED when the runtime has no
     *     interop API
     */
    public Optional<ExternalResourceImporter> createExternalResourceImporter(EpDevice device) {
        return ExternalResourceImporter.create(host, device);
    }

    /**
     * {@code GetSharedAllocator}: the environment's shared allocator for {@code memoryInfo} (borrowed: the
     * environment owns it), or empty when there is none.
     */
    public Optional<Allocator> sharedAllocator(MemoryInfo memoryInfo) {
        MemorySegment allocator = OrtCalls.pointerOut(api, OrtApiSlot.GetSharedAllocator, env, memoryInfo.handle());
        return allocator.equals(MemorySegment.NULL) ? Optional.empty() : Optional.of(Allocator.borrowed(api, allocator));
    }

    /**
     * Releases this handle. ORT's environment is a process-wide singleton: CreateEnv hands every caller the
     * same one, and the last release destroys it.
     */
    @Override
    public void close() {
        if (env != null) {
            api.table().callVoid(OrtApiSlot.ReleaseEnv, env);
            env = null;
        }
    }
}
