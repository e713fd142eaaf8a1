package dev.javaep.ort;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

/** The few ABI facts that differ between Linux and Windows. */
public final class Platform {
    private Platform() {}

    public static final boolean WINDOWS = System.getProperty("os.name", "").startsWith("Windows");

    /** An {@code ORTCHAR_T*} string: UTF-8 {@code char} on POSIX, UTF-16 {@code wchar_t} on Windows. */
    public static MemorySegment ortCharString(Arena arena, String text) {
        return WINDOWS ? arena.allocateFrom(text, StandardCharsets.UTF_16LE) : arena.allocateFrom(text);
    }
}
