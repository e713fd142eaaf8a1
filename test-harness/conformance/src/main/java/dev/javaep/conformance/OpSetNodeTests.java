package dev.javaep.conformance;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** The ONNX node tests of javaep's op set (Add … Identity), as both EPs run it. */
public final class OpSetNodeTests {
    /** The op set's node tests. */
    static final Pattern OP_SET_TESTS = Pattern.compile(
            "test_(add|sub|mul|div|relu|sigmoid|tanh|matmul|gemm|softmax|identity)(_.*)?");
    /** Tests of other ops that share a prefix, and "_expanded" variants that decompose into other ops. */
    static final Pattern OTHER_OPS = Pattern.compile(".*(_expanded.*|matmulinteger.*|_opt|_sequence)$");

    private OpSetNodeTests() {}

    /** The op set's test folders under {@code root} (ONNX's {@code backend/test/data/node} layout), sorted. */
    public static List<Path> list(Path root) throws IOException {
        try (Stream<Path> dirs = Files.list(root)) {
            return dirs.filter(d -> isOpSetTest(d.getFileName().toString())).sorted().toList();
        }
    }

    public static boolean isOpSetTest(String name) {
        return OP_SET_TESTS.matcher(name).matches() && !OTHER_OPS.matcher(name).matches();
    }
}
