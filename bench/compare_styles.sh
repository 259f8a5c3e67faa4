#!/usr/bin/env bash
# scanmd vs LAMMPS per pair style, side by side on the same work: 32 000 atoms from the fcc
# lattice at ρ = 0.8442 (bench/in.lj's start), T = 1.44 (1.2 for Morse), skin 0.3, scanmd's
# rebuild rule in LAMMPS too (neigh_modify every 1 check yes), one rank, NVE, thermo only at the
# ends. Particle-steps/s, median of `runs` alternating runs, and the ratio scanmd / LAMMPS; also
# LAMMPS with -sf opt where the style has an OPT variant (lj/cut/opt, morse/opt).
#
#   bash bench/compare_styles.sh [runs=3] [steps=200] [styles="lj wca morse table"] [exe=build/app/scanmd]
#
# With SCANMD_BENCH_DOC=FILE the table is also written to FILE as Markdown with the machine, the
# date and the command (docs/_generated/compare_styles.md is the manual's copy:
# SCANMD_BENCH_DOC=docs/_generated/compare_styles.md bash bench/compare_styles.sh).
#
# Targets (the pair-styles issue): >= 1.5x LAMMPS (same rule) for lj, WCA, Morse and table (LJ
# tabulated, linear, 2000 points: tests/physics/tables/lj.table) on one rank. LAMMPS has no OPT
# variant of table: its "opt" column runs the plain style.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
steps=${2:-200}
styles=${3:-"lj wca morse table"}
exe=$(realpath "${4:-build/app/scanmd}")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
natoms=32000
table=$(pwd)/tests/physics/tables/lj.table

# The style as LAMMPS lines, and its temperature (scanmd's deck: run_scanmd).
style_case() {
  case "$1" in
    lj) lmp_pair="pair_style lj/cut 2.5"$'\n'"pair_coeff * * 1.0 1.0"; temp=1.44 ;;
    wca) lmp_pair="pair_style lj/cut 1.122462048309373"$'\n'"pair_coeff * * 1.0 1.0"$'\n'"pair_modify shift yes"
         temp=1.44 ;;
    morse) lmp_pair="pair_style morse 2.0"$'\n'"pair_coeff * * 1.0 5.0 1.0"; temp=1.2 ;;
    # Tabulated LJ (tests/physics/tables/lj.table), linear, 2000 points, r_c 2.5.
    table) lmp_pair="pair_style table linear 2000"$'\n'"pair_coeff * * $table LJ 2.5"; temp=1.44 ;;
    *) echo "compare_styles.sh: unknown style $1" >&2; exit 2 ;;
  esac
}

run_lammps() {  # sf → psteps/s
  local sf=$1 sfargs=()
  [[ -n "$sf" ]] && sfargs=(-sf "$sf")
  cat > "$tmp/in.style" <<EOF
units           lj
atom_style      atomic
lattice         fcc 0.8442
region          box block 0 20 0 20 0 20
create_box      1 box
create_atoms    1 box
mass            1 1.0
velocity        all create $temp 87287 loop geom
$lmp_pair
neighbor        0.3 bin
neigh_modify    delay 0 every 1 check yes
fix             1 all nve
thermo          $steps
run             $steps
EOF
  (cd "$tmp" && lmp -in in.style "${sfargs[@]}" -log none -screen lmp.log >/dev/null 2>&1)
  awk -v n="$natoms" -v s="$steps" '/^Loop time of/ {printf "%.6g\n", n * s / $4}' "$tmp/lmp.log"
}

run_scanmd() {  # → psteps/s
  local deck="$tmp/style.toml"
  {
    printf '[system]\ncells = [20, 20, 20]\ndensity = 0.8442\ntemperature = %s\n' "$temp"
    case "$style" in
      lj) printf '[potential]\nstyle = "lj"\ncutoff = 2.5\n' ;;
      wca) printf '[potential]\nstyle = "lj"\ncutoff = 1.122462048309373\nshift = true\n' ;;
      morse) printf '[potential]\nstyle = "morse"\nd0 = 1.0\nalpha = 5.0\nr0 = 1.0\ncutoff = 2.0\n' ;;
      table) printf '[potential]\nstyle = "table"\ntable_style = "linear"\ntable_points = 2000\nfile = "%s"\nkeyword = "LJ"\ncutoff = 2.5\n' "$table" ;;
    esac
    printf '[neighbor]\nskin = 0.3\n[run]\ndt = 0.005\nsteps = %s\nbackend = "host"\n[output]\nthermo_every = 0\n' "$steps"
  } > "$deck"
  (cd "$tmp" && "$exe" run "$deck" > s.log 2>&1)
  awk '/^Performance:/ {print $2}' "$tmp/s.log"
}

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

doc=${SCANMD_BENCH_DOC:-}
printf "%-6s %12s %12s %12s %9s %9s\n" style scanmd "LAMMPS" "LAMMPS opt" "/LAMMPS" "/opt"
if [[ -n "$doc" ]]; then
  cpu=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)
  {
    echo "Measured $(date -u +%Y-%m-%d) on $cpu ($(nproc --all) cores), \`bash bench/compare_styles.sh $runs $steps\`:"
    echo "particle-steps/s, 32 000 atoms, one rank, one thread, median of $runs runs, LAMMPS $(lmp -h 2>/dev/null | awk -F' - ' '/^Large-scale/ {print $2; exit}')"
    echo "with scanmd's rebuild rule (\`neigh_modify every 1 check yes\`)."
    echo
    echo "| style | scanmd | LAMMPS | LAMMPS -sf opt | scanmd / LAMMPS | scanmd / opt |"
    echo "| --- | --- | --- | --- | --- | --- |"
  } > "$doc"
fi
for style in $styles; do
  style_case "$style"
  s="" l="" o=""
  for ((r = 0; r < runs; ++r)); do  # alternating, so drifts of the machine hit both
    s+="$(run_scanmd)"$'\n'
    l+="$(run_lammps "")"$'\n'
    o+="$(run_lammps opt)"$'\n'
  done
  ms=$(printf "%s" "$s" | median) ml=$(printf "%s" "$l" | median) mo=$(printf "%s" "$o" | median)
  rl=$(awk -v a="$ms" -v b="$ml" 'BEGIN {print a / b}') ro=$(awk -v a="$ms" -v b="$mo" 'BEGIN {print a / b}')
  printf "%-6s %12.4g %12.4g %12.4g %9.2f %9.2f\n" "$style" "$ms" "$ml" "$mo" "$rl" "$ro"
  if [[ -n "$doc" ]]; then
    printf "| %s | %.4g | %.4g | %.4g | %.2f | %.2f |\n" "$style" "$ms" "$ml" "$mo" "$rl" "$ro" >> "$doc"
  fi
done
echo "(particle-steps/s, 32 000 atoms, $steps steps, one rank, one thread, median of $runs; LAMMPS"
echo " with scanmd's rebuild rule: neigh_modify every 1 check yes; scanmd: $exe)"
