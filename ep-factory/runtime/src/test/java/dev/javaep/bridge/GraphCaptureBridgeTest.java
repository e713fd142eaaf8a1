package dev.javaep.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.ort.OrtApi;
import dev.javaep.ort.OrtEpStruct;
import dev.javaep.spi.ExecutionProvider;
import dev.javaep.spi.GraphCapture;
import dev.javaep.spi.Node;
import dev.javaep.spi.NodeSupport;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Which OrtEp graph-capture members javaep fills, by negotiated API and by whether the EP offers capture (no ORT). */
class GraphCaptureBridgeTest {
    private static final List<OrtEpStruct> API_26_MEMBERS = List.of(OrtEpStruct.IsGraphCaptureEnabled,
            OrtEpStruct.IsGraphCaptured, OrtEpStruct.ReplayGraph, OrtEpStruct.GetGraphCaptureNodeAssignmentPolicy,
            OrtEpStruct.OnRunStart, OrtEpStruct.OnRunEnd);

    /** A capture that answers "captured" for id 5 and records what it was asked. */
    private static final class RecordingCapture implements GraphCapture {
        final List<String> calls = new ArrayList<>();

        @Override
        public boolean enabled() {
            return true;
        }

        @Override
        public boolean isCaptured(int annotationId) {
            calls.add("isCaptured " + annotationId);
            return annotationId == 5;
        }

        @Override
        public void replay(int annotationId) {
            calls.add("replay " + annotationId);
        }

        @Override
        public void onRunStart(int annotationId) {}

        @Override
        public void onRunEnd(int annotationId, boolean synchronize) {}

        @Override
        public NodeAssignment nodeAssignment() {
            return NodeAssignment.ALLOW_CPU_FOR_SHAPES;
        }
    }

    private record Provider(Optional<GraphCapture> graphCapture) implements ExecutionProvider {
        @Override
        public String name() {
            return "GraphCaptureTestEp";
        }

        @Override
        public NodeSupport support(Node node) {
            return NodeSupport.declined(dev.javaep.spi.DeclineCode.NO_KERNEL, "test");
        }
    }

    /** The members of an OrtEp javaep makes for {@code provider} at {@code apiVersion}: slot → filled. */
    private static void withEp(ExecutionProvider provider, int apiVersion, java.util.function.Consumer<MemorySegment> check) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment emptyTable = arena.allocate(8L * 512); // never called: the bridge reads no ORT function here
            OrtRuntime runtime = new OrtRuntime(new OrtApi(emptyTable, apiVersion), null, "1." + apiVersion + ".0",
                    MemorySegment.NULL);
            MemorySegment ep = EpBridge.create(provider, runtime, KernelMemory.HOST);
            try {
                check.accept(ep.reinterpret(OrtEpStruct.SIZE));
            } finally {
                EpBridge.release(ep);
            }
        }
    }

    private static boolean filled(MemorySegment ep, OrtEpStruct slot) {
        return !ep.get(ValueLayout.ADDRESS, slot.byteOffset()).equals(MemorySegment.NULL);
    }

    @Test
    void anEpThatCapturesGetsTheMembersFromApi26AndReleaseCapturedGraphFrom27() {
        Provider provider = new Provider(Optional.of(new RecordingCapture()));
        withEp(provider, 26, ep -> {
            API_26_MEMBERS.forEach(slot -> assertTrue(filled(ep, slot), slot + " at API 26"));
            assertFalse(filled(ep, OrtEpStruct.ReleaseCapturedGraph), "ReleaseCapturedGraph is API 27");
        });
        withEp(provider, 27, ep -> assertTrue(filled(ep, OrtEpStruct.ReleaseCapturedGraph)));
        withEp(provider, 25, ep -> {
            API_26_MEMBERS.forEach(slot -> assertFalse(filled(ep, slot), slot + " at API 25: ORT 1.25 runs every Run"));
            assertTrue(filled(ep, OrtEpStruct.Sync), "the EP's other members stay");
        });
    }

    @Test
    void anEpWithoutCaptureLeavesThemAndOnRunStartEndNullOnEveryVersion() {
        withEp(new Provider(Optional.empty()), 29, ep -> {
            API_26_MEMBERS.forEach(slot -> assertFalse(filled(ep, slot), slot.name()));
            assertFalse(filled(ep, OrtEpStruct.ReleaseCapturedGraph));
            assertTrue(filled(ep, OrtEpStruct.GetName));
            assertTrue(filled(ep, OrtEpStruct.GetCapability));
        });
    }

    @Test
    void theUpcallsReachTheEpsCaptureThroughTheGuardedStubs() throws Throwable {
        RecordingCapture capture = new RecordingCapture();
        Linker linker = Linker.nativeLinker();
        withEp(new Provider(Optional.of(capture)), 27, ep -> {
            try {
                MethodHandle enabled = linker.downcallHandle(ep.get(ValueLayout.ADDRESS, OrtEpStruct.IsGraphCaptureEnabled.byteOffset()),
                        FunctionDescriptor.of(ValueLayout.JAVA_BOOLEAN, ValueLayout.ADDRESS));
                MethodHandle captured = linker.downcallHandle(ep.get(ValueLayout.ADDRESS, OrtEpStruct.IsGraphCaptured.byteOffset()),
                        FunctionDescriptor.of(ValueLayout.JAVA_BOOLEAN, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
                MethodHandle replay = linker.downcallHandle(ep.get(ValueLayout.ADDRESS, OrtEpStruct.ReplayGraph.byteOffset()),
                        FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
                MethodHandle policy = linker.downcallHandle(
                        ep.get(ValueLayout.ADDRESS, OrtEpStruct.GetGraphCaptureNodeAssignmentPolicy.byteOffset()),
                        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
                assertTrue((boolean) enabled.invokeExact(ep));
                assertTrue((boolean) captured.invokeExact(ep, 5));
                assertFalse((boolean) captured.invokeExact(ep, 0));
                long replays = GraphCaptureBridge.replays();
                assertEquals(MemorySegment.NULL, (MemorySegment) replay.invokeExact(ep, 5), "OK status");
                assertEquals(replays + 1, GraphCaptureBridge.replays());
                assertEquals(1, (int) policy.invokeExact(ep), "ALLOW_CPU_FOR_SHAPES");
            } catch (Throwable t) {
                throw new AssertionError(t);
            }
        });
        assertEquals(List.of("isCaptured 5", "isCaptured 0", "replay 5"), capture.calls);
    }

    @Test
    void theAnnotationIdIsOrtsRunOptionWithZeroByDefault() {
        assertEquals(0, GraphCaptureBridge.parseAnnotationId(null));
        assertEquals(3, GraphCaptureBridge.parseAnnotationId(" 3"));
        assertEquals(GraphCapture.SKIP_ANNOTATION_ID, GraphCaptureBridge.parseAnnotationId("-1"));
        var e = assertThrows(IllegalArgumentException.class, () -> GraphCaptureBridge.parseAnnotationId("first"));
        assertTrue(e.getMessage().contains(GraphCapture.ANNOTATION_RUN_OPTION), e.getMessage());
        assertNotEquals(GraphCapture.DEFAULT_ANNOTATION_ID, GraphCapture.SKIP_ANNOTATION_ID);
    }

    /** What the fake GetRunConfigEntry was asked: the key pointers it got. */
    private static final List<Long> KEYS_ASKED = new ArrayList<>();
    private static final MemorySegment ANNOTATION_7 = Arena.global().allocateFrom("7");

    private static MemorySegment getRunConfigEntry(MemorySegment options, MemorySegment key) {
        KEYS_ASKED.add(key.address());
        boolean annotation = key.reinterpret(64).getString(0).equals(GraphCapture.ANNOTATION_RUN_OPTION);
        return annotation && options.address() == 0x7 ? ANNOTATION_7 : MemorySegment.NULL;
    }

    @Test
    void eachRunReadsTheAnnotationIdThroughOneKeyStringMadeOnce() throws Throwable {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment table = arena.allocate(8L * dev.javaep.ort.OrtApiSlot.tableLength());
            MethodHandle target = java.lang.invoke.MethodHandles.lookup().findStatic(GraphCaptureBridgeTest.class,
                    "getRunConfigEntry", java.lang.invoke.MethodType.methodType(MemorySegment.class, MemorySegment.class,
                            MemorySegment.class));
            table.set(ValueLayout.ADDRESS, dev.javaep.ort.OrtApiSlot.GetRunConfigEntry.byteOffset(), Linker.nativeLinker()
                    .upcallStub(target, dev.javaep.ort.OrtApiSlot.GetRunConfigEntry.descriptor(), arena));
            OrtRuntime runtime = new OrtRuntime(new OrtApi(table, 27), null, "1.27.0", MemorySegment.NULL);
            GraphCaptureBridge bridge = GraphCaptureBridge.attach(new Provider(Optional.of(new RecordingCapture())),
                    runtime, arena.allocate(OrtEpStruct.SIZE)).orElseThrow();
            KEYS_ASKED.clear();
            assertEquals(7, bridge.annotationId(MemorySegment.ofAddress(0x7)));
            assertEquals(GraphCapture.DEFAULT_ANNOTATION_ID, bridge.annotationId(MemorySegment.ofAddress(0x8)), "not set");
            assertEquals(GraphCapture.DEFAULT_ANNOTATION_ID, bridge.annotationId(MemorySegment.NULL), "no run options");
            assertEquals(2, KEYS_ASKED.size(), "NULL options are not asked: " + KEYS_ASKED);
            long madeOnce = GraphCaptureBridge.ANNOTATION_KEY.cName().address();
            assertEquals(List.of(madeOnce, madeOnce), KEYS_ASKED, "the key's C string is made once, not per Run");
        }
    }
}
