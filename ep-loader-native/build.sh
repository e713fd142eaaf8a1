#!/bin/sh
# Builds the loader ORT dlopens: <outdir>/libjavaep.so, and <outdir>/javaep.dll when the mingw-w64
# cross compiler is installed. Called by the module's pom at the compile phase; runs standalone too:
#   sh ep-loader-native/build.sh <outdir>
set -eu

out=${1:?usage: build.sh <outdir>}
here=$(cd "$(dirname "$0")" && pwd)
src="$here/src/main/c"
mkdir -p "$out"

# jni.h comes from a JDK 25: $JAVA_HOME, else /usr/lib/jvm/temurin-25*, else the JDK of javac on
# PATH. A candidate whose jni.h lacks JNI_VERSION_21 (a JDK older than 21, e.g. Maven's own JDK in
# JAVA_HOME) is used only if nothing newer is found: the loader then asks for JNI 1.8 and reports
# old JVMs later, when loading our Java 25 classes fails.
jni_candidates() {
  if [ -n "${JAVA_HOME:-}" ]; then echo "$JAVA_HOME/include"; fi
  for d in /usr/lib/jvm/temurin-25*; do echo "$d/include"; done
  if command -v javac >/dev/null 2>&1; then echo "$(dirname "$(readlink -f "$(command -v javac)")")/../include"; fi
}
find_jni_include() {
  fallback=""
  # one candidate per line, so folders with spaces survive
  old_ifs=$IFS
  IFS='
'
  for d in $(jni_candidates); do
    [ -f "$d/jni.h" ] || continue
    d=$(cd "$d" && pwd)
    if grep -q JNI_VERSION_21 "$d/jni.h"; then echo "$d"; return; fi
    [ -n "$fallback" ] || fallback=$d
  done
  IFS=$old_ifs
  if [ -n "$fallback" ]; then echo "$fallback"; return; fi
  echo "build.sh: cannot find jni.h: set JAVA_HOME to a JDK 25" >&2
  exit 1
}
jni=$(find_jni_include)

common="buf.c error.c debug_log.c properties.c config.c status.c jvm.c java_error.c entry_class.c exports.c"
cflags="-std=c11 -O2 -Wall -Wextra -Werror"

# --- Linux -----------------------------------------------------------------------------------
# -z nodelete: ORT dlcloses us on unregister, but JVM threads may still run code of ours (or hold
# return addresses into it); keeping the image mapped makes that safe.
linux_srcs=""
for f in $common platform_posix.c; do linux_srcs="$linux_srcs $src/$f"; done
# shellcheck disable=SC2086
gcc $cflags -fPIC -shared -fvisibility=hidden \
  -I"$jni" -I"$jni/linux" -I"$src" \
  -o "$out/libjavaep.so" $linux_srcs \
  -Wl,--version-script="$src/javaep.map" -Wl,-z,nodelete -Wl,--no-undefined -ldl -lpthread

exports=$(nm -D --defined-only "$out/libjavaep.so" | awk '{print $NF}' | sort | tr '\n' ' ')
if [ "$exports" != "CreateEpFactories ReleaseEpFactory " ]; then
  echo "build.sh: libjavaep.so must export exactly CreateEpFactories and ReleaseEpFactory, exports: $exports" >&2
  exit 1
fi
echo "build.sh: built $out/libjavaep.so (jni.h from $jni)"

# --- Windows (cross) -------------------------------------------------------------------------
# The Linux jni_md.h is right for x64 Windows too: without _LP64 it makes jlong a long long
# (64 bits, like the Windows header's __int64), JNICALL's __stdcall is a no-op on x64, and the
# JNI structs are the same. (jni_md.h's visibility attribute on the JNI_* declarations is
# accepted silently by mingw gcc; we never import those symbols, we look them up at run time.)
mingw=x86_64-w64-mingw32-gcc
if command -v "$mingw" >/dev/null 2>&1; then
  win_srcs=""
  for f in $common platform_windows.c; do win_srcs="$win_srcs $src/$f"; done
  # shellcheck disable=SC2086
  "$mingw" $cflags -shared -D_WIN32_WINNT=0x0601 \
    -I"$jni" -I"$jni/linux" -I"$src" \
    -o "$out/javaep.dll" $win_srcs "$src/javaep.def" -static-libgcc
  if command -v x86_64-w64-mingw32-objdump >/dev/null 2>&1; then
    dll_exports=$(x86_64-w64-mingw32-objdump -p "$out/javaep.dll" |
      awk '/\[Ordinal\/Name Pointer\] Table/{t=1;next} t&&/^[ \t]*\[/{print $NF;next} t{t=0}' | sort | tr '\n' ' ')
    if [ "$dll_exports" != "CreateEpFactories ReleaseEpFactory " ]; then
      echo "build.sh: javaep.dll must export exactly CreateEpFactories and ReleaseEpFactory, exports: $dll_exports" >&2
      exit 1
    fi
  fi
  echo "build.sh: built $out/javaep.dll"
else
  rm -f "$out/javaep.dll"
  echo "build.sh: $mingw not found, javaep.dll skipped"
fi
