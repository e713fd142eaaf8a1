package dev.javaep.ort;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.spi.ExternalMemoryType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The feature table agrees with the slot tables it names and with the SPI's enum versions. */
class OrtFeatureTest {

    /** Every slot a feature names, as "Table::member" with its since-version. */
    private static Map<String, Integer> slotsOf(OrtFeature feature) {
        Map<String, Integer> slots = new LinkedHashMap<>();
        for (FunctionSlot slot : feature.calls()) {
            slots.put(slot.getClass().getSimpleName() + "::" + slot.name(), slot.since());
        }
        for (CallbackSlot slot : feature.callbacks()) {
            slots.put(slot.getClass().getSimpleName() + "::" + slot.name(), slot.since());
        }
        return slots;
    }

    @Test
    void everyFeatureNeedsAtLeastTheVersionOfEachSlotItUses() {
        List<String> tooEarly = new ArrayList<>();
        for (OrtFeature feature : OrtFeature.values()) {
            slotsOf(feature).forEach((slot, since) -> {
                if (since > feature.sinceApi()) {
                    tooEarly.add(feature + " (API " + feature.sinceApi() + ") uses " + slot + " (API " + since + ")");
                }
            });
        }
        assertEquals(List.of(), tooEarly);
    }

    @Test
    void aSlotFeatureNeedsExactlyItsNewestSlot() {
        for (OrtFeature feature : OrtFeature.values()) {
            if (feature.basis() == OrtFeature.Basis.NEGOTIATED_API) {
                int newest = slotsOf(feature).values().stream().mapToInt(Integer::intValue).max()
                        .orElseThrow(() -> new AssertionError(feature + " is gated on the negotiated API but names no slot"));
                assertEquals(newest, feature.sinceApi(), feature + ": its newest slot decides when the runtime has it");
                assertTrue(feature.sinceApi() <= OrtApi.COMPILED_API_VERSION,
                        feature + " needs a slot newer than the API javaep is compiled for: it could never be negotiated");
            }
        }
    }

    @Test
    void runtimeReleaseFeaturesNameNoSlot() {
        for (OrtFeature feature : OrtFeature.values()) {
            if (feature.basis() == OrtFeature.Basis.RUNTIME_RELEASE) {
                assertEquals(Map.of(), slotsOf(feature), feature + ": a slot would make it follow the negotiated API");
            }
        }
    }

    @Test
    void featuresOfTheMinimumApiAreOnEverySupportedRuntime() {
        for (OrtFeature feature : OrtFeature.values()) {
            boolean minimum = feature.sinceApi() <= OrtApi.MINIMUM_API_VERSION;
            assertEquals(minimum, feature.availableIn(OrtApi.MINIMUM_API_VERSION, OrtApi.MINIMUM_API_VERSION), feature.name());
        }
    }

    @Test
    void availabilityFollowsTheNegotiatedApiOrTheRuntimeRelease() {
        // ORT 1.30 with javaep compiled for API 29 negotiates 29: slot features stop at 29, release features do not.
        assertTrue(OrtFeature.HOST_ALLOCATION_IMPORT.availableIn(29, 30));
        assertFalse(OrtFeature.HOST_ALLOCATION_IMPORT.availableIn(29, 29));
        assertFalse(OrtFeature.FUSED_GROUPS_IN_SUBGRAPHS.availableIn(24, 24));
        assertTrue(OrtFeature.FUSED_GROUPS_IN_SUBGRAPHS.availableIn(26, 26));
        assertFalse(OrtFeature.EP_SYNC.availableIn(24, 24));
        assertTrue(OrtFeature.EP_SYNC.availableIn(25, 25));
        assertFalse(OrtFeature.KERNEL_CONTEXT_SYNC_STREAM.availableIn(27, 28), "a slot counts from the negotiated API");
        for (OrtFeature feature : OrtFeature.values()) {
            int since = feature.sinceApi();
            assertTrue(IntStream.rangeClosed(since, 40).allMatch(v -> feature.availableIn(v, v)), feature + " from " + since + " on");
            assertFalse(feature.availableIn(since - 1, since - 1), feature + " not before " + since);
        }
    }

    @Test
    void memoryHandleTypesNeedTheVersionTheSpiStates() {
        for (ExternalMemoryType type : ExternalMemoryType.values()) {
            assertEquals(type.sinceApi(), OrtFeature.forExternalMemoryHandleType(type.ortValue()).sinceApi(), type.name());
        }
        assertEquals(OrtFeature.HOST_ALLOCATION_HANDLE_TYPE, ExternalMemoryType.HOST_ALLOCATION.ortValue());
    }

    @Test
    void everyFeatureSaysWhatJavaepDoesWithoutIt() {
        for (OrtFeature feature : OrtFeature.values()) {
            assertFalse(feature.onOlderRuntime().isBlank(), feature.name());
            assertEquals("1." + feature.sinceApi(), feature.sinceRelease());
        }
    }

    /** docs/ort-versions.md states this table for users: one row per feature, its release, whether javaep implements it. */
    @Test
    void theUserDocsStateEachFeaturesVersionAndWhetherJavaepImplementsIt() throws IOException {
        Map<String, String[]> rows = Files.readAllLines(Path.of("..", "..", "docs", "ort-versions.md")).stream()
                .filter(line -> line.startsWith("| `"))
                .map(line -> line.split("\\s*\\|\\s*"))
                .collect(Collectors.toMap(cells -> cells[1].replace("`", ""), cells -> cells, (a, b) -> a));
        for (OrtFeature feature : OrtFeature.values()) {
            String[] cells = rows.get(feature.name());
            assertTrue(cells != null, "docs/ort-versions.md has no row for " + feature);
            assertEquals(feature.sinceRelease(), cells[3], feature + ": the release it needs");
            assertEquals(feature.basis() == OrtFeature.Basis.NEGOTIATED_API ? "negotiated API" : "the runtime's release",
                    cells[4], feature + ": what decides");
            assertEquals(feature.implemented() ? "yes" : "**no**", cells[5].replace(" (JavaCpu)", ""), feature + ": implemented");
        }
    }
}
