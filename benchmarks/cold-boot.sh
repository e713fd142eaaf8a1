#!/usr/bin/env bash
# Cold JVM boot inside RegisterExecutionProviderLibrary, as a C host sees it: N fresh processes, each
# registering libjavaep once (booting a JVM) and once more (joining it). Prints a table with medians.
# Needs the build (./mvnw -q package -DskipTests, which also unpacks ORT into test-harness/integration-tests/target).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-7}
dist=$(realpath test-harness/cli/target/javaep-dist)   # ORT resolves relative library paths against its own folder
ort=$(realpath test-harness/integration-tests/target/ort-native/linux-x64/libonnxruntime.so)
model=$(realpath "${ONNX_NODE_TESTS:-../shared/onnx-node-tests/node}/test_add/model.onnx")
host=$(mktemp -d)/ort_c_host
gcc -std=c11 -O2 -Wall -Wextra -o "$host" test-harness/integration-tests/src/test/c/ort_c_host.c -ldl -lm
cold=(); warm=()
for _ in $(seq "$runs"); do
  out=$("$host" "$ort" "$dist/libjavaep.so" JavaCpuExecutionProvider "$model" run 2)
  cold+=("$(sed -n 's/^REGISTER cycle=1 ms=//p' <<<"$out")")
  warm+=("$(sed -n 's/^REGISTER cycle=2 ms=//p' <<<"$out")")
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "| RegisterExecutionProviderLibrary from a C host ($runs processes) | median ms | all runs |"
echo "|---|---:|---|"
echo "| first registration (boots the JVM) | $(median "${cold[@]}") | ${cold[*]} |"
echo "| second registration (joins it) | $(median "${warm[@]}") | ${warm[*]} |"
