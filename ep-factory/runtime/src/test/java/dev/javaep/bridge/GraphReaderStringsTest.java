package dev.javaep.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** ReadOpAttr's STRING/STRINGS bytes, with and without the NUL ORT versions differ on. */
class GraphReaderStringsTest {
    private static MemorySegment bytes(String s) {
        return MemorySegment.ofArray(s.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aStringWithoutATerminatingNulIsReadWhole() {
        // Conv's default auto_pad as ORT 1.29 reports it: 6 bytes, no NUL (the old reader threw here).
        assertEquals("NOTSET", GraphReader.string(bytes("NOTSET")));
    }

    @Test
    void aStringEndsAtItsNul() {
        assertEquals("SAME_UPPER", GraphReader.string(bytes("SAME_UPPER\0")));
        assertEquals("", GraphReader.string(bytes("")));
        assertEquals("é", GraphReader.string(bytes("é\0")));
    }

    @Test
    void stringsAreNulSeparated() {
        assertEquals(List.of("a", "", "bc"), GraphReader.strings(bytes("a\0\0bc\0")));
        assertEquals(List.of("a", "bc"), GraphReader.strings(bytes("a\0bc")));
        assertEquals(List.of(), GraphReader.strings(bytes("")));
    }
}
