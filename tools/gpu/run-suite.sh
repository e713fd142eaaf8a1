#!/usr/bin/env bash
# Runs javaep's GPU suite on the GPU machine, in one command, from the bundle tools/gpu/bundle.sh made:
#   tools/gpu/run-suite.sh [STEP...]      steps: devices junit ort129 python bench bench-espcn bench-interop sanitizer
#                                         tables (every benchmark step behind docs/benchmarks.md)
#                                         bench-import (an import's cost split apart: bare CUDA vs each piece of javaep's path)
#                                         conformance (the kit on JavaCuda) bench-networks (JavaCpu vs ORT CPU)
#                                         bench-torchvision (torchvision nets: JavaCuda vs PyTorch eager and CUDA graph;
#                                         TORCHVISION_ARGS="--only resnet18 --iterations 50" narrows it)
#                                         bench-ortgraph (JavaCuda's group graphs vs ORT's graph capture, issue 13)
#                                         bench-multigpu (exported networks: one GPU vs one session per GPU, issue 18;
#                                         MULTIGPU_ARGS="--seconds 3 --only resnet_small" narrows it)
#                                         (JUNIT_CLASS=a.B,c.D limits junit to those classes)
#                                         session-study (SessionCycleStudy per configuration; SESSION_STUDY_CYCLES)
#                                         (default: devices junit ort129 python bench bench-ortgraph bench-espcn
#                                         bench-interop; sanitizer runs the JavaCuda partition matrix, or
#                                         $SANITIZER_CLASS (a.B,c.D), under compute-sanitizer --tool memcheck)
# Logs go to $OUT (the device tool brings that folder back). Each step has its own time limit and a
# failing step does not stop the others; the exit status is the number of failed steps.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT="${OUT:-/tmp/javaep-gpu-out}"
mkdir -p "$OUT"
B=/tmp/javaep-gpu
ORT_LIBRARY="${JAVAEP_ORT_LIBRARY:-$(ls /opt/torch/.venv/lib/python3*/site-packages/onnxruntime/capi/libonnxruntime.so.* 2>/dev/null | head -1)}"
PYTHON="${PYTHON:-/opt/torch/.venv/bin/python}"
STEPS=("$@"); [ ${#STEPS[@]} -eq 0 ] && STEPS=(devices junit ort129 python bench bench-ortgraph bench-espcn bench-interop)
# `tables`: every step that regenerates a table of docs/benchmarks.md (issue 13), one command
expanded=(); for st in "${STEPS[@]}"; do
  if [ "$st" = tables ]; then expanded+=(bench bench-espcn bench-interop bench-import bench-ortgraph bench-torchvision bench-networks)
  else expanded+=("$st"); fi
done; STEPS=("${expanded[@]}")
NVIDIA_ICD=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json

# Vulkan on the GPU machine: it has NVIDIA's ICD but no loader. Unpacks the bundle's Debian packages (the
# loader, and the glvnd libraries the ICD links) into / for each library the dynamic linker does not know
# yet, runs ldconfig, and points the loader at NVIDIA's ICD. Idempotent: a second run unpacks nothing.
# Logs to $OUT/vulkan-setup.log; a failure only makes the Vulkan tests skip, with the loader's reason.
setup_vulkan() {
  local log="$OUT/vulkan-setup.log" deb pkg soname
  {
    echo "vulkan setup $(date -u +%H:%M:%S)"
    for deb in "$B"/debs/*.deb; do
      [ -e "$deb" ] || { echo "no .deb files in $B/debs: the bundle predates them"; break; }
      pkg=$(basename "$deb"); pkg=${pkg%%_*}
      case $pkg in
        libvulkan1) soname=libvulkan.so.1 ;;   libglvnd0) soname=libGLdispatch.so.0 ;;
        libgl1) soname=libGL.so.1 ;;           libglx0) soname=libGLX.so.0 ;;
        libegl1) soname=libEGL.so.1 ;;         libopengl0) soname=libOpenGL.so.0 ;;
        libgles2) soname=libGLESv2.so.2 ;;     *) soname= ;;
      esac
      if [ -n "$soname" ] && known_library "$soname"; then
        echo "$pkg: $soname already known to ldconfig; not unpacked"
      elif unpack_deb "$deb"; then
        echo "$pkg: unpacked $(basename "$deb") into /"
      else
        echo "$pkg: unpacking $(basename "$deb") FAILED"
      fi
    done
    ldconfig && echo "ldconfig: done"
    if ! known_library libvulkan.so.1 && [ -e /usr/lib/x86_64-linux-gnu/libvulkan.so.1 ]; then
      # A distribution whose ld.so.conf lacks Debian's multiarch folder.
      echo /usr/lib/x86_64-linux-gnu > /etc/ld.so.conf.d/javaep-vulkan.conf && ldconfig \
        && echo "ldconfig: added /usr/lib/x86_64-linux-gnu via /etc/ld.so.conf.d/javaep-vulkan.conf"
    fi
    ldconfig -p | grep -E '(libvulkan\.so\.1|libGLX\.so\.0|libEGL\.so\.1|libGLdispatch\.so\.0) ' || echo "ldconfig lists no Vulkan loader"
    if [ -n "${VK_DRIVER_FILES:-}" ]; then
      echo "VK_DRIVER_FILES=$VK_DRIVER_FILES (already set; kept)"
    elif [ -e "$NVIDIA_ICD" ]; then
      export VK_DRIVER_FILES="$NVIDIA_ICD"
      echo "VK_DRIVER_FILES=$VK_DRIVER_FILES"
    else
      echo "no NVIDIA ICD at $NVIDIA_ICD; VK_DRIVER_FILES left unset"
    fi
  } > "$log" 2>&1
  # export inside { } > file runs in this shell (a group, not a subshell), so VK_DRIVER_FILES reaches the steps.
  echo "=== vulkan setup: $(grep -c ": unpacked " "$log") packages unpacked, VK_DRIVER_FILES=${VK_DRIVER_FILES:-unset} (log: vulkan-setup.log)"
}

# known_library SONAME: the dynamic linker's cache (ldconfig -p) lists it.
known_library() {
  ldconfig -p | awk '{print $1}' | grep -Fx "$1" >/dev/null
}

# unpack_deb FILE: its files into /, without the package database (dpkg -x; without dpkg, ar + tar;
# without ar, Python reads the ar archive and its data.tar.*).
unpack_deb() {
  local deb=$1 tmp rc
  if command -v dpkg >/dev/null; then
    dpkg -x "$deb" /
  elif command -v ar >/dev/null; then
    tmp=$(mktemp -d)
    (cd "$tmp" && ar x "$deb" && tar -C / -xf data.tar.*); rc=$?
    rm -rf "$tmp"
    return $rc
  else
    "$(command -v python3 || echo "$PYTHON")" - "$deb" <<'PY'
import io, sys, tarfile
archive = open(sys.argv[1], 'rb').read()
if archive[:8] != b'!<arch>\n':
    sys.exit(sys.argv[1] + ': not an ar archive')
pos = 8
while pos + 60 <= len(archive):
    name = archive[pos:pos + 16].decode().strip().rstrip('/')
    size = int(archive[pos + 48:pos + 58].decode().strip())
    if name.startswith('data.tar'):
        with tarfile.open(fileobj=io.BytesIO(archive[pos + 60:pos + 60 + size])) as data:
            data.extractall('/', **({'filter': 'tar'} if hasattr(tarfile, 'tar_filter') else {}))
        sys.exit(0)
    pos += 60 + size + (size & 1)
sys.exit(sys.argv[1] + ': no data.tar member')
PY
  fi
}

# BUNDLE_TARBALL: another bundle than .bundle's (a helper's, copied into an ignored folder of the checkout)
rm -rf "$B" && tar -C /tmp -xzf "$ROOT/${BUNDLE_TARBALL:-.bundle/javaep-gpu.tar.gz}"
sed -i "s#@BUNDLE@#$B#" "$B/javaep.properties"
export JAVAEP_JAVA_HOME="$B/jdk" JAVAEP_ORT_LIBRARY="$ORT_LIBRARY"
JAVA="$B/jdk/bin/java"
CP="$B/test-classes:$(ls "$B"/lib/*.jar | tr '\n' ':')"
JVM=(--enable-native-access=ALL-UNNAMED -Xss4m -Xmx2g -Djavaep.factories=JavaCpuExecutionProvider,JavaCudaExecutionProvider -Djavaep.dist.dir="$B" -Donnx.node.tests.dir="$B/node-tests"
     -Djavaep.ort.library="$ORT_LIBRARY")
{ nvidia-smi; echo; echo "ORT: $ORT_LIBRARY"; "$JAVA" -version; } > "$OUT/machine.txt" 2>&1
setup_vulkan

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
    junit)   # JUNIT_CLASS=a.B,c.D: only those classes (a helper's quick check); otherwise every GPU test
             if [ -n "${JUNIT_CLASS:-}" ]; then
               select=(); for c in ${JUNIT_CLASS//,/ }; do select+=(--select-class "$c"); done
             else
               select=(--scan-class-path "$B/test-classes" --include-classname '.*(IT|Test|Tests)$')
             fi
             step junit 420 "$JAVA" "${JVM[@]}" -jar "$B/junit-console.jar" execute --class-path "$CP" \
               "${select[@]}" --include-tag gpu \
               --details="${JUNIT_DETAILS:-tree}" --disable-ansi-colors --reports-dir "$OUT/junit-reports" ;;
    ort129)  step ort129 240 env JAVAEP_ORT_LIBRARY="$B/ort-1.29/libonnxruntime.so" sh -c \
               "'$B/bin/javaep' devices && '$B/bin/javaep' node-tests '$B/node-tests' JavaCudaExecutionProvider" ;;
    sanitizer)  # SANITIZER_CLASS=all: every GPU test but the one that faults a kernel on purpose
      # (the suite's bad-input tests make CUDA calls fail on purpose, so there API errors are not reported:
      # memcheck's memory-access checks are what this step is for)
      if [ "${SANITIZER_CLASS:-}" = all ]; then
        select=(--scan-class-path "$B/test-classes" --include-classname '.*(IT|Test|Tests)$'
                --exclude-classname '.*ContextLoss.*')
        api_errors=no
      else
        select=(); for c in ${SANITIZER_CLASS//,/ }; do select+=(--select-class "$c"); done
        [ ${#select[@]} -eq 0 ] && select=(--select-class dev.javaep.harness.gpu.CudaPartitionMatrixIT)
        api_errors=explicit
      fi
      step sanitizer 540 "$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)" \
               --tool memcheck --report-api-errors "$api_errors" --error-exitcode 99 --print-limit 50 \
               "$JAVA" "${JVM[@]}" -jar "$B/junit-console.jar" execute --class-path "$CP" "${select[@]}" \
               --include-tag gpu --details=tree --disable-ansi-colors ;;
    python)  step python 180 "$PYTHON" "$ROOT/tools/gpu/python_host.py" "$B/libjavaep.so" ;;
    bench)   step bench 300 "$JAVA" "${JVM[@]}" -cp "$(ls "$B"/lib/*.jar | tr '\n' ':')" \
               -Djavaep.bridge.statistics=true dev.javaep.cli.JavaepCli --dist "$B" bench-cuda
             # JavaCuda's hot path (issue 13): heap bytes per Run in Compute and on the Run's thread, GCs and resident
             # growth over 100k device-bound Runs, graphs off and on (a step of its own: its log is bench-hotpath-cuda.log)
             step bench-hotpath-cuda 300 "$JAVA" "${JVM[@]}" -cp "$(ls "$B"/lib/*.jar | tr '\n' ':')" \
               -Djavaep.bridge.statistics=true dev.javaep.cli.bench.HotPathBenchmark "$B" cuda ;;
    bench-ortgraph)  # 16×Relu, MLP, 1080p Relu, resnet_small: JavaCuda's group graphs vs ORT's capture (enable_cuda_graph=1)
             step bench-ortgraph 300 "$JAVA" "${JVM[@]}" -cp "$(ls "$B"/lib/*.jar | tr '\n' ':')" \
               dev.javaep.cli.JavaepCli --dist "$B" bench-ortgraph "$B/test-classes/models/torch" ;;
    bench-espcn) step bench-espcn 300 "$JAVA" "${JVM[@]}" -cp "$(ls "$B"/lib/*.jar | tr '\n' ':')" \
               dev.javaep.cli.JavaepCli --dist "$B" bench-espcn --python "$PYTHON" \
               --torch-script "$ROOT/tools/gpu/espcn_torch.py" ;;   # ESPCN x2 1080p: direct vs cuDNN vs PyTorch
    bench-interop)  # examples/vulkan-frames (LWJGL): not a CLI command. Builds the frame loop's C baseline first
             # (examples/vulkan-frames/src/main/c/frame_loop_baseline.c); without it that row says why and the rest runs.
             # A second pass prints only the plain-Run table with the bridge's statistics (they would skew the loops).
             c_baseline=(-Djavaep.bench.interop.cBaseline="$B/libframe_loop_baseline.so")
             cc_bin=$(command -v cc || command -v gcc)
             if [ -z "$cc_bin" ]; then
               c_baseline=(-Djavaep.bench.interop.cBaselineError="no cc or gcc on PATH")
             elif ! "$cc_bin" -std=c11 -O2 -Wall -Wextra -shared -fPIC -o "$B/libframe_loop_baseline.so" \
                    "$ROOT/examples/vulkan-frames/src/main/c/frame_loop_baseline.c" -ldl > "$OUT/frame-loop-baseline-cc.log" 2>&1; then
               c_baseline=(-Djavaep.bench.interop.cBaselineError="$cc_bin failed: $(head -c 300 "$OUT/frame-loop-baseline-cc.log" | tr '\n' ' ')")
             fi
             step bench-interop 300 "$JAVA" "${JVM[@]}" -cp "$(ls "$B"/lib/*.jar | tr '\n' ':')" "${c_baseline[@]}" \
               dev.javaep.examples.vulkan.InteropBenchmark "$B"
             step bench-interop-bridge 180 "$JAVA" "${JVM[@]}" -cp "$(ls "$B"/lib/*.jar | tr '\n' ':')" \
               -Djavaep.bridge.statistics=true -Djavaep.bench.interop.only=plain-run \
               dev.javaep.examples.vulkan.InteropBenchmark "$B" ;;
    bench-import)  # where an import's time goes (issue 13): bare CUDA, + dup/close, + syncs, + arenas, SPI importer, ORT
             # IMPORT_ARGS: JVM properties, e.g. -Djavaep.bench.import.rounds=1000 (defaults: 3000 warm-up rounds, 500 timed)
             # shellcheck disable=SC2086  # IMPORT_ARGS is a list of words
             step bench-import 300 "$JAVA" "${JVM[@]}" ${IMPORT_ARGS:-} -cp "$(ls "$B"/lib/*.jar | tr '\n' ':')" \
               dev.javaep.examples.vulkan.ImportCostBenchmark "$B"
             # the same with bridge statistics: how much of ORT's calls is Java's upcall (a separate JVM: statistics cost time)
             # shellcheck disable=SC2086
             step bench-import-bridge 300 "$JAVA" "${JVM[@]}" ${IMPORT_ARGS:-} -Djavaep.bridge.statistics=true \
               -cp "$(ls "$B"/lib/*.jar | tr '\n' ':')" dev.javaep.examples.vulkan.ImportCostBenchmark "$B" ;;
    conformance)  # the conformance kit on JavaCuda (issue 14): report (Markdown, HTML, JUnit XML) in $OUT/conformance
             step conformance 420 env JAVAEP_FACTORIES=JavaCudaExecutionProvider "$B/bin/javaep" conformance "$B/libjavaep.so" \
               --ep JavaCudaExecutionProvider --node-tests "$B/node-tests" --report "$OUT/conformance" \
               --session-cycles "${CONFORMANCE_SESSION_CYCLES:-1000}" ;;
    bench-networks)  # JavaCpu vs ORT's CPU EP on the exported networks, on this machine's cores (issue 13)
             step bench-networks 300 "$B/bin/javaep" bench-networks "$B/test-classes/models/torch" --threads "1,$(nproc)" ;;
    bench-torchvision)  # torchvision architectures exported by PyTorch: JavaCuda vs PyTorch eager and CUDA-graph replay (issue 13)
             # shellcheck disable=SC2086  # TORCHVISION_ARGS is a list of words
             step bench-torchvision 560 "$JAVA" "${JVM[@]}" -cp "$(ls "$B"/lib/*.jar | tr '\n' ':')" \
               dev.javaep.cli.JavaepCli --dist "$B" bench-torchvision --python "$PYTHON" \
               --torch-script "$ROOT/tools/gpu/torchvision_bench.py" ${TORCHVISION_ARGS:-} ;;
    bench-multigpu)  # one JavaCuda session on GPU 0 vs one per GPU, each Run from its own thread (issue 18; two GPUs on nvidia-h200-x2)
             # shellcheck disable=SC2086  # MULTIGPU_ARGS is a list of words
             step bench-multigpu 300 "$B/bin/javaep" bench-multigpu "$B/test-classes/models/torch" ${MULTIGPU_ARGS:-} ;;
    session-study)  # where JavaCuda's native memory goes over session create/release cycles (issue 14): a fresh JVM
             # per configuration, SessionCycleStudy's per-session growth of RSS, glibc in use and the JVM's own malloc (NMT)
             sc="${SESSION_STUDY_CYCLES:-400}"
             study() {  # study NAME LIBRARY|- EP [ENV=VALUE...] [-- JVM options]
               local name=$1 lib=$2 ep=$3; shift 3; local envs=() opts=()
               while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done; [ $# -gt 0 ] && shift; opts=("$@")
               step "study-$name" 300 env ${envs[@]+"${envs[@]}"} "$JAVA" "${JVM[@]}" -XX:NativeMemoryTracking=summary ${opts[@]+"${opts[@]}"} \
                 -cp "$(ls "$B"/lib/*.jar | tr '\n' ':')" dev.javaep.conformance.kit.SessionCycleStudy "$lib" "$ep" "$sc" 1
             }
             study ort-cpu - CPUExecutionProvider
             study javacpu "$B/libjavaep.so" JavaCpuExecutionProvider
             study javacuda "$B/libjavaep.so" JavaCudaExecutionProvider
             study javacuda-graphs-off "$B/libjavaep.so" JavaCudaExecutionProvider -- -Djavaep.cuda.graphs=off
             study javacuda-arena2 "$B/libjavaep.so" JavaCudaExecutionProvider MALLOC_ARENA_MAX=2
             study javacuda-nocache "$B/libjavaep.so" JavaCudaExecutionProvider CUDA_CACHE_DISABLE=1 ;;
    *) echo "unknown step $s"; failed=$((failed + 1)) ;;
  esac
done
echo "steps failed: $failed"
exit $failed
