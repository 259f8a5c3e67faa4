#!/usr/bin/env bash
# scanmd vs LAMMPS for pair_style eam on the same work: LAMMPS's bench/in.eam (Cu, Cu_u3.eam,
# fcc 3.615 Å, 20x20x20 cells = 32 000 atoms, 1600 K, skin 1 Å, dt 5 fs, NVE) against
# inputs/cu_eam.toml, on 1 and 2 ranks. LAMMPS runs three ways: scanmd's rebuild rule
# (neigh_modify every 1 delay 0 check yes), its shipped schedule (every 1 delay 5 check yes) and
# -sf opt (eam/opt) with scanmd's rule. Particle-steps/s, median of `runs` alternating runs, and
# the ratio scanmd / LAMMPS (same rule). Target (issue 28): >= 1.5x on 1 and 2 ranks.
#
#   bash bench/compare_eam.sh [runs=3] [steps=100] [exe=build/app/scanmd]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
steps=${2:-100}
exe=$(realpath "${3:-build/app/scanmd}")
deck=$(realpath inputs/cu_eam.toml)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
pot=${LAMMPS_POTENTIALS:-/usr/share/lammps/potentials}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
natoms=32000

cat > "$tmp/in.eam" <<IN
units           metal
atom_style      atomic
lattice         fcc 3.615
region          box block 0 20 0 20 0 20
create_box      1 box
create_atoms    1 box
pair_style      eam
pair_coeff      1 1 $pot/Cu_u3.eam
velocity        all create 1600.0 376847 loop geom
neighbor        1.0 bin
neigh_modify    every 1 delay \${delay} check yes
fix             1 all nve
timestep        0.005
thermo          $steps
run             $steps
IN

psteps() { awk -v n="$natoms" -v s="$steps" '/^Loop time of/ {printf "%.4g\n", n * s / $4; exit}' "$1"; }
run_lammps() {  # ranks delay sf
  local sfargs=()
  [[ -n "$3" ]] && sfargs=(-sf "$3")
  mpiexec --oversubscribe -n "$1" lmp "${sfargs[@]}" -var delay "$2" -in "$tmp/in.eam" \
    -log none -nocite -screen "$tmp/lmp.out" > /dev/null
  psteps "$tmp/lmp.out"
}
run_scanmd() {  # ranks
  (cd "$tmp" && mpiexec --oversubscribe -n "$1" "$exe" run "$deck" --set run.steps="$steps" \
    --set run.backend=host --set output.thermo_every=0 > "$tmp/scanmd.out" 2>&1)
  psteps "$tmp/scanmd.out"
}
median() { sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

printf '%-6s %14s %14s %14s %14s %8s\n' ranks scanmd "lammps(rule)" "lammps(ship)" "lammps(opt)" ratio
for ranks in 1 2; do
  : > "$tmp/s"; : > "$tmp/l"; : > "$tmp/d"; : > "$tmp/o"
  for ((r = 0; r < runs; ++r)); do
    run_scanmd "$ranks" >> "$tmp/s"
    run_lammps "$ranks" 0 "" >> "$tmp/l"
    run_lammps "$ranks" 5 "" >> "$tmp/d"
    run_lammps "$ranks" 0 opt >> "$tmp/o"
  done
  s=$(median < "$tmp/s") l=$(median < "$tmp/l") d=$(median < "$tmp/d") o=$(median < "$tmp/o")
  printf '%-6s %14s %14s %14s %14s %8.2f\n' "$ranks" "$s" "$l" "$d" "$o" \
    "$(awk -v a="$s" -v b="$l" 'BEGIN {print a / b}')"
done
echo "(particle-steps/s, median of $runs; ratio = scanmd / LAMMPS with the same rebuild rule)"
