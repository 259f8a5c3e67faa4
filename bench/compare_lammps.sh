#!/usr/bin/env bash
# scanmd vs LAMMPS on the in.lj melt, side by side: particle-steps/s (median of `runs`) and peak
# resident memory per rank, both codes measured the same way (/usr/bin/time -f %M around every
# rank).
#
#   bash bench/compare_lammps.sh [runs=3] [steps=100] [sizes="32000 256000"]
#
# Cases, at each size (fcc cells 20 → 32 000 atoms, 40 → 256 000; steps/4 at 256 000):
#   LAMMPS shipped    bench/lammps_in.lj as LAMMPS ships it: neigh_modify every 20 check no
#                     (rebuilds blindly every 20 steps, no safety check)
#   LAMMPS same       every 1 check yes: scanmd's rule (rebuild when a particle moved skin/2)
#   LAMMPS opt        the same rule with -sf opt (pair_style lj/cut/opt)
#   scanmd            half-shell on 1 and 2 ranks, neutral-territory on 2 ranks, and 1 rank x 2
#                     threads (OMP_NUM_THREADS=2), the host backend, the pair kernel it picks
# on 1 and 2 ranks. Ratios: scanmd / LAMMPS on the same rank count (the 1 x 2 threads row is
# compared with LAMMPS on 2 ranks). Targets (issue 14): >= 1.5x LAMMPS same, >= 1.2x LAMMPS opt,
# >= 1.0x LAMMPS shipped; peak RSS <= LAMMPS's.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
steps=${2:-100}
sizes=${3:-"32000 256000"}
bash scripts/install-deps.sh >/dev/null
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
if [[ ! -x build/app/scanmd ]]; then
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build -j"$(nproc)" --target scanmd >/dev/null
fi
exe=$(pwd)/build/app/scanmd
deck=$(pwd)/inputs/lj_melt.toml
lmp_in=$(pwd)/bench/lammps_in.lj
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
# Peak RSS per rank (MiB): the largest of the ranks' /usr/bin/time records.
peak_rss() { cat "$tmp"/rss.* | awk '{m = $1 > m ? $1 : m} END {printf "%.1f", m / 1024}'; rm -f "$tmp"/rss.*; }
# Each rank under /usr/bin/time, its record named by the rank.
timed() { echo /usr/bin/time -f %M -o "$tmp/rss.\$OMPI_COMM_WORLD_RANK"; }

run_scanmd() {  # ranks threads method cells steps → "psteps/s rss"
  local ranks=$1 threads=$2 method=$3 cells=$4 n=$5
  (cd "$tmp" && OMP_NUM_THREADS=$threads mpirun --oversubscribe --map-by "slot:PE=$threads" -np "$ranks" \
     sh -c "$(timed) \"\$@\"" sh "$exe" run "$deck" \
     --set run.steps="$n" --set decomposition.method="$method" --set run.backend=host \
     --set "system.cells=[$cells,$cells,$cells]" \
     --set output.trajectory=\"\" --set output.checkpoint=\"\" >"$tmp/s.log" 2>&1)
  echo "$(awk '/^Performance:/ {print $2}' "$tmp/s.log") $(peak_rss)"
}

run_lammps() {  # ranks every check suffix cells steps → "psteps/s rss"
  local ranks=$1 every=$2 check=$3 sf=$4 cells=$5 n=$6 natoms=$((4 * $5 * $5 * $5))
  local sfargs=()
  [[ -n "$sf" ]] && sfargs=(-sf "$sf")
  (cd "$tmp" && OMP_NUM_THREADS=1 mpirun --oversubscribe -np "$ranks" \
     sh -c "$(timed) \"\$@\"" sh lmp -in "$lmp_in" "${sfargs[@]}" -var steps "$n" \
     -var cells "$cells" -var every "$every" -var check "$check" -log none -screen lmp.log \
     >/dev/null 2>&1)
  local loop
  loop=$(awk '/^Loop time of/ {print $4}' "$tmp/lmp.log")
  awk -v n="$natoms" -v s="$n" -v t="$loop" -v m="$(peak_rss)" 'BEGIN {printf "%.6g %s\n", n*s/t, m}'
}

# Median particle-steps/s and the last peak RSS of `runs` runs of a command.
measure() {
  local ps="" rss=""
  for ((r = 0; r < runs; ++r)); do read -r p m < <("$@"); ps+="$p"$'\n'; rss=$m; done
  echo "$(printf "%s" "$ps" | median) $rss"
}

printf "%-8s %-24s %11s %11s %11s %11s %8s %8s %8s %18s\n" atoms "scanmd case" "scanmd" \
  "L shipped" "L same" "L opt" "/shipped" "/same" "/opt" "RSS MiB s / L same"
for natoms in $sizes; do
  cells=$(awk -v n="$natoms" 'BEGIN {printf "%d", (n / 4) ^ (1 / 3) + 0.5}')
  n=$steps
  ((natoms > 100000)) && n=$((steps / 4 > 10 ? steps / 4 : 10))
  declare -A shipped same opt same_rss
  for ranks in 1 2; do
    read -r shipped[$ranks] _ < <(measure run_lammps "$ranks" 20 no "" "$cells" "$n")
    read -r same[$ranks] same_rss[$ranks] < <(measure run_lammps "$ranks" 1 yes "" "$cells" "$n")
    read -r opt[$ranks] _ < <(measure run_lammps "$ranks" 1 yes opt "$cells" "$n")
  done
  for c in "1 1 half-shell" "2 1 half-shell" "2 1 neutral-territory" "1 2 half-shell"; do
    read -r ranks threads method <<<"$c"
    read -r ps rss < <(measure run_scanmd "$ranks" "$threads" "$method" "$cells" "$n")
    lr=$((ranks * threads))  # LAMMPS on as many cores
    printf "%-8s %-24s %11.4g %11.4g %11.4g %11.4g %8.2f %8.2f %8.2f %18s\n" "$natoms" \
      "${ranks}x${threads} $method" "$ps" "${shipped[$lr]}" "${same[$lr]}" "${opt[$lr]}" \
      "$(awk -v a="$ps" -v b="${shipped[$lr]}" 'BEGIN {print a / b}')" \
      "$(awk -v a="$ps" -v b="${same[$lr]}" 'BEGIN {print a / b}')" \
      "$(awk -v a="$ps" -v b="${opt[$lr]}" 'BEGIN {print a / b}')" "$rss / ${same_rss[$lr]}"
  done
done
echo "(particle-steps/s, median of $runs runs, $steps steps at 32 000 atoms and a quarter of that"
echo " above 100 000; ranks x threads; LAMMPS columns on ranks x threads MPI ranks; RSS: peak"
echo " resident set per rank, /usr/bin/time, scanmd vs LAMMPS same)"
