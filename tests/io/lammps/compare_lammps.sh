#!/usr/bin/env bash
# scanmd vs LAMMPS from the same LAMMPS data file (issue 5): in a temporary directory, Debian's
# LAMMPS (`lmp`) builds a 4000-atom fcc LJ melt and write_data's it; then LAMMPS and scanmd
# (`system.data_file`) each run the same 300 NVE steps from that file, and thermo pe, ke, etotal
# and press at steps 0, 50, ..., 300 must agree. scanmd is also run on 2 ranks and must print
# the same state hash as on 1 rank.
#
# Usage: compare_lammps.sh --scanmd EXE [--mpiexec "mpiexec -n"] [--mpi-flags "--oversubscribe"]
#                          [--shifted | --small] [--expect-mismatch] [--set section.key=value]...
#   --shifted          the box is [-L/2, L/2) and LAMMPS runs 200 steps before write_data, so
#                      the file has a non-zero lo, wrapped positions and non-zero image flags
#   --small            1×2×3 cells (24 atoms, box 1.68 × 3.36 × 5.04): shorter than
#                      2·(cutoff + skin) = 5.6 along every axis and than the cutoff along x,
#                      so each atom interacts with several images of others and its own
#   --set              passed on to scanmd only (e.g. potential.cutoff=2.4 to break the match)
#   --expect-mismatch  succeed only if the thermo comparison FAILS (checks that it can fail);
#                      the 2-rank run is then skipped
# LAMMPS: $SCANMD_LMP, else `lmp` on PATH. Missing LAMMPS is a failure, not a skip.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../../support/thermo_compare.sh"

scanmd="" mpiexec="" mpi_flags="" expect_mismatch=0 shifted=0 small=0
sets=()
while (($#)); do
  case "$1" in
    --scanmd) scanmd="$2"; shift 2 ;;
    --mpiexec) mpiexec="$2"; shift 2 ;;
    --mpi-flags) mpi_flags="$2"; shift 2 ;;
    --expect-mismatch) expect_mismatch=1; shift ;;
    --shifted) shifted=1; shift ;;
    --small) small=1; shift ;;
    --set) sets+=(--set "$2"); shift 2 ;;
    *) echo "compare_lammps.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[[ -x "$scanmd" ]] || { echo "FAIL: scanmd executable '$scanmd' not found" >&2; exit 1; }

find_lmp

enter_work lammps

# 1. The starting configuration, written by LAMMPS (Pair Coeffs included: the reader skips it).
if ((shifted)); then
  region="-5 5 -5 5 -5 5" prerun="fix 1 all nve"$'\n'"run 200"
elif ((small)); then
  region="0 1 0 2 0 3" prerun=""
else
  region="0 10 0 10 0 10" prerun=""
fi
cat > in.create <<EOF
units           lj
atom_style      atomic
lattice         fcc 0.8442
region          box block $region
create_box      1 box
create_atoms    1 box
mass            1 1.0
velocity        all create 1.44 87287 loop geom
pair_style      lj/cut 2.5
pair_coeff      1 1 1.0 1.0 2.5
neighbor        0.3 bin
neigh_modify    delay 0 every 1 check yes
timestep        0.005
$prerun
write_data      melt.data
EOF
"$lmp" -in in.create -log create.log -screen none -nocite ||
  { echo "FAIL: LAMMPS could not write the data file (create.log):" >&2; cat create.log >&2; exit 1; }

# 2. LAMMPS NVE from the data file (pair_style first: the file has a Pair Coeffs section).
cat > in.run <<'EOF'
units           lj
atom_style      atomic
pair_style      lj/cut 2.5
read_data       melt.data
pair_coeff      1 1 1.0 1.0 2.5
neighbor        0.3 bin
neigh_modify    delay 0 every 1 check yes
fix             1 all nve
timestep        0.005
thermo_style    custom step pe ke etotal press
thermo_modify   format float %.15g
thermo          50
run             300
EOF
"$lmp" -in in.run -log run.log -screen none -nocite ||
  { echo "FAIL: LAMMPS run failed (run.log):" >&2; cat run.log >&2; exit 1; }
awk '/^ *Step +PotEng +KinEng +TotEng +Press/ {on = 1; next} /^Loop time/ {on = 0}
     on && NF == 5 && $1 ~ /^[0-9]+$/ {print $1, $2, $3, $4, $5}' run.log > lammps.thermo

# 3. scanmd, same case.
cat > deck.toml <<'EOF'
[system]
data_file = "melt.data"

[potential]
cutoff = 2.5
shift = false

[neighbor]
skin = 0.3

[run]
dt = 0.005
steps = 300
backend = "host"

[output]
thermo_every = 50
thermo_digits = 12
EOF
# Thermo rows: step temp pe ke etotal press pstep/s eta -> step pe ke etotal press.
scanmd_thermo() {
  awk '/^ *step +temp +pe +ke +etotal +press/ {on = 1; next} /^Loop time/ {on = 0}
       on && NF >= 6 && $1 ~ /^[0-9]+$/ {print $1, $3, $4, $5, $6}' "$1"
}

if ! "$scanmd" run deck.toml "${sets[@]}" > scanmd1.log 2>&1; then
  echo "FAIL: scanmd run deck.toml exited non-zero:" >&2; cat scanmd1.log >&2; exit 1
fi
scanmd_thermo scanmd1.log > scanmd1.thermo

# 4. Compare. pe, ke, etotal: |scanmd - lammps| <= 1e-7 |lammps|. press: the sum of a kinetic
# and a virial term of opposite sign, each O(1..10) ε/σ³ here, and it crosses 0 during the
# melt, so a relative bound on press itself would demand absurd accuracy near 0; the error
# is bounded relative to the scale of its terms instead: |Δp| <= 1e-7 max(|p|, 1).
# (scanmd prints 12 significant digits, LAMMPS 15; the differences seen are ~1e-11.)
status=0
compare_thermo lammps.thermo scanmd1.thermo 1e-7 50 7 pe ke etotal press || status=$?
judge_comparison "$status" "$expect_mismatch" "scanmd ${sets[*]}" "$work"

# 5. Same state on 2 ranks as on 1.
if [[ -n "$mpiexec" ]]; then
  read -r -a mpi <<< "$mpiexec"
  read -r -a flags <<< "$mpi_flags"
  if ! "${mpi[@]}" 2 "${flags[@]}" "$scanmd" run deck.toml "${sets[@]}" > scanmd2.log 2>&1; then
    echo "FAIL: scanmd on 2 ranks exited non-zero:" >&2; cat scanmd2.log >&2; exit 1
  fi
  h1="$(state_hash scanmd1.log)" h2="$(state_hash scanmd2.log)"
  if [[ -z "$h1" || "$h1" != "$h2" ]]; then
    echo "FAIL: state hash on 1 rank '$h1', on 2 ranks '$h2'" >&2; exit 1
  fi
  scanmd_thermo scanmd2.log > scanmd2.thermo
  if ! cmp -s scanmd1.thermo scanmd2.thermo; then
    echo "FAIL: thermo rows differ between 1 and 2 ranks:" >&2
    diff scanmd1.thermo scanmd2.thermo >&2 || true
    exit 1
  fi
  echo "ok: 1 and 2 ranks give state hash $h1 and the same thermo"
fi
if ((shifted)); then
  echo "ok: scanmd matches LAMMPS (4000 atoms, 300 steps, box [-L/2, L/2), melted start)"
elif ((small)); then
  echo "ok: scanmd matches LAMMPS (24 atoms in a 1.68 x 3.36 x 5.04 box, 300 steps)"
else
  echo "ok: scanmd matches LAMMPS (4000 atoms, 300 steps)"
fi
keep=0
