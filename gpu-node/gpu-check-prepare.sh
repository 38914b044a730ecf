#!/usr/bin/env bash
# Prepares everything gpu-check.sh needs on the GPU machine (no Java, no Maven, no network there) into one
# ignored folder, gpu-node/target/gpu-check, at most 64 MiB (the device call carries it):
#   runtime.tar.xz   a jlinked Java 17 runtime and the distribution's jars (stored, then xz-compressed whole:
#                    class files compress far better solid), jcuda-natives cut to the driver library
#   libreplaycupti.so the CUPTI shim built here against CUDA 13's CUPTI
#   captures/        both examples and (with --corpus) every corpus kernel at -O2, wave32 and wave64, each
#                    with the host model's outputs (host/guest-<n>.bin) from replay eval here
#   gpu-check.sh     the check itself
# Usage: gpu-node/gpu-check-prepare.sh [--corpus]        (from the repository root; Java 17, Maven, clang-19)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$root/gpu-node/target/gpu-check"
corpus=no
[ "${1:-}" = "--corpus" ] && corpus=yes
limit=$((64 * 1024 * 1024))
cd "$root"
echo "[gpu-check-prepare] building the distribution"
mvn -o -q -B -Dmaven.test.skip=true package
rm -rf "$out"
mkdir -p "$out/captures" "$out/stage/lib"
cp gpu-node/gpu-check.sh "$out/gpu-check.sh"
if [ -f gpu-node/target/native/libreplaycupti.so ]; then
  cp gpu-node/target/native/libreplaycupti.so "$out/"
else
  echo "[gpu-check-prepare] WARNING: no CUPTI shim (gpu-node/target/native/libreplaycupti.so); the sampling steps will say so"
fi
echo "[gpu-check-prepare] jlink"
jlink --add-modules java.base,java.desktop,java.logging,java.management,java.naming,java.net.http,java.sql,java.xml,jdk.unsupported,jdk.management,java.instrument,jdk.jfr,jdk.httpserver \
  --strip-debug --no-man-pages --no-header-files --compress=0 --output "$out/stage/jre" >/dev/null
echo "[gpu-check-prepare] jars (stored, compressed whole below)"
python3 - "$root/cli/target" "$out/stage/lib" <<'PY'
import os, sys, zipfile
src, dst = sys.argv[1], sys.argv[2]
# not needed on a single machine: Kubernetes discovery and its HTTP client
skip = ("kotlin-stdlib", "okhttp", "okio")
jars = [os.path.join(src, "replay.jar")] + [os.path.join(src, "lib", j) for j in sorted(os.listdir(os.path.join(src, "lib")))]
for j in jars:
    name = os.path.basename(j)
    if name.startswith(skip):
        continue
    with zipfile.ZipFile(j) as zin, zipfile.ZipFile(os.path.join(dst, name), "w", zipfile.ZIP_STORED) as zout:
        for info in zin.infolist():
            if name.startswith("jcuda-natives") and info.filename.startswith("lib/") and "JCudaDriver" not in info.filename:
                continue  # only the driver API is used (no NVRTC, runtime or PTX compiler)
            zout.writestr(info.filename, zin.read(info.filename), zipfile.ZIP_STORED)
PY
# replay.jar's manifest names lib/*.jar: keep the layout
mkdir -p "$out/stage/dist/lib"
mv "$out/stage/lib/replay.jar" "$out/stage/dist/replay.jar"
mv "$out/stage/lib/"*.jar "$out/stage/dist/lib/"
rmdir "$out/stage/lib"
tar -C "$out/stage" -cf - jre dist | xz -T0 -6 > "$out/runtime.tar.xz"
rm -rf "$out/stage"
echo "[gpu-check-prepare] captures"
mkdir -p "$out/captures/saxpy" "$out/captures/shadow-pass"
cp examples/saxpy/saxpy.capture "$out/captures/saxpy/k.capture"
cp examples/shadow-pass/shadow.capture "$out/captures/shadow-pass/k.capture"
for c in saxpy shadow-pass; do
  ./replay eval "$out/captures/$c/k.capture" --every-group --out "$out/captures/$c/eval" >/dev/null
  mkdir -p "$out/captures/$c/host"
  cp "$out/captures/$c/eval/host/"guest-*.bin "$out/captures/$c/host/" 2>/dev/null || true
  rm -rf "$out/captures/$c/eval"
done
if [ "$corpus" = yes ]; then
  keep="$out/corpus-all"
  mvn -o -q -B -pl cli -am test -Dtest=KernelCorpusTest -Dsurefire.failIfNoSpecifiedTests=false \
      -Dreplay.corpus.keep="$keep" >/dev/null || echo "[gpu-check-prepare] WARNING: the corpus test reported failures"
  for d in "$keep"/*-O2-w32 "$keep"/*-O2-w64; do
    [ -d "$d" ] && mv "$d" "$out/captures/corpus-$(basename "$d")"
  done
  rm -rf "$keep"
fi
size=$(du -sb "$out" | cut -f1)
echo "[gpu-check-prepare] $out: $size bytes ($(ls "$out/captures" | wc -l) captures)"
if [ "$size" -gt "$limit" ]; then
  echo "[gpu-check-prepare] ERROR: $size bytes is over the 64 MiB the device call carries" >&2
  exit 2
fi
