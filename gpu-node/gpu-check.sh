#!/usr/bin/env bash
# gpu-check.sh: everything in issue 14 that needs a GPU, in one run (under 8 minutes on an H200), on a
# machine with nvcc 13 and driver 580 but no Java, no Maven and no network. gpu-check-prepare.sh builds
# what it needs into gpu-node/target/gpu-check (the device call carries that folder); results go to $OUT.
#   1. every prepared capture (both examples; the corpus at -O2, wave32 and wave64, when prepared) through
#      replay run --device cuda against the host model (exit 0 = equal), and the device's ranges against the
#      host outputs prepared on the build machine (cmp)
#   2. the sampling benchmark (Tier A against sampling off: the figures seed 000 could not measure)
#   3. the CUPTI shim's real configure/start/stop/drain and the PC-to-guest mapping on the shadow pass
#      (Tier A on a GPU node inside replay run; report.json's sampling section and hot_guest_instructions)
#   4. a loopback cluster with a real GPU node: coordinator+eval node, gpu node, replay submit --device cuda
# Writes $OUT/summary.txt (PASS/FAIL per step) and each step's output; exits 1 when a step failed.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
prep="$root/gpu-node/target/gpu-check"
OUT="${OUT:-/tmp/gpu-check-out}"
mkdir -p "$OUT"
summary="$OUT/summary.txt"
: > "$summary"
note() { echo "$*" | tee -a "$summary"; }
started=$(date +%s)
if [ ! -f "$prep/runtime.tar.xz" ]; then
  note "FAIL prepare: $prep/runtime.tar.xz is missing (run gpu-node/gpu-check-prepare.sh on the build machine and carry gpu-node/target/gpu-check)"
  exit 2
fi
work="${TMPDIR:-/tmp}/replay-gpu-check"
rm -rf "$work" && mkdir -p "$work"
tar -C "$work" -xJf "$prep/runtime.tar.xz"
java="$work/jre/bin/java"
jar="$work/dist/replay.jar"
cp_all="$work/dist/replay.jar:$work/dist/lib/*"
export REPLAY_CUDA_CACHE="$work/cuda-cache" REPLAY_CUDA_CPU_CACHE="$work/cpu-cache" REPLAY_LOG_LEVEL=WARN
shim="$prep/libreplaycupti.so"
replay() { "$java" -Dreplay.gpu.sampling.cupti-library="$shim" -jar "$jar" "$@"; }
export -f replay
export java jar shim
{ nvidia-smi; nvcc --version; } > "$OUT/machine.txt" 2>&1
note "machine: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -1)"

# 1. every capture through --device cuda, six at a time
mkdir -p "$OUT/runs"
run_one() {
  local dir="$1" name
  name="$(basename "$dir")"
  timeout 240 bash -c 'replay run "$0/k.capture" --every-group --device cuda --no-progress --no-metrics --out "$1"' \
      "$dir" "$OUT/runs/$name" > "$OUT/runs/$name.txt" 2>&1
  local rc=$? extra=""
  if [ $rc -eq 0 ] && [ -d "$dir/host" ]; then
    for h in "$dir/host"/guest-*.bin; do
      [ -e "$h" ] || continue
      cmp -s "$h" "$OUT/runs/$name/device/$(basename "$h")" || { extra=" (device $(basename "$h") differs from the prepared host output)"; rc=1; }
    done
  fi
  if [ $rc -eq 0 ]; then echo "PASS cuda $name"; else echo "FAIL cuda $name: exit $rc$extra (runs/$name.txt)"; fi
}
export -f run_one
export OUT
ls -d "$prep/captures"/*/ | sed 's#/$##' | xargs -P 6 -I{} bash -c 'run_one "$1"' _ {} | sort | tee -a "$summary" > "$OUT/cuda-runs.txt"
note "cuda runs: $(grep -c '^PASS' "$OUT/cuda-runs.txt") passed, $(grep -c '^FAIL' "$OUT/cuda-runs.txt") failed"

# 2. the sampling benchmark
timeout 180 "$java" -cp "$cp_all" org.replayfarm.gpunode.sampling.SamplingBenchmark --shim "$shim" --launches 1000 \
    > "$OUT/sampling-benchmark.txt" 2>&1
rc=$?
if [ $rc -eq 0 ]; then note "PASS sampling benchmark: $(grep overhead "$OUT/sampling-benchmark.txt")"; else note "FAIL sampling benchmark: exit $rc"; fi

# 3. CUPTI on real launches and PC samples traced to guest instructions (shadow pass, Tier A)
REPLAY_GPU_PC_SAMPLING=serialized timeout 240 bash -c 'replay run "$0" --every-group --device cuda --no-progress --no-metrics --out "$1"' \
    "$prep/captures/shadow-pass/k.capture" "$OUT/sampled" > "$OUT/sampled.txt" 2>&1
rc=$?
report="$OUT/sampled/report.json"
if [ $rc -eq 0 ] && grep -Eq '"hot_guest_instructions" ?: ?\[ ?\{' "$report" && grep -Eq '"bursts" ?: ?[1-9]' "$report"; then
  note "PASS CUPTI start/stop/drain and PC-to-guest mapping (sampled/report.json)"
else
  note "FAIL CUPTI/PC-to-guest: exit $rc, hot_guest_instructions $(grep -Ec '"hot_guest_instructions" ?: ?\[ ?\{' "$report" 2>/dev/null), see sampled.txt"
fi

# 4. a loopback cluster with a real GPU node
"$java" -jar "$jar" node --role coordinator,eval --port 25520 --http-port 18080 --no-metrics > "$OUT/node-coordinator.txt" 2>&1 &
c_pid=$!
"$java" -jar "$jar" node --role gpu --port 25521 --seed 127.0.0.1:25520 --no-metrics > "$OUT/node-gpu.txt" 2>&1 &
g_pid=$!
sleep 15
job=$(timeout 60 "$java" -jar "$jar" submit "$prep/captures/shadow-pass/k.capture" --coordinator http://127.0.0.1:18080 \
    --every-group --device cuda 2> "$OUT/cluster-submit.txt")
timeout 240 "$java" -jar "$jar" watch "$job" --coordinator http://127.0.0.1:18080 > "$OUT/cluster-watch.txt" 2>&1
rc=$?
timeout 60 "$java" -jar "$jar" results "$job" --coordinator http://127.0.0.1:18080 --out "$OUT/cluster" > "$OUT/cluster-results.txt" 2>&1
if [ $rc -eq 0 ] && grep -Eq '"kind" ?: ?"cuda"' "$OUT/cluster/report.json" 2>/dev/null; then
  note "PASS loopback cluster with a GPU node (job $job)"
else
  note "FAIL loopback cluster: watch exit $rc (cluster-*.txt, node-*.txt)"
fi
kill "$g_pid" 2>/dev/null; wait "$g_pid" 2>/dev/null
kill "$c_pid" 2>/dev/null; wait "$c_pid" 2>/dev/null

note "took $(( $(date +%s) - started )) s"
grep -q '^FAIL' "$summary" && exit 1
exit 0
