package dev.javaep.harness.structure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The packages of every module use only what docs/architecture.md's layering table allows, and live in the module
 * the table names. A fixture of planted violations (src/test/resources/layering-fixture, sources that are never
 * compiled) shows the check fails when an arrow points the wrong way or a package moves into another module.
 */
class LayeringTest {
    static Path repo;
    static Layering table;

    @BeforeAll
    static void readTheTable() {
        repo = Path.of(System.getProperty("basedir", ".")).toAbsolutePath().getParent().getParent();
        table = Layering.read(repo.resolve("docs/architecture.md"));
    }

    @Test
    void theTableIsConsistentAndItsModulesExist() {
        assertEquals(List.of(), table.inconsistencies());
        for (Layering.Row row : table.rows()) {
            assertTrue(Files.isRegularFile(repo.resolve(row.module()).resolve("pom.xml")),
                    () -> row.pkg() + "'s module " + row.module() + " has no pom.xml");
        }
        System.out.println("[layering] module arrows: " + table.moduleArrows());
    }

    @Test
    void everyPackageFollowsTheTable() throws IOException {
        Layering.Report report = table.check(repo);
        report.packagesByModule().forEach((module, packages) -> System.out.println("[layering] " + module + ": " + packages));
        for (Layering.Row row : table.rows()) {
            assertTrue(report.packagesByModule().getOrDefault(row.module(), Set.of()).stream().anyMatch(row::covers),
                    () -> "no source of row " + row.pkg() + " found in " + row.module() + ": the check read the wrong tree");
        }
        assertEquals(List.of(), report.violations().stream().map(Layering.Violation::toString).toList());
    }

    @Test
    void thePlantedViolationsFail() throws IOException, URISyntaxException {
        Path fixture = Path.of(Objects.requireNonNull(getClass().getResource("/layering-fixture")).toURI());
        List<String> found = table.check(fixture).violations().stream().map(Layering.Violation::toString).toList();
        System.out.println("[layering] planted: " + String.join("\n  ", found));
        assertEquals(3, found.size(), () -> "exactly the three planted violations: " + found);
        assertTrue(found.stream().anyMatch(v -> v.startsWith("ep-factory/spi/src/main/java/dev/javaep/spi/PlantedSpiReachingIntoTheBridge.java: dev.javaep.spi uses dev.javaep.bridge")), found::toString);
        assertTrue(found.stream().anyMatch(v -> v.contains("PlantedHostClassInTheCli.java: package dev.javaep.host belongs in test-harness/host")), found::toString);
        assertTrue(found.stream().anyMatch(v -> v.contains("PlantedCliUsingAnExampleApp.java: dev.javaep.cli uses dev.javaep.examples.vulkan")), found::toString);
    }

    @Test
    void commentsAndStringsAreNoReferences() {
        String source = """
                package dev.javaep.cli;
                // dev.javaep.bridge.UpcallGuard in a comment
                /* dev.javaep.cuda.CudaDevice */
                import dev.javaep.host.OrtHost;
                import static dev.javaep.spi.ElementType.FLOAT;
                import dev.javaep.harness.onnx.*;
                class X { String s = "dev.javaep.os.Posix"; char c = '"'; Object o = dev.javaep.conformance.models.Models.class; }
                """;
        assertEquals(Set.of("dev.javaep.host", "dev.javaep.spi", "dev.javaep.harness.onnx", "dev.javaep.conformance.models"),
                Layering.references(source));
    }
}
