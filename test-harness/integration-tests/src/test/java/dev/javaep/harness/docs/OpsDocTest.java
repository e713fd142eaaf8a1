package dev.javaep.harness.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * docs/ops.md's op table is what the op layer and the kernel tables say, not a list kept by hand: this fails when
 * they differ. {@code -Djavaep.updateDocs=true} rewrites the section instead (then review the diff).
 */
class OpsDocTest {
    @Test
    void theOpTableIsTheRegistry() throws IOException {
        Path repo = Path.of(System.getProperty("basedir", ".")).toAbsolutePath().getParent().getParent();
        Path file = OpsDoc.file(repo);
        String generated = OpsDoc.registryTable();
        if (Boolean.getBoolean("javaep.updateDocs")) {
            OpsDoc.update(file, OpsDoc.REGISTRY, generated);
        }
        assertEquals(generated, OpsDoc.section(Files.readString(file), OpsDoc.REGISTRY),
                "docs/ops.md's registry table is out of date: run this test with -Djavaep.updateDocs=true");
    }
}
