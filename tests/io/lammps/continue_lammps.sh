#!/usr/bin/env bash
# LAMMPS continues from scanmd's output.data_file: in a temporary directory scanmd runs
# data_out.toml (two species, masses 1 and 2, the Kob–Andersen pair table unshifted) and writes
# final.data at its last step; Debian's LAMMPS (`lmp`) then read_data's that file with the same
# pair coefficients and runs 0 steps. Its pe and press must equal scanmd's pe and press of the
# final thermo row to 1e-9 relative (scanmd prints 12 significant digits, LAMMPS 15): positions,
# image flags, types, masses and velocities (the kinetic part of press) must all have come through.
#
# Usage: continue_lammps.sh --scanmd EXE --deck data_out.toml [--mpiexec "mpiexec -n"]
#                           [--mpi-flags "--oversubscribe"] [--expect-mismatch]
#   --mpiexec          run scanmd on 2 ranks (the data file is gathered onto rank 0)
#   --expect-mismatch  LAMMPS gets ε_12 = 1.4 instead of 1.5; succeed only if the comparison
#                      FAILS (checks that it can fail)
# LAMMPS: $SCANMD_LMP, else `lmp` on PATH. Missing LAMMPS is a failure, not a skip.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../../support/thermo_compare.sh"

scanmd="" deck="" mpiexec="" mpi_flags="" expect_mismatch=0
while (($#)); do
  case "$1" in
    --scanmd) scanmd="$2"; shift 2 ;;
    --deck) deck="$2"; shift 2 ;;
    --mpiexec) mpiexec="$2"; shift 2 ;;
    --mpi-flags) mpi_flags="$2"; shift 2 ;;
    --expect-mismatch) expect_mismatch=1; shift ;;
    *) echo "continue_lammps.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[[ -x "$scanmd" ]] || { echo "FAIL: scanmd executable '$scanmd' not found" >&2; exit 1; }
[[ -f "$deck" ]] || { echo "FAIL: deck '$deck' not found" >&2; exit 1; }
deck="$(cd "$(dirname "$deck")" && pwd)/$(basename "$deck")"

find_lmp

enter_work data-out

# 1. scanmd writes final.data (and traj.h5) at its last step.
cmd=("$scanmd" run "$deck")
if [[ -n "$mpiexec" ]]; then
  read -r -a mpi <<< "$mpiexec"
  read -r -a flags <<< "$mpi_flags"
  cmd=("${mpi[@]}" 2 "${flags[@]}" "${cmd[@]}")
fi
if ! "${cmd[@]}" > scanmd.log 2>&1; then
  echo "FAIL: ${cmd[*]} exited non-zero:" >&2; cat scanmd.log >&2; exit 1
fi
[[ -f final.data ]] || { echo "FAIL: scanmd wrote no final.data:" >&2; cat scanmd.log >&2; exit 1; }
# The last thermo row (step temp pe ke etotal press ...): step pe press.
read -r s_step s_pe s_press < <(
  awk '/^ *step +temp +pe +ke +etotal +press/ {on = 1; next} /^Loop time/ {on = 0}
       on && NF >= 6 && $1 ~ /^[0-9]+$/ {last = $1 " " $3 " " $6} END {print last}' scanmd.log) ||
  true
[[ -n "${s_press:-}" ]] || { echo "FAIL: no thermo row in scanmd.log" >&2; exit 1; }
grep -q "data file: wrote final.data (.* atoms, step $s_step)" scanmd.log ||
  { echo "FAIL: no 'data file: wrote final.data (... step $s_step)' line in scanmd.log" >&2; exit 1; }

# 2. LAMMPS: the same pairs (lj/cut is unshifted, as the deck), run 0 from the data file.
eps12=1.5
((expect_mismatch)) && eps12=1.4
cat > in.continue <<EOF
units           lj
atom_style      atomic
pair_style      lj/cut 2.5
read_data       final.data
pair_coeff      1 1 1.0 1.0 2.5
pair_coeff      1 2 $eps12 0.8 2.0
pair_coeff      2 2 0.5 0.88 2.2
neighbor        0.3 bin
thermo_style    custom step pe press
thermo_modify   format float %.15g
run             0
EOF
"$lmp" -in in.continue -log continue.log -screen none -nocite ||
  { echo "FAIL: LAMMPS could not continue from final.data (continue.log):" >&2; cat continue.log >&2; exit 1; }
read -r l_step l_pe l_press < <(
  awk '/^ *Step +PotEng +Press/ {on = 1; next} /^Loop time/ {on = 0}
       on && NF == 3 && $1 ~ /^[0-9]+$/ {print $1, $2, $3}' continue.log) || true
[[ -n "${l_press:-}" ]] || { echo "FAIL: no thermo row in continue.log" >&2; cat continue.log >&2; exit 1; }
atoms="$(sed -n 's/^ *\([0-9]\+\) atoms$/\1/p' continue.log | head -n 1)"
echo "LAMMPS read $atoms atoms from final.data (scanmd step $s_step, LAMMPS step $l_step)"

# 3. Compare: |scanmd - lammps| <= 1e-9 |lammps|.
set +e
awk -v sp="$s_pe" -v lp="$l_pe" -v sq="$s_press" -v lq="$l_press" -v tol=1e-9 '
  function abs(x) { return x < 0 ? -x : x }
  function cmp(name, s, l,   rel, flag) {
    rel = abs(s - l) / abs(l)
    flag = (rel > tol) ? "  <-- exceeds " tol : ""
    printf "%-5s scanmd %22.15g lammps %22.15g rel %.3e%s\n", name, s, l, rel, flag
    return rel <= tol
  }
  BEGIN { ok = cmp("pe", sp, lp); ok = cmp("press", sq, lq) && ok; exit ok ? 0 : 1 }' |
  tee compare.txt
match=${PIPESTATUS[0]}
set -e

if ((expect_mismatch)); then
  if ((match == 0)); then
    echo "FAIL: --expect-mismatch (LAMMPS eps_12 = $eps12): the comparison passed, it should not" >&2
    exit 1
  fi
  echo "ok: the comparison detects the mismatch (LAMMPS eps_12 = $eps12)"
  keep=0
  exit 0
fi
if ((match != 0)); then
  echo "FAIL: LAMMPS from final.data differs from scanmd's final step (above); LAMMPS log:" \
       "$work/continue.log, scanmd log: $work/scanmd.log" >&2
  exit 1
fi
echo "ok: LAMMPS continues from scanmd's final.data with the same pe and press"
keep=0
