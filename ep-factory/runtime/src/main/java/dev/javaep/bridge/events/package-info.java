/**
 * JDK Flight Recorder events of the bridge, in the category "javaep": what ORT asked a Java EP to do, and
 * how long it took (Compute of compiled nodes and per-op kernels, CopyTensors, external memory imports,
 * semaphore waits and signals). Mission Control shows them under javaep beside the JVM's own events.
 *
 * <p>Each event is a {@link BridgeEvent} (the category and the execution provider) and so a
 * {@link dev.javaep.spi.RecordedEvent}: its class keeps one never-committed instance as a gate, and
 * {@code beginIfRecorded()} asks it {@link jdk.jfr.Event#isEnabled()} (a read of the class's configuration, the
 * same for every instance) and answers {@code null} when no recording wants the event, so the hot path allocates
 * nothing and computes no field values unless a recording is on. Field values are set only after
 * {@link dev.javaep.spi.RecordedEvent#endAndCheck}.
 */
package dev.javaep.bridge.events;
