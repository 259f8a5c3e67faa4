#!/usr/bin/env bash
# bench/md/run.sh — the CUDA time step on the HOOMD-blue MDPairLJ decks (64 000, 1 M, 8 M
# particles, one rank, one GPU): steps/s, particle-steps/s and the time per phase, next to the
# anchor and the targets; then the neighbour-list placement comparison (bench_md_neighbors).
#
#   anchor   HOOMD-blue 5.x on an A100, MDPairLJ N = 64 000: ~4400 steps/s = 2.8e8 particle-steps/s
#   targets  H200: >= 8000 steps/s at N = 64 000; >= 1e9 particle-steps/s at N = 1 M
#
# Environment (all optional):
#   SCANMD     the scanmd binary (default: build/app/scanmd, then build-gpu/dist/scanmd)
#   NEIGHBORS  the bench_md_neighbors binary (default: next to SCANMD, or build/bench/md/)
#   LAUNCH     a launcher prefix, e.g. "mpirun -np 1" (default: none, MPI singleton)
#   SIZES      which decks, default "64000 1m 8m"
#   STEPS_64000, STEPS_1M, STEPS_8M   steps per run (default 5000, 1000, 200)
#   LOGDIR     where the full logs go (default: a temporary directory, printed)
# Without a usable GPU every run prints why it was skipped; the exit status is then 0.
# Exit status: 1 if a run failed (other than for lack of a GPU), else 0. Targets missed are
# reported, not failed.
set -uo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
SCANMD=${SCANMD:-}
if [[ -z $SCANMD ]]; then
  for c in "$ROOT/build/app/scanmd" "$ROOT/build-gpu/dist/scanmd"; do
    [[ -x $c ]] && { SCANMD=$c; break; }
  done
fi
[[ -n $SCANMD && -x $SCANMD ]] || { echo "bench/md: no scanmd binary (set SCANMD)" >&2; exit 1; }
NEIGHBORS=${NEIGHBORS:-}
if [[ -z $NEIGHBORS ]]; then
  for c in "$(dirname "$SCANMD")/bench_md_neighbors" "$ROOT/build/bench/md/bench_md_neighbors"; do
    [[ -x $c ]] && { NEIGHBORS=$c; break; }
  done
fi
read -r -a LAUNCH_CMD <<<"${LAUNCH:-}"
SIZES=${SIZES:-"64000 1m 8m"}
LOGDIR=${LOGDIR:-$(mktemp -d /tmp/bench-md.XXXXXX)}
mkdir -p "$LOGDIR"
status=0

steps_for() {
  case $1 in
    64000) echo "${STEPS_64000:-5000}" ;;
    1m) echo "${STEPS_1M:-1000}" ;;
    8m) echo "${STEPS_8M:-200}" ;;
  esac
}
deck_for() {
  case $1 in
    64000) echo "$HERE/lj_64000.toml" ;;
    1m) echo "$HERE/lj_1m.toml" ;;
    8m) echo "$HERE/lj_8m.toml" ;;
  esac
}

# "Section | min | avg | max | %total" rows of the end-of-run table → "pair 41.2% neigh 30.1% ..."
phase_summary() {
  awk -F'|' '/^(pair|neigh|comm|  fwd|  rev|  migr|  plan|output|other) *\|/ {
      name=$1; gsub(/ /, "", name); avg=$3; gsub(/ /, "", avg); pct=$5; gsub(/ /, "", pct);
      printf "%s %.3fs (%s%%)  ", name, avg, pct }' "$1"
}

echo "== bench/md: $("${LAUNCH_CMD[@]}" "$SCANMD" info 2>&1 | tr '\n' ' ' | sed 's/  */ /g')"
echo "== logs in $LOGDIR"
echo "   anchor: HOOMD-blue 5.x, A100, N = 64000: ~4400 steps/s = 2.8e8 particle-steps/s"
echo "   target: H200: >= 8000 steps/s at N = 64000, >= 1e9 particle-steps/s at N = 1M"
for size in $SIZES; do
  deck=$(deck_for "$size")
  steps=$(steps_for "$size")
  [[ -n $deck ]] || { echo "bench/md: unknown size $size" >&2; status=1; continue; }
  log=$LOGDIR/md-$size.log
  start=$(date +%s)
  "${LAUNCH_CMD[@]}" "$SCANMD" run "$deck" --backend cuda --set run.steps="$steps" >"$log" 2>&1
  rc=$?
  wall=$(($(date +%s) - start))
  if [[ $rc -ne 0 ]]; then
    if grep -q "no usable GPU" "$log"; then
      echo "-- $size: skipped: $(grep -m1 -o 'no usable GPU.*' "$log")"
    else
      echo "-- $size: FAILED (exit $rc), last lines of $log:"
      tail -n 15 "$log" | sed 's/^/   /'
      status=1
    fi
    continue
  fi
  perf=$(grep -m1 -o 'Performance: .*' "$log")
  pps=$(sed -n 's/.*Performance: \([0-9.e+]*\) particle-steps\/s, \([0-9.e+]*\) steps\/s.*/\1/p' "$log" | head -1)
  sps=$(sed -n 's/.*Performance: \([0-9.e+]*\) particle-steps\/s, \([0-9.e+]*\) steps\/s.*/\2/p' "$log" | head -1)
  n=$(grep -m1 -o 'with [0-9]* particles' "$log" | tr -dc 0-9)
  rebuilds=$(grep -m1 -o 'Neighbor list rebuilds: [0-9]*' "$log" | tr -dc 0-9)
  echo "-- $size: N = $n, $steps steps (${wall}s wall incl. setup), $rebuilds rebuilds: $perf"
  echo "   phases: $(phase_summary "$log")"
  verdict=""
  case $size in
    64000) verdict=$(awk -v s="$sps" 'BEGIN { printf "%s target 8000 steps/s (%.2fx); %.2fx the A100 anchor", (s >= 8000 ? "MEETS" : "misses"), s / 8000, s / 4400 }') ;;
    1m) verdict=$(awk -v p="$pps" 'BEGIN { printf "%s target 1e9 particle-steps/s (%.2fx)", (p >= 1e9 ? "MEETS" : "misses"), p / 1e9 }') ;;
  esac
  [[ -n $verdict ]] && echo "   $verdict"
  grep -m1 'backend:' "$log" | sed 's/^.*backend:/   backend:/'
done

echo "== neighbour-list placement: segmented scan vs atomic row counters (device time, median)"
if [[ -n $NEIGHBORS && -x $NEIGHBORS ]]; then
  for spec in "20 20 40" "63 63 63"; do
    # shellcheck disable=SC2086
    "${LAUNCH_CMD[@]}" "$NEIGHBORS" $spec 15 1.0 2>&1 | sed 's/^/   /' || status=1
  done
else
  echo "   bench_md_neighbors not found (set NEIGHBORS)"
fi
exit $status
