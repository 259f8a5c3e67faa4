#!/usr/bin/env bash
# scanmd vs LAMMPS on the Kob–Andersen binary LJ mixture (issue 12, species): in a temporary
# directory, Debian's LAMMPS (`lmp`) builds 4000 atoms on an fcc lattice at ρ = 1.2, turns ~20%
# of them into type 2 (`set type/fraction`, so the count is random, not exactly 800), melts them
# at T = 2 and write_data's the result; then LAMMPS and scanmd (`system.data_file`, one
# [[potential.pair]] table per pair) each run the same 300 NVE steps from that file, and thermo
# pe, ke, etotal and press at steps 0, 50, ..., 300 must agree to 1e-10. This checks the per-pair
# ε, σ and cutoff (2.5 σ_αβ, unshifted by default), atom types read from a data file and,
# optionally, tail corrections, shifting and the mixing rules against an independent code.
# scanmd is also run on 2 ranks and must print the same state hash and thermo as on 1 rank.
#
# Usage: compare_mixture.sh --scanmd EXE [--mpiexec "mpiexec -n"] [--mpi-flags "--oversubscribe"]
#                           [--tail] [--shift] [--mixing geometric|arithmetic]
#                           [--ab-epsilon X] [--expect-mismatch]
#   --tail             both sides add tail corrections (LAMMPS `pair_modify tail yes`,
#                      scanmd potential.tail = true)
#   --shift            both sides shift every pair to 0 at its cutoff (`pair_modify shift yes`,
#                      potential.shift = true); not with --tail (LAMMPS refuses the pair)
#   --mixing RULE      only the self pairs 1-1 and 2-2 are given; the cross pair (ε, σ and
#                      cutoff) comes from the rule on both sides (`pair_modify mix RULE`,
#                      potential.mixing = "RULE")
#   --ab-epsilon X     scanmd only: ε_12 = X instead of 1.5 (to break the match; not with --mixing)
#   --expect-mismatch  succeed only if the thermo comparison FAILS (checks that it can fail);
#                      the 2-rank run is then skipped
# LAMMPS: $SCANMD_LMP, else `lmp` on PATH. Missing LAMMPS is a failure, not a skip.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../../support/thermo_compare.sh"

scanmd="" mpiexec="" mpi_flags="" expect_mismatch=0 tail=0 shift_=0 mixing="" ab_epsilon=""
while (($#)); do
  case "$1" in
    --scanmd) scanmd="$2"; shift 2 ;;
    --mpiexec) mpiexec="$2"; shift 2 ;;
    --mpi-flags) mpi_flags="$2"; shift 2 ;;
    --expect-mismatch) expect_mismatch=1; shift ;;
    --tail) tail=1; shift ;;
    --shift) shift_=1; shift ;;
    --mixing) mixing="$2"; shift 2 ;;
    --ab-epsilon) ab_epsilon="$2"; shift 2 ;;
    *) echo "compare_mixture.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
case "$mixing" in
  "" | geometric | arithmetic) ;;
  *) echo "compare_mixture.sh: --mixing must be geometric or arithmetic, not '$mixing'" >&2; exit 2 ;;
esac
if ((tail && shift_)); then
  echo "compare_mixture.sh: --tail and --shift together: LAMMPS refuses that combination" >&2; exit 2
fi
if [[ -n "$mixing" && -n "$ab_epsilon" ]]; then
  echo "compare_mixture.sh: --ab-epsilon needs the explicit 1-2 pair, not --mixing" >&2; exit 2
fi
[[ -x "$scanmd" ]] || { echo "FAIL: scanmd executable '$scanmd' not found" >&2; exit 1; }
[[ "$scanmd" == /* ]] || scanmd="$PWD/$scanmd"  # it runs from the temporary directory

find_lmp

tol=1e-10
enter_work mixture

# The case, as words for the messages.
what="Kob-Andersen 4000 atoms, 300 steps"
((tail)) && what+=", tail"
((shift_)) && what+=", shifted"
[[ -n "$mixing" ]] && what+=", $mixing mixing"
[[ -n "$ab_epsilon" ]] && what+=", scanmd epsilon_12 = $ab_epsilon"

# LAMMPS pair coefficients, for the melt and the run: with --mixing only the self pairs. The
# melt uses the mixed cross pair too: started from a KA melt, the mixed ε = 0.71, σ = 0.94 pushes
# A-B contacts equilibrated at σ = 0.8 apart, T jumps from 2 to 3.2 in 50 steps and etotal drifts
# by 1%, a violent start for a 1e-10 comparison.
if [[ -n "$mixing" ]]; then
  lmp_pairs="pair_coeff      1 1 1.0 1.0 2.5"$'\n'"pair_coeff      2 2 0.5 0.88 2.2"
  lmp_pairs+=$'\n'"pair_modify     mix $mixing"
else
  lmp_pairs="pair_coeff      1 1 1.0 1.0 2.5"$'\n'"pair_coeff      1 2 1.5 0.8 2.0"
  lmp_pairs+=$'\n'"pair_coeff      2 2 0.5 0.88 2.2"
fi

# 1. The starting configuration, written by LAMMPS (Pair Coeffs included: the reader skips it).
# KA from fcc at ρ = 1.2: nearest neighbours at 1.056 > σ_AB, σ_BB, so nothing overlaps and
# dt = 0.005 is safe from the first step. Melting takes up latent heat, so a strong Langevin
# bath (damp 0.1) rather than Nosé–Hoover: T = 2 and pe ≈ -5.15 by step 100 of 400 (NVT with
# Tdamp 0.5 is still at T = 1.67 after 300 steps). write_data's default `pair ii` stores only
# the self pairs (LAMMPS warns "Not all mixed pair coeffs generated from mixing"): in.run sets
# every pair itself, and with `pair ij` the stored 1-2 pair would override --mixing.
cat > in.create <<EOF
units           lj
atom_style      atomic
lattice         fcc 1.2
region          box block 0 10 0 10 0 10
create_box      2 box
create_atoms    1 box
set             type 1 type/fraction 2 0.2 4928459
mass            1 1.0
mass            2 1.0
velocity        all create 2.0 87287 loop geom
pair_style      lj/cut 2.5
$lmp_pairs
neighbor        0.3 bin
neigh_modify    delay 0 every 1 check yes
timestep        0.005
fix             1 all langevin 2.0 2.0 0.1 62311
fix             2 all nve
thermo          100
run             400
unfix           1
unfix           2
write_data      mix.data
EOF
"$lmp" -in in.create -log create.log -screen none -nocite ||
  { echo "FAIL: LAMMPS could not write the data file (create.log):" >&2; cat create.log >&2; exit 1; }

# 2. LAMMPS NVE from the data file (pair_style first: the file has a Pair Coeffs section).
((tail)) && lmp_pairs+=$'\n'"pair_modify     tail yes"
((shift_)) && lmp_pairs+=$'\n'"pair_modify     shift yes"
cat > in.run <<EOF
units           lj
atom_style      atomic
pair_style      lj/cut 2.5
read_data       mix.data
$lmp_pairs
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
bool() { (($1)) && echo true || echo false; }
pair() { printf '\n[[potential.pair]]\ntypes = [%s, %s]\nepsilon = %s\nsigma = %s\ncutoff = %s\n' "$@"; }
{
  printf '[system]\ndata_file = "mix.data"\n\n[potential]\n'
  printf 'shift = %s\nmixing = "%s"\ntail = %s\n' "$(bool "$shift_")" "${mixing:-none}" "$(bool "$tail")"
  pair 1 1 1.0 1.0 2.5
  [[ -z "$mixing" ]] && pair 1 2 "${ab_epsilon:-1.5}" 0.8 2.0
  pair 2 2 0.5 0.88 2.2
  printf '\n[neighbor]\nskin = 0.3\n'
  printf '\n[run]\ndt = 0.005\nsteps = 300\nbackend = "host"\n'
  printf '\n[output]\nthermo_every = 50\nthermo_digits = 12\n'
} > deck.toml
# Thermo rows: step temp pe ke etotal press [econs ...] -> step pe ke etotal press.
scanmd_thermo() {
  awk '/^ *step +temp +pe +ke +etotal +press/ {on = 1; next} /^Loop time/ {on = 0}
       on && NF >= 6 && $1 ~ /^[0-9]+$/ {print $1, $3, $4, $5, $6}' "$1"
}

if ! "$scanmd" run deck.toml > scanmd1.log 2>&1; then
  echo "FAIL: scanmd run deck.toml exited non-zero:" >&2; cat scanmd1.log >&2; exit 1
fi
scanmd_thermo scanmd1.log > scanmd1.thermo

# 4. Compare. pe, ke, etotal: |scanmd - lammps| <= 1e-10 |lammps|. press: the sum of a kinetic
# and a virial term of opposite sign, so the error is bounded relative to the scale of its
# terms rather than to press itself: |Δp| <= 1e-10 max(|p|, 1). (scanmd prints 12 significant
# digits, LAMMPS 15, so printing alone accounts for up to 5e-12.)
status=0
compare_thermo lammps.thermo scanmd1.thermo "$tol" 50 7 pe ke etotal press || status=$?
judge_comparison "$status" "$expect_mismatch" "$what" "$work"

# 5. Same state on 2 ranks as on 1.
if [[ -n "$mpiexec" ]]; then
  read -r -a mpi <<< "$mpiexec"
  read -r -a flags <<< "$mpi_flags"
  if ! "${mpi[@]}" 2 "${flags[@]}" "$scanmd" run deck.toml > scanmd2.log 2>&1; then
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
echo "ok: scanmd matches LAMMPS ($what)"
keep=0
