package dev.javaep.cli.bench;

import dev.javaep.conformance.ModelComparison;
import dev.javaep.harness.onnx.OnnxModelReader;
import dev.javaep.host.TensorData;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The exported networks a folder lists in its {@code models.tsv} (test-harness/integration-tests' test resources
 * {@code models/torch}, written by tools/models/export_torch.py), each with random inputs at its listed shapes: what
 * bench-networks and bench-multigpu run.
 */
final class ExportedNetworks {
    private ExportedNetworks() {}

    /** One listed network: its file name without {@code .onnx}, its file, the listed shapes ({@code 1x3x32x32;…}), inputs. */
    record Network(String name, Path file, String shapes, Map<String, TensorData> inputs) {}

    /** The networks of {@code dir/models.tsv} whose file name starts with one of {@code only} (all when empty). */
    static List<Network> read(Path dir, List<String> only) throws IOException {
        Path list = dir.resolve("models.tsv");
        if (!Files.isRegularFile(list)) {
            throw new IllegalArgumentException("no models.tsv in " + dir
                    + " (the folder is test-harness/integration-tests/src/test/resources/models/torch)");
        }
        List<Network> networks = new ArrayList<>();
        for (String line : Files.readAllLines(list)) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            String[] columns = line.split("\t");
            String file = columns[0];
            if (!only.isEmpty() && only.stream().noneMatch(file::startsWith)) {
                continue;
            }
            Path model = dir.resolve(file);
            Map<String, long[]> byPosition = new LinkedHashMap<>();
            String[] shapes = columns[3].split(";");
            for (int i = 0; i < shapes.length; i++) {
                byPosition.put("#" + i, Arrays.stream(shapes[i].split("x")).mapToLong(Long::parseLong).toArray());
            }
            Map<String, TensorData> inputs = ModelComparison.randomInputs(OnnxModelReader.read(model),
                    ModelComparison.byPosition(model, byPosition));
            networks.add(new Network(file.replace(".onnx", ""), model, columns[3], inputs));
        }
        return networks;
    }
}
