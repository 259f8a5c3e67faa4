#!/usr/bin/env bash
# tests/gpu/sanitize.sh TOOL PROBE GPU_SIM — compute-sanitizer (memcheck or racecheck) on the
# short CUDA run CudaSanitize.* of gpu_sim (every kernel of the LJ time step and the
# kernels/cuda primitives it calls).
# tests/gpu/sanitize.sh TOOL PROBE -- COMMAND... — the same on any command, e.g.
# `scanmd run deck.toml --backend cuda` (scripts/gpu-check.sh: each interaction's kernels). Exit 0: clean; 1: errors reported; 77: skipped (no usable
# GPU, or no compute-sanitizer), with the reason on stdout.
# compute-sanitizer is looked up as $SCANMD_COMPUTE_SANITIZER, then on PATH, then in the CUDA
# toolkit's /usr/local/cuda/{bin,compute-sanitizer}.
set -uo pipefail
tool=${1:?tool}; probe=${2:?gpu_probe}; sim=${3:?gpu_sim or --}
shift 3
cmd=("$sim" --gtest_filter='CudaSanitize.*' --gtest_color=no)
[[ $sim == -- ]] && cmd=("$@")
if ! reason=$("$probe"); then
  echo "SKIPPED: $reason"
  exit 77
fi
san=${SCANMD_COMPUTE_SANITIZER:-}
[[ -n $san ]] || san=$(command -v compute-sanitizer || true)
for c in /usr/local/cuda/bin/compute-sanitizer /usr/local/cuda/compute-sanitizer/compute-sanitizer; do
  [[ -z $san && -x $c ]] && san=$c
done
if [[ -z $san || ! -x $san ]]; then
  echo "SKIPPED: no compute-sanitizer (set SCANMD_COMPUTE_SANITIZER, or install the CUDA toolkit's)"
  exit 77
fi
echo "$reason; $san --tool $tool"
extra=()
[[ $tool == racecheck ]] && extra=(--racecheck-report all)
[[ $tool == memcheck ]] && extra=(--leak-check full)
"$san" --tool "$tool" "${extra[@]}" --error-exitcode 1 --print-limit 50 "${cmd[@]}"
rc=$?
[[ $rc -eq 0 ]] && echo "compute-sanitizer $tool: clean" || echo "compute-sanitizer $tool: FAILED ($rc)"
exit $rc
