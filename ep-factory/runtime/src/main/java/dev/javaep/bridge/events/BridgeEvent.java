package dev.javaep.bridge.events;

import dev.javaep.spi.RecordedEvent;
import jdk.jfr.Category;
import jdk.jfr.Label;

/** What every event of the bridge has: the category "javaep" and the execution provider ORT called. */
@Category("javaep")
public abstract class BridgeEvent extends RecordedEvent {
    @Label("Execution Provider")
    String executionProvider;
}
