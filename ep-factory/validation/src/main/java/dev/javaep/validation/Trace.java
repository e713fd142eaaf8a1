package dev.javaep.validation;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Trace mode: every forwarded call as a Chrome trace-event "complete" event (name, start, duration, thread), in one
 * JSON file that Perfetto and chrome://tracing open. Events are queued by the calling thread and appended to the
 * file every {@value #FLUSH_MILLIS} ms by a daemon thread and at the last ReleaseEpFactory; each append ends with the
 * closing brackets, which the next one overwrites, so the file is whole JSON after every flush and a crash loses only
 * the events of its last {@value #FLUSH_MILLIS} ms. At JVM shutdown the layer {@link #close}s it: the flushing thread
 * stops, the last events are written and the file is closed.
 */
final class Trace {
    static final long FLUSH_MILLIS = 1000;
    private static final byte[] CLOSING = "\n]}\n".getBytes(StandardCharsets.UTF_8);

    private record Event(String name, long startNanos, long nanos, long thread) {}

    private final Path file;
    private final long originNanos = System.nanoTime();
    private final long pid = ProcessHandle.current().pid();
    private final ConcurrentLinkedQueue<Event> events = new ConcurrentLinkedQueue<>();
    private final FileChannel out;
    private final ScheduledExecutorService flusher;
    /** Where the next event goes: the closing brackets after it are overwritten by the next flush. */
    private long end;
    private boolean first = true;

    Trace(Path file) {
        this.file = file;
        try {
            out = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING);
            end = out.write(ByteBuffer.wrap("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[".getBytes(StandardCharsets.UTF_8)));
            out.write(ByteBuffer.wrap(CLOSING), end);
        } catch (IOException e) {
            throw new UncheckedIOException("javaep validation: cannot write the trace " + file, e);
        }
        flusher = Executors.newSingleThreadScheduledExecutor(
                Thread.ofPlatform().daemon().name("javaep-validation-trace-flush").factory());
        flusher.scheduleWithFixedDelay(this::write, FLUSH_MILLIS, FLUSH_MILLIS, TimeUnit.MILLISECONDS);
    }

    void record(String callback, long startNanos, long nanos) {
        events.add(new Event(callback, startNanos, nanos, Thread.currentThread().threadId()));
    }

    Path file() {
        return file;
    }

    /** Appends the events queued since the last write, then the closing brackets. */
    synchronized void write() {
        if (events.isEmpty() || !out.isOpen()) {
            return;
        }
        StringBuilder json = new StringBuilder();
        for (Event e; (e = events.poll()) != null; ) {
            json.append(first ? "\n" : ",\n");
            first = false;
            // ts and dur are microseconds in the trace-event format; fractions keep the nanoseconds.
            json.append(String.format(Locale.ROOT,
                    "{\"name\":\"%s\",\"cat\":\"javaep.validation\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,\"pid\":%d,\"tid\":%d}",
                    e.name(), (e.startNanos() - originNanos) / 1000.0, e.nanos() / 1000.0, pid, e.thread()));
        }
        try {
            ByteBuffer bytes = ByteBuffer.wrap(json.toString().getBytes(StandardCharsets.UTF_8));
            while (bytes.hasRemaining()) {
                end += out.write(bytes, end);
            }
            out.write(ByteBuffer.wrap(CLOSING), end);
        } catch (IOException e) {
            throw new UncheckedIOException("javaep validation: cannot write the trace " + file, e);
        }
    }

    /** Stops the flushing thread, writes what is queued and closes the file; events recorded after it are dropped. */
    void close() {
        flusher.shutdown();
        try {
            flusher.awaitTermination(FLUSH_MILLIS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (this) {
            try {
                write();
                out.force(false);
                out.close();
            } catch (IOException e) {
                throw new UncheckedIOException("javaep validation: cannot close the trace " + file, e);
            }
        }
    }
}
