#!/usr/bin/env bash
# scanmd against Debian's LAMMPS on a Kremer–Grest melt with bonds (and angles): the same data
# file, WCA shifted (2^(1/6)), skin 0.4, NVE, dt 0.012, `neigh_modify every 1 delay 0 check
# yes`; pe, ke, etotal, press, ebond, eangle, evdwl every 10 steps up to 100 must agree to 1e-9
# relative (press, and energies below 1, relative to max(|value|, 1)). Then LAMMPS read_data's the
# file scanmd wrote at step 100 (output.data_file: the same atom_style, with molecule ids, Bonds
# and Angles) and `run 0`: its pe, press, ebond, eangle, evdwl must equal scanmd's step-100 row.
# Usage: compare_bonded.sh --scanmd EXE --data FILE --style bond|angle
#          --lmp "LAMMPS line" ... --deck "TOML of [bond] [angle] [special_bonds]"
#          [--set key=value ...] [--expect-mismatch]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../../support/thermo_compare.sh"
scanmd="" data="" style=bond deck="" expect_mismatch=0
lmp_lines=() sets=()
while (($#)); do
  case "$1" in
    --scanmd) scanmd="$2"; shift 2 ;;
    --data) data="$2"; shift 2 ;;
    --style) style="$2"; shift 2 ;;
    --lmp) lmp_lines+=("$2"); shift 2 ;;
    --deck) deck="$2"; shift 2 ;;
    --set) sets+=(--set "$2"); shift 2 ;;
    --expect-mismatch) expect_mismatch=1; shift ;;
    *) echo "compare_bonded.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[[ -x "$scanmd" ]] || { echo "FAIL: scanmd executable '$scanmd' not found" >&2; exit 1; }
[[ "$scanmd" == /* ]] || scanmd="$PWD/$scanmd"
[[ "$data" == /* ]] || data="$PWD/$data"
find_lmp
tol=1e-9
enter_work bonded
cp "$data" melt.data
cat > in.run <<EOF
units           lj
atom_style      $style
read_data       melt.data
$(printf '%s\n' "${lmp_lines[@]}")
pair_style      lj/cut 1.122462048309373
pair_coeff      * * 1.0 1.0
pair_modify     shift yes
neighbor        0.4 bin
neigh_modify    every 1 delay 0 check yes
fix             1 all nve
timestep        0.012
thermo_style    custom step pe ke etotal press ebond eangle evdwl
thermo_modify   format float %.17g
thermo          10
run             100
EOF
"$lmp" -in in.run -log run.log -screen none -nocite ||
  { echo "FAIL: LAMMPS run failed (run.log):" >&2; tail -20 run.log >&2; exit 1; }
awk '/^ *Step +PotEng +KinEng +TotEng +Press +E_bond +E_angle +E_vdwl/ {on = 1; next}
     /^Loop time/ {on = 0} on && NF == 8 && $1 ~ /^[0-9]+$/ {print}' run.log > lammps.thermo
printf '[system]\ndata_file = "melt.data"\n\n[potential]\nstyle = "lj"\nepsilon = 1.0\nsigma = 1.0\ncutoff = 1.122462048309373\nshift = true\n\n%b\n\n[neighbor]\nskin = 0.4\n\n[run]\ndt = 0.012\nsteps = 100\nbackend = "host"\n\n[output]\nlog = ""\ndata_file = "out.data"\nthermo_every = 10\nthermo_digits = 17\nthermo = ["step", "pe", "ke", "etotal", "press", "ebond", "eangle", "evdwl"]\n' \
  "$deck" > deck.toml
if ! "$scanmd" run deck.toml "${sets[@]}" > scanmd1.log 2>&1; then
  echo "FAIL: scanmd run deck.toml exited non-zero:" >&2; cat scanmd1.log >&2; exit 1
fi
awk '/^ *step +pe +ke +etotal +press +ebond +eangle +evdwl/ {on = 1; next} /^Loop time/ {on = 0}
     on && NF == 8 && $1 ~ /^[0-9]+$/ {print}' scanmd1.log > scanmd1.thermo
# Energies that may be near 0 (ebond, eangle, evdwl of a short run) and press: relative to
# max(|value|, 1).
thermo_floor="pe ke etotal press ebond eangle evdwl"
status=0
compare_thermo lammps.thermo scanmd1.thermo "$tol" 10 11 pe ke etotal press ebond eangle evdwl ||
  status=$?
judge_comparison "$status" "$expect_mismatch" "${sets[*]}" "$work"
# LAMMPS continues from scanmd's data file.
grep -q "^Atoms # $style\$" out.data || { echo "FAIL: out.data is not atom_style $style" >&2; exit 1; }
sed -e 's/^read_data .*/read_data       out.data/' -e 's/^run .*/run             0/' in.run > in.continue
"$lmp" -in in.continue -log continue.log -screen none -nocite ||
  { echo "FAIL: LAMMPS could not continue from scanmd's out.data:" >&2; tail -20 continue.log >&2; exit 1; }
awk '/^ *Step +PotEng/ {on = 1; next} /^Loop time/ {on = 0} on && NF == 8 {print}' continue.log \
  > continue.thermo
tail -n 1 scanmd1.thermo | paste -d ' ' continue.thermo - | awk -v tol="$tol" '
  function abs(x) { return x < 0 ? -x : x }
  BEGIN { split("pe ke etotal press ebond eangle evdwl", name, " "); bad = 0 }
  NF == 16 {
    for (q = 1; q <= 7; q++) {
      if (q == 2 || q == 3) continue  # ke: velocities at the full step, as written
      l = $(q + 1); s = $(q + 9); scale = abs(l) > 1 ? abs(l) : 1
      if (abs(s - l) / scale > tol) { bad = 1; printf "continued %-6s lammps %.17g scanmd %.17g\n", name[q], l, s }
    }
    n++
  }
  END { if (n != 1) { print "no continued thermo row"; bad = 1 } exit bad }' ||
  { echo "FAIL: LAMMPS from scanmd's out.data does not give scanmd's step-100 energies" >&2; exit 1; }
echo "ok: scanmd = LAMMPS to $tol over steps 0..100, and LAMMPS continues from its data file"
keep=0
