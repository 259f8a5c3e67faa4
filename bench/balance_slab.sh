#!/usr/bin/env bash
# Load balancing on the liquid–vapour slab (issue 13): the same deck, the same steps, on 2 ranks
# with the grid cut along the slab normal (decomposition.grid = [1, 1, 2]), without and with
# decomposition.balance = "pairs", run back to back `runs` times each. Prints the best loop
# time of each, their ratio, the pairs max/mean over the ranks (mean and worst over the rebuilds of
# each run, from output.imports), and checks that
# both runs give the same state hash. Balance steps every 250 steps with a tolerance of 1.02, so
# that the drift between two of them stays below the 1.05 target.
#
#   bash bench/balance_slab.sh [runs=3] [steps=2000]
#
# Targets: without balancing max/mean pairs >= 1.5; with it <= 1.05 and >= 1.3x faster.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
steps=${2:-2000}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
if [[ ! -x build/app/scanmd ]]; then
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build -j"$(nproc)" --target scanmd >/dev/null
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run() {  # balance → "loop_seconds pairs_max_over_mean hash"
  mpirun --oversubscribe -np 2 build/app/scanmd run inputs/lj_slab.toml \
    --set run.steps="$steps" --set run.backend=host --set output.trajectory=\"\" \
    --set 'decomposition.grid=[1,1,2]' --set decomposition.balance="$1" \
    --set decomposition.balance_every=250 --set decomposition.balance_tolerance=1.02 \
    --set output.imports=\""$tmp/imports.csv"\" >"$tmp/run.log"
  local loop ratio hash
  loop=$(sed -n 's/^Loop time of \([0-9.]*\) s.*/\1/p' "$tmp/run.log")
  # Pairs max/mean over the ranks at every rebuild after setup (output.imports), then the mean
  # and the worst over the rebuilds: the whole run, not only its last step.
  ratio=$(awk -F, 'NR > 2 && $1 > 0 { if ($2 == 0) g++; s[g] += $8; if ($8 > m[g]) m[g] = $8; n[g]++ }
    END { for (k = 1; k <= g; k++) { q = m[k] * n[k] / s[k]; t += q; if (q > w) w = q }
          printf "%.3f/%.3f", t / g, w }' "$tmp/imports.csv")
  hash=$(sed -n 's/^state hash: \([0-9a-f]*\)/\1/p' "$tmp/run.log")
  echo "$loop $ratio $hash"
}

declare -A best ratio hash
for ((r = 0; r < runs; ++r)); do
  for b in none pairs; do
    read -r t q h < <(run "$b")
    echo "run $((r + 1)) balance=$b: loop $t s, pairs max/mean over rebuilds (mean/worst) $q, state hash $h"
    if [[ -z "${best[$b]:-}" ]] || awk -v a="$t" -v b="${best[$b]}" 'BEGIN { exit !(a < b) }'; then
      best[$b]=$t
    fi
    ratio[$b]=$q
    hash[$b]=$h
  done
done
speedup=$(awk -v a="${best[none]}" -v b="${best[pairs]}" 'BEGIN { printf "%.2f", a / b }')
echo "best loop time: none ${best[none]} s, pairs ${best[pairs]} s: ${speedup}x"
echo "pairs max/mean over rebuilds, mean/worst (last run): none ${ratio[none]}, pairs ${ratio[pairs]}"
if [[ "${hash[none]}" != "${hash[pairs]}" ]]; then
  echo "FAIL: state hashes differ (${hash[none]} vs ${hash[pairs]})" >&2
  exit 1
fi
echo "state hash equal: ${hash[none]}"
