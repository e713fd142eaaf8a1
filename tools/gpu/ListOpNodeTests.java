import dev.javaep.conformance.OpNodeTests;
import dev.javaep.cuda.kernel.CudaOps;
import java.nio.file.Path;

/**
 * Prints the ONNX node-test folders of every op in JavaCuda's kernel table (what bundle.sh carries to the GPU
 * machine), chosen the way the tests choose them ({@link OpNodeTests#byOp}): run with the distribution's jars,
 * {@code java -cp 'lib/*' tools/gpu/ListOpNodeTests.java NODE_TESTS_DIR}.
 */
void main(String[] args) {
    OpNodeTests.byOp(Path.of(args[0]), CudaOps.table().opTypes()).values().forEach(tests -> tests.forEach(System.out::println));
}
