#!/bin/sh
# Builds the C gallery of the conformance kit (CGalleryIT): from gallery_ep.c, the correct plugin EP and one broken
# EP per fault, each a library of its own with an EP name of its own:
#   <outdir>/libjavaep_gallery_c.so              CGalleryExecutionProvider
#   <outdir>/libjavaep_gallery_c_<fault>.so      CGallery<Fault>ExecutionProvider   (fault in lower case)
# and the kernel-registry EP (GALLERY_KERNEL_REGISTRY: Add and Relu as registered OrtKernelImpl kernels, no Compile),
# correct and with the faults that concern a kernel:
#   <outdir>/libjavaep_gallery_c_kernels.so          CGalleryKernelsExecutionProvider
#   <outdir>/libjavaep_gallery_c_kernels_<fault>.so  CGalleryKernels<Fault>ExecutionProvider
# Called by the integration-tests pom at the test-compile phase; runs standalone too:
#   sh test-harness/integration-tests/src/test/c/gallery/build.sh <outdir>
# Linux only. Without a C compiler it builds nothing and says so; CGalleryIT then skips, saying why.
set -eu

out=${1:?usage: build.sh <outdir>}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"

case "$(uname -s)" in
  Linux) ;;
  *) echo "build.sh: the C gallery builds on Linux only, skipped"; exit 0 ;;
esac
cc=${CC:-cc}
if ! command -v "$cc" >/dev/null 2>&1; then
  echo "build.sh: no C compiler ($cc) found, the C gallery is not built"
  exit 0
fi

build() { # <library file> <EP name> <fault> [kernel registry: 1]
  "$cc" -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -g -Wall -Wextra -Werror -fPIC -shared -fvisibility=hidden \
    -DGALLERY_FAULT="$3" -DGALLERY_KERNEL_REGISTRY="${4:-0}" -DGALLERY_EP_NAME="\"$2\"" -I"$here" \
    -o "$out/$1" "$here/gallery_ep.c" -Wl,--no-undefined
}

build libjavaep_gallery_c.so CGalleryExecutionProvider FAULT_NONE
for fault in WRONG_ADD:WrongAdd CRASH_IN_COMPUTE:CrashInCompute LEAK_PER_SESSION:LeakPerSession \
             CAPABILITY_ERROR:CapabilityError MISALIGNED_ALLOCATOR:MisalignedAllocator NOT_THREAD_SAFE:NotThreadSafe \
             DOUBLE_RELEASE:DoubleRelease CYCLE_CLAIM:CycleClaim BAD_MEMORY_INFO:BadMemoryInfo; do
  macro=${fault%%:*}
  lower=$(echo "$macro" | tr 'A-Z' 'a-z')
  build "libjavaep_gallery_c_$lower.so" "CGallery${fault#*:}ExecutionProvider" "FAULT_$macro"
done
build libjavaep_gallery_c_kernels.so CGalleryKernelsExecutionProvider FAULT_NONE 1
for fault in CRASH_IN_COMPUTE:CrashInCompute DOUBLE_RELEASE:DoubleRelease; do
  macro=${fault%%:*}
  lower=$(echo "$macro" | tr 'A-Z' 'a-z')
  build "libjavaep_gallery_c_kernels_$lower.so" "CGalleryKernels${fault#*:}ExecutionProvider" "FAULT_$macro" 1
done
echo "build.sh: built the C gallery in $out ($(ls "$out" | tr '\n' ' '))"
