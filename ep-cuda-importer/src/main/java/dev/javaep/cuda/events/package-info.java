/**
 * JDK Flight Recorder events of JavaCuda, in the category "javaep / CUDA": each kernel launch and each copy
 * the EP queues. Both are asynchronous: an event's duration is the time to queue the work on the stream, not
 * the GPU's time (that is Nsight's). Both are {@link dev.javaep.spi.RecordedEvent}s, with the same gate as
 * {@code dev.javaep.bridge.events}: nothing is allocated unless a recording wants the event.
 */
package dev.javaep.cuda.events;
