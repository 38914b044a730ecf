#!/usr/bin/env bash
# gpu-check.sh: everything that needs a GPU, in one run (under 8 minutes on an H200), on a machine with
# nvcc 13 and driver 580 but no Java, no Maven and no network. gpu-check-prepare.sh builds what it needs
# into gpu-node/target/gpu-check (the device call carries that folder); results go to $OUT.
#   0. profiling permission (RmProfilingAdminOnly) and MIG mode, then pcdiag (src/main/native/pcdiag.c):
#      each case in its own process under a 30 s limit, one summary line per case
#   1. every prepared capture (both examples; the corpus at -O2, wave32 and wave64, when prepared) through
#      replay run --device cuda against the host model (exit 0 = equal), and the device's ranges against the
#      host outputs prepared on the build machine (cmp)
#   2. the sampling benchmark (Tier A against sampling off: the figures seed 000 could not measure)
#   3. the CUPTI shim's real configure/start/stop/drain and the PC-to-guest mapping (by cubinCrc) on the
#      shadow pass (Tier A on a GPU node inside replay run; report.json's sampling section and
#      hot_guest_instructions)
#   4. a loopback cluster with a real GPU node: coordinator+eval node, gpu node, replay submit --device cuda
# What comes back from the device call is at most 8 files, 2 folders down: so $OUT gets summary.txt (PASS/FAIL
# per step, the benchmark's overhead line, the time taken), machine.txt, and results.tar.xz (every step's
# output and report.json). Each step's time limit comes out of one budget (GPU_CHECK_BUDGET_S, 480 s), so the
# script ends, packed, inside the device call's limit even when a step hangs. Exits 1 when a step failed.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
prep="$root/gpu-node/target/gpu-check"
OUT="${OUT:-/tmp/gpu-check-out}"
mkdir -p "$OUT"
summary="$OUT/summary.txt"
: > "$summary"
started=$(date +%s)
budget="${GPU_CHECK_BUDGET_S:-480}"
deadline=$((started + budget - 25)) # 25 s kept for the cluster's shutdown and the packing
note() { echo "$*" | tee -a "$summary"; }
# a step's limit: at most $1 seconds, and never past the deadline (at least 5 s)
limit() { local left=$((deadline - $(date +%s))); [ "$left" -lt 5 ] && left=5; [ "$1" -lt "$left" ] && echo "$1" || echo "$left"; }
if [ ! -f "$prep/runtime.tar.xz" ]; then
  note "FAIL prepare: $prep/runtime.tar.xz is missing (run gpu-node/gpu-check-prepare.sh on the build machine and carry gpu-node/target/gpu-check)"
  exit 2
fi
work="${TMPDIR:-/tmp}/replay-gpu-check"
rm -rf "$work" && mkdir -p "$work/results"
res="$work/results"
pack() { tar -C "$work" -cJf "$OUT/results.tar.xz" results 2>/dev/null; }
trap pack EXIT
tar -C "$work" -xJf "$prep/runtime.tar.xz"
java="$work/jre/bin/java"
jar="$work/dist/replay.jar"
cp_all="$work/dist/replay.jar:$work/dist/lib/*"
export REPLAY_CUDA_CACHE="$work/cuda-cache" REPLAY_CUDA_CPU_CACHE="$work/cpu-cache" REPLAY_LOG_LEVEL=WARN
# the CUPTI shim finds libcupti (and CUPTI the nvperf libraries) where the CUDA toolkit keeps them
for d in /usr/local/cuda/lib64 /usr/local/cuda/extras/CUPTI/lib64 /usr/local/cuda/targets/x86_64-linux/lib; do
  [ -d "$d" ] && export LD_LIBRARY_PATH="$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
done
shim="$prep/libreplaycupti.so"
replay() { "$java" -Dreplay.gpu.sampling.cupti-library="$shim" -jar "$jar" "$@"; }
export -f replay
export java jar shim res LD_LIBRARY_PATH
{ nvidia-smi; nvcc --version; echo "--- ldd $shim"; ldd "$shim"; echo "--- $java"; "$java" -version; } \
    > "$OUT/machine.txt" 2>&1
note "machine: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -1)"
grep -q "not found" <(ldd "$shim" 2>&1) && note "WARN the CUPTI shim has unresolved libraries (machine.txt)"

# 0. PC sampling's facts first: the machine's profiling permission and MIG mode, then pcdiag, one case per
#    process under its own time limit (the reference order, the variants that decide the open questions,
#    the shim's own steps); at most 8 x 20 s, its output in results/pcdiag.txt and one line per case here
{ echo "RmProfilingAdminOnly: $(grep RmProfilingAdminOnly /proc/driver/nvidia/params 2>/dev/null || echo '(not readable)')";
  echo "MIG: $(nvidia-smi --query-gpu=mig.mode.current --format=csv,noheader 2>/dev/null | head -1)";
  nvidia-smi -q 2>/dev/null | grep -iE 'MIG Mode|Product Name' -A1 | head -8; } > "$res/permissions.txt" 2>&1
note "profiling: $(head -1 "$res/permissions.txt" | cut -c1-120); $(sed -n 2p "$res/permissions.txt" | cut -c1-80)"
pcdiag="$prep/pcdiag"
ptx="$root/gpu-node/src/main/resources/org/replayfarm/gpunode/sampling/spin.ptx"
if [ -x "$pcdiag" ]; then
  for c in support ref armed modfirst samebuf zerocount actafter shim; do
    { echo "=== pcdiag $c"; timeout -k 2 "$(limit 20)" "$pcdiag" "$c" "$ptx"; echo "=== exit $?"; } >> "$res/pcdiag.txt" 2>&1
    line=$(sed -n "/^=== pcdiag $c\$/,/^=== exit/p" "$res/pcdiag.txt" | grep -m1 -E '^PCDIAG|timeout' | cut -c1-300)
    note "pcdiag $c: ${line:-no summary line (results/pcdiag.txt)}"
  done
else
  note "FAIL pcdiag: $pcdiag is missing (gpu-check-prepare.sh copies it from the gpu-node build)"
fi

# 1. every capture through --device cuda, six at a time
mkdir -p "$res/runs"
run_one() {
  local dir="$1" t="$2" name
  name="$(basename "$dir")"
  timeout "$t" bash -c 'replay run "$0/k.capture" --every-group --device cuda --no-progress --no-metrics --out "$1"' \
      "$dir" "$res/runs/$name" > "$res/runs/$name.txt" 2>&1
  local rc=$? extra=""
  if [ $rc -eq 0 ] && [ -d "$dir/host" ]; then
    for h in "$dir/host"/guest-*.bin; do
      [ -e "$h" ] || continue
      cmp -s "$h" "$res/runs/$name/device/$(basename "$h")" || { extra=" (device $(basename "$h") differs from the prepared host output)"; rc=1; }
    done
  fi
  rm -rf "$res/runs/$name/device" "$res/runs/$name/host" # the outputs were compared; keep the report and the log
  if [ $rc -eq 0 ]; then echo "PASS cuda $name"; else echo "FAIL cuda $name: exit $rc$extra: $(grep -m1 -E 'replay:|ERROR' "$res/runs/$name.txt" | cut -c1-200)"; fi
}
export -f run_one
t1=$(limit 240)
ls -d "$prep/captures"/*/ | sed 's#/$##' | xargs -P 6 -I{} bash -c 'run_one "$1" "$2"' _ {} "$t1" | sort | tee -a "$summary" > "$res/cuda-runs.txt"
note "cuda runs: $(grep -c '^PASS' "$res/cuda-runs.txt") passed, $(grep -c '^FAIL' "$res/cuda-runs.txt") failed"

# 2. the sampling benchmark
timeout "$(limit 150)" "$java" -cp "$cp_all" org.replayfarm.gpunode.sampling.SamplingBenchmark --shim "$shim" --launches 1000 \
    > "$res/sampling-benchmark.txt" 2>&1
rc=$?
# a benchmark whose Tier A sampled nothing measured no sampling: it fails (the first GPU run passed with bursts 0)
if [ $rc -eq 0 ] && grep -qE 'tier A: .*bursts [0-9]+' "$res/sampling-benchmark.txt" \
    && ! grep -qE 'tier A: .*bursts 0,|start failures [1-9]' "$res/sampling-benchmark.txt"; then
  note "PASS sampling benchmark: $(grep overhead "$res/sampling-benchmark.txt")"
elif [ $rc -eq 0 ]; then
  note "FAIL sampling benchmark: Tier A did not sample: $(grep 'tier A' "$res/sampling-benchmark.txt" | cut -c1-200); $(grep -m1 -iE 'error' "$res/sampling-benchmark.txt" | cut -c1-200)"
else note "FAIL sampling benchmark: exit $rc: $(grep -m1 -iE 'error|cupti|needs' "$res/sampling-benchmark.txt" | cut -c1-200)"; fi

# 3. CUPTI on real launches and PC samples traced to guest instructions (shadow pass, Tier A)
REPLAY_GPU_PC_SAMPLING=serialized timeout "$(limit 150)" bash -c 'replay run "$0" --every-group --device cuda --no-progress --no-metrics --out "$1"' \
    "$prep/captures/shadow-pass/k.capture" "$res/sampled" > "$res/sampled.txt" 2>&1
rc=$?
rm -rf "$res/sampled/device" "$res/sampled/host"
report="$res/sampled/report.json"
if [ $rc -eq 0 ] && grep -Eq '"hot_guest_instructions" ?: ?\[ ?\{' "$report" && grep -Eq '"bursts" ?: ?[1-9]' "$report"; then
  note "PASS CUPTI start/stop/drain and PC-to-guest mapping (results/sampled/report.json)"
else
  note "FAIL CUPTI/PC-to-guest: exit $rc, hot_guest_instructions $(grep -Ec '"hot_guest_instructions" ?: ?\[ ?\{' "$report" 2>/dev/null): $(grep -m1 -E 'CUPTI|cupti|CRC|sampling' "$res/sampled.txt" | cut -c1-200)"
fi

# 4. a loopback cluster with a real GPU node
"$java" -jar "$jar" node --role coordinator,eval --port 25520 --http-port 18080 --no-metrics > "$res/node-coordinator.txt" 2>&1 &
c_pid=$!
"$java" -jar "$jar" node --role gpu --port 25521 --seed 127.0.0.1:25520 --no-metrics > "$res/node-gpu.txt" 2>&1 &
g_pid=$!
# both nodes print their "node ... roles [...]" line once started; then a moment for the GPU node to be up
for _ in $(seq 1 "$(limit 90)"); do
  grep -q "roles \[coordinator" "$res/node-coordinator.txt" && grep -q "roles \[gpu\]" "$res/node-gpu.txt" && break
  sleep 1
done
sleep 3
job=$(timeout "$(limit 60)" "$java" -jar "$jar" submit "$prep/captures/shadow-pass/k.capture" --coordinator http://127.0.0.1:18080 \
    --every-group --device cuda 2> "$res/cluster-submit.txt")
timeout "$(limit 180)" "$java" -jar "$jar" watch "$job" --coordinator http://127.0.0.1:18080 > "$res/cluster-watch.txt" 2>&1
rc=$?
timeout "$(limit 60)" "$java" -jar "$jar" results "$job" --coordinator http://127.0.0.1:18080 --out "$res/cluster" > "$res/cluster-results.txt" 2>&1
rm -rf "$res/cluster/device" "$res/cluster/host"
if [ $rc -eq 0 ] && grep -Eq '"kind" ?: ?"cuda"' "$res/cluster/report.json" 2>/dev/null; then
  note "PASS loopback cluster with a GPU node (job $job)"
else
  note "FAIL loopback cluster: watch exit $rc: $(cat "$res/cluster-submit.txt" "$res/cluster-watch.txt" 2>/dev/null | grep -m1 -E 'replay:|error|failed' | cut -c1-200)"
fi
kill "$g_pid" 2>/dev/null; wait "$g_pid" 2>/dev/null
kill "$c_pid" 2>/dev/null; wait "$c_pid" 2>/dev/null

note "took $(( $(date +%s) - started )) s (budget $budget s)"
pack
trap - EXIT
grep -q '^FAIL' "$summary" && exit 1
exit 0
