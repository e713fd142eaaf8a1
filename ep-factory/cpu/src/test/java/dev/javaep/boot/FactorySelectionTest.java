package dev.javaep.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.spi.ExecutionProviderFactory;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Which factories a registration offers: all on the class path, or those javaep.factories names. */
class FactorySelectionTest {
    @AfterEach
    void clear() {
        System.clearProperty(EpLibrary.FACTORIES_PROPERTY);
    }

    private static List<String> names(List<ExecutionProviderFactory> factories) {
        return factories.stream().map(ExecutionProviderFactory::name).toList();
    }

    @Test
    void everyFactoryOnTheClassPathByDefault() {
        assertEquals(List.of("JavaCpuExecutionProvider"), names(EpLibrary.discover(4)));
    }

    @Test
    void theNamedFactories() {
        System.setProperty(EpLibrary.FACTORIES_PROPERTY, " JavaCpuExecutionProvider ,");
        assertEquals(List.of("JavaCpuExecutionProvider"), names(EpLibrary.discover(4)));
    }

    @Test
    void anUnknownNameSaysWhatIsThere() {
        System.setProperty(EpLibrary.FACTORIES_PROPERTY, "JavaTpuExecutionProvider");
        var e = assertThrows(IllegalStateException.class, () -> EpLibrary.discover(4));
        assertTrue(e.getMessage().contains("JavaTpuExecutionProvider") && e.getMessage().contains("[JavaCpuExecutionProvider]"),
                e.getMessage());
    }

    @Test
    void moreThanOrtTakesSaysHowToChoose() {
        var e = assertThrows(IllegalStateException.class, () -> EpLibrary.discover(0));
        assertTrue(e.getMessage().contains("JAVAEP_FACTORIES"), e.getMessage());
    }
}
