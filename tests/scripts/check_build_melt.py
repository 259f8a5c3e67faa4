#!/usr/bin/python3
"""scripts/build_melt.py: its `atom_style bond` melt reads into Debian's LAMMPS (read_data: the
atom, bond and molecule counts, bonds along each chain no longer than the step), minimises under
Kremer-Grest physics (FENE 30/1.5/1/1, WCA, special_bonds fene, min_style fire) and then runs
200 NVE steps at dt 0.012 with etotal (steps 50..200) kept to 1e-2 per particle; its `--style atomic` gas
minimises in scanmd ([minimize] style = "fire") and runs.

Usage: check_build_melt.py SCANMD PROJECT_DIR [--lmp lmp]
"""
import os
import re
import subprocess
import sys
import tempfile


def run(cmd, cwd):
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    out = p.stdout + p.stderr
    if p.returncode != 0 or "ERROR" in out:
        sys.exit(f"FAIL: {' '.join(cmd)} exited {p.returncode}:\n{out}")
    return out


def main():
    scanmd, project = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    lmp = os.environ.get("SCANMD_LMP", "lmp")
    builder = os.path.join(project, "scripts", "build_melt.py")
    chains, beads = 20, 20
    with tempfile.TemporaryDirectory() as d:
        run([sys.executable, builder, "--chains", str(chains), "--beads", str(beads), "--seed",
             "1", "--min-distance", "0.75", "-o", "melt.data"], d)
        with open(os.path.join(d, "in.melt"), "w") as f:
            f.write("""units lj
atom_style bond
special_bonds fene
read_data melt.data
bond_style fene
bond_coeff 1 30.0 1.5 1.0 1.0
pair_style lj/cut 1.122462048309373
pair_modify shift yes
pair_coeff 1 1 1.0 1.0 1.122462048309373
comm_modify cutoff 2.0
neighbor 0.4 bin
neigh_modify every 1 delay 0 check yes
timestep 0.005
min_style fire
thermo 1000
minimize 0.0 1e-4 5000 100000
velocity all create 1.0 87287 loop geom
fix 1 all nve
timestep 0.012
thermo_style custom step etotal
thermo_modify norm yes
thermo 50
run 200
""")
        out = run([lmp, "-in", "in.melt", "-log", "none"], d)
        atoms = re.search(r"^\s*(\d+) atoms$", out, re.M)
        bonds = re.search(r"^\s*(\d+) bonds$", out, re.M)
        if not atoms or int(atoms.group(1)) != chains * beads:
            sys.exit(f"FAIL: LAMMPS read {atoms and atoms.group(1)} atoms, not {chains * beads}")
        if not bonds or int(bonds.group(1)) != chains * (beads - 1):
            sys.exit(f"FAIL: LAMMPS read {bonds and bonds.group(1)} bonds, not "
                     f"{chains * (beads - 1)}")
        # The data file itself: molecule ids per chain, bonds i -> i+1 within a chain, unwrapped
        # bond lengths equal to the step (0.97).
        with open(os.path.join(d, "melt.data")) as f:
            text = f.read()
        L = float(re.search(r"0.0 (\S+) xlo xhi", text).group(1))
        atoms_sec = text.split("Atoms # bond")[1].split("Bonds")[0].split("\n")
        rows = {}
        for line in atoms_sec:
            v = line.split()
            if len(v) == 9:
                rows[int(v[0])] = (int(v[1]), [float(v[k]) + L * int(v[k + 3]) for k in (3, 4, 5)])
        for line in text.split("Bonds")[1].split("\n"):
            v = line.split()
            if len(v) != 4:
                continue
            i, j = int(v[2]), int(v[3])
            (mi, xi), (mj, xj) = rows[i], rows[j]
            r = sum((a - b) ** 2 for a, b in zip(xi, xj)) ** 0.5
            if mi != mj or j != i + 1 or abs(r - 0.97) > 1e-9:
                sys.exit(f"FAIL: bond {v[0]} ({i}-{j}): molecules {mi}, {mj}, length {r}")
        etot = [float(m.group(2)) for m in
                re.finditer(r"^\s*(\d+)\s+(-?[0-9.e+-]+)\s*$", out, re.M)]
        if len(etot) < 5 or max(etot[-4:]) - min(etot[-4:]) > 1e-2:
            sys.exit(f"FAIL: the minimised melt's NVE run: etotal {etot[-5:]}")
        print(f"LAMMPS: {atoms.group(1)} atoms, {bonds.group(1)} bonds, NVE etotal {etot[-5:]}")
        # The atomic gas in scanmd.
        run([sys.executable, builder, "--chains", "10", "--beads", "10", "--seed", "2",
             "--min-distance", "0.75", "--style", "atomic", "-o", "gas.data"], d)
        out = run([scanmd, "run", os.path.join(project, "tests", "scripts", "tiny.toml"),
                   "--set", "system.data_file=\"gas.data\"", "--set", "minimize.style=\"fire\"",
                   "--set", "minimize.max_steps=3000", "--set", "run.steps=100",
                   "--set", "velocity.create=true"], d)
        if "minimize: stopped by force tolerance" not in out:
            sys.exit(f"FAIL: scanmd did not minimise the gas to ftol:\n{out}")
        print("scanmd: the atomic gas minimised to ftol and ran")
        print("PASS")


if __name__ == "__main__":
    main()
