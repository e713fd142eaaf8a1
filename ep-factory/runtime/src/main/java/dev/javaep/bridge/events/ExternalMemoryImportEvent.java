package dev.javaep.bridge.events;

import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;

/** One {@code OrtExternalResourceImporterImpl::ImportMemory}. */
@Name(ExternalMemoryImportEvent.NAME)
@Label("External Memory Import")
@Description("An app imported memory it owns (a Vulkan or D3D12 allocation, a memfd) into a Java execution provider")
public final class ExternalMemoryImportEvent extends BridgeEvent {
    public static final String NAME = "javaep.ExternalMemoryImport";
    private static final ExternalMemoryImportEvent GATE = new ExternalMemoryImportEvent();

    @Label("Type")
    @Description("The OrtExternalMemoryHandleType, by name")
    String type;

    @Label("Bytes")
    @Description("The size of the imported range")
    @DataAmount
    long bytes;

    /** A begun event when a recording wants it, else {@code null} (nothing allocated). */
    public static ExternalMemoryImportEvent beginIfRecorded() {
        return GATE.isEnabled() ? begun(new ExternalMemoryImportEvent()) : null;
    }

    /** Ends and commits {@code event} ({@code null} is a no-op). */
    public static void commit(ExternalMemoryImportEvent event, String executionProvider, String type, long bytes) {
        if (endAndCheck(event)) {
            event.executionProvider = executionProvider;
            event.type = type;
            event.bytes = bytes;
            event.commit();
        }
    }
}
