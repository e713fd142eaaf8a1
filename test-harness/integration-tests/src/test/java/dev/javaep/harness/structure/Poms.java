package dev.javaep.harness.structure;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/** The build's poms, read as data: coordinates, packaging, managed dependencies. */
record Poms(Path file, String groupId, String artifactId, String version, String packaging, List<Dependency> managed) {
    record Dependency(String groupId, String artifactId, String version) {}

    static Poms read(Path file) {
        try {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            Document doc = factory.newDocumentBuilder().parse(file.toFile());
            Element project = doc.getDocumentElement();
            Optional<Element> parent = child(project, "parent");
            String groupId = text(project, "groupId").or(() -> parent.flatMap(p -> text(p, "groupId"))).orElseThrow();
            String version = text(project, "version").or(() -> parent.flatMap(p -> text(p, "version"))).orElseThrow();
            List<Dependency> managed = new ArrayList<>();
            child(project, "dependencyManagement").flatMap(dm -> child(dm, "dependencies")).ifPresent(deps -> {
                for (Node n = deps.getFirstChild(); n != null; n = n.getNextSibling()) {
                    if (n instanceof Element dep && dep.getTagName().equals("dependency")) {
                        managed.add(new Dependency(text(dep, "groupId").orElseThrow(), text(dep, "artifactId").orElseThrow(),
                                text(dep, "version").orElse("")));
                    }
                }
            });
            return new Poms(file, groupId, text(project, "artifactId").orElseThrow(), version,
                    text(project, "packaging").orElse("jar"), List.copyOf(managed));
        } catch (Exception e) {
            throw new IllegalStateException("cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    /** Every pom.xml below {@code root}, outside build outputs and hidden folders. */
    static List<Poms> below(Path root) throws IOException {
        return SourceTree.files(root, Set.of("src"), file -> file.getFileName().toString().equals("pom.xml")).stream()
                .map(Poms::read).toList();
    }

    private static Optional<Element> child(Element parent, String tag) {
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals(tag)) {
                return Optional.of(e);
            }
        }
        return Optional.empty();
    }

    private static Optional<String> text(Element parent, String tag) {
        return child(parent, tag).map(e -> e.getTextContent().strip());
    }
}
