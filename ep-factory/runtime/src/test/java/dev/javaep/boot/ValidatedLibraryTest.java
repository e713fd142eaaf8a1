package dev.javaep.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where the validation layer's wrapped library is named: the system property first, then javaep.properties. */
class ValidatedLibraryTest {
    @TempDir
    Path home;

    @AfterEach
    void clear() {
        System.clearProperty("javaep.home");
        System.clearProperty(EpLibrary.VALIDATE_PROPERTY);
    }

    @Test
    void javaepPropertiesNamesItRelativeToItsFolderAndThePropertyWins() throws IOException {
        assumeTrue(System.getenv(EpLibrary.VALIDATE_ENV) == null, "JAVAEP_VALIDATE is set in this environment");
        System.setProperty("javaep.home", home.toString());
        assertNull(EpLibrary.validatedLibrary(), "no javaep.properties: javaep offers its own EPs");
        Files.writeString(home.resolve("javaep.properties"), "class.path=lib/x.jar\n#validate.library=commented\n");
        assertNull(EpLibrary.validatedLibrary(), "a commented key names nothing");
        Files.writeString(home.resolve("javaep.properties"), "validate.library=vendor/libvendor_ep.so\n");
        assertEquals(home.resolve("vendor/libvendor_ep.so"), EpLibrary.validatedLibrary());
        System.setProperty(EpLibrary.VALIDATE_PROPERTY, "/opt/other/libother_ep.so");
        assertEquals(Path.of("/opt/other/libother_ep.so"), EpLibrary.validatedLibrary());
    }
}
