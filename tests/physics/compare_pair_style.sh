#!/usr/bin/env bash
# scanmd vs LAMMPS for one pair style, from the same disordered liquid. In a temporary directory
# Debian's LAMMPS (`lmp`) melts an fcc lattice of 4000 atoms (10x10x10 cells) under a Langevin
# bath with the style itself and write_data's it; then LAMMPS and scanmd (system.data_file) each
# run 100 NVE steps from that file, thermo every 10, and pe, ke, etotal and press at steps
# 0..100 must agree to 1e-9 relative (press: relative to max(|p|, 1), a sum of terms of opposite
# sign); further on, chaos would amplify the last digits. scanmd is also run on 2 ranks with
# another decomposition and must give the same state hash as on 1 rank.
#
# Usage: compare_pair_style.sh --scanmd EXE --name NAME --lmp "LINE" [--lmp "LINE"]...
#          --potential "TOML" [--types N] [--density RHO] [--temperature T] [--dt DT]
#          [--units lj|metal|real] [--mass M] [--skin S] [--damp TAU]
#          [--cells C] [--set KEY=VALUE]... [--mpiexec "mpiexec -n" --mpi-flags "..."]
#          [--expect-mismatch]
#   --lmp LINE        a LAMMPS line of the potential (pair_style, pair_coeff, pair_modify)
#   --potential TOML  the body of scanmd's [potential] section (and [[potential.pair]] tables)
#   --types N         atom types (N > 1: about 20% of type 2, the rest 1; masses M)
#   --units U         LAMMPS `units` and scanmd's system.units (default lj): in metal and real
#                     --density is still a number density (LAMMPS's lattice gets the constant
#                     (4/ρ)^(1/3)), energies are totals (thermo_modify norm no, both programs)
#   --mass M          the mass of every type (default 1; g/mol in metal and real)
#   --skin S, --damp TAU  neighbour skin (default 0.3) and the melt's Langevin damping (0.1)
#   --cells C         fcc unit cells per edge (default 10: 4000 atoms)
#   --fix LINE        LAMMPS's integrator of the compared run (default "fix 1 all nve"), e.g.
#                     "fix 1 all nvt temp 150 150 0.2 tchain 3" with scanmd's thermostat given
#                     by --set
#   --set KEY=VALUE   passed to scanmd only (--set), e.g. a coefficient off by 1% for
#                     --expect-mismatch, which succeeds only when the comparison fails
# LAMMPS: $SCANMD_LMP, else `lmp` on PATH; missing LAMMPS is a failure, not a skip.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../support/thermo_compare.sh"

scanmd="" name="" potential="" types=1 density=0.8442 temperature=1.5 dt=0.005
units=lj mass=1.0 skin=0.3 damp=0.1 fix_line="fix 1 all nve" cells=10
mpiexec="" mpi_flags="" expect_mismatch=0
lmp_lines=() sets=()
while (($#)); do
  case "$1" in
    --scanmd) scanmd="$2"; shift 2 ;;
    --name) name="$2"; shift 2 ;;
    --lmp) lmp_lines+=("$2"); shift 2 ;;
    --potential) potential="$2"; shift 2 ;;
    --types) types="$2"; shift 2 ;;
    --density) density="$2"; shift 2 ;;
    --temperature) temperature="$2"; shift 2 ;;
    --dt) dt="$2"; shift 2 ;;
    --units) units="$2"; shift 2 ;;
    --mass) mass="$2"; shift 2 ;;
    --skin) skin="$2"; shift 2 ;;
    --damp) damp="$2"; shift 2 ;;
    --cells) cells="$2"; shift 2 ;;
    --fix) fix_line="$2"; shift 2 ;;
    --set) sets+=(--set "$2"); shift 2 ;;
    --mpiexec) mpiexec="$2"; shift 2 ;;
    --mpi-flags) mpi_flags="$2"; shift 2 ;;
    --expect-mismatch) expect_mismatch=1; shift ;;
    *) echo "compare_pair_style.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[[ -x "$scanmd" ]] || { echo "FAIL: scanmd executable '$scanmd' not found" >&2; exit 1; }
[[ "$scanmd" == /* ]] || scanmd="$PWD/$scanmd"
find_lmp

tol=1e-9
enter_work style
pair_lines=$(printf '%s\n' "${lmp_lines[@]}")
# read_data wants the pair style before the file's Pair Coeffs section, the coefficients after.
style_line=$(printf '%s\n' "${lmp_lines[@]}" | grep '^pair_style' || true)
coeff_lines=$(printf '%s\n' "${lmp_lines[@]}" | grep -v '^pair_style' || true)
masses=$(for ((t = 1; t <= types; ++t)); do echo "mass $t $mass"; done)
# LAMMPS's lattice takes the reduced density in lj, the lattice constant otherwise.
lattice_arg=$density
[[ "$units" == lj ]] || lattice_arg=$(awk -v r="$density" 'BEGIN { printf "%.17g", (4 / r) ^ (1 / 3) }')
units_line=""
[[ "$units" == lj ]] || units_line="units = \"$units\""
retype=""
((types > 1)) && retype="set type 1 type/fraction 2 0.2 4928459"

# 1. The liquid, melted by LAMMPS with the style itself.
cat > in.create <<EOF
units           $units
atom_style      atomic
lattice         fcc $lattice_arg
region          box block 0 $cells 0 $cells 0 $cells
create_box      $types box
create_atoms    1 box
$retype
$masses
velocity        all create $temperature 87287 loop geom
$pair_lines
neighbor        $skin bin
neigh_modify    delay 0 every 1 check yes
timestep        $dt
fix             1 all langevin $temperature $temperature $damp 62311
fix             2 all nve
run             300
unfix           1
unfix           2
write_data      liquid.data
EOF
"$lmp" -in in.create -log create.log -screen none -nocite ||
  { echo "FAIL: LAMMPS could not melt the liquid (create.log):" >&2; tail -20 create.log >&2; exit 1; }

# 2. LAMMPS NVE from the data file.
cat > in.run <<EOF
units           $units
atom_style      atomic
$style_line
read_data       liquid.data
$coeff_lines
neighbor        $skin bin
neigh_modify    delay 0 every 1 check yes
$fix_line
timestep        $dt
thermo_style    custom step pe ke etotal press
thermo_modify   format float %.15g
thermo          10
run             100
EOF
"$lmp" -in in.run -log run.log -screen none -nocite ||
  { echo "FAIL: LAMMPS run failed (run.log):" >&2; tail -20 run.log >&2; exit 1; }
awk '/^ *Step +PotEng +KinEng +TotEng +Press/ {on = 1; next} /^Loop time/ {on = 0}
     on && NF == 5 && $1 ~ /^[0-9]+$/ && $1 <= 100 {print $1, $2, $3, $4, $5}' run.log > lammps.thermo

# 3. scanmd, same case.
printf '[system]\n%s\ndata_file = "liquid.data"\n\n[potential]\n%s\n\n[neighbor]\nskin = %s\n\n[run]\ndt = %s\nsteps = 100\nbackend = "host"\n\n[output]\nthermo_every = 10\nthermo_digits = 12\n' \
  "$units_line" "$potential" "$skin" "$dt" > deck.toml
scanmd_thermo() {
  awk '/^ *step +temp +pe +ke +etotal +press/ {on = 1; next} /^Loop time/ {on = 0}
       on && NF >= 6 && $1 ~ /^[0-9]+$/ && $1 <= 100 {print $1, $3, $4, $5, $6}' "$1"
}
if ! "$scanmd" run deck.toml "${sets[@]}" > scanmd1.log 2>&1; then
  echo "FAIL: scanmd run deck.toml exited non-zero:" >&2; cat scanmd1.log >&2; exit 1
fi
scanmd_thermo scanmd1.log > scanmd1.thermo

# 4. Compare steps 0..100.
status=0
compare_thermo lammps.thermo scanmd1.thermo "$tol" 10 11 pe ke etotal press || status=$?
judge_comparison "$status" "$expect_mismatch" "$name ${sets[*]}" "$work"

# 5. The same state on 2 ranks (neutral territory) as on 1 rank.
if [[ -n "$mpiexec" ]]; then
  read -r -a mpi <<< "$mpiexec"
  read -r -a flags <<< "$mpi_flags"
  if ! "${mpi[@]}" 2 "${flags[@]}" "$scanmd" run deck.toml "${sets[@]}" \
      --set decomposition.method=neutral-territory > scanmd2.log 2>&1; then
    echo "FAIL: scanmd on 2 ranks exited non-zero:" >&2; cat scanmd2.log >&2; exit 1
  fi
  h1=$(state_hash scanmd1.log) h2=$(state_hash scanmd2.log)
  if [[ -z "$h1" || "$h1" != "$h2" ]]; then
    echo "FAIL: state hash on 1 rank ($h1) differs from 2 ranks, neutral territory ($h2)" >&2
    exit 1
  fi
  echo "state hash $h1 on 1 rank and on 2 ranks (neutral territory)"
fi
echo "ok: $name agrees with LAMMPS to $tol (steps 0..100)"
keep=0
