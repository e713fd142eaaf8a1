#!/usr/bin/env bash
# Runs javaep's GPU suite on the GPU machine, in one command, from the bundle tools/gpu/bundle.sh made:
#   tools/gpu/run-suite.sh [STEP...]      steps: devices junit ort129 python bench (default: all)
# Logs go to $OUT (the device tool brings that folder back). Each step has its own time limit and a
# failing step does not stop the others; the exit status is the number of failed steps.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT="${OUT:-/tmp/javaep-gpu-out}"
mkdir -p "$OUT"
B=/tmp/javaep-gpu
ORT_LIBRARY="${JAVAEP_ORT_LIBRARY:-$(ls /opt/torch/.venv/lib/python3*/site-packages/onnxruntime/capi/libonnxruntime.so.* 2>/dev/null | head -1)}"
PYTHON="${PYTHON:-/opt/torch/.venv/bin/python}"
STEPS=("$@"); [ ${#STEPS[@]} -eq 0 ] && STEPS=(devices junit ort129 python bench)

rm -rf "$B" && tar -C /tmp -xzf "$ROOT/.bundle/javaep-gpu.tar.gz"
sed -i "s#@BUNDLE@#$B#" "$B/javaep.properties"
export JAVAEP_JAVA_HOME="$B/jdk" JAVAEP_ORT_LIBRARY="$ORT_LIBRARY"
JAVA="$B/jdk/bin/java"
CP="$B/test-classes:$(ls "$B"/lib/*.jar | tr '\n' ':')"
JVM=(--enable-native-access=ALL-UNNAMED -Xss4m -Xmx2g -Djavaep.dist.dir="$B" -Donnx.node.tests.dir="$B/node-tests"
     -Djavaep.ort.library="$ORT_LIBRARY")
{ nvidia-smi; echo; echo "ORT: $ORT_LIBRARY"; "$JAVA" -version; } > "$OUT/machine.txt" 2>&1

failed=0
step() {  # step NAME LIMIT_SECONDS COMMAND...
  local name=$1 limit=$2; shift 2
  echo "=== $name ($(date -u +%H:%M:%S))"
  timeout "$limit" "$@" > "$OUT/$name.log" 2>&1
  local rc=$?
  tail -n 40 "$OUT/$name.log"
  echo "=== $name: exit $rc"
  [ $rc -eq 0 ] || failed=$((failed + 1))
}

for s in "${STEPS[@]}"; do
  case $s in
    devices) step devices 120 "$B/bin/javaep" devices ;;
    junit)   step junit 420 "$JAVA" "${JVM[@]}" -jar "$B/junit-console.jar" execute --class-path "$CP" \
               --scan-class-path "$B/test-classes" --include-classname '.*(IT|Test|Tests)$' --include-tag gpu \
               --details=tree --disable-ansi-colors --reports-dir "$OUT/junit-reports" ;;
    ort129)  step ort129 240 env JAVAEP_ORT_LIBRARY="$B/ort-1.29/libonnxruntime.so" sh -c \
               "'$B/bin/javaep' devices && '$B/bin/javaep' node-tests '$B/node-tests' JavaCudaExecutionProvider" ;;
    python)  step python 180 "$PYTHON" "$ROOT/tools/gpu/python_host.py" "$B/libjavaep.so" ;;
    bench)   step bench 300 "$JAVA" "${JVM[@]}" -cp "$(ls "$B"/lib/*.jar | tr '\n' ':')" \
               -Djavaep.bridge.statistics=true dev.javaep.harness.cli.JavaepCli --dist "$B" bench-cuda ;;
    *) echo "unknown step $s"; failed=$((failed + 1)) ;;
  esac
done
echo "steps failed: $failed"
exit $failed
