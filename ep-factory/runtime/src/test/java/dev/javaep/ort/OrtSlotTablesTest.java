package dev.javaep.ort;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The hand-declared ABI agrees with the slot tables transcribed from ORT's headers, and struct layouts are dense. */
class OrtSlotTablesTest {

    private static Map<String, Integer> tsv(String file) throws IOException {
        Map<String, Integer> byName = new HashMap<>();
        for (String line : Files.readAllLines(Path.of("..", "..", "docs", "reference", file))) {
            String[] columns = line.split("\t");
            byName.put(columns[1], Integer.parseInt(columns[0]));
        }
        return byName;
    }

    @Test
    void ortApiSlotsMatchTheTranscribedHeader() throws IOException {
        Map<String, Integer> table = tsv("ortapi-slots.tsv");
        assertEquals(426, table.size(), "API-30 OrtApi has 426 slots");
        for (OrtApiSlot slot : OrtApiSlot.values()) {
            assertEquals(table.get(slot.name()), slot.index(), slot.name());
            assertTrue(slot.since() >= 1 && slot.since() <= 30, slot.name());
        }
        // Anchors ORT itself asserts (static_assert offsetof(OrtApi, X) / sizeof(void*) == N).
        assertEquals(93, OrtApiSlot.ReleaseStatus.index());
        assertEquals(317, OrtApiSlot.GetEpApi.index());
        assertEquals(395, OrtApiSlot.GetInteropApi.index());
        assertEquals(413, OrtApiSlot.RunOptionsSetSyncStream.index());
    }

    @Test
    void ortEpApiSlotsMatchTheTranscribedHeader() throws IOException {
        Map<String, Integer> table = tsv("ortepapi-slots.tsv");
        for (OrtEpApiSlot slot : OrtEpApiSlot.values()) {
            assertEquals(table.get(slot.name()), slot.index(), slot.name());
        }
        assertEquals(16, OrtEpApiSlot.CreateHardwareDevice.index());
    }

    @ParameterizedTest
    @ValueSource(strings = {"OrtEpFactoryStruct", "OrtEpStruct", "OrtNodeComputeInfoStruct", "OrtAllocatorStruct",
            "OrtDataTransferImplStruct", "OrtSyncStreamImplStruct", "OrtSyncNotificationImplStruct"})
    void callbackStructsAreDensePointerTablesAfterTheVersionField(String struct) {
        List<? extends CallbackSlot> slots = switch (struct) {
            case "OrtEpFactoryStruct" -> List.of(OrtEpFactoryStruct.values());
            case "OrtEpStruct" -> List.of(OrtEpStruct.values());
            case "OrtNodeComputeInfoStruct" -> List.of(OrtNodeComputeInfoStruct.values());
            case "OrtDataTransferImplStruct" -> List.of(OrtDataTransferImplStruct.values());
            case "OrtSyncStreamImplStruct" -> List.of(OrtSyncStreamImplStruct.values());
            case "OrtSyncNotificationImplStruct" -> List.of(OrtSyncNotificationImplStruct.values());
            default -> List.of(OrtAllocatorStruct.values());
        };
        long size = switch (struct) {
            case "OrtEpFactoryStruct" -> OrtEpFactoryStruct.SIZE;
            case "OrtEpStruct" -> OrtEpStruct.SIZE;
            case "OrtNodeComputeInfoStruct" -> OrtNodeComputeInfoStruct.SIZE;
            case "OrtDataTransferImplStruct" -> OrtDataTransferImplStruct.SIZE;
            case "OrtSyncStreamImplStruct" -> OrtSyncStreamImplStruct.SIZE;
            case "OrtSyncNotificationImplStruct" -> OrtSyncNotificationImplStruct.SIZE;
            default -> OrtAllocatorStruct.SIZE;
        };
        Set<Long> offsets = new HashSet<>();
        int previousSince = 0;
        for (int i = 0; i < slots.size(); i++) {
            CallbackSlot slot = slots.get(i);
            assertEquals(8L * (i + 1), slot.byteOffset(), struct + "." + slot.name());
            assertTrue(offsets.add(slot.byteOffset()));
            assertTrue(slot.since() >= previousSince, "members are appended in version order: " + slot.name());
            previousSince = slot.since();
            assertNotNull(slot.descriptor());
        }
        assertEquals(size, 8L * (slots.size() + 1), struct + " size");
    }

    @Test
    void statusReturnsAreTellableFromPointerReturns() {
        assertTrue(OrtEpFactoryStruct.GetSupportedDevices.returnsStatus());
        assertTrue(!OrtEpFactoryStruct.GetName.returnsStatus(), "GetName returns const char*, not a status");
        assertTrue(!OrtAllocatorStruct.Alloc.returnsStatus());
        assertTrue(OrtEpStruct.Compile.returnsStatus());
    }
}
