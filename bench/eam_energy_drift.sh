#!/usr/bin/env bash
# Energy conservation of EAM against LAMMPS on the same run (issue 28): LAMMPS builds
# bench/in.eam's start (Cu, Cu_u3.eam, fcc 3.615 Å, 1600 K, `velocity ... loop geom`) and
# write_data's it; LAMMPS (pair_style eam, neigh_modify every 1 delay 0 check yes) and scanmd
# (system.data_file) then run the same NVE steps (dt 5 fs, skin 1 Å) with thermo every 100.
# Reported per program: the drift of etotal per atom (least-squares slope over the second half of
# the run, eV/atom/ps) and its largest excursion from the value at step 0 (eV/atom). Passes when
# scanmd's |slope| is not beyond LAMMPS's + 1e-6 eV/atom/ps (the fit's noise floor on this run).
#
#   bash bench/eam_energy_drift.sh [cells=20] [steps=10000] [ranks=1] [exe=build/app/scanmd]
set -euo pipefail
cd "$(dirname "$0")/.."
cells=${1:-20}
steps=${2:-10000}
ranks=${3:-1}
exe=$(realpath "${4:-build/app/scanmd}")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
pot=${LAMMPS_POTENTIALS:-/usr/share/lammps/potentials}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

cat > in.create <<IN
units           metal
atom_style      atomic
lattice         fcc 3.615
region          box block 0 $cells 0 $cells 0 $cells
create_box      1 box
create_atoms    1 box
pair_style      eam
pair_coeff      1 1 $pot/Cu_u3.eam
velocity        all create 1600.0 376847 loop geom
write_data      start.data
IN
lmp -in in.create -log none -screen none -nocite
cat > in.run <<IN
units           metal
atom_style      atomic
pair_style      eam
read_data       start.data
pair_coeff      1 1 $pot/Cu_u3.eam
neighbor        1.0 bin
neigh_modify    every 1 delay 0 check yes
fix             1 all nve
timestep        0.005
thermo_style    custom step pe ke etotal press
thermo_modify   format float %.15g
thermo          100
run             $steps
IN
mpiexec --oversubscribe -n "$ranks" lmp -in in.run -log lmp.log -screen none -nocite
awk '/^ *Step +PotEng/ {on = 1; next} /^Loop time/ {on = 0} on && NF == 5 {print $1, $4}' lmp.log > lmp.e
printf '[system]\nunits = "metal"\ndata_file = "start.data"\n\n[potential]\nstyle = "eam"\nfiles = ["%s/Cu_u3.eam"]\n\n[neighbor]\nskin = 1.0\n\n[run]\ndt = 0.005\nsteps = %s\nbackend = "host"\n\n[output]\nthermo_every = 100\n' \
  "$pot" "$steps" > deck.toml
mpiexec --oversubscribe -n "$ranks" "$exe" run deck.toml > scanmd.log 2>&1
awk '/^ *step +temp +pe/ {on = 1; next} /^Loop time/ {on = 0} on && NF >= 6 && $1 ~ /^[0-9]+$/ {print $1, $5}' scanmd.log > scanmd.e
n=$(awk '/atoms/ && /^ *[0-9]+ atoms$/ {print $1; exit}' start.data)
stats() {  # file → slope (eV/atom/ps) over the second half, max |E - E0| per atom
  awk -v n="$n" -v dt=0.005 -v last="$steps" '
    NR == 1 {e0 = $2}
    { d = ($2 - e0) / n; if (d < 0) d = -d; if (d > dmax) dmax = d
      if ($1 >= last / 2) { t = $1 * dt; y = $2 / n; k++; st += t; sy += y; stt += t * t; sty += t * y } }
    END { slope = (k * sty - st * sy) / (k * stt - st * st); printf "%.3e %.3e\n", slope, dmax }' "$1"
}
read -r ls lm < <(stats lmp.e)
read -r ss sm < <(stats scanmd.e)
printf '%d atoms, %d steps, %d rank(s)\n' "$n" "$steps" "$ranks"
printf '%-8s %24s %24s\n' program "drift (eV/atom/ps)" "max |E-E0| (eV/atom)"
printf '%-8s %24s %24s\n' LAMMPS "$ls" "$lm" scanmd "$ss" "$sm"
awk -v s="$ss" -v l="$ls" 'BEGIN { if (s < 0) s = -s; if (l < 0) l = -l;
  if (s <= l + 1e-6) { print "ok: scanmd drifts no more than LAMMPS"; exit 0 }
  print "FAIL: scanmd drifts more than LAMMPS"; exit 1 }'
