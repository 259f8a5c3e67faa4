#!/usr/bin/python3
"""FIRE minimisation: scanmd against Debian's LAMMPS `minimize` with `min_style fire`.

In a temporary directory scripts/build_melt.py writes (or --data gives, as ctest does with
tests/engine/fire_gas.data, that script's output for the defaults below) a random-walk LJ gas with overlaps
(`--style atomic`, 20 chains of 10 beads at density 0.85, no two beads closer than 0.75 σ);
LAMMPS (lj/cut 2.5 shifted, min_style fire with its defaults, timestep 0.005) and scanmd ([minimize] style =
"fire", the same defaults) minimise it to ftol. Checked:
  * LAMMPS runs the 2020 FIRE variant ("Parameters for fire" in its log, integrator
    eulerimplicit, halfstepback yes): the variant scanmd follows;
  * the same stop reason, pe every 100 iterations up to --early (--case eam: 1e-8) and the
    final pe (per particle) to 1e-9 relative, the iteration count to 1%: both codes take the same path, only the last
    bits of the forces (fixed point here) and sums differ. On larger disordered systems those
    bits grow over thousands of iterations into another path and another nearby minimum (500
    beads: pe -6.9501 against LAMMPS's -6.9588 after ~2600 iterations), as two LAMMPS builds
    would; 200 beads stay on one path to the end;
  * scanmd's state hash is the same for every `RANKS:METHOD[:THREADS[:KERNEL]]` run given (rank
    count, decomposition, OMP_NUM_THREADS, SCANMD_PAIR_KERNEL): the minimisation is bitwise
    reproducible (with --hash-steps N those runs stop after N iterations, the first run of the
    list going to the end once more for the comparison with LAMMPS);
  * the relaxed configuration then runs NVE (run.steps of the deck, velocities drawn at T = 1):
    total energy spread below 2e-3 per particle (9e-4 at dt 0.005, 4e-5 at dt 0.001: the integrator's dt² error).
--case eam instead: a Cu-Ni eam/alloy fcc crystal (500 atoms, 30% Ni) with every atom displaced
by up to 0.3 Å, written by LAMMPS; 300 iterations (the same force-evaluation count in both, final
pe 1e-12 apart), then 50 NVE steps at 300 K, etotal within 1e-4 relative.
--case fene instead: a Kremer-Grest melt with overlaps (--builder scripts/build_melt.py --style
bond, 20 chains of 20 beads at density 0.85, bonds 0.97 < R0, no two beads closer than 0.75 σ):
FENE 30/1.5/1/1, WCA shifted, special_bonds fene, min_style fire with every min_modify setting
written out (scanmd's defaults); the same stop reason, iteration and force-evaluation counts, pe
of every progress row and the final pe to 1e-9 relative, the relaxed state's ebond and evdwl to
1e-9 · max(|v|, 1); then 200 NVE steps at dt 0.005, etotal spread below 5e-3 per particle (the
stiff bonds' dt² error: 2.9e-3 measured).
--set KEY=VALUE goes to scanmd only; --expect-mismatch succeeds only when the comparison with
LAMMPS fails (the negative control: a FIRE parameter off in scanmd).

Usage: compare_fire.py --scanmd EXE (--builder scripts/build_melt.py | --data FILE) [--lmp lmp]
         [--mpiexec "mpiexec -n"] [--mpi-flags "..."] [--runs 1:half-shell 2:neutral-territory ...]
         [--chains 50 --beads 10] [--set KEY=VALUE]... [--expect-mismatch]
"""
import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile


def run(cmd, cwd, env=None):
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True,
                       env=None if env is None else {**os.environ, **env})
    if p.returncode != 0:
        sys.exit(f"FAIL: {' '.join(cmd)} exited {p.returncode}:\n{p.stdout}\n{p.stderr}")
    return p.stdout + p.stderr


LAMMPS_LJ = """units lj
atom_style atomic
read_data gas.data
pair_style lj/cut 2.5
pair_coeff 1 1 1.0 1.0 2.5
pair_modify shift yes
neighbor 0.3 bin
neigh_modify every 1 delay 0 check yes
timestep 0.005
min_style fire
thermo 100
thermo_style custom step pe
thermo_modify format float %.17g
minimize 0.0 1e-6 20000 100000
"""


def minimize_then_nve(skin, thermo):
    """The deck's tail shared by the LJ and FENE cases: FIRE to ftol 1e-6, then 200 NVE steps."""
    columns = ", ".join(f'"{c}"' for c in thermo)
    return f"""[neighbor]
skin = {skin}
[run]
dt = 0.005
steps = 200
backend = "host"
[velocity]
create = true
temperature = 1.0
seed = 12345
[minimize]
style = "fire"
etol = 0.0
ftol = 1e-6
max_steps = 20000
progress_every = 100
[output]
thermo_every = 50
thermo_digits = 17
thermo = [{columns}]
"""


DECK_LJ = """[system]
data_file = "gas.data"
[potential]
style = "lj/cut"
cutoff = 2.5
shift = true
""" + minimize_then_nve(0.3, ["step", "temp", "pe", "ke", "etotal", "press"])

# EAM: a Cu-Ni fcc alloy (30% Ni, 500 atoms) with every atom displaced by up to 0.3 Å, written by
# LAMMPS itself; 300 FIRE iterations (max iterations: past 300 the last soft mode creeps).
EAM_FILE = "/usr/share/lammps/potentials/CuNi.eam.alloy"
LAMMPS_EAM = f"""units metal
atom_style atomic
lattice fcc {(4 / 0.0865) ** (1 / 3)!r}
region box block 0 5 0 5 0 5
create_box 2 box
create_atoms 1 box
set type 1 type/fraction 2 0.3 4242
mass 1 63.55
mass 2 58.69
displace_atoms all random 0.3 0.3 0.3 9876
pair_style eam/alloy
pair_coeff * * {EAM_FILE} Cu Ni
write_data gas.data
neighbor 1.0 bin
neigh_modify every 1 delay 0 check yes
timestep 0.005
min_style fire
thermo 100
thermo_style custom step pe
thermo_modify format float %.17g
minimize 0.0 1e-6 300 100000
"""

DECK_EAM = f"""[system]
units = "metal"
data_file = "gas.data"
[potential]
style = "eam/alloy"
file = "{EAM_FILE}"
elements = ["Cu", "Ni"]
[neighbor]
skin = 1.0
[run]
dt = 0.002
steps = 50
backend = "host"
[velocity]
create = true
temperature = 300.0
seed = 12345
[minimize]
style = "fire"
etol = 0.0
ftol = 1e-6
max_steps = 300
dt_start = 0.005
progress_every = 100
[output]
thermo_every = 25
thermo_digits = 17
thermo = ["step", "temp", "pe", "ke", "etotal", "press"]
"""


# A Kremer-Grest melt (in.chain's physics) from scripts/build_melt.py --style bond. Every FIRE
# setting is written out with scanmd's defaults (docs/minimize.md); comm_modify covers R0 + skin.
LAMMPS_FENE = """units lj
atom_style bond
special_bonds fene
read_data gas.data
pair_style lj/cut 1.122462048309373
pair_coeff 1 1 1.0 1.0 1.122462048309373
pair_modify shift yes
bond_style fene
bond_coeff 1 30.0 1.5 1.0 1.0
comm_modify cutoff 2.0
neighbor 0.4 bin
neigh_modify every 1 delay 0 check yes
timestep 0.005
min_style fire
min_modify integrator eulerimplicit tmax 10.0 tmin 0.02 delaystep 20 dtgrow 1.1 dtshrink 0.5 &
           alpha0 0.25 alphashrink 0.99 vdfmax 2000 halfstepback yes initialdelay yes dmax 0.1 &
           norm two
thermo 100
thermo_style custom step pe ebond evdwl
thermo_modify format float %.17g
minimize 0.0 1e-6 20000 100000
"""

DECK_FENE = """[system]
data_file = "gas.data"
[potential]
style = "lj"
epsilon = 1.0
sigma = 1.0
cutoff = 1.122462048309373
shift = true
[bond]
style = "fene"
[[bond.coeff]]
type = 1
k = 30.0
r0 = 1.5
epsilon = 1.0
sigma = 1.0
[special_bonds]
lj = [0.0, 1.0, 1.0]
""" + minimize_then_nve(
    0.4, ["step", "temp", "pe", "ke", "etotal", "press", "ebond", "evdwl"])

SCRIPTS = {"lj": (LAMMPS_LJ, DECK_LJ), "eam": (LAMMPS_EAM, DECK_EAM),
           "fene": (LAMMPS_FENE, DECK_FENE)}


def lammps(lmp, cwd, script):
    with open(os.path.join(cwd, "in.min"), "w") as f:
        f.write(script)
    out = run([lmp, "-in", "in.min", "-log", "log.lammps"], cwd)
    with open(os.path.join(cwd, "log.lammps")) as f:
        log = f.read()
    if "Parameters for fire" not in log or "eulerimplicit" not in log:
        sys.exit("FAIL: this LAMMPS does not run the 2020 FIRE (no 'Parameters for fire ... "
                 "eulerimplicit' in its log): scanmd follows that variant")
    # Progress rows: step pe [ebond evdwl]; the last one is the final state.
    rows = re.findall(r"^[ \t]*(\d+)((?:[ \t]+-?[0-9.e+-]+)+)[ \t]*$", out, re.M)
    progress = {int(r[0]): float(r[1].split()[0]) for r in rows}
    final_terms = [float(v) for v in rows[-1][1].split()[1:]]
    stop = re.search(r"Stopping criterion = (.*)", out).group(1).strip()
    e = re.search(r"Energy initial, next-to-last, final =\s*\n\s*(\S+)\s+(\S+)\s+(\S+)", out)
    it = re.search(r"Iterations, force evaluations = (\d+) (\d+)", out)
    return stop, float(e.group(3)), int(it.group(1)), int(it.group(2)), progress, final_terms


def scanmd(exe, cwd, mpi, ranks, method, sets, env):
    deck = os.path.join(cwd, "gas.toml")
    cmd = ([] if ranks == 1 and not mpi[0] else shlex.split(mpi[0]) + [str(ranks)] +
           shlex.split(mpi[1])) + [exe, "run", deck, "--set", f"decomposition.method={method}"]
    for s in sets:
        cmd += ["--set", s]
    out = run(cmd, cwd, env)
    stop = re.search(r"minimize: stopped by (.*?) after (\d+) iterations, (\d+) force", out)
    e = re.search(r"minimize: energy initial, final = (\S+) (\S+)", out)
    h = re.search(r"state hash: ([0-9a-f]+)", out)
    progress = {int(m.group(1)): float(m.group(2))
                for m in re.finditer(r"^minimize:\s+(\d+)\s+(\S+)\s", out, re.M)}
    # Thermo rows: step temp pe ke etotal press [ebond evdwl].
    rows = [r.split() for r in
            re.findall(r"^[ \t]*\d+(?:[ \t]+-?[0-9.]+(?:e[-+]?\d+)?){5,7}[ \t]*$", out, re.M)]
    evals = re.search(r"minimize: stopped by .*?, (\d+) force evaluations", out)
    if not (stop and e and h and rows and evals):
        sys.exit(f"FAIL: scanmd output not understood:\n{out}")
    etot = [float(r[4]) for r in rows]
    return (stop.group(1), float(e.group(2)), int(stop.group(2)), h.group(1), etot,
            int(rows[-1][0]), progress, int(evals.group(1)), [float(v) for v in rows[0][6:]])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scanmd", required=True)
    ap.add_argument("--builder", help="scripts/build_melt.py (or --data)")
    ap.add_argument("--data", help="the data file to minimise instead of a new one")
    ap.add_argument("--lmp", default=os.environ.get("SCANMD_LMP", "lmp"))
    ap.add_argument("--mpiexec", default="")
    ap.add_argument("--mpi-flags", default="")
    ap.add_argument("--runs", nargs="+", default=["1:half-shell"])
    ap.add_argument("--case", choices=["lj", "eam", "fene"], default="lj")
    ap.add_argument("--hash-steps", type=int, default=0,
                    help="hash runs stop after this many iterations (0: every run goes to the end)")
    ap.add_argument("--early", type=int, default=1000,
                    help="pe every 100 iterations up to this one must agree to 1e-9")
    ap.add_argument("--chains", type=int, default=20)
    ap.add_argument("--beads", type=int, default=10)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--set", action="append", default=[])
    ap.add_argument("--expect-mismatch", action="store_true")
    a = ap.parse_args()
    exe = os.path.abspath(a.scanmd)
    with tempfile.TemporaryDirectory() as d:
        if a.case == "eam":
            pass  # LAMMPS writes the configuration
        elif a.data:
            shutil.copy(a.data, os.path.join(d, "gas.data"))
        else:
            run([sys.executable, os.path.abspath(a.builder), "--chains", str(a.chains), "--beads",
                 str(a.beads), "--density", "0.85", "--seed", str(a.seed), "--min-distance",
                 "0.75", "--style", "bond" if a.case == "fene" else "atomic", "-o", "gas.data"],
                d)
        lammps_script, deck = SCRIPTS[a.case]
        with open(os.path.join(d, "gas.toml"), "w") as f:
            f.write(deck)
        l_stop, l_e, l_it, l_ev, l_prog, l_terms = lammps(a.lmp, d, lammps_script)
        print(f"LAMMPS: {l_stop}, {l_it} iterations, {l_ev} force evaluations, final pe {l_e!r}")
        hashes = {}
        mismatch = []
        # The first run goes to the end and is compared with LAMMPS; with --hash-steps N the
        # hash runs (every spec, the first again) stop after N iterations, their pe compared
        # up to N.
        plan = [(a.runs[0], True)] if a.hash_steps else []
        plan += [(spec, not a.hash_steps) for spec in a.runs]
        for spec, full in plan:
            ranks, method, *more = spec.split(":")
            env = {"SCANMD_THREADS_PAST_CORES": "1"}
            if more:
                env["OMP_NUM_THREADS"] = more[0]
            if len(more) > 1:
                env["SCANMD_PAIR_KERNEL"] = more[1]
            sets = a.set + ([] if full else [f"minimize.max_steps={a.hash_steps}"])
            s_stop, s_e, s_it, h, etot, last, s_prog, s_ev, s_terms = scanmd(
                exe, d, (a.mpiexec, a.mpi_flags), int(ranks), method, sets, env)
            print(f"scanmd {spec}: {s_stop}, {s_it} iterations, final pe "
                  f"{s_e!r}, state hash {h}")
            if not full or not a.hash_steps:
                hashes[spec] = h
            if full:
                rel = abs(s_e - l_e) / abs(l_e)
                if s_stop != l_stop:
                    mismatch.append(f"stop reason '{s_stop}' vs LAMMPS '{l_stop}'")
                if rel > 1e-9:
                    mismatch.append(f"final pe {s_e!r} vs LAMMPS {l_e!r} (relative {rel:.3g} > "
                                    "1e-9)")
                if abs(s_it - l_it) > 0.01 * l_it:
                    mismatch.append(f"{s_it} iterations vs LAMMPS {l_it} (more than 1% apart)")
                if a.case == "fene":
                    print(f"  force evaluations {s_ev} (LAMMPS {l_ev}); relaxed ebond, evdwl "
                          f"{s_terms!r} (LAMMPS {l_terms!r})")
                    if s_ev != l_ev or s_it != l_it:
                        mismatch.append(f"{s_it} iterations, {s_ev} force evaluations vs "
                                        f"LAMMPS {l_it}, {l_ev}")
                    for name, sv, lv in zip(("ebond", "evdwl"), s_terms, l_terms):
                        if abs(sv - lv) > 1e-9 * max(abs(lv), 1.0):
                            mismatch.append(f"relaxed {name} {sv!r} vs LAMMPS {lv!r}")
            # EAM: mid-path pe 1e-9 apart (the splines' last bits), the end 1e-14 again.
            tol = 1e-8 if a.case == "eam" else 1e-9
            for k in sorted(l_prog):
                if k <= min(a.early, s_it) and k in s_prog and \
                        abs(s_prog[k] - l_prog[k]) > tol * max(abs(l_prog[k]), 1.0):
                    mismatch.append(f"pe at iteration {k}: {s_prog[k]!r} vs LAMMPS {l_prog[k]!r}")
            drift = max(etot) - min(etot)
            print(f"  NVE after it: etotal {etot[0]!r} .. {etot[-1]!r} over {last} steps, "
                  f"spread {drift:.3g}")
            steps, limit = {"eam": (50, 1e-4 * abs(etot[0])), "lj": (200, 2e-3),
                            "fene": (200, 5e-3)}[a.case]
            if last != steps or drift > limit:
                sys.exit(f"FAIL: the relaxed configuration's NVE run drifted ({drift:.3g} > "
                         f"{limit:.3g}) or stopped early (step {last})")
        if len(set(hashes.values())) != 1:
            sys.exit(f"FAIL: state hashes differ across ranks/methods: {hashes}")
        if a.expect_mismatch:
            if not mismatch:
                sys.exit("FAIL: expected a mismatch with LAMMPS (negative control), got agreement")
            print("mismatch as expected: " + "; ".join(dict.fromkeys(mismatch)))
            return
        if mismatch:
            sys.exit("FAIL: " + "; ".join(dict.fromkeys(mismatch)))
        print("PASS")


if __name__ == "__main__":
    main()
