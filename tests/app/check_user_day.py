#!/usr/bin/python3
"""What a LAMMPS user expects on day one, end to end through `scanmd run` (tests app.user.*).

  log        output.log: log.scanmd holds every line the terminal got plus the resolved deck
             (the terminal gets the deck only with -v); an existing log is backed up; "" writes
             none; on 2 ranks only rank 0 writes it
  thermo     output.thermo keywords (LAMMPS names) against oracles computed here: time = step·dt,
             vol = L³ of the fcc box, density = N m / V, etotal = pe + ke, econs = etotal in NVE,
             evdwl = pe, ebond = 0; the H5MD scanmd/thermo table has the same columns (less the
             timing ones) and the printed values; the default with a thermostat has econs (and
             the table too); default rows are at most 100 characters; a misspelt keyword is an
             error naming it
  velocity   [velocity] create on a lattice start (T as asked instead of system.temperature)
             and on a data file without velocities: T exactly as asked (3N − 3
             degrees of freedom, from the velocities of the final data file), zero momentum,
             uniform components (kurtosis 1.8, LAMMPS dist uniform), the same bits on 1 rank
             and on 2 ranks with two grids, another seed other velocities; without [velocity] a
             warning that the run starts at T = 0; lattice keys given beside system.data_file
             are named in warnings
  backups    output.backups = 2 over four runs: the two newest backups of the log and of the
             trajectory stay, the oldest is removed and the log says so
  hint       the slab example on 2 ranks (all particles on one rank) logs a hint naming
             decomposition.balance; balanced, or a uniform melt, logs none
  unwrapped  output.trajectory_unwrapped: particles/trajectory/unwrapped_position equals
             position + image · L (computed here) in every frame, and particles did cross the box

usage: check_user_day.py WHAT --exe SCANMD --mpiexec MPIEXEC --pre "FLAGS" --deck TINY
       --slab LJ_SLAB --workdir DIR
"""
import argparse
import math
import os
import re
import shutil
import subprocess
import sys

ap = argparse.ArgumentParser()
ap.add_argument("what")
ap.add_argument("--exe", required=True)
ap.add_argument("--mpiexec", required=True)
ap.add_argument("--pre", default="")
ap.add_argument("--deck", required=True)
ap.add_argument("--slab", required=True)
ap.add_argument("--workdir", required=True)
args = ap.parse_args()

work = os.path.join(args.workdir, args.what)
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what)


def run(*extra, np=1, cwd=work, expect=0):
    cmd = [args.exe, "run", args.deck] + list(extra)
    if np > 1:
        cmd = [args.mpiexec, "-np", str(np)] + args.pre.split() + cmd
    done = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, timeout=120)
    if expect is not None and done.returncode != expect:
        print(done.stdout)
        sys.exit(f"{' '.join(cmd)}: exit {done.returncode}, expected {expect}")
    return done.stdout


def thermo_table(out):
    """Header and rows (lists of strings) of the thermo table of a run's output."""
    lines = out.splitlines()
    for k, line in enumerate(lines):
        if re.match(r"^\s*step\s", line):
            header = line.split()
            rows = []
            for row in lines[k + 1:]:
                if not re.match(r"^\s+[0-9]+\s", row):
                    break
                rows.append(row.split())
            return header, rows
    sys.exit("no thermo table in:\n" + out)


def read_data(path):
    """id -> (type, velocity) of a LAMMPS data file, and its masses."""
    section, masses, types, vel = None, {}, {}, {}
    for line in open(path):
        s = line.split("#")[0].strip()
        if not s:
            continue
        if s in ("Masses", "Atoms", "Velocities"):
            section = s
            continue
        f = s.split()
        if section == "Masses":
            masses[int(f[0])] = float(f[1])
        elif section == "Atoms":
            types[int(f[0])] = int(f[1])
        elif section == "Velocities":
            vel[int(f[0])] = tuple(float(v) for v in f[1:4])
    return masses, types, vel


def velocities_section(path):
    text = open(path).read()
    return text[text.index("Velocities"):]


if args.what == "log":
    out = run()
    log = open(os.path.join(work, "log.scanmd")).read()
    lines = log.splitlines()
    # Every terminal line is in the log, in order.
    at = 0
    for line in out.splitlines():
        try:
            at = lines.index(line, at) + 1
        except ValueError:
            check(False, f"terminal line missing from the log: {line!r}")
            break
    check("[system]" in log and "cells = [5, 5, 5]" in log, "the log holds the resolved deck")
    check("[system]" not in out, "the terminal gets no resolved deck without -v")
    check("resolved in log.scanmd" in out, "the terminal says where the resolved deck is")
    out_v = run("-v")
    check("[system]" in out_v, "-v prints the resolved deck on the terminal")
    backup = os.path.join(work, "#log.scanmd.1#")
    check(os.path.exists(backup) and open(backup).read() == log,
          "the first log is backed up to #log.scanmd.1# as it was")
    check("the previous one backed up to #log.scanmd.1#" in out_v, "the backup is logged")
    empty = os.path.join(work, "none")
    os.makedirs(empty)
    run("--set", 'output.log=""', cwd=empty)
    check(os.listdir(empty) == [], f"output.log = \"\" writes no file: {os.listdir(empty)}")
    two = os.path.join(work, "two")
    os.makedirs(two)
    out2 = run("--set", "output.log=run.log", np=2, cwd=two)
    files = sorted(os.listdir(two))
    check(files == ["run.log"], f"2 ranks: one log file: {files}")
    check("state hash:" in open(os.path.join(two, "run.log")).read() and "state hash:" in out2,
          "2 ranks: the log ends with the state hash")

elif args.what == "thermo":
    keywords = ["step", "time", "temp", "pe", "ke", "etotal", "press", "econs", "ebond", "evdwl",
                "vol", "density", "cpu", "pstep/s", "eta"]
    listed = "[" + ", ".join(f'"{k}"' for k in keywords) + "]"
    out = run("--set", f"output.thermo={listed}", "--set", "output.thermo_digits=17",
              "--set", "system.mass=2.0", "--set", "output.trajectory=t.h5")
    header, rows = thermo_table(out)
    check(header == keywords, f"header {header}")
    check(len(rows) == 3, f"3 rows (steps 0, 5, 10): {len(rows)}")
    L = (4 / 0.8442) ** (1 / 3) * 5
    V = L * L * L
    table = []
    for r in rows:
        v = dict(zip(keywords, r))
        step = int(v["step"])
        x = {k: float(v[k]) for k in keywords if k not in ("step", "eta")}
        table.append((step, x))
        check(x["time"] == step * 0.005, f"time = step·dt at step {step}: {x['time']}")
        check(abs(x["vol"] - V) <= 1e-13 * V, f"vol {x['vol']} vs L³ = {V}")
        check(abs(x["density"] - 500 * 2.0 / V) <= 1e-13 * x["density"],
              f"density {x['density']} vs N m / V = {500 * 2.0 / V}")
        check(abs(x["etotal"] - (x["pe"] + x["ke"])) <= 1e-14 * abs(x["etotal"]),
              f"etotal = pe + ke at step {step}")
        check(x["econs"] == x["etotal"] and x["evdwl"] == x["pe"] and x["ebond"] == 0.0,
              f"NVE: econs = etotal, evdwl = pe, ebond = 0 at step {step}")
        check(x["cpu"] >= 0, "cpu")
    import h5py
    with h5py.File(os.path.join(work, "t.h5"), "r") as f:
        t = f["scanmd/thermo"][:]
        names = list(t.dtype.names)
        check(names == [k for k in keywords if k not in ("cpu", "pstep/s", "eta")],
              f"scanmd/thermo columns {names}")
        check(len(t) == len(table), f"scanmd/thermo rows {len(t)}")
        for (step, x), row in zip(table, t):
            check(int(row["step"]) == step, f"table step {row['step']} vs {step}")
            for k in names[1:]:
                check(float(row[k]) == x[k], f"table {k} at step {step}: {row[k]} vs printed {x[k]}")
    # Default columns with a thermostat: econs after press, in the table too.
    out = run("--set", "thermostat.style=nose-hoover", "--set", "thermostat.temperature=1.0",
              "--set", "output.trajectory=nh.h5", "--set", "run.steps=40",
              "--set", "output.thermo_every=20")
    header, rows = thermo_table(out)
    check(header == ["step", "temp", "pe", "ke", "etotal", "press", "econs", "pstep/s", "eta"],
          f"default header with a thermostat: {header}")
    for line in out.splitlines():
        if re.match(r"^\s+[0-9]+\s", line) or re.match(r"^\s*step\s", line):
            check(len(line) <= 100, f"a thermo row of {len(line)} characters: {line!r}")
    with h5py.File(os.path.join(work, "nh.h5"), "r") as f:
        t = f["scanmd/thermo"][:]
        check(list(t.dtype.names) == ["step", "temp", "pe", "ke", "etotal", "press", "econs"],
              f"table with a thermostat: {t.dtype.names}")
        check(t["econs"][-1] != t["etotal"][-1], "econs differs from etotal under Nosé–Hoover")
    out = run("--set", 'output.thermo=["step", "tmep"]', expect=1)
    check('output.thermo: unknown thermo keyword "tmep" at index 1' in out, out)

elif args.what == "velocity":
    run("--set", "run.steps=0", "--set", "output.data_file=start.data")
    text = open(os.path.join(work, "start.data")).read()
    nov = text[:text.index("Velocities")]
    with open(os.path.join(work, "nov.data"), "w") as f:
        f.write(nov)
    common = ["--set", "system.data_file=nov.data", "--set", "velocity.create=true",
              "--set", "velocity.temperature=1.5", "--set", "velocity.seed=7", "--set",
              "run.steps=0"]
    run(*common, "--set", "output.data_file=v1.data")
    run(*common, "--set", "output.data_file=v2.data", "--set", "decomposition.grid=[2,1,1]", np=2)
    run(*common, "--set", "output.data_file=v3.data", "--set", "decomposition.grid=[1,1,2]",
        "--set", "decomposition.method=neutral-territory", np=2)
    run(*[c if c != "velocity.seed=7" else "velocity.seed=8" for c in common], "--set",
        "output.data_file=v4.data")
    v1 = velocities_section(os.path.join(work, "v1.data"))
    check(v1 == velocities_section(os.path.join(work, "v2.data")),
          "the same velocities on 1 rank and on 2 ranks (grid 2x1x1)")
    check(v1 == velocities_section(os.path.join(work, "v3.data")),
          "the same velocities on 2 ranks (grid 1x1x2, neutral territory)")
    check(v1 != velocities_section(os.path.join(work, "v4.data")), "another seed, other velocities")
    check(v1 != velocities_section(os.path.join(work, "start.data")),
          "velocities drawn, not the lattice's")
    masses, types, vel = read_data(os.path.join(work, "v1.data"))
    n = len(vel)
    check(n == 500, f"500 velocities: {n}")
    mv2 = sum(masses[types[i]] * (v[0] ** 2 + v[1] ** 2 + v[2] ** 2) for i, v in vel.items())
    T = mv2 / (3 * n - 3)
    check(abs(T - 1.5) <= 1e-12, f"T = {T!r}, asked 1.5")
    for k in range(3):
        p = sum(masses[types[i]] * v[k] for i, v in vel.items())
        check(abs(p) <= 1e-12 * n, f"momentum along {k}: {p}")
        m2 = sum(v[k] ** 2 for v in vel.values()) / n
        m4 = sum(v[k] ** 4 for v in vel.values()) / n
        # LAMMPS dist uniform: the kurtosis of a uniform distribution is 1.8 (a Gaussian's 3;
        # the spread of 500 samples' is about 0.04)
        check(1.6 < m4 / (m2 * m2) < 2.1, f"axis {k}: kurtosis {m4 / (m2 * m2)}, not uniform")
    out = run("--set", "velocity.temperature=2.0", "--set", "run.steps=0")
    check("warning: --set velocity.temperature=2.0: velocity.temperature is not used without "
          "velocity.create = true" in out, "[velocity] keys without create are named")
    # A lattice start: [velocity] replaces system.temperature's velocities.
    out = run("--set", "velocity.create=true", "--set", "velocity.temperature=2.0",
              "--set", "run.steps=0", "--set", "output.thermo_digits=17")
    header, rows = thermo_table(out)
    T0 = float(dict(zip(header, rows[0]))["temp"])
    check(abs(T0 - 2.0) <= 1e-12, f"lattice start with [velocity]: T = {T0}, asked 2.0")
    out = run("--set", "system.data_file=nov.data", "--set", "run.steps=0",
              "--set", "system.temperature=2.0")
    check("no Velocities section and no [velocity] create: the run starts at T = 0" in out,
          "a data file without velocities is named in a warning")
    check("warning: --set system.temperature=2.0: system.temperature is not used: "
          "system.data_file (nov.data) gives the box, the atoms and their velocities" in out,
          "system.temperature beside system.data_file is named in a warning")

elif args.what == "backups":
    for k in range(1, 5):
        out = run("--set", "output.backups=2", "--set", f"system.seed={k}",
                  "--set", "output.trajectory=t.h5", "--set", "run.steps=0")
    files = sorted(f for f in os.listdir(work) if f.startswith("#"))
    check(files == ["#log.scanmd.2#", "#log.scanmd.3#", "#t.h5.2#", "#t.h5.3#"],
          f"the two newest backups of each output stay: {files}")
    check("seed = 3" in open(os.path.join(work, "#log.scanmd.3#")).read(),
          "#log.scanmd.3# is the third run's log")
    check("removed the oldest backup #log.scanmd.1# (output.backups = 2)" in out,
          "the log names the removed backup")
    check("removed the oldest backup #t.h5.1# (output.backups = 2)" in out,
          "the log names the removed trajectory backup")
    out = run("--set", "output.backups=0", expect=1)
    check("output.backups: must be 1..10000 (got 0)" in out, out)

elif args.what == "hint":
    slab = ["--set", "run.steps=0"]
    cmd = [args.exe, "run", args.slab] + slab
    done = subprocess.run([args.mpiexec, "-np", "2"] + args.pre.split() + cmd, cwd=work,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
    out = done.stdout
    check(done.returncode == 0, out)
    check(re.search(r"hint: the busiest rank owns [0-9]+ particles, 2\.000 times the mean .*"
                    r"decomposition\.balance = \"particles\"", out) is not None,
          "the unbalanced slab gets a hint naming decomposition.balance")
    done = subprocess.run([args.mpiexec, "-np", "2"] + args.pre.split() + cmd +
                          ["--set", "decomposition.balance=particles"], cwd=work,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
    check(done.returncode == 0 and "hint:" not in done.stdout, "balanced: no hint")
    out = run("--set", "run.steps=0", np=2)
    check("hint:" not in out, "a uniform melt: no hint")

elif args.what == "unwrapped":
    run("--set", "output.trajectory=u.h5", "--set", "output.trajectory_unwrapped=true",
        "--set", "run.steps=200", "--set", "output.trajectory_every=50", np=2)
    import h5py
    import numpy as np
    with h5py.File(os.path.join(work, "u.h5"), "r") as f:
        g = f["particles/trajectory"]
        x = g["position/value"][:]
        img = g["image/value"][:]
        L = g["box/edges/value"][:]
        u = g["unwrapped_position/value"][:]
        check(u.shape == x.shape == (5, 500, 3), f"shapes {u.shape} {x.shape}")
        want = x + img * np.diagonal(L, axis1=1, axis2=2)[:, None, :]
        check(np.array_equal(u, want), "unwrapped_position = position + image · L")
        check(np.any(img[-1] != 0), "some particle crossed the box (else the test proves nothing)")
        check(list(g["unwrapped_position/step"][:]) == [0, 50, 100, 150, 200],
              "unwrapped_position shares the frames' steps")
else:
    sys.exit(f"unknown test {args.what}")

if failures:
    sys.exit(f"{len(failures)} check(s) failed")
print(f"app.user.{args.what}: OK")
