package dev.javaep.validation;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Which vendor callbacks are running, per thread, in a memory-mapped file ({@code JAVAEP_VALIDATE_BREADCRUMBS}): the
 * pages belong to the kernel's page cache, so what was stored before a SIGSEGV or an {@code abort()} in the vendor is
 * in the file after the process is gone, and {@link #inFlight} reads which callbacks it died in. A call stores the
 * callback's id and its depth into the thread's slot before the downcall and the depth after it: plain stores, no
 * system call, no lock.
 *
 * <p>The file (native byte order; the conformance kit reads it with its own few lines, so the layout is fixed):
 * a header ({@code long} {@link #MAGIC}, {@code int} name count, name size, slot count, slot size), the names table
 * ({@link #NAMES} NUL-padded UTF-8 names of {@link #NAME_SIZE} bytes: callback {@code kind * 64 + slot}), then
 * {@link #SLOTS} thread slots of {@link #SLOT_SIZE} bytes: {@code long} thread id, {@code int} depth, then up to
 * {@link #DEPTH} {@code int} callback ids, outermost first. A thread takes a slot at its first call and keeps it; past
 * {@value #SLOTS} threads, slots are shared (an attribution may then name another thread's callback as well).
 */
public final class Breadcrumbs {
    static final long MAGIC = 0x31424352_4250454AL; // "JEPBRCB1" read as bytes on a little-endian machine
    static final int HEADER = 64;
    static final int SLOTS_PER_KIND = 64;
    static final int NAMES = SLOTS_PER_KIND * ObjectKind.values().length;
    static final int NAME_SIZE = 64;
    static final int SLOTS = 256;
    static final int SLOT_SIZE = 64;
    static final int DEPTH = (SLOT_SIZE - 12) / 4;
    private static final long SLOTS_AT = HEADER + (long) NAMES * NAME_SIZE;
    /**
     * The id of the layer's {@code OrtKernelCreateFunc} ({@link KernelCreations}): a function, not a slot of a struct, so
     * it takes the last id of the kernel's range, which no slot of {@code OrtKernelImpl} reaches.
     */
    static final int KERNEL_CREATE = id(ObjectKind.KERNEL, SLOTS_PER_KIND - 1);
    static final String KERNEL_CREATE_NAME = "OrtKernelCreateFunc";
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;

    /** A thread's slot: where it is in the file, and how deep its calls are now. */
    static final class Trail {
        /** The file this slot is in: the exit goes there even if the layer's settings changed during the call. */
        final Breadcrumbs owner;
        final long at;
        int depth;

        Trail(Breadcrumbs owner, long at) {
            this.owner = owner;
            this.at = at;
        }
    }

    private final Path file;
    private final MemorySegment map;
    private final AtomicInteger nextSlot = new AtomicInteger();
    private final ThreadLocal<Trail> trails = ThreadLocal.withInitial(this::claim);

    Breadcrumbs(Path file) {
        this.file = file;
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            map = channel.map(FileChannel.MapMode.READ_WRITE, 0, SLOTS_AT + (long) SLOTS * SLOT_SIZE, Arena.global());
        } catch (IOException e) {
            throw new UncheckedIOException("javaep validation: cannot map the breadcrumbs file " + file, e);
        }
        map.set(INT, 8, NAMES);
        map.set(INT, 12, NAME_SIZE);
        map.set(INT, 16, SLOTS);
        map.set(INT, 20, SLOT_SIZE);
        for (ObjectKind kind : ObjectKind.values()) {
            for (var slot : kind.slots) {
                byte[] name = kind.callbackName(slot).getBytes(StandardCharsets.UTF_8);
                MemorySegment.copy(name, 0, map, ValueLayout.JAVA_BYTE, HEADER + (long) id(kind, ((Enum<?>) slot).ordinal())
                        * NAME_SIZE, Math.min(name.length, NAME_SIZE - 1));
            }
        }
        byte[] create = KERNEL_CREATE_NAME.getBytes(StandardCharsets.UTF_8);
        MemorySegment.copy(create, 0, map, ValueLayout.JAVA_BYTE, HEADER + (long) KERNEL_CREATE * NAME_SIZE, create.length);
        map.set(LONG, 0, MAGIC); // last: a reader never sees a header without its names
    }

    Path file() {
        return file;
    }

    static int id(ObjectKind kind, int slotOrdinal) {
        return kind.ordinal() * SLOTS_PER_KIND + slotOrdinal;
    }

    private Trail claim() {
        long at = SLOTS_AT + (long) Math.floorMod(nextSlot.getAndIncrement(), SLOTS) * SLOT_SIZE;
        map.set(LONG, at, Thread.currentThread().threadId());
        return new Trail(this, at);
    }

    /** Notes that this thread entered callback {@code id}; hand what it returns to {@link #exit}. */
    Trail enter(int id) {
        Trail trail = trails.get();
        int depth = trail.depth++;
        if (depth < DEPTH) {
            map.set(INT, trail.at + 12 + 4L * depth, id);
        }
        map.set(INT, trail.at + 8, depth + 1);
        return trail;
    }

    void exit(Trail trail) {
        map.set(INT, trail.at + 8, --trail.depth);
    }

    /**
     * The callbacks in flight in the file (of a process that may be gone): per thread that was inside one, its
     * callbacks outermost first, as {@code OrtNodeComputeInfo::Compute (thread 31)}; empty when none was.
     */
    public static List<String> inFlight(Path file) throws IOException {
        List<String> running = new ArrayList<>();
        try (Arena arena = Arena.ofConfined(); FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            MemorySegment m = channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size(), arena);
            if (m.byteSize() < HEADER || m.get(LONG, 0) != MAGIC) {
                return running;
            }
            int names = m.get(INT, 8);
            int nameSize = m.get(INT, 12);
            int slots = m.get(INT, 16);
            int slotSize = m.get(INT, 20);
            long slotsAt = HEADER + (long) names * nameSize;
            for (int s = 0; s < slots; s++) {
                long at = slotsAt + (long) s * slotSize;
                int depth = m.get(INT, at + 8);
                List<String> calls = new ArrayList<>();
                for (int d = 0; d < Math.min(depth, (slotSize - 12) / 4); d++) {
                    int id = m.get(INT, at + 12 + 4L * d);
                    calls.add(id >= 0 && id < names ? m.getString(HEADER + (long) id * nameSize) : "callback #" + id);
                }
                if (!calls.isEmpty()) {
                    running.add(String.join(" > ", calls) + " (thread " + m.get(LONG, at) + ")");
                }
            }
        }
        return running;
    }
}
