#!/usr/bin/env bash
# test-gpu-check-bundle — build-aux/gpu-check --bundle DIR, against the fake
# driver (fake-cuda.c, which builds each job's kernels for the CPU with g++
# from the bundle's kernels/) and a fake nvidia-smi that lists one GPU.
#
# The fake driver runs f32 programs only, so the check times an f32 copy of
# rms_norm at 4×64 instead of the five f16 workloads, its vendor baseline
# through the fake cuBLASLt; torch (no PyTorch here) is skipped by request,
# and calibrate runs against the fakes (its figures mean nothing there).
# Four runs:
#   1. everything else measured: exit 0, every step ok, bench and search
#      JSON merged into gpu-report.json, the baselines and the best candidate
#      side by side, search-results.tar.gz;
#   2. PRISM_FAKE_CUDA_CORRUPT=1 (wrong outputs): the smoke step fails, the
#      rest is not run, exit 1, and the report names what was not measured;
#   3. torch not skipped (no torch-baseline or no PyTorch/CUDA here): exit 1,
#      torch named as not measured;
#   4. no GPU at all (nvidia-smi lists none, no driver): exit 0, "no GPU".
# Each run: at most 8 files in $OUT, plain names, gpu-report.json parses.
# Skipped (77) without g++ or NVRTC (the worker compiles with the real NVRTC).
#
# Arguments: prism, prism-gpu-worker, libfakecuda.so, libfakecublaslt.so,
# libfakenvml.so.
#
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
prism=$1
worker=$2
fake=$3
fake_lt=${4:-}
fake_nvml=${5:-}
src=${PRISM_SOURCE_DIR:?}
build=$(cd "$(dirname "$prism")/../.." && pwd)

fail () { echo "FAIL: $*"; exit 1; }
ok () { echo "ok: $*"; }

if [ ! -x "$worker" ] || [ ! -f "$fake" ] || [ ! -f "$fake_lt" ] || [ ! -f "$fake_nvml" ]; then
  fail "usage: $0 PRISM PRISM-GPU-WORKER LIBFAKECUDA LIBFAKECUBLASLT LIBFAKENVML"
fi
command -v g++ > /dev/null || { echo "skipped: the fake driver needs g++"; exit 77; }
command -v python3 > /dev/null || fail "python3 is missing (gpu-check needs it)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/prism-gpu-check-bundle-XXXXXX")
[ -n "${PRISM_KEEP_TMP:-}" ] || trap 'rm -rf "$tmp"' EXIT
bundle="$tmp/bundle"
"$src/build-aux/gpu-bundle" --from-build "$build" "$bundle" > "$tmp/bundle.log" 2>&1 ||
  { cat "$tmp/bundle.log"; fail "gpu-bundle --from-build failed"; }

# An f32 program for the fake driver.
program="$tmp/rms_norm_f32.json"
"$prism" check rms_norm:n=4,d=64 --json | sed 's/"f16"/"f32"/g' > "$program"
"$prism" check "$program" > /dev/null || fail "the f32 program does not check"

# nvidia-smi with one GPU, and one with none.
mkdir -p "$tmp/gpu-bin" "$tmp/no-gpu-bin"
cat > "$tmp/gpu-bin/nvidia-smi" <<'SH'
#!/bin/sh
# A stand-in nvidia-smi that lists one GPU.
for a in "$@"; do
  case "$a" in
    -L) echo "GPU 0: Fake GPU (UUID: GPU-00000000-0000-0000-0000-000000000000)"; exit 0 ;;
    --query-gpu=name) q=name ;;
    --query-gpu=driver_version) q=driver ;;
    --query-gpu=*) q=all ;;
    --format=csv,noheader) h=no ;;
  esac
done
[ "${h:-yes}" = yes ] && echo "name, driver_version, memory.total [MiB], clocks.max.sm [MHz], clocks.max.memory [MHz], clocks.sm [MHz], clocks.mem [MHz]"
case "${q:-all}" in
  name) echo "Fake GPU" ;;
  driver) echo "580.00" ;;
  *) echo "Fake GPU, 580.00, 1024 MiB, 1980 MHz, 3201 MHz, 345 MHz, 3201 MHz" ;;
esac
SH
cat > "$tmp/no-gpu-bin/nvidia-smi" <<'SH'
#!/bin/sh
echo "No devices were found"
exit 6
SH
chmod +x "$tmp/gpu-bin/nvidia-smi" "$tmp/no-gpu-bin/nvidia-smi"

fake_env=(PRISM_CUDA_LIBRARY="$fake" PRISM_FAKE_CUDA_KERNELS="$bundle/kernels"
          PRISM_CUBLASLT_LIBRARY="$fake_lt" PRISM_NVML_LIBRARY="$fake_nvml")

# The fake driver must be usable: NVRTC loads and a program is timed.
env "${fake_env[@]}" "$bundle/bin/prism" bench "$program" --format json --min-time 1 > "$tmp/probe.json" 2> "$tmp/probe.log"
if ! python3 -c 'import json, sys; sys.exit(0 if json.load(open(sys.argv[1]))["gpu"] else 1)' "$tmp/probe.json" 2> /dev/null; then
  echo "skipped: the fake driver is not usable here (NVRTC?): $(cat "$tmp/probe.json" "$tmp/probe.log")"
  exit 77
fi

# run NAME EXPECTED-STATUS PATH-PREFIX ENV…: gpu-check --bundle with OUT=$tmp/NAME.
run () {
  local name=$1 want=$2 bin=$3 rc
  shift 3
  mkdir -p "$tmp/$name"
  env PATH="$bin:$PATH" OUT="$tmp/$name" PRISM_GPU_CHECK_WORKLOADS="$program" PRISM_GPU_CHECK_SMOKE="$program" \
    PRISM_GPU_CHECK_TUNE_TOP=1 PRISM_SEARCH_SECONDS=3 PRISM_GPU_CHECK_BUDGET=300 "$@" \
    "$src/build-aux/gpu-check" --bundle "$bundle" > "$tmp/$name.log" 2>&1
  rc=$?
  if [ "$rc" -ne "$want" ]; then
    cat "$tmp/$name.log"
    cat "$tmp/$name/gpu-report.md" 2> /dev/null
    fail "run $name: gpu-check exited with $rc, not $want"
  fi
  # The files the device tool returns: at most 8, plain names, the reports.
  local n=0 f
  for f in "$tmp/$name"/*; do
    [ -e "$f" ] || continue
    n=$((n + 1))
    [[ "${f##*/}" =~ ^[A-Za-z0-9._-]+$ ]] || fail "run $name: a file name the device tool would not return: ${f##*/}"
    [ -f "$f" ] || fail "run $name: ${f##*/} is not a plain file"
  done
  [ "$n" -le 8 ] || fail "run $name: $n files in OUT, more than 8"
  [ -s "$tmp/$name/gpu-report.md" ] || fail "run $name: no gpu-report.md"
  python3 -m json.tool "$tmp/$name/gpu-report.json" > /dev/null || fail "run $name: gpu-report.json does not parse"
  ok "run $name: exit $rc, $n files: $(find "$tmp/$name" -mindepth 1 -printf '%f ')"
}

# Asserts on gpu-report.json: a Python expression over `r` (the report) and
# `steps` (name → step).
check () {
  python3 - "$tmp/$1/gpu-report.json" "$2" <<'PY' || { cat "$tmp/$1/gpu-report.md"; fail "run $1: $2"; }
import json, sys
r = json.load(open(sys.argv[1]))
steps = {s["name"]: s for s in r["steps"]}
sys.exit(0 if eval(sys.argv[2]) else 1)
PY
}

# 1. Everything measured -----------------------------------------------------------
run measured 0 "$tmp/gpu-bin" "${fake_env[@]}" PRISM_GPU_CHECK_SKIP=torch PRISM_GPU_CHECK_GEMM_SHAPES=8x64x64
check measured 'r["finished"] and r["exit_status"] == 0 and r["all_measured"] and r["not_measured"] == [] and r["gpu"]["present"]'
check measured '[s["name"] for s in r["steps"]] == ["machine", "smoke", "calibrate", "bench rms_norm_f32", "search rms_norm_f32", "torch"]'
check measured 'all(s["status"] == "ok" or s.get("requested") for s in r["steps"])'
check measured 'steps["torch"]["status"] == "skipped" and steps["torch"]["requested"] and steps["calibrate"]["status"] == "ok"'
check measured 'steps["calibrate"]["data"]["format"] == "prism-gpu" and steps["calibrate"]["data"]["calibration"]["measured"]'
check measured 'all(isinstance(s["seconds"], float) and s["message"] for s in r["steps"])'
check measured 'steps["machine"]["data"]["gpus"][0]["name"] == "Fake GPU"'
check measured 'steps["smoke"]["data"]["gpu"] and steps["smoke"]["data"]["programs"][0]["median_us"] > 0'
check measured 'steps["bench rms_norm_f32"]["data"]["gpu"] and steps["bench rms_norm_f32"]["data"]["programs"][0]["median_us"] > 0'
check measured 'steps["bench rms_norm_f32"]["data"]["programs"][0]["max_rel_error"] < 1e-3'
check measured 'steps["search rms_norm_f32"]["data"]["verified"] > 0 and steps["search rms_norm_f32"]["data"]["baseline"]["measured_us"] > 0'
check measured 'len(steps["search rms_norm_f32"]["data"]["measured"]) == 1 and steps["search rms_norm_f32"]["data"]["measured"][0]["measured"]["median_us"] > 0'
check measured 'set(r["files"]) == {"gpu-report.md", "gpu-report.json", "search-results.tar.gz", "gpu-check-logs.tar.gz", "calibration-fake-gpu.json"}'
# The vendor baseline (through the fake cuBLASLt), the prism-lowered one and
# the best candidate side by side, and predicted against measured.
check measured 'r["comparison"]["workloads"]["rms_norm_f32"]["vendor_us"] > 0 and r["comparison"]["workloads"]["rms_norm_f32"]["lowered_us"] > 0'
check measured 'r["comparison"]["workloads"]["rms_norm_f32"]["best_us"] > 0 and r["comparison"]["timed_candidates"] == 1'
check measured 'all(p["measured_over_predicted"] > 0 for p in r["comparison"]["predicted_vs_measured"])'
grep -q '^## Beside the baselines' "$tmp/measured/gpu-report.md" || fail "run measured: no comparison with the baselines"
grep -q '^## Predicted against measured' "$tmp/measured/gpu-report.md" || fail "run measured: no predicted against measured"
tar -tzf "$tmp/measured/search-results.tar.gz" | grep -q 'search-results/rms_norm_f32/results.json' ||
  fail "run measured: search-results.tar.gz holds no results.json"
grep -q 'everything was measured' "$tmp/measured/gpu-report.md" || fail "run measured: the report does not say everything was measured"
grep -q '^| bench rms_norm_f32 | ok |' "$tmp/measured/gpu-report.md" || fail "run measured: no bench row in the report"
grep -q 'skipped by request' "$tmp/measured/gpu-report.md" || fail "run measured: the report does not say what was skipped by request"
grep -q 'measured the vendor baseline' "$tmp/measured/gpu-report.md" || fail "run measured: the search's GPU lines are not in the report"
grep -q "Device: Fake CUDA device" "$tmp/measured/gpu-report.md" || fail "run measured: no bench table in the report"
grep -qi "gpu-check.*report:" "$tmp/measured.log" || fail "run measured: no report line"
ok "everything measured: $(grep -c '' "$tmp/measured/gpu-report.md") report lines"

# 2. A wrong kernel: the smoke step fails, nothing else runs ------------------------
run corrupt 1 "$tmp/gpu-bin" "${fake_env[@]}" PRISM_FAKE_CUDA_CORRUPT=1 PRISM_GPU_CHECK_SKIP=torch,calibrate
check corrupt 'r["exit_status"] == 1 and not r["all_measured"] and steps["smoke"]["status"] == "failed"'
check corrupt 'r["not_measured"] == ["smoke", "bench rms_norm_f32", "search rms_norm_f32"]'
check corrupt '"differ" in steps["smoke"]["message"] or "error" in steps["smoke"]["message"]'
check corrupt 'steps["bench rms_norm_f32"]["status"] == "skipped" and "smoke" in steps["bench rms_norm_f32"]["message"]'
grep -q 'NOT EVERYTHING WAS MEASURED.*smoke (failed).*bench rms_norm_f32 (skipped)' "$tmp/corrupt/gpu-report.md" ||
  fail "run corrupt: the report does not name what was not measured"
ok "a wrong kernel: $(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["steps"][1]["message"][:160])' "$tmp/corrupt/gpu-report.json")"

# 3. A measurement missing: torch not skipped ---------------------------------------
run torch 1 "$tmp/gpu-bin" "${fake_env[@]}" PRISM_GPU_CHECK_SKIP=calibrate,bench,search
check torch 'r["exit_status"] == 1 and r["not_measured"] == ["torch"] and steps["torch"]["status"] in ("not-measured", "failed")'
check torch 'steps["smoke"]["status"] == "ok" and steps["bench rms_norm_f32"]["requested"]'
grep -q 'not measured: torch' "$tmp/torch/gpu-report.md" || fail "run torch: the report does not name torch"
ok "a missing measurement: torch: $(python3 -c 'import json, sys; print([s for s in json.load(open(sys.argv[1]))["steps"] if s["name"] == "torch"][0]["message"][:160])' "$tmp/torch/gpu-report.json")"

# 4. No GPU at all --------------------------------------------------------------------
run no-gpu 0 "$tmp/no-gpu-bin" PRISM_CUDA_LIBRARY="$tmp/no-such-libcuda.so.1"
check no-gpu 'r["exit_status"] == 0 and not r["gpu"]["present"] and not r["all_measured"] and steps["smoke"]["status"] == "ok"'
check no-gpu 'all(s["status"] == "not-measured" for s in r["steps"][2:])'
grep -q 'no GPU' "$tmp/no-gpu/gpu-report.md" || fail "run no-gpu: the report does not say there is no GPU"
ok "no GPU: exit 0"

echo "all passed"
exit 0
