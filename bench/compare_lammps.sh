#!/usr/bin/env bash
# scanmd vs LAMMPS on the in.lj melt (32000 atoms, 100 steps): particle-steps/s, ratio, memory.
#
#   bash bench/compare_lammps.sh [runs=3] [steps=100]
#
# Runs inputs/lj_melt.toml with scanmd (half-shell, and on 2 ranks also neutral-territory) and
# bench/lammps_in.lj with Debian's LAMMPS (installed if missing) on 1 and 2 ranks, `runs`
# times each, and reports the best particle-steps/s of each, the ratio scanmd / LAMMPS and the
# peak memory per rank. Builds scanmd in build/ if it is not there. Target: ratio >= 1.0.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
steps=${2:-100}
bash scripts/install-deps.sh --bench >/dev/null
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
if [[ ! -x build/app/scanmd ]]; then
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build -j"$(nproc)" --target scanmd >/dev/null
fi
natoms=32000
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

best() { sort -g | tail -n 1; }

scanmd_run() {  # ranks method → "psteps/s mem_MiB"
  mpirun --oversubscribe -np "$1" build/app/scanmd run inputs/lj_melt.toml \
    --set run.steps="$steps" --set decomposition.method="$2" --set run.backend=host \
    --set output.trajectory=\"\" --set output.checkpoint=\"\" >"$tmp/s.log"
  local ps mem
  ps=$(awk '/^Performance:/ {print $2}' "$tmp/s.log")
  mem=$(awk '/^Peak memory per rank:/ {print $9}' "$tmp/s.log")
  echo "$ps $mem"
}

lammps_run() {  # ranks → "psteps/s mem_MiB"
  (cd "$tmp" && mpirun --oversubscribe -np "$1" lmp -in "$OLDPWD/bench/lammps_in.lj" \
     -var steps "$steps" -log none -screen lmp.log >/dev/null)
  local loop mem
  loop=$(awk '/^Loop time of/ {print $4}' "$tmp/lmp.log")
  mem=$(awk '/Per MPI rank memory allocation/ {print $(NF-1)}' "$tmp/lmp.log")
  awk -v n="$natoms" -v s="$steps" -v t="$loop" -v m="$mem" 'BEGIN {printf "%.6g %s\n", n*s/t, m}'
}

printf "%-6s %-22s %14s %14s %10s %16s\n" ranks case "scanmd ps/s" "LAMMPS ps/s" ratio "memory MiB s/L"
for ranks in 1 2; do
  lmp_ps=""; lmp_mem=""
  for ((r = 0; r < runs; ++r)); do read -r ps mem < <(lammps_run "$ranks"); lmp_ps+="$ps"$'\n'; lmp_mem=$mem; done
  lbest=$(printf "%s" "$lmp_ps" | best)
  methods=(half-shell)
  ((ranks > 1)) && methods+=(neutral-territory)
  for method in "${methods[@]}"; do
    s_ps=""; s_mem=""
    for ((r = 0; r < runs; ++r)); do read -r ps mem < <(scanmd_run "$ranks" "$method"); s_ps+="$ps"$'\n'; s_mem=$mem; done
    sbest=$(printf "%s" "$s_ps" | best)
    ratio=$(awk -v a="$sbest" -v b="$lbest" 'BEGIN {printf "%.2f", a/b}')
    printf "%-6s %-22s %14.4g %14.4g %10s %16s\n" "$ranks" "$method" "$sbest" "$lbest" "$ratio" "$s_mem / $lmp_mem"
  done
done
echo "(best of $runs runs each; ratio = scanmd / LAMMPS particle-steps/s; LAMMPS memory is its own per-rank allocation estimate, scanmd's is peak RSS)"
