#!/usr/bin/env bash
# Load balancing on the liquid–vapour slab (issue 13): the same deck, the same steps, on 2 ranks
# with the grid cut along the slab normal (decomposition.grid = [1, 1, 2]), without and with
# decomposition.balance = "pairs", run back to back `runs` times each. Prints the best loop
# time of each, their ratio, the pairs max/mean per rank at the end of each run, and checks that
# both runs give the same state hash.
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
    --set decomposition.balance_every=250 >"$tmp/run.log"
  local loop ratio hash
  loop=$(sed -n 's/^Loop time of \([0-9.]*\) s.*/\1/p' "$tmp/run.log")
  ratio=$(sed -n 's/.*pairs .*(max\/mean \([0-9.]*\)).*/\1/p' "$tmp/run.log")
  hash=$(sed -n 's/^state hash: \([0-9a-f]*\)/\1/p' "$tmp/run.log")
  echo "$loop $ratio $hash"
}

declare -A best ratio hash
for ((r = 0; r < runs; ++r)); do
  for b in none pairs; do
    read -r t q h < <(run "$b")
    echo "run $((r + 1)) balance=$b: loop $t s, pairs max/mean $q, state hash $h"
    if [[ -z "${best[$b]:-}" ]] || awk -v a="$t" -v b="${best[$b]}" 'BEGIN { exit !(a < b) }'; then
      best[$b]=$t
    fi
    ratio[$b]=$q
    hash[$b]=$h
  done
done
speedup=$(awk -v a="${best[none]}" -v b="${best[pairs]}" 'BEGIN { printf "%.2f", a / b }')
echo "best loop time: none ${best[none]} s, pairs ${best[pairs]} s: ${speedup}x"
echo "pairs max/mean (last run): none ${ratio[none]}, pairs ${ratio[pairs]}"
if [[ "${hash[none]}" != "${hash[pairs]}" ]]; then
  echo "FAIL: state hashes differ (${hash[none]} vs ${hash[pairs]})" >&2
  exit 1
fi
echo "state hash equal: ${hash[none]}"
