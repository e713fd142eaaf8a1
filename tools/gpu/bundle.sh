#!/usr/bin/env bash
# Builds the GPU-machine bundle: everything the GPU test suite and benchmarks need on a machine with
# an NVIDIA driver and nothing else (no Java, no Maven, no network).
#   tools/gpu/bundle.sh            → .bundle/javaep-gpu.tar.gz  (an ignored path, carried to the GPU machine)
# Contents: a jlink'ed JDK 25, the distribution (libjavaep.so + jars, without the ORT jar: the GPU
# machine's Python ORT 1.30 provides libonnxruntime), the test classes and their dependencies, the
# JUnit console launcher, the ONNX node tests of the CUDA EP's op set, and the Debian packages of the Vulkan
# loader and the glvnd libraries NVIDIA's Vulkan driver needs (the GPU machine has the driver, no loader;
# fetched once into .bundle/debs; run-suite.sh unpacks them).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT_DIR="$ROOT/.bundle"
STAGE="$OUT_DIR/javaep-gpu"
JUNIT_CONSOLE_VERSION=1.11.4
NODE_TESTS="${NODE_TESTS:-$ROOT/../shared/onnx-node-tests/node}"
JDK="${JDK25_HOME:-$(ls -d /usr/lib/jvm/temurin-25* 2>/dev/null | head -1)}"
[ -x "$JDK/bin/jlink" ] || { echo "bundle.sh: no JDK 25 with jlink found; set JDK25_HOME" >&2; exit 1; }
VULKAN_DEBS=(libvulkan1 libglvnd0 libgl1 libglx0 libegl1 libopengl0 libgles2)
DEB_CACHE="$OUT_DIR/debs"

# Downloads the Vulkan packages not yet in the cache (amd64: the GPU machine's architecture).
fetch_vulkan_debs() {
  local wanted=() pkg arch=()
  for pkg in "${VULKAN_DEBS[@]}"; do
    compgen -G "$DEB_CACHE/${pkg}_*.deb" >/dev/null || wanted+=("$pkg")
  done
  ((${#wanted[@]})) || return 0
  [ "$(dpkg --print-architecture 2>/dev/null)" = amd64 ] || arch=(-oAPT::Architecture=amd64)
  mkdir -p "$DEB_CACHE"
  echo "bundle.sh: downloading ${wanted[*]}"
  (cd "$DEB_CACHE" && apt-get download -q "${arch[@]}" "${wanted[@]}") 2>/dev/null \
    || { apt-get update -qq && (cd "$DEB_CACHE" && apt-get download -q "${arch[@]}" "${wanted[@]}"); } \
    || { echo "bundle.sh: cannot download ${wanted[*]} (apt-get download); put the .deb files in $DEB_CACHE" >&2; exit 1; }
}

cd "$ROOT"
# One reactor build that packages the modules and then copies the modules' test dependencies (the integration
# tests' bring the example apps, LWJGL and JCuda, which the distribution does not carry): run
# apart, copy-dependencies would look for the sibling modules in ~/.m2, where a fresh clone has none.
# Version-less names, as in the distribution's lib/, so a jar both have is carried once (LWJGL and JCuda
# natives are 17 MB, twice that when versioned copies sat next to the dist's).
# (No -DexcludeArtifactIds: a user property reaches the dist's own copy-dependencies too and would empty
# its lib/. The loop below skips what the dist already has, and ORT's jar is dropped here.)
rm -rf "$OUT_DIR/deps"
./mvnw -q -B -DskipTests package dependency:copy-dependencies -DincludeScope=test -Dmdep.stripVersion=true \
  -DoutputDirectory="$OUT_DIR/deps"
rm -f "$OUT_DIR/deps/onnxruntime.jar"
./mvnw -q -B dependency:copy -Dartifact=org.junit.platform:junit-platform-console-standalone:$JUNIT_CONSOLE_VERSION \
  -DoutputDirectory="$OUT_DIR/deps-console"

fetch_vulkan_debs

rm -rf "$STAGE" && mkdir -p "$STAGE"/{lib,test-classes,node-tests,debs}
"$JDK/bin/jlink" --add-modules java.base,java.logging,java.management,java.xml,jdk.unsupported,jdk.management,jdk.incubator.vector,jdk.jfr \
  --strip-debug --no-man-pages --no-header-files --compress=zip-9 --output "$STAGE/jdk"
# jdk.jfr: javaep's JFR events (bridge.events, cuda.events) subclass jdk.jfr.Event; without the module JavaCuda's
# CreateDataTransfer failed with NoClassDefFoundError: jdk/jfr/Event and ORT 1.30's ReleaseEnv then crashed the JVM.
# libjvm.so's native symbols are most of the bundle's JDK; the carried tree has a 64 MiB limit
command -v strip >/dev/null && strip --strip-unneeded "$STAGE"/jdk/lib/server/libjvm.so

DIST="$ROOT/test-harness/cli/target/javaep-dist"
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
# BUNDLE_ORT129=0 leaves it out (the ort129 step then has nothing to run) when the bundle must be smaller.
if [ "${BUNDLE_ORT129:-1}" != 0 ]; then
  mkdir -p "$STAGE/ort-1.29"
  cp "$ROOT/test-harness/integration-tests/target/ort-native/linux-x64/libonnxruntime.so" "$STAGE/ort-1.29/"
fi

cp -r "$ROOT/test-harness/integration-tests/target/test-classes/." "$STAGE/test-classes/"
cp -r "$ROOT/ep-cuda-importer/target/test-classes/." "$STAGE/test-classes/" 2>/dev/null || true
for jar in "$OUT_DIR"/deps/*.jar; do   # the dist's own copies (javaep-spi, javaep-cuda...) are used
  [ -e "$STAGE/lib/$(basename "$jar")" ] || cp "$jar" "$STAGE/lib/"
done
cp "$OUT_DIR"/deps-console/junit-platform-console-standalone-*.jar "$STAGE/junit-console.jar"
rm -f "$STAGE"/lib/*-sources.jar
rm -f "$STAGE"/lib/junit-*.jar "$STAGE"/lib/opentest4j*.jar "$STAGE"/lib/apiguardian-*.jar  # in the console jar

# The node tests of every op in JavaCuda's kernel table, chosen as the tests choose them (OpNodeTests), minus the
# few large 3-D pooling ones (CudaNodeTestsIT reports a missing test folder as not run, never as passed).
"$JDK/bin/java" -cp "$DIST/lib/*" "$ROOT/tools/gpu/ListOpNodeTests.java" "$NODE_TESTS" | while read -r d; do
  if [ "$(du -sk "$d" | cut -f1)" -le 400 ]; then cp -r "$d" "$STAGE/node-tests/"; fi
done
echo "bundle.sh: $(ls "$STAGE/node-tests" | wc -l) node tests of JavaCuda's ops"

for pkg in "${VULKAN_DEBS[@]}"; do
  cp "$(ls "$DEB_CACHE/${pkg}"_*.deb | tail -1)" "$STAGE/debs/"
done

tar -C "$OUT_DIR" -czf "$OUT_DIR/javaep-gpu.tar.gz" javaep-gpu
rm -rf "$STAGE" "$OUT_DIR/deps" "$OUT_DIR/deps-console"
ls -la "$OUT_DIR/javaep-gpu.tar.gz"
