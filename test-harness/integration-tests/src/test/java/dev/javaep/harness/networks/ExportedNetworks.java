package dev.javaep.harness.networks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The networks PyTorch's exporters wrote for the tests (tools/models/export_torch.py; test resources
 * models/torch, listed in models.tsv): each file, the input shapes to run it at, and its float16 twin if it has one.
 */
public final class ExportedNetworks {
    private static final Pattern FLOAT16_TWIN = Pattern.compile("float16 twin (\\S+\\.onnx)");

    /** One model file and the input shapes to run it at (by input position: "#0", "#1"). */
    public record Case(String file, String what, Map<String, long[]> shapes, Optional<String> float16Twin) {
        @Override
        public String toString() {
            return file + " " + shapes.values().stream().map(Arrays::toString).toList();
        }
    }

    private ExportedNetworks() {}

    public static Path directory() {
        try {
            return Path.of(ExportedNetworks.class.getResource("/models/torch/models.tsv").toURI()).getParent();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Every model at its export shapes, and the ones with dynamic height/width also at another size. */
    public static List<Case> cases() {
        List<Case> cases = new ArrayList<>();
        try {
            for (String line : Files.readAllLines(directory().resolve("models.tsv"))) {
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                String[] columns = line.split("\t");
                Matcher twin = FLOAT16_TWIN.matcher(columns[4]);
                Optional<String> float16 = twin.find() ? Optional.of(twin.group(1)) : Optional.empty();
                cases.add(new Case(columns[0], columns[4], shapes(columns[3]), float16));
                if (columns[4].contains("dynamic height/width")) {
                    cases.add(new Case(columns[0], columns[4] + ", at another size", shapes("1x3x40x56"), float16));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return cases;
    }

    /** "1x3x32x32;1x2x24x32" → the shapes by input position. */
    private static Map<String, long[]> shapes(String column) {
        Map<String, long[]> shapes = new LinkedHashMap<>();
        String[] parts = column.split(";");
        for (int i = 0; i < parts.length; i++) {
            shapes.put("#" + i, Arrays.stream(parts[i].split("x")).mapToLong(Long::parseLong).toArray());
        }
        return shapes;
    }
}
