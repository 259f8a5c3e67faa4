#!/usr/bin/env bash
# Threads against ranks and neutral territory against half shell on 2 cores (issue 33 targets:
# 1 rank x 2 threads >= 0.95x 2 ranks x 1; neutral territory on 2 ranks >= 0.9x half shell), on
# the in.lj melt (inputs/lj_melt.toml: 32 000 atoms, r_c 2.5, skin 0.3), the host backend.
#
#   bash bench/compare_threads_nt.sh [runs=5] [steps=200] [exe=build/app/scanmd] [base_exe]
#
# Cases, alternated run by run (each run takes its turn after the others, so a load that comes
# and goes hits them alike): 1 rank x 1 thread, 2 ranks half shell, 2 ranks neutral territory,
# 1 rank x 2 threads (OMP_NUM_THREADS=2, mpirun --map-by slot:PE=2); with base_exe also its 2
# ranks neutral territory and 1 x 2 threads (before / after). Prints per case the median and the
# best particle-steps/s, the median seconds of the pair, neigh and comm phases (max over ranks,
# the end-of-run timer report) and the load average while it ran; then the two ratios from the
# medians, from the best runs and as the median of each round's own ratio (a drift of the
# machine's speed between rounds cancels in it). SCANMD_PAIR_KERNEL (e.g. avx512) pins the
# kernels: the run's own kernel trial is timed on a loaded machine too and may pick the slower
# one. DECK (a path from the repository's root, e.g. inputs/cu_eam.toml) runs another deck than
# the melt.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
steps=${2:-200}
exe=$(realpath "${3:-build/app/scanmd}")
base=${4:-}
[[ -n "$base" ]] && base=$(realpath "$base")
deck=$(realpath "${DECK:-inputs/lj_melt.toml}")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cases=("$exe 1 1 half-shell" "$exe 2 1 half-shell" "$exe 2 1 neutral-territory"
       "$exe 1 2 half-shell")
names=("1x1 half-shell" "2x1 half-shell" "2x1 neutral-territory" "1x2 half-shell")
if [[ -n "$base" ]]; then
  cases+=("$base 2 1 neutral-territory" "$base 1 2 half-shell")
  names+=("base 2x1 neutral-territory" "base 1x2 half-shell")
fi

for ((r = 0; r < runs; ++r)); do
  for c in "${!cases[@]}"; do
    read -r e ranks threads method <<<"${cases[$c]}"
    (cd "$tmp" && OMP_NUM_THREADS=$threads mpirun -x SCANMD_PAIR_KERNEL --oversubscribe \
       --map-by "slot:PE=$threads" -np "$ranks" "$e" run "$deck" --set run.steps="$steps" \
       --set decomposition.method=\""$method"\" --set run.backend=host \
       --set output.trajectory=\"\" --set output.checkpoint=\"\" >"$tmp/log" 2>&1)
    load=$(cut -d' ' -f1 /proc/loadavg)
    awk -v c="$c" -v loadavg="$load" '
      /^Performance:/ {ps = $2}
      /^(pair|neigh|comm) / {t[$1] = $7}
      /^state hash:/ {h = $3}
      END {print c, ps, t["pair"], t["neigh"], t["comm"], loadavg, h}' "$tmp/log" >>"$tmp/rows"
    echo "$r $c $(awk '/^Performance:/ {print $2}' "$tmp/log")" >>"$tmp/rounds"
  done
done

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
col() { awk -v c="$1" -v k="$2" '$1 == c {print $k}' "$tmp/rows"; }
printf "%-28s %12s %12s %8s %8s %8s %14s %s\n" case "median ps/s" "best ps/s" pair neigh comm \
  "load avg" "state hash"
declare -A med best
for c in "${!cases[@]}"; do
  med[$c]=$(col "$c" 2 | median)
  best[$c]=$(col "$c" 2 | sort -g | tail -1)
  printf "%-28s %12.4g %12.4g %8.3g %8.3g %8.3g %14s %s\n" "${names[$c]}" "${med[$c]}" \
    "${best[$c]}" "$(col "$c" 3 | median)" "$(col "$c" 4 | median)" "$(col "$c" 5 | median)" \
    "$(col "$c" 6 | sort -g | head -1)-$(col "$c" 6 | sort -g | tail -1)" \
    "$(col "$c" 7 | sort -u | tr '\n' ' ')"
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", a / b}'; }
# The ratio within each round (the cases ran one after the other, minutes apart at most), then
# its median over the rounds: a drift of the machine's speed between rounds cancels.
paired() {
  awk -v a="$1" -v b="$2" '$2 == a {x[$1] = $3} $2 == b {y[$1] = $3}
    END {for (r in x) if (y[r] > 0) print x[r] / y[r]}' "$tmp/rounds" | median
}
echo "1x2 threads / 2x1 ranks (half shell): $(ratio "${med[3]}" "${med[1]}") (medians)," \
  "$(ratio "${best[3]}" "${best[1]}") (best runs), $(paired 3 1 | xargs printf %.3f) (median of" \
  "the rounds' ratios); target >= 0.95"
echo "neutral territory / half shell on 2 ranks: $(ratio "${med[2]}" "${med[1]}") (medians)," \
  "$(ratio "${best[2]}" "${best[1]}") (best runs), $(paired 2 1 | xargs printf %.3f) (median of" \
  "the rounds' ratios); target >= 0.9"
if [[ -n "$base" ]]; then
  echo "base: threads / ranks $(ratio "${med[5]}" "${med[1]}"), neutral territory / half shell" \
    "$(ratio "${med[4]}" "${med[1]}") (medians, against this build's half shell)"
fi
echo "($runs alternating runs of $steps steps each; pair/neigh/comm: median seconds, the max over"
echo " ranks of the end-of-run timer report; load avg: the 1-minute load average after each run)"
