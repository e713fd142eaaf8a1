package dev.javaep.host;

import static java.lang.foreign.ValueLayout.ADDRESS;

import dev.javaep.ort.OrtApi;
import dev.javaep.ort.OrtApiSlot;
import dev.javaep.ort.Platform;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Map;

/** {@code OrtSessionOptions}. */
public final class SessionOptions implements AutoCloseable {
    /** Session config key: fail session creation instead of running unclaimed nodes on ORT's CPU EP. */
    public static final String DISABLE_CPU_EP_FALLBACK = "session.disable_cpu_ep_fallback";

    private final OrtApi api;
    private final MemorySegment env;
    private MemorySegment options;

    private SessionOptions(OrtApi api, MemorySegment env, MemorySegment options) {
        this.api = api;
        this.env = env;
        this.options = options;
    }

    static SessionOptions create(OrtApi api, MemorySegment env) {
        return new SessionOptions(api, env, OrtCalls.pointerOut(api, OrtApiSlot.CreateSessionOptions));
    }

    MemorySegment handle() {
        return options;
    }

    public SessionOptions configEntry(String key, String value) {
        try (Arena arena = Arena.ofConfined()) {
            api.check(api.table().call(OrtApiSlot.AddSessionConfigEntry, options, arena.allocateFrom(key),
                    arena.allocateFrom(value)));
            return this;
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    public SessionOptions disableCpuEpFallback() {
        return configEntry(DISABLE_CPU_EP_FALLBACK, "1");
    }

    public SessionOptions intraOpThreads(int threads) {
        try {
            api.check((MemorySegment) api.table().handle(OrtApiSlot.SetIntraOpNumThreads).invokeExact(options, threads));
            return this;
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    /**
     * {@code EnableProfiling}: sessions made with these options write ORT's profile (Chrome trace JSON: one
     * event per node per Run, per session phase) to {@code <prefix>_<date>.json}; {@link Session#endProfiling()}
     * ends it and names the file.
     */
    public SessionOptions enableProfiling(String filePrefix) {
        try (Arena arena = Arena.ofConfined()) {
            api.check(api.table().call(OrtApiSlot.EnableProfiling, options, Platform.ortCharString(arena, filePrefix)));
            return this;
        }
    }

    /** {@code SessionOptionsAppendExecutionProvider_V2}: run on these EP devices (all of one EP), with EP options. */
    public SessionOptions appendExecutionProvider(List<EpDevice> devices, Map<String, String> epOptions) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment deviceArray = arena.allocate(ADDRESS, devices.size());
            for (int i = 0; i < devices.size(); i++) {
                deviceArray.setAtIndex(ADDRESS, i, devices.get(i).handle());
            }
            int n = epOptions.size();
            MemorySegment keys = arena.allocate(ADDRESS, Math.max(n, 1));
            MemorySegment values = arena.allocate(ADDRESS, Math.max(n, 1));
            int i = 0;
            for (var entry : epOptions.entrySet()) {
                keys.setAtIndex(ADDRESS, i, arena.allocateFrom(entry.getKey()));
                values.setAtIndex(ADDRESS, i, arena.allocateFrom(entry.getValue()));
                i++;
            }
            api.check((MemorySegment) api.table().handle(OrtApiSlot.SessionOptionsAppendExecutionProvider_V2)
                    .invokeExact(options, env, deviceArray, (long) devices.size(), keys, values, (long) n));
            return this;
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    @Override
    public void close() {
        if (options != null) {
            api.table().callVoid(OrtApiSlot.ReleaseSessionOptions, options);
            options = null;
        }
    }
}
