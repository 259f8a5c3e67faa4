#!/usr/bin/env bash
# run.precision = "mixed" against "double" (issue 33) on the in.lj melt (fcc 0.8442, T* 1.44,
# r_c 2.5σ unshifted, skin 0.3σ, dt 0.005τ, NVE), one rank, one thread:
#
#   bash bench/mixed_precision.sh [drift_steps=10000] [runs=3] [speed_steps=500] [cells=20] [exe=build/app/scanmd]
#
# (drift_steps = 0: the speed only; runs = 0: the drift only.)
# 1. Energy drift: a run of drift_steps in each precision (thermo every 100 steps); the slope of
#    etotal per atom against time by least squares from 10τ on (the melting lattice moves etotal
#    by ~1e-2 in its first 10τ), with its standard error as if the residuals were independent,
#    and the rms of etotal about the fit (the unshifted cutoff's jumps and the time step's
#    fluctuation). Both runs are bitwise reproducible, so one run each is the figure.
#    The same start run by GROMACS 2022.5 in mixed and double precision (bench/gromacs_lj.sh: the
#    builds of bench/build_gromacs.sh for the CPU in the cache, else Debian's gmx / gmx_d; leap-frog,
#    its list rlist = 2.8 sigma kept nstlist = 8 and 20 steps unchecked), its total energy from
#    the .edr file (`gmx energy`), fitted alike (SCANMD_GMX_DRIFT=0 leaves GROMACS out).
# 2. Speed: `runs` alternating runs of speed_steps in each precision with the kernel the run
#    picks (auto) and with each host kernel pinned (SCANMD_PAIR_KERNEL): the median
#    particle-steps/s and the median time of the pair section.
# 4·cells³ atoms (20: 32 000). Not a test: no ctest runs it; the machine's load is printed.
set -euo pipefail
cd "$(dirname "$0")/.."
drift_steps=${1:-10000}
runs=${2:-3}
speed_steps=${3:-500}
cells=${4:-20}
exe=$(realpath "${5:-build/app/scanmd}")
deck=$(realpath tests/decomposition/melt_4000.toml)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cpu=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)
echo "machine: $cpu, $(nproc --all) cores; load average $(cut -d' ' -f1-3 /proc/loadavg)"
run() {  # precision steps thermo_every log [env...]
  local p=$1 s=$2 t=$3 log=$4
  shift 4
  env "$@" "$exe" run "$deck" --set "system.cells=[$cells,$cells,$cells]" --set "run.steps=$s" \
    --set "output.thermo_every=$t" --set "run.precision=\"$p\"" --set 'output.log=""' \
    --set 'run.backend="host"' > "$log" 2>&1 || { tail -20 "$log" >&2; return 1; }
}

((drift_steps > 0)) && echo "energy drift: $((4 * cells * cells * cells)) atoms, $drift_steps steps of dt 0.005"
((drift_steps > 0)) && for p in double mixed; do run $p "$drift_steps" 100 "$tmp/drift_$p.log" & done
wait
fit() {  # name: "t/tau etotal/atom" lines on stdin → the slope line
  /usr/bin/python3 -c '
import sys
import numpy as np
t, e = np.loadtxt(sys.stdin, unpack=True)
m = t >= 10  # after the lattice has melted (its first 10 tau move etotal by ~1e-2)
c = np.polyfit(t[m], e[m], 1)
r = e[m] - np.polyval(c, t[m])
se = r.std() / (np.sqrt(m.sum()) * t[m].std())  # as if the residuals were independent
print(f"  {sys.argv[1]:24s} etotal/atom {e[0]:.7f} at 0, {e[-1]:.7f} at {t[-1]:g} tau; from 10 tau: slope "
      f"{c[0]:+.2e} +- {se:.1e} per tau, rms about the fit {r.std():.1e}")' "$1"
}
((drift_steps > 0)) && for p in double mixed; do
  awk '$1 ~ /^[0-9]+$/ && NF >= 6 && $2 + 0 == $2 {print $1 * 0.005, $5}' "$tmp/drift_$p.log" | fit "scanmd $p"
  grep "state hash" "$tmp/drift_$p.log" | sed "s/^/  $p /"
done
if ((drift_steps > 0)) && [[ ${SCANMD_GMX_DRIFT:-1} != 0 ]]; then
  repo=$(pwd)
  source bench/gromacs_lj.sh
  gmx_find
  natoms=$((4 * cells * cells * cells))
  "$exe" run "$deck" --set "system.cells=[$cells,$cells,$cells]" --set run.steps=0 --set 'output.log=""' \
    --set 'run.backend="host"' --set "output.data_file=\"$tmp/start.data\"" > "$tmp/start.log" 2>&1 ||
    { tail -20 "$tmp/start.log" >&2; exit 1; }
  gromacs_start "$tmp/start.data" "$tmp"
  for v in mixed double; do
    b=gmx_$v
    for nl in 8 20; do
      grompp "${!b}" "$tmp" "$drift_steps" "$nl" 100
      (cd "$tmp" && "${!b}" mdrun -s topol.tpr -nb cpu -pin off -ntmpi 1 -ntomp 1 -noconfout -deffnm g > g.out 2>&1 &&
        echo Total-Energy | "${!b}" energy -f g.edr -o e.xvg > e.out 2>&1) || { tail -20 "$tmp/g.out" >&2; exit 1; }
      awk -v tau="$tau_ps" -v n="$natoms" -v eps="$eps" '$1 !~ /^[@#]/ {printf "%.9g %.12g\n", $1 / tau, $2 / (n * eps)}' \
        "$tmp/e.xvg" | fit "GROMACS $v nstlist $nl"
    done
  done
  echo "  (GROMACS: $(gmx_simd "$gmx_mixed") / $(gmx_simd "$gmx_double") SIMD; leap-frog, whose total energy uses the half-step kinetic energies) ${gmx_note}"
fi

((runs > 0)) || exit 0
echo "speed: $runs alternating runs of $speed_steps steps, 1 rank, 1 thread (median)"
printf '  %-8s %-7s %14s %12s\n' kernel precision psteps/s pair_s
for kernel in auto scalar avx2 avx512; do
  declare -A ps=() pair=()
  for ((r = 0; r < runs; ++r)); do
    for p in double mixed; do
      env=()
      [[ $kernel != auto ]] && env=(SCANMD_PAIR_KERNEL=$kernel)
      if ! run $p "$speed_steps" 0 "$tmp/speed.log" "${env[@]}" 2> /dev/null; then
        echo "  $kernel: not run on this CPU"
        continue 3
      fi
      ps[$p]+="$(awk '/^Performance:/ {print $2}' "$tmp/speed.log")"$'\n'
      pair[$p]+="$(awk '$1 == "pair" {print $5}' "$tmp/speed.log")"$'\n'
    done
  done
  for p in double mixed; do
    m=$(printf %s "${ps[$p]}" | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}')
    t=$(printf %s "${pair[$p]}" | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}')
    printf '  %-8s %-7s %14.4g %12s\n' "$kernel" "$p" "$m" "$t"
  done
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
