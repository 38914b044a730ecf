#!/usr/bin/env bash
# Builds the CUPTI shim (libreplaycupti.so: replaycupti.c + pcsession.c) and the PC-sampling diagnostic
# (pcdiag: pcdiag.c + pcsession.c, run first by gpu-check.sh) with gcc against the CUDA toolkit's CUPTI
# headers, when they are present; otherwise says so and succeeds, so machines without the CUDA toolkit still
# build. A compile error in either fails the build.
# Usage: build.sh OUT_DIR JAVA_HOME      (the gpu-node build runs it in the compile phase)
set -euo pipefail
out="$1"
java_home="$2"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cuda="${CUDA_HOME:-/usr/local/cuda}"
if [ ! -f "$cuda/include/cupti_pcsampling.h" ] || [ ! -f "$cuda/include/cupti_activity.h" ]; then
  echo "[cupti-shim] SKIPPED: no CUPTI headers under $cuda/include (set CUDA_HOME to a CUDA toolkit to build it);"
  echo "[cupti-shim] PC sampling on a GPU will say the library is absent"
  exit 0
fi
lib=""
for d in "$cuda/lib64" "$cuda/extras/CUPTI/lib64" "$cuda/targets/x86_64-linux/lib"; do
  if [ -e "$d/libcupti.so" ]; then lib="$d"; break; fi
done
if [ -z "$lib" ]; then
  echo "[cupti-shim] SKIPPED: CUPTI headers found under $cuda/include but no libcupti.so beside them"
  exit 0
fi
if ! command -v gcc >/dev/null 2>&1; then
  echo "[cupti-shim] SKIPPED: no gcc on PATH"
  exit 0
fi
mkdir -p "$out"
gcc -std=gnu11 -O2 -Wall -Wextra -Werror -shared -fPIC \
  -I"$cuda/include" -I"$java_home/include" -I"$java_home/include/linux" \
  -o "$out/libreplaycupti.so" "$here/replaycupti.c" "$here/pcsession.c" \
  -L"$lib" -lcupti -ldl -lpthread -Wl,-rpath,"$lib"
echo "[cupti-shim] built $out/libreplaycupti.so against $cuda (libcupti from $lib)"
# libcuda is opened at run time (dlopen), so pcdiag links where no driver is installed
gcc -std=gnu11 -O2 -Wall -Wextra -Werror -I"$cuda/include" \
  -o "$out/pcdiag" "$here/pcdiag.c" "$here/pcsession.c" \
  -L"$lib" -lcupti -ldl -lpthread -Wl,-rpath,"$lib"
echo "[cupti-shim] built $out/pcdiag (PC-sampling diagnostic; run by gpu-check.sh)"
