#!/usr/bin/env bash
# Prepares everything gpu-check.sh needs on the GPU machine (no Java, no Maven, no network there) into one
# ignored folder, gpu-node/target/gpu-check, at most 64 MiB (the device call carries it):
#   runtime.tar.xz   a jlinked Java 17 runtime and the distribution's jars (stored, then xz-compressed whole:
#                    class files compress far better solid), jcuda-natives cut to the driver library; the
#                    runtime's modules are the ones jdeps finds the jars need, plus the few that are only
#                    reached as services (jdeps cannot see those), and the runtime is checked to hold them
#   modules.txt      the modules jdeps named and the ones jlink put in the runtime
#   libreplaycupti.so the CUPTI shim built here against CUDA 13's CUPTI
#   pcdiag           the PC-sampling diagnostic gpu-check.sh runs first (built with the shim)
#   captures/        both examples and (with --corpus) every corpus kernel at -O2, wave32 and wave64, each
#                    with the host model's outputs (host/guest-<n>.bin) from replay eval here
#   gpu-check.sh     the check itself
# Then it checks the bundle as the GPU machine will use it: unpacked in a temporary folder and run with no
# Java on PATH and no JAVA_HOME, only the packed runtime, `replay run --device cuda` must reach the no-GPU
# path cleanly (exit 2, "no GPU on this node") here, and a `replay node --role gpu` must start and say why
# it takes no device runs. And the whole device call (this folder plus the working tree that travels with
# it: tracked and untracked-not-ignored files) must stay under 64 MiB.
# Usage: gpu-node/gpu-check-prepare.sh [--corpus]        (from the repository root; Java 17, Maven, clang-19)
#        gpu-node/gpu-check-prepare.sh --check-only      (only the checks above, on what is already prepared)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$root/gpu-node/target/gpu-check"
corpus=no
check_only=no
[ "${1:-}" = "--corpus" ] && corpus=yes
[ "${1:-}" = "--check-only" ] && check_only=yes
limit=$((64 * 1024 * 1024))
cd "$root"
check_bundle() {
  echo "[gpu-check-prepare] the bundle as the GPU machine uses it: no Java on PATH, only the packed runtime"
  sim="$(mktemp -d "${TMPDIR:-/tmp}/gpu-check-sim.XXXXXX")"
  trap 'rm -rf "$sim"' EXIT
  mkdir -p "$sim/bin" "$sim/rt" "$sim/home"
  tar -C "$sim/rt" -xJf "$out/runtime.tar.xz"
  for t in bash sh env cat grep sed sleep timeout kill mkdir rm ls head tail tr cut sort uname; do
    p="$(command -v "$t")" && ln -s "$p" "$sim/bin/$t"
  done
  simrun() { env -i PATH="$sim/bin" HOME="$sim/home" REPLAY_LOG_LEVEL=WARN "$@"; }
  if simrun sh -c 'command -v java' >/dev/null; then
    echo "[gpu-check-prepare] ERROR: the simulated GPU machine still finds a java on PATH" >&2; exit 2
  fi
  set +e
  simrun "$sim/rt/jre/bin/java" -jar "$sim/rt/dist/replay.jar" run "$out/captures/saxpy/k.capture" --device cuda \
      --every-group --no-progress --no-metrics --out "$sim/run" > "$sim/run.txt" 2>&1
  rc=$?
  set -e
  # exit 2 naming the missing GPU here (exit 0 where the build machine has a GPU); never a missing class
  if { [ $rc -ne 0 ] && { [ $rc -ne 2 ] || ! grep -q -- "--device cuda: no GPU on this node" "$sim/run.txt"; }; } \
      || grep -qE "NoClassDefFoundError|ClassNotFoundException|Exception in thread" "$sim/run.txt"; then
    echo "[gpu-check-prepare] ERROR: with the packed runtime, replay run --device cuda did not reach the no-GPU path cleanly (exit $rc):" >&2
    cat "$sim/run.txt" >&2
    exit 2
  fi
  echo "[gpu-check-prepare]   replay run --device cuda: exit $rc, $(head -1 "$sim/run.txt" | cut -c1-150)"
  simrun "$sim/rt/jre/bin/java" -jar "$sim/rt/dist/replay.jar" node --role gpu --port 0 --no-metrics > "$sim/node.txt" 2>&1 &
  node=$!
  for _ in $(seq 1 120); do
    grep -q "roles \[gpu\]" "$sim/node.txt" && break
    kill -0 $node 2>/dev/null || break
    sleep 0.5
  done
  kill $node 2>/dev/null; wait $node 2>/dev/null || true
  if ! grep -q "roles \[gpu\]" "$sim/node.txt" || grep -qE "NoClassDefFoundError|ClassNotFoundException|Exception in thread" "$sim/node.txt"; then
    echo "[gpu-check-prepare] ERROR: with the packed runtime, replay node --role gpu did not start cleanly:" >&2
    cat "$sim/node.txt" >&2
    exit 2
  fi
  echo "[gpu-check-prepare]   replay node --role gpu: $(grep "roles \[gpu\]" "$sim/node.txt" | head -1 | cut -c1-150)"

  size=$(du -sb "$out" | cut -f1)
  # what else travels with the device call: the working tree's tracked and untracked-not-ignored files
  tree=$(git -C "$root" ls-files -z --cached --others --exclude-standard | (cd "$root" && xargs -0 -r du -cb 2>/dev/null) \
      | awk '$2 == "total" { t += $1 } END { print t + 0 }')
  echo "[gpu-check-prepare] $out: $size bytes ($(ls "$out/captures" | wc -l) captures); with the working tree ($tree bytes) the device call carries $((size + tree)) of $limit bytes"
  if [ $((size + tree)) -gt "$limit" ]; then
    echo "[gpu-check-prepare] ERROR: $((size + tree)) bytes is over the 64 MiB the device call carries" >&2
    exit 2
  fi
}
if [ "$check_only" = yes ]; then
  [ -f "$out/runtime.tar.xz" ] || { echo "[gpu-check-prepare] ERROR: nothing prepared in $out" >&2; exit 2; }
  check_bundle
  exit 0
fi
echo "[gpu-check-prepare] building the distribution"
# -DskipTests, not -Dmaven.test.skip: the modules' test jars (model's, gpu-node's) are dependencies of the others,
# and on a machine whose Maven repository has none installed they must be built here
mvn -o -q -B -DskipTests package
rm -rf "$out"
mkdir -p "$out/captures" "$out/stage/lib"
cp gpu-node/gpu-check.sh "$out/gpu-check.sh"
if [ -f gpu-node/target/native/libreplaycupti.so ]; then
  cp gpu-node/target/native/libreplaycupti.so "$out/"
else
  echo "[gpu-check-prepare] WARNING: no CUPTI shim (gpu-node/target/native/libreplaycupti.so); the sampling steps will say so"
fi
if [ -f gpu-node/target/native/pcdiag ]; then
  cp gpu-node/target/native/pcdiag "$out/"
else
  echo "[gpu-check-prepare] WARNING: no pcdiag (gpu-node/target/native/pcdiag); the check's step 0 will say so"
fi
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
echo "[gpu-check-prepare] jdeps (the modules the packed jars need)"
# replay.jar with every packed jar on the class path: --print-module-deps follows the dependences through
# them, so the list covers what the node reaches from its entry point and what its libraries reach
needed=$(jdeps --multi-release 17 -q --ignore-missing-deps --print-module-deps \
    --class-path "$out/stage/dist/lib/*" "$out/stage/dist/replay.jar")
case "$needed" in
  java.base*) ;;
  *) echo "[gpu-check-prepare] ERROR: jdeps gave no module list: $needed" >&2; exit 2 ;;
esac
# reached only as services or by name at run time, which jdeps cannot see: the EC key exchange of TLS
# (Artery TLS, HTTPS), the platform MXBeans of com.sun.management (JVM metrics)
services="jdk.crypto.ec,jdk.management"
echo "[gpu-check-prepare] jlink: $needed + $services"
jlink --add-modules "$needed,$services" \
  --strip-debug --no-man-pages --no-header-files --compress=0 --output "$out/stage/jre" >/dev/null
have=$("$out/stage/jre/bin/java" --list-modules | sed 's/@.*//' | sort)
{ echo "jdeps: $needed"; echo "services: $services"; echo "runtime:"; echo "$have"; } > "$out/modules.txt"
for m in $(echo "$needed,$services" | tr ',' ' '); do
  if ! grep -qx "$m" <<< "$have"; then
    echo "[gpu-check-prepare] ERROR: the jlinked runtime lacks $m, which the jars need (modules.txt)" >&2
    exit 2
  fi
done
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
check_bundle
