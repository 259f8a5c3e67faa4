#!/usr/bin/env bash
# bench/md/ranks.sh — the CUDA backend's rebuilds on several ranks and its launches per step,
# each against the switch that keeps the older way, on one machine:
#
#   rebuild  64 000 / 1 M particles (bench/md decks) on RANKS ranks (default 2, sharing the GPUs
#            round robin), half shell and neutral territory: rebuilds on the device (default)
#            vs SCANMD_CUDA_REBUILD=host (owned particles down, migration and halo plan on the
#            host, everything up again). Prints particle-steps/s, the neigh / migr / plan times
#            and the device-to-host bytes per rebuild (the `-v` line), and the speed-up.
#   fuse     4 000 and 64 000 particles on one rank: the step's zeroing fused into its kernels
#            (default) vs SCANMD_CUDA_FUSE=0 (three more memsets per step): steps/s and ratio —
#            small systems are launch-bound, so that is where fusing shows.
#
# Environment (all optional):
#   SCANMD   the scanmd binary (default: build/app/scanmd, then build-gpu/dist/scanmd)
#   MPIRUN   the mpirun to use (default: mpirun on PATH), with its flags, e.g.
#            "mpirun --allow-run-as-root --oversubscribe"
#   RANKS    ranks of the rebuild runs (default 2)
#   STEPS    steps per run (default 2000; the 1 M runs take a fifth)
#   SIZES    decks of the rebuild runs (default "64000 1m")
#   FUSE_CELLS  lattice cells of the fuse runs (default "10,10,10 20,20,40")
#   LOGDIR   where the full logs go (default: a temporary directory, printed)
# Without a usable GPU every run prints why it was skipped; the exit status is then 0.
# Exit status: 1 if a run failed or the two paths of a comparison gave different state hashes.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
SCANMD=${SCANMD:-}
if [[ -z $SCANMD ]]; then
  for c in "$ROOT/build/app/scanmd" "$ROOT/build-gpu/dist/scanmd"; do
    [[ -x $c ]] && { SCANMD=$c; break; }
  done
fi
[[ -n $SCANMD && -x $SCANMD ]] || { echo "bench/md/ranks: no scanmd binary (set SCANMD)" >&2; exit 1; }
read -r -a MPIRUN_CMD <<<"${MPIRUN:-mpirun --allow-run-as-root --oversubscribe}"
RANKS=${RANKS:-2}
STEPS=${STEPS:-2000}
LOGDIR=${LOGDIR:-$(mktemp -d /tmp/bench-ranks.XXXXXX)}
mkdir -p "$LOGDIR"
status=0
skipped=0

# run NAME RANKS ENV... -- ARGS...: one run; sets pps, sps, phases, d2h, hash (empty on skip).
run() {
  local name=$1 ranks=$2
  shift 2
  local envs=()
  while [[ $1 != -- ]]; do envs+=("$1"); shift; done
  shift
  local log=$LOGDIR/$name.log
  pps="" sps="" phases="" d2h="" hash=""
  env "${envs[@]}" "${MPIRUN_CMD[@]}" -np "$ranks" "$SCANMD" run "$@" --backend cuda -v >"$log" 2>&1
  local rc=$?
  if [[ $rc -ne 0 ]]; then
    if grep -q "no usable GPU" "$log"; then
      [[ $skipped -eq 1 ]] || echo "-- skipped: $(grep -m1 -o 'no usable GPU.*' "$log")"
      skipped=1
    else
      echo "-- $name: FAILED (exit $rc), last lines of $log:"
      tail -n 15 "$log" | sed 's/^/   /'
      status=1
    fi
    return 1
  fi
  pps=$(sed -n 's/.*Performance: \([0-9.e+]*\) particle-steps\/s.*/\1/p' "$log" | head -1)
  sps=$(sed -n 's/.*Performance: [0-9.e+]* particle-steps\/s, \([0-9.e+]*\) steps\/s.*/\1/p' "$log" | head -1)
  phases=$(awk -F'|' '/^(pair|neigh|  migr|  plan) *\|/ {
      name=$1; gsub(/ /, "", name); avg=$3; gsub(/ /, "", avg); printf "%s %.3fs  ", name, avg }' "$log")
  d2h=$(grep -m1 -o 'device to host per rebuild.*' "$log" | sed 's/device to host per rebuild and rank: //')
  hash=$(grep -o 'state hash: [0-9a-f]*' "$log" | tail -1 | awk '{print $3}')
  return 0
}

echo "== bench/md/ranks: $SCANMD, logs in $LOGDIR"
echo "== rebuilds on $RANKS ranks: on the device vs through the host (SCANMD_CUDA_REBUILD=host)"
for size in ${SIZES:-64000 1m}; do
  steps=$STEPS
  [[ $size == 1m ]] && steps=$((STEPS / 5))
  for method in half-shell neutral-territory; do
    args=("$HERE/lj_$size.toml" --set run.steps="$steps" --set decomposition.method="$method")
    run "rebuild-$size-$method-device" "$RANKS" SCANMD_CUDA_REBUILD=device -- "${args[@]}" || continue
    dev_pps=$pps dev_phases=$phases dev_d2h=$d2h dev_hash=$hash
    run "rebuild-$size-$method-host" "$RANKS" SCANMD_CUDA_REBUILD=host -- "${args[@]}" || continue
    echo "-- $size $method, $steps steps:"
    echo "   device: $dev_pps particle-steps/s   $dev_phases"
    echo "           device to host per rebuild: $dev_d2h"
    echo "   host:   $pps particle-steps/s   $phases"
    echo "           device to host per rebuild: $d2h"
    awk -v a="$dev_pps" -v b="$pps" 'BEGIN { printf "   rebuilds on the device: %.2fx the speed through the host\n", a / b }'
    if [[ $dev_hash != "$hash" ]]; then
      echo "   FAILED: state hashes differ ($dev_hash vs $hash)"
      status=1
    fi
  done
done

echo "== launches per step on one rank: fused zeroing vs SCANMD_CUDA_FUSE=0"
for cells in ${FUSE_CELLS:-10,10,10 20,20,40}; do
  args=("$HERE/lj_64000.toml" --set run.steps="$STEPS" --set "system.cells=[$cells]")
  run "fuse-$cells-on" 1 SCANMD_CUDA_FUSE=1 -- "${args[@]}" || continue
  on_sps=$sps on_hash=$hash
  run "fuse-$cells-off" 1 SCANMD_CUDA_FUSE=0 -- "${args[@]}" || continue
  n=$((4 * ${cells//,/*}))
  awk -v n="$n" -v a="$on_sps" -v b="$sps" \
    'BEGIN { printf "-- N = %d: fused %s steps/s, unfused %s steps/s: %.3fx\n", n, a, b, a / b }'
  if [[ $on_hash != "$hash" ]]; then
    echo "   FAILED: state hashes differ ($on_hash vs $hash)"
    status=1
  fi
done
exit $status
