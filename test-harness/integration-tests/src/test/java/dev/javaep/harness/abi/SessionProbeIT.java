package dev.javaep.harness.abi;

import static dev.javaep.harness.abi.Raw.call;
import static dev.javaep.harness.abi.Raw.cpuInfo;
import static dev.javaep.harness.abi.Raw.floatTensor;
import static dev.javaep.harness.abi.Raw.ok;
import static dev.javaep.harness.abi.Raw.ortApi;
import static dev.javaep.harness.abi.Raw.pointer;
import static dev.javaep.harness.abi.Raw.pointerOut;
import static dev.javaep.harness.abi.Raw.string;
import static dev.javaep.harness.abi.SubProbeModel.DIFFERENCE;
import static dev.javaep.harness.abi.SubProbeModel.MINUEND;
import static dev.javaep.harness.abi.SubProbeModel.SUBTRAHEND;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.harness.onnx.Dim;
import dev.javaep.harness.onnx.OnnxModelWriter;
import dev.javaep.host.OrtEnvironment;
import dev.javaep.host.OrtHost;
import dev.javaep.ort.OrtApiSlot;
import dev.javaep.ort.OrtException;
import dev.javaep.ort.Platform;
import dev.javaep.spi.ElementType;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Probes of sessions on ORT's CPU EP: a model whose two inputs ({@code minuend} {N, 3}, {@code subtrahend} {3})
 * and one output ({@code difference}) differ in count, name and role, so swapped inputs, a count of outputs
 * read as inputs, or a name from the wrong list all show.
 */
@ExtendWith(ProbeVersionCondition.class)
@SuppressWarnings("restricted") // raw pointers from ORT are what a probe reads
class SessionProbeIT {
    /** {@code OrtApi::RunOptionsGetRunTag} (45): reads back what {@code RunOptionsSetRunTag} (42) set. */
    private static final ProbedSlots.Observer GET_RUN_TAG = ProbedSlots.Observer.of("ortapi-slots.tsv", "RunOptionsGetRunTag", 1,
            FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS));
    /** {@code OrtApi::SetOptimizedModelFilePath} (13): makes ORT write the graph it optimized. */
    private static final ProbedSlots.Observer SET_OPTIMIZED_MODEL_PATH = ProbedSlots.Observer.of("ortapi-slots.tsv",
            "SetOptimizedModelFilePath", 1, FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS));

    private static OrtEnvironment env;
    private static byte[] model;

    @BeforeAll
    static void createEnvironment() {
        env = OrtHost.shared().createEnvironment("javaep-session-probes", OrtHost.LogLevel.ERROR);
        model = SubProbeModel.bytes("probe_sub");
    }

    @AfterAll
    static void closeEnvironment() {
        if (env != null) {
            env.close();
        }
    }

    private static MemorySegment sessionOptions(Arena arena) {
        return pointerOut(arena, ortApi(), OrtApiSlot.CreateSessionOptions);
    }

    /** A session of the model with default options (released again: the session keeps what it needs of them). */
    private static MemorySegment plainSession(Arena arena) {
        MemorySegment options = sessionOptions(arena);
        MemorySegment session = sessionFromArray(arena, options);
        call(ortApi(), OrtApiSlot.ReleaseSessionOptions, options);
        return session;
    }

    private static MemorySegment sessionFromArray(Arena arena, MemorySegment options) {
        MemorySegment bytes = arena.allocateFrom(java.lang.foreign.ValueLayout.JAVA_BYTE, model);
        return pointerOut(arena, ortApi(), OrtApiSlot.CreateSessionFromArray, env.handle(), bytes, (long) model.length, options);
    }

    private static float[] floatsOf(Arena arena, MemorySegment value, int count) {
        return pointerOut(arena, OrtApiSlot.GetTensorMutableData, value).reinterpret(count * 4L).toArray(JAVA_FLOAT);
    }

    private static MemorySegment defaultAllocator(Arena arena) {
        return pointerOut(arena, ortApi(), OrtApiSlot.GetAllocatorWithDefaultOptions);
    }

    private static List<String> names(Arena arena, MemorySegment session, OrtApiSlot countSlot, OrtApiSlot nameSlot) {
        MemorySegment count = arena.allocate(JAVA_LONG);
        ok(ortApi(), countSlot, session, count);
        MemorySegment allocator = defaultAllocator(arena);
        List<String> names = new ArrayList<>();
        for (long i = 0; i < count.get(JAVA_LONG, 0); i++) {
            MemorySegment name = pointerOut(arena, ortApi(), nameSlot, session, i, allocator);
            names.add(string(name));
            ok(ortApi(), OrtApiSlot.AllocatorFree, allocator, name);
        }
        return names;
    }

    @Test
    @Probes(value = {"OrtApi::CreateSessionOptions", "OrtApi::CreateSession", "OrtApi::CreateSessionFromArray",
            "OrtApi::SessionGetInputCount", "OrtApi::SessionGetOutputCount", "OrtApi::SessionGetInputName",
            "OrtApi::SessionGetOutputName", "OrtApi::Run", "OrtApi::ReleaseSession", "OrtApi::ReleaseSessionOptions"},
            rulesOut = "InputCount/OutputCount (30/31) 2 vs 1; InputName/OutputName (36/37) name inputs vs the output;"
                    + " Run subtracts in the input order given: swapped inputs give negative numbers")
    void aSessionFromAFileAndFromBytesNamesItsInputsAndOutputsAndRuns(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("probe_sub.onnx");
        Files.write(file, model);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment options = sessionOptions(arena);
            MemorySegment fromFile = pointerOut(arena, ortApi(), OrtApiSlot.CreateSession,
                    env.handle(), Platform.ortCharString(arena, file.toString()), options);
            MemorySegment fromBytes = sessionFromArray(arena, options);
            for (MemorySegment session : List.of(fromFile, fromBytes)) {
                assertEquals(List.of("minuend", "subtrahend"),
                        names(arena, session, OrtApiSlot.SessionGetInputCount, OrtApiSlot.SessionGetInputName));
                assertEquals(List.of("difference"),
                        names(arena, session, OrtApiSlot.SessionGetOutputCount, OrtApiSlot.SessionGetOutputName));

                assertArrayEquals(DIFFERENCE, SubProbeModel.run(arena, session, MemorySegment.NULL, "subtrahend", "minuend"),
                        "inputs are matched by name, not position");
                call(ortApi(), OrtApiSlot.ReleaseSession, session);
            }
            call(ortApi(), OrtApiSlot.ReleaseSessionOptions, options);
        }
        Raw.assertReleased("sessions with a 256 KiB initializer", 100, 256 * 1024, () -> {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment options = sessionOptions(arena);
                byte[] heavy = new OnnxModelWriter("heavy").input("x", ElementType.FLOAT, Dim.of(65536))
                        .output("y", ElementType.FLOAT, Dim.of(65536))
                        .initializer("w", new float[65536], 65536)
                        .node("Add", List.of("x", "w"), List.of("y")).toByteArray();
                MemorySegment bytes = arena.allocateFrom(java.lang.foreign.ValueLayout.JAVA_BYTE, heavy);
                MemorySegment session = pointerOut(arena, ortApi(), OrtApiSlot.CreateSessionFromArray,
                        env.handle(), bytes, (long) heavy.length, options);
                call(ortApi(), OrtApiSlot.ReleaseSession, session);
                call(ortApi(), OrtApiSlot.ReleaseSessionOptions, options);
            }
        });
    }

    @Test
    @Probes(value = {"OrtApi::SetSessionGraphOptimizationLevel"},
            rulesOut = "SetSessionLogSeverityLevel (22) and SetIntraOpNumThreads (24) take the same (options, int): only"
                    + " the optimization level keeps ORT from folding the constant Add out of the graph it writes")
    void disablingOptimizationsKeepsAConstantFoldableNode(@TempDir Path dir) throws IOException {
        byte[] foldable = new OnnxModelWriter("probe_fold").input("x", ElementType.FLOAT, Dim.of(3))
                .output("y", ElementType.FLOAT, Dim.of(3))
                .initializer("c1", new float[] {1, 2, 3}, 3)
                .initializer("c2", new float[] {10, 20, 30}, 3)
                .node(new dev.javaep.harness.onnx.OnnxNode("fold_me", "Add", "", List.of("c1", "c2"), List.of("c"), Map.of()))
                .node(new dev.javaep.harness.onnx.OnnxNode("keep_me", "Add", "", List.of("x", "c"), List.of("y"), Map.of()))
                .toByteArray();
        for (int level : new int[] {0, 99}) { // ORT_DISABLE_ALL, ORT_ENABLE_ALL
            Path optimized = dir.resolve("optimized-" + level + ".onnx");
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment options = sessionOptions(arena);
                ok(ortApi(), OrtApiSlot.SetSessionGraphOptimizationLevel, options, level);
                ok(ortApi(), SET_OPTIMIZED_MODEL_PATH, options, Platform.ortCharString(arena, optimized.toString()));
                MemorySegment bytes = arena.allocateFrom(java.lang.foreign.ValueLayout.JAVA_BYTE, foldable);
                MemorySegment session = pointerOut(arena, ortApi(), OrtApiSlot.CreateSessionFromArray,
                        env.handle(), bytes, (long) foldable.length, options);
                call(ortApi(), OrtApiSlot.ReleaseSession, session);
                call(ortApi(), OrtApiSlot.ReleaseSessionOptions, options);
            }
            String written = new String(Files.readAllBytes(optimized), StandardCharsets.ISO_8859_1);
            assertTrue(written.contains("keep_me"), "the graph ORT wrote at level " + level);
            assertEquals(level == 0, written.contains("fold_me"), "the constant Add survives only with optimizations off");
        }
    }

    @Test
    @Probes(value = {"OrtApi::SetIntraOpNumThreads"},
            rulesOut = "SetSessionGraphOptimizationLevel (23) and SetInterOpNumThreads (25) take the same (options, int):"
                    + " ORT checks one thread affinity per intra-op thread but the caller's, so 4 affinities fit 5 threads"
                    + " and 1 does not")
    void intraOpThreadAffinitiesMustMatchTheThreadCount() {
        for (String affinities : List.of("1;1;1;1", "1")) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment options = sessionOptions(arena);
                ok(ortApi(), OrtApiSlot.SetIntraOpNumThreads, options, 5);
                ok(ortApi(), OrtApiSlot.AddSessionConfigEntry, options, arena.allocateFrom("session.intra_op_thread_affinities"),
                        arena.allocateFrom(affinities));
                MemorySegment bytes = arena.allocateFrom(java.lang.foreign.ValueLayout.JAVA_BYTE, model);
                MemorySegment out = arena.allocate(ADDRESS);
                MemorySegment status = (MemorySegment) call(ortApi(), OrtApiSlot.CreateSessionFromArray, env.handle(), bytes,
                        (long) model.length, options, out);
                if (affinities.equals("1")) {
                    OrtException refused = Raw.api().toException(status);
                    assertTrue(refused.getMessage().contains("affinit"), refused::getMessage);
                } else {
                    Raw.api().check(status);
                    call(ortApi(), OrtApiSlot.ReleaseSession, pointer(out));
                }
                call(ortApi(), OrtApiSlot.ReleaseSessionOptions, options);
            }
        }
    }

    @Test
    @Probes(value = {"OrtApi::AddSessionConfigEntry", "OrtApi::GetSessionOptionsConfigEntries"},
            rulesOut = "the entries read back are the ones added, values not keys")
    void configEntriesReadBackAsAdded() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment options = sessionOptions(arena);
            ok(ortApi(), OrtApiSlot.AddSessionConfigEntry, options, arena.allocateFrom("javaep.probe.first"), arena.allocateFrom("1st"));
            ok(ortApi(), OrtApiSlot.AddSessionConfigEntry, options, arena.allocateFrom("session.disable_prepacking"), arena.allocateFrom("1"));
            MemorySegment pairs = pointerOut(arena, ortApi(), OrtApiSlot.GetSessionOptionsConfigEntries, options);
            Map<String, String> entries = Raw.api().keyValuePairs(pairs);
            call(ortApi(), OrtApiSlot.ReleaseKeyValuePairs, pairs);
            assertEquals("1st", entries.get("javaep.probe.first"), entries::toString);
            assertEquals("1", entries.get("session.disable_prepacking"), entries::toString);
            call(ortApi(), OrtApiSlot.ReleaseSessionOptions, options);
        }
    }

    @Test
    @Probes(value = {"OrtApi::CreateRunOptions", "OrtApi::RunOptionsSetRunTag", "OrtApi::ReleaseRunOptions"},
            rulesOut = "RunOptionsSetRunLogSeverityLevel (41), the neighbour, takes an int: the tag reads back through"
                    + " RunOptionsGetRunTag (45)")
    void aRunTagReadsBack() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment options = pointerOut(arena, ortApi(), OrtApiSlot.CreateRunOptions);
            ok(ortApi(), OrtApiSlot.RunOptionsSetRunTag, options, arena.allocateFrom("javaep-probe-run"));
            MemorySegment tag = pointerOut(arena, ortApi(), GET_RUN_TAG, options);
            assertEquals("javaep-probe-run", string(tag));
            call(ortApi(), OrtApiSlot.ReleaseRunOptions, options);
        }
        String longTag = Raw.large(64 * 1024);
        Raw.assertReleased("run options with a 64 KiB tag", 1000, longTag.length(), () -> {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment options = pointerOut(arena, ortApi(), OrtApiSlot.CreateRunOptions);
                ok(ortApi(), OrtApiSlot.RunOptionsSetRunTag, options, arena.allocateFrom(longTag));
                call(ortApi(), OrtApiSlot.ReleaseRunOptions, options);
            }
        });
    }

    @Test
    @Probes(value = {"OrtApi::EnableProfiling", "OrtApi::SessionEndProfiling"},
            rulesOut = "SetOptimizedModelFilePath (13) takes the same (options, path): the file that appears is a JSON"
                    + " profile named after the prefix, with the model's Sub node in it")
    void profilingWritesAJsonFileNamedAfterThePrefix(@TempDir Path dir) throws IOException {
        Path prefix = dir.resolve("javaep_probe_profile");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment options = sessionOptions(arena);
            ok(ortApi(), OrtApiSlot.EnableProfiling, options, Platform.ortCharString(arena, prefix.toString()));
            MemorySegment session = sessionFromArray(arena, options);
            SubProbeModel.run(arena, session, MemorySegment.NULL, "minuend", "subtrahend");
            MemorySegment allocator = defaultAllocator(arena);
            MemorySegment path = pointerOut(arena, ortApi(), OrtApiSlot.SessionEndProfiling, session, allocator);
            String written = string(path);
            ok(ortApi(), OrtApiSlot.AllocatorFree, allocator, path);
            assertTrue(Path.of(written).getFileName().toString().startsWith("javaep_probe_profile"), written);
            String profile = Files.readString(Path.of(written));
            assertTrue(profile.startsWith("["), "a JSON array of trace events");
            assertTrue(profile.contains("\"op_name\" : \"Sub\"") || profile.contains("\"op_name\":\"Sub\""),
                    "the Sub node's kernel event");
            call(ortApi(), OrtApiSlot.ReleaseSession, session);
            call(ortApi(), OrtApiSlot.ReleaseSessionOptions, options);
        }
    }

    @Test
    @Probes(value = {"OrtApi::CreateIoBinding", "OrtApi::BindInput", "OrtApi::BindOutput", "OrtApi::BindOutputToDevice",
            "OrtApi::RunWithBinding", "OrtApi::GetBoundOutputValues", "OrtApi::ClearBoundInputs", "OrtApi::ClearBoundOutputs",
            "OrtApi::ReleaseIoBinding"},
            rulesOut = "BindInput/BindOutput (136/137) share a shape: the preallocated output receives the difference;"
                    + " ClearBoundInputs/ClearBoundOutputs (141/142) too: clearing outputs leaves none to read, clearing"
                    + " inputs makes the next run fail")
    void anIoBindingRunsIntoBoundOutputsAndForgetsWhatIsCleared() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment session = plainSession(arena);
            MemorySegment cpu = cpuInfo(arena);
            MemorySegment minuend = floatTensor(arena, cpu, MINUEND, 2, 3);
            MemorySegment subtrahend = floatTensor(arena, cpu, SUBTRAHEND, 3);
            MemorySegment result = floatTensor(arena, cpu, new float[6], 2, 3);
            MemorySegment binding = pointerOut(arena, OrtApiSlot.CreateIoBinding, session);
            ok(ortApi(), OrtApiSlot.BindInput, binding, arena.allocateFrom("minuend"), minuend);
            ok(ortApi(), OrtApiSlot.BindInput, binding, arena.allocateFrom("subtrahend"), subtrahend);
            ok(ortApi(), OrtApiSlot.BindOutput, binding, arena.allocateFrom("difference"), result);
            ok(ortApi(), OrtApiSlot.RunWithBinding, session, MemorySegment.NULL, binding);
            assertArrayEquals(DIFFERENCE, floatsOf(arena, result, 6), "the run wrote into the bound output");

            call(ortApi(), OrtApiSlot.ClearBoundOutputs, binding);
            assertEquals(0, boundOutputs(arena, binding).size(), "no outputs once cleared");
            ok(ortApi(), OrtApiSlot.BindOutputToDevice, binding, arena.allocateFrom("difference"), cpu);
            ok(ortApi(), OrtApiSlot.RunWithBinding, session, MemorySegment.NULL, binding);
            List<MemorySegment> bound = boundOutputs(arena, binding);
            assertEquals(1, bound.size());
            assertArrayEquals(DIFFERENCE, floatsOf(arena, bound.getFirst(), 6), "ORT allocated the output on the device named");
            call(ortApi(), OrtApiSlot.ReleaseValue, bound.getFirst());

            call(ortApi(), OrtApiSlot.ClearBoundInputs, binding);
            OrtException noInputs = Raw.failure(ortApi(), OrtApiSlot.RunWithBinding, session, MemorySegment.NULL, binding);
            assertTrue(noInputs.getMessage().contains("minuend") || noInputs.getMessage().toLowerCase().contains("input"),
                    noInputs::getMessage);
            call(ortApi(), OrtApiSlot.ReleaseIoBinding, binding);
            for (MemorySegment value : List.of(minuend, subtrahend, result)) {
                call(ortApi(), OrtApiSlot.ReleaseValue, value);
            }
            call(ortApi(), OrtApiSlot.ReleaseMemoryInfo, cpu);
            call(ortApi(), OrtApiSlot.ReleaseSession, session);
        }
    }

    private static List<MemorySegment> boundOutputs(Arena arena, MemorySegment binding) {
        MemorySegment values = arena.allocate(ADDRESS);
        MemorySegment count = arena.allocate(JAVA_LONG);
        MemorySegment allocator = defaultAllocator(arena);
        ok(ortApi(), OrtApiSlot.GetBoundOutputValues, binding, allocator, values, count);
        long n = count.get(JAVA_LONG, 0);
        if (n == 0) {
            return List.of();
        }
        List<MemorySegment> result = Raw.pointers(pointer(values), n);
        ok(ortApi(), OrtApiSlot.AllocatorFree, allocator, pointer(values));
        return result;
    }

    @Test
    @Probes(value = {"OrtApi::SynchronizeBoundInputs", "OrtApi::SynchronizeBoundOutputs"},
            rulesOut = "on ORT's CPU EP both are no-ops that succeed: this rules out only functions that would refuse or"
                    + " crash on an OrtIoBinding (SessionOptionsAppendExecutionProvider_CUDA_V2 at 204, the thread-pool"
                    + " setters before 202); the GPU suite's CudaIoBindingIT makes them wait on a device")
    void synchronizingABindingOnTheCpuSucceeds() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment session = plainSession(arena);
            MemorySegment binding = pointerOut(arena, OrtApiSlot.CreateIoBinding, session);
            ok(ortApi(), OrtApiSlot.SynchronizeBoundInputs, binding);
            ok(ortApi(), OrtApiSlot.SynchronizeBoundOutputs, binding);
            call(ortApi(), OrtApiSlot.ReleaseIoBinding, binding);
            call(ortApi(), OrtApiSlot.ReleaseSession, session);
        }
    }
}
