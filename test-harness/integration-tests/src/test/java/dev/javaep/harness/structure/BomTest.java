package dev.javaep.harness.structure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * javaep-bom lists every published artifact of the build (each jar module of group dev.javaep but the integration
 * tests and the example apps) at the build's version, and the parent pom manages the same set for the modules.
 */
class BomTest {
    static final Path REPO = Path.of(System.getProperty("basedir", ".")).toAbsolutePath().getParent().getParent();

    static boolean published(Poms pom) {
        return pom.groupId().equals("dev.javaep") && pom.packaging().equals("jar")
                && !pom.artifactId().equals("javaep-integration-tests") && !pom.artifactId().startsWith("javaep-example-");
    }

    static Set<String> javaepArtifacts(List<Poms.Dependency> managed) {
        return managed.stream().filter(d -> d.groupId().equals("dev.javaep")).map(Poms.Dependency::artifactId)
                .collect(Collectors.toCollection(TreeSet::new));
    }

    @Test
    void theBomListsEveryPublishedArtifactAtTheBuildsVersion() throws IOException {
        List<Poms> poms = Poms.below(REPO);
        Poms root = Poms.read(REPO.resolve("pom.xml"));
        Poms bom = Poms.read(REPO.resolve("bom/pom.xml"));
        Set<String> published = poms.stream().filter(BomTest::published).map(Poms::artifactId)
                .collect(Collectors.toCollection(TreeSet::new));
        System.out.println("[bom] published: " + published);
        assertTrue(published.containsAll(Set.of("javaep-spi", "javaep-runtime", "javaep-cpu", "javaep-cuda", "javaep-host",
                "javaep-cli")), () -> "the walk found too few modules: " + published);

        assertEquals("javaep-bom", bom.artifactId());
        assertEquals(root.version(), bom.version(), "javaep-bom's version is the build's");
        assertEquals(published, javaepArtifacts(bom.managed()), "javaep-bom lists the published artifacts");
        for (Poms.Dependency d : bom.managed()) {
            assertEquals(root.version(), d.version(), () -> "javaep-bom's " + d.artifactId() + " is at the build's version");
        }
        assertEquals(published, javaepArtifacts(root.managed()), "the parent pom manages the same artifacts");
        for (Poms pom : poms) {
            if (pom.groupId().equals("dev.javaep")) {
                assertEquals(root.version(), pom.version(), () -> pom.file() + " is at the build's version");
            }
        }
    }
}
