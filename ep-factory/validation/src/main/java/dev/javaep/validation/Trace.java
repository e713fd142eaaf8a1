package dev.javaep.validation;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Trace mode: every forwarded call as a Chrome trace-event "complete" event (name, start, duration, thread), written
 * as one JSON file that Perfetto and chrome://tracing open. Events are kept in memory until {@link #write}: at the
 * last ReleaseEpFactory and at JVM shutdown.
 */
final class Trace {
    private record Event(String name, long startNanos, long nanos, long thread) {}

    private final Path file;
    private final long originNanos = System.nanoTime();
    private final ConcurrentLinkedQueue<Event> events = new ConcurrentLinkedQueue<>();

    Trace(Path file) {
        this.file = file;
    }

    void record(String callback, long startNanos, long nanos) {
        events.add(new Event(callback, startNanos, nanos, Thread.currentThread().threadId()));
    }

    Path file() {
        return file;
    }

    synchronized void write() {
        try (Writer out = Files.newBufferedWriter(file)) {
            out.write("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
            boolean first = true;
            for (Event e : events) {
                out.write(first ? "\n" : ",\n");
                first = false;
                // ts and dur are microseconds in the trace-event format; fractions keep the nanoseconds.
                out.write(String.format(Locale.ROOT,
                        "{\"name\":\"%s\",\"cat\":\"javaep.validation\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,\"pid\":%d,\"tid\":%d}",
                        e.name(), (e.startNanos() - originNanos) / 1000.0, e.nanos() / 1000.0, ProcessHandle.current().pid(),
                        e.thread()));
            }
            out.write("\n]}\n");
        } catch (IOException e) {
            throw new UncheckedIOException("javaep validation: cannot write the trace " + file, e);
        }
    }
}
