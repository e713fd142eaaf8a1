package dev.javaep.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

class EpOptionsTest {
    private static final String EP = "TestExecutionProvider";

    @Test
    void anOptionIsTheEntryEpNameKeyInAnyCaseAndNoOtherEpsEntry() {
        assertEquals("4", EpOptions.value(Map.of("ep.TestExecutionProvider.level", "4"), EP, "level"));
        assertEquals("4", EpOptions.value(Map.of("EP.testexecutionprovider.LEVEL", "4"), EP, "level"));
        assertNull(EpOptions.value(Map.of("ep.OtherExecutionProvider.level", "4"), EP, "level"));
        assertNull(EpOptions.value(Map.of("level", "4", "session.level", "4"), EP, "level"));
    }

    @Test
    void aFlagIsOneOrTrueZeroOrFalseAndRefusesAnythingElse() {
        String key = "ep." + EP + ".on";
        assertTrue(EpOptions.flag(Map.of(), EP, "on", true), "unset: the default");
        assertFalse(EpOptions.flag(Map.of(), EP, "on", false));
        assertTrue(EpOptions.flag(Map.of(key, "1"), EP, "on", false));
        assertTrue(EpOptions.flag(Map.of(key, " TRUE "), EP, "on", false));
        assertFalse(EpOptions.flag(Map.of(key, "0"), EP, "on", true));
        assertFalse(EpOptions.flag(Map.of(key, "false"), EP, "on", true));
        var e = assertThrows(IllegalArgumentException.class, () -> EpOptions.flag(Map.of(key, "yes"), EP, "on", false));
        assertEquals("javaep: TestExecutionProvider option on must be 0 or 1, not 'yes'", e.getMessage());
    }

    @Test
    void aWholeNumberIsAtLeastItsMinimum() {
        String key = "ep." + EP + ".threads";
        assertEquals(1, EpOptions.wholeNumber(Map.of(), EP, "threads", 0, 1), "unset: the default");
        assertEquals(0, EpOptions.wholeNumber(Map.of(key, " 0"), EP, "threads", 0, 1));
        assertEquals(16, EpOptions.wholeNumber(Map.of(key, "16"), EP, "threads", 0, 1));
        for (String bad : new String[] {"-1", "two", "", "99999999999"}) {
            var e = assertThrows(IllegalArgumentException.class,
                    () -> EpOptions.wholeNumber(Map.of(key, bad), EP, "threads", 0, 1), bad);
            assertEquals("javaep: TestExecutionProvider option threads must be a whole number >= 0, not '" + bad + "'",
                    e.getMessage());
        }
    }
}
