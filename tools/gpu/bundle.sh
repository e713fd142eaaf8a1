#!/usr/bin/env bash
# Builds the GPU-machine bundle: everything the GPU test suite and benchmarks need on a machine with
# an NVIDIA driver and nothing else (no Java, no Maven, no network).
#   tools/gpu/bundle.sh            → .bundle/javaep-gpu.tar.gz  (an ignored path, carried to the GPU machine)
# Contents: a jlink'ed JDK 25, the distribution (libjavaep.so + jars, without the ORT jar: the GPU
# machine's Python ORT 1.30 provides libonnxruntime), the test classes and their dependencies, the
# JUnit console launcher, and the ONNX node tests of the CUDA EP's op set.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT_DIR="$ROOT/.bundle"
STAGE="$OUT_DIR/javaep-gpu"
JUNIT_CONSOLE_VERSION=1.11.4
NODE_TESTS="${NODE_TESTS:-$ROOT/../shared/onnx-node-tests/node}"
JDK="${JDK25_HOME:-$(ls -d /usr/lib/jvm/temurin-25* 2>/dev/null | head -1)}"
[ -x "$JDK/bin/jlink" ] || { echo "bundle.sh: no JDK 25 with jlink found; set JDK25_HOME" >&2; exit 1; }

cd "$ROOT"
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  ./mvnw -q -B package -DskipTests
fi
./mvnw -q -B -pl test-harness dependency:copy-dependencies -DincludeScope=test -DoutputDirectory="$OUT_DIR/deps" \
  -DexcludeArtifactIds=onnxruntime
./mvnw -q -B dependency:copy -Dartifact=org.junit.platform:junit-platform-console-standalone:$JUNIT_CONSOLE_VERSION \
  -DoutputDirectory="$OUT_DIR/deps-console"

rm -rf "$STAGE" && mkdir -p "$STAGE"/{lib,test-classes,node-tests}
"$JDK/bin/jlink" --add-modules java.base,java.logging,java.management,java.xml,jdk.unsupported \
  --strip-debug --no-man-pages --no-header-files --compress=zip-9 --output "$STAGE/jdk"

DIST="$ROOT/test-harness/target/javaep-dist"
cp "$DIST/libjavaep.so" "$DIST/javaep.properties" "$STAGE/"
cp -r "$DIST/bin" "$STAGE/"
for jar in "$DIST"/lib/*.jar; do
  [ "$(basename "$jar")" = onnxruntime.jar ] || cp "$jar" "$STAGE/lib/"
done
# The loader's properties point at the build machine's JDK; on the GPU machine the bundled one is used.
sed -i '/^java.home=/d' "$STAGE/javaep.properties"
echo "java.home=@BUNDLE@/jdk" >> "$STAGE/javaep.properties"

# ORT 1.29 too: its device discovery has no PCI fallback, so on a VM without DRM nodes the EP must
# create the GPU's OrtHardwareDevice itself (1.30, the GPU machine's own, finds the GPU through PCI).
mkdir -p "$STAGE/ort-1.29"
cp "$ROOT/test-harness/target/ort-native/linux-x64/libonnxruntime.so" "$STAGE/ort-1.29/"

cp -r "$ROOT/test-harness/target/test-classes/." "$STAGE/test-classes/"
cp -r "$ROOT/ep-cuda-importer/target/test-classes/." "$STAGE/test-classes/" 2>/dev/null || true
cp "$OUT_DIR"/deps/*.jar "$STAGE/lib/"
rm -f "$STAGE"/lib/ep-factory-*.jar "$STAGE"/lib/ep-cuda-importer-*.jar   # the dist's own copies are used
cp "$OUT_DIR"/deps-console/junit-platform-console-standalone-*.jar "$STAGE/junit-console.jar"
rm -f "$STAGE"/lib/junit-*.jar "$STAGE"/lib/opentest4j-*.jar "$STAGE"/lib/apiguardian-*.jar  # in the console jar

# The op set's node tests (the EP's ops, no "_expanded" decompositions).
for d in "$NODE_TESTS"/test_{add,sub,mul,div,relu,sigmoid,tanh,matmul,gemm,softmax,identity}*; do
  case "$(basename "$d")" in *_expanded*|*matmulinteger*|*_opt|*_sequence) continue ;; esac
  cp -r "$d" "$STAGE/node-tests/"
done

tar -C "$OUT_DIR" -czf "$OUT_DIR/javaep-gpu.tar.gz" javaep-gpu
rm -rf "$STAGE" "$OUT_DIR/deps" "$OUT_DIR/deps-console"
ls -la "$OUT_DIR/javaep-gpu.tar.gz"
