package dev.javaep.conformance.kit;

import dev.javaep.harness.onnx.Dim;
import dev.javaep.harness.onnx.OnnxModelWriter;
import dev.javaep.host.EpDevice;
import dev.javaep.host.OrtEnvironment;
import dev.javaep.host.OrtHost;
import dev.javaep.host.Session;
import dev.javaep.host.SessionOptions;
import dev.javaep.spi.ElementType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What the checks of one group share inside the child JVM: ORT's environment, the library's registration (made on
 * first use, so {@code registration.library-registers} can watch it happen), the EP's devices and the corpora.
 */
public final class KitContext implements AutoCloseable {
    /** The registration name the kit uses for the library under test. */
    public static final String REGISTRATION = "javaep-conformance";
    /** The file the child JVM's stderr goes to (ORT's default log sink writes there), set by the parent. */
    static final String LOG_PROPERTY = "javaep.conformance.log";
    /** The fact a child reports when {@code --device} names a device the EP does not offer: a usage error (exit 2). */
    static final String USAGE_ERROR = "usage-error";

    private final KitOptions options;
    private final OrtEnvironment env;
    private final List<OpTableRow> opTable = new java.util.ArrayList<>();
    private List<EpDevice> devices;
    private RuntimeException registrationFailure;

    KitContext(KitOptions options) {
        this.options = options;
        this.env = OrtHost.shared().createEnvironment("javaep-conformance", OrtHost.LogLevel.ERROR);
    }

    public KitOptions options() {
        return options;
    }

    public OrtEnvironment env() {
        return env;
    }

    /** How far ORT's log (this JVM's stderr, when the parent captured it) has grown; 0 without a captured log. */
    long ortLogSize() {
        String log = System.getProperty(LOG_PROPERTY);
        try {
            return log == null ? 0 : Files.size(Path.of(log));
        } catch (IOException e) {
            return 0;
        }
    }

    /** The lines ORT logged after {@code offset} (see {@link #ortLogSize()}) that contain {@code needle}, colour codes removed. */
    List<String> ortLogSince(long offset, String needle) {
        String log = System.getProperty(LOG_PROPERTY);
        if (log == null) {
            return List.of();
        }
        System.err.flush();
        try (var channel = java.nio.channels.FileChannel.open(Path.of(log))) {
            long size = channel.size();
            if (size <= offset) {
                return List.of();
            }
            java.nio.ByteBuffer bytes = java.nio.ByteBuffer.allocate((int) Math.min(size - offset, 1 << 20));
            channel.read(bytes, offset);
            String text = new String(bytes.array(), 0, bytes.position(), java.nio.charset.StandardCharsets.UTF_8);
            return text.lines().map(l -> l.replaceAll("\u001B\\[[0-9;]*m", "")).filter(l -> l.contains(needle)).toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    /** The per-op table the correctness checks fill, for the report. */
    public List<OpTableRow> opTable() {
        return opTable;
    }

    /** Whether the library is registered now. */
    public boolean registered() {
        return devices != null;
    }

    /**
     * Registers the library (once) and answers the EP devices it added for the EP under test.
     *
     * @throws Check.Failed when registration fails or the library offers no device of the EP
     */
    public List<EpDevice> devices() {
        if (registrationFailure != null) {
            throw Check.fail("the library did not register: " + registrationFailure.getMessage());
        }
        if (devices == null) {
            try {
                devices = register(REGISTRATION);
            } catch (RuntimeException e) {
                registrationFailure = e;
                throw Check.fail("RegisterExecutionProviderLibrary(" + options.library() + ") failed: " + e.getMessage());
            }
        }
        return devices;
    }

    /**
     * The EP device every check uses: {@code --device N}, the first by default.
     *
     * @throws DeviceOutOfRange when the EP offers no device N
     */
    public EpDevice device() {
        List<EpDevice> all = devices();
        int index = options.deviceIndex();
        if (index >= all.size()) {
            throw new DeviceOutOfRange("--device " + index + ": " + all.getFirst().epName() + " offers " + all.size()
                    + " EP device(s) here (--device 0" + (all.size() > 1 ? " to " + (all.size() - 1) : "") + ")");
        }
        return all.get(index);
    }

    /** {@code --device} out of range: the user's mistake, not the EP's; the run stops with exit code 2. */
    static final class DeviceOutOfRange extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        DeviceOutOfRange(String message) {
            super(message);
        }
    }

    public String epName() {
        return devices().getFirst().epName();
    }

    /** Registers the library under {@code name}; the EP's devices it added (fails when there are none). */
    List<EpDevice> register(String name) {
        Set<MemorySegment> before = new HashSet<>();
        env.epDevices().forEach(d -> before.add(d.handle()));
        env.registerExecutionProviderLibrary(name, options.library());
        List<EpDevice> added = env.epDevices().stream().filter(d -> !before.contains(d.handle())).toList();
        String ep = options.epName() != null ? options.epName() : added.isEmpty() ? null : added.getFirst().epName();
        List<EpDevice> ours = added.stream().filter(d -> d.epName().equals(ep)).toList();
        if (ours.isEmpty()) {
            env.unregisterExecutionProviderLibrary(name);
            throw new IllegalStateException("the library registered but offers no EP device"
                    + (options.epName() == null ? "" : " of " + options.epName()) + "; it added "
                    + added.stream().map(EpDevice::epName).toList());
        }
        return ours;
    }

    /** Unregisters the library if registered (every session of it must be closed). */
    void unregister() {
        if (devices != null) {
            devices = null;
            env.unregisterExecutionProviderLibrary(REGISTRATION);
        }
    }

    /** Session options that put the EP first; {@code fallback} false disables ORT's CPU fallback. */
    public SessionOptions sessionOptions(boolean fallback) {
        SessionOptions sessionOptions = env.createSessionOptions();
        if (!fallback) {
            sessionOptions.disableCpuEpFallback();
        }
        return sessionOptions.appendExecutionProvider(List.of(device()), Map.of());
    }

    public Session session(byte[] model, boolean fallback) {
        try (SessionOptions sessionOptions = sessionOptions(fallback)) {
            return env.createSession(model, sessionOptions);
        }
    }

    /** The probe model: {@code y = Add(a, b)}, float, both of shape [N]. */
    public static byte[] addModel() {
        return new OnnxModelWriter("conformance_add")
                .input("a", ElementType.FLOAT, Dim.param("N"))
                .input("b", ElementType.FLOAT, Dim.param("N"))
                .output("y", ElementType.FLOAT, Dim.param("N"))
                .node("Add", List.of("a", "b"), List.of("y"))
                .toByteArray();
    }

    /** The node-test folders of the corpus (filtered, sorted, limited); empty when no corpus was given. */
    public List<Path> nodeTests() {
        Path root = options.nodeTests();
        if (root == null) {
            return List.of();
        }
        Pattern filter = options.nodeTestFilter() == null ? null : Pattern.compile(options.nodeTestFilter());
        try (Stream<Path> dirs = Files.list(root)) {
            return dirs.filter(d -> Files.exists(d.resolve("model.onnx")))
                    .filter(d -> filter == null || filter.matcher(d.getFileName().toString()).matches())
                    .sorted().limit(options.nodeTestLimit()).toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list node tests under " + root, e);
        }
    }

    /** Skips the check when there is no corpus. */
    public List<Path> requireNodeTests() {
        List<Path> tests = nodeTests();
        if (tests.isEmpty()) {
            throw Check.skip(options.nodeTests() == null ? "no node-test corpus: pass --node-tests DIR (ONNX's backend/test/data/node)"
                    : "no node tests under " + options.nodeTests() + " match " + options.nodeTestFilter());
        }
        return tests;
    }

    @Override
    public void close() {
        try {
            unregister();
        } finally {
            env.close();
        }
    }
}
