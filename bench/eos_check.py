#!/usr/bin/python3
"""The thermostats against results nobody here wrote: HOOMD-blue's equation-of-state test point.

HOOMD-blue validates its NVT integrators on the LJ fluid at T* = 1.4, rho* = 0.9, r_c = 2.5
(shifted): U/N = -4.6622 +- 0.0006 and P = 6.6462 +- 0.0033. This script runs scanmd at that
state point with the Langevin and with the Nose-Hoover thermostat and requires both means to
lie within 3 combined standard errors of HOOMD's. It also checks
  Langevin     <T_kin> = T within 3 standard errors
  Nose-Hoover  Var(T_kin) = 2 T^2 / N_f (canonical kinetic-energy fluctuations) within 3 errors.

Errors: block averages. The production run is cut into B equal blocks (default 20), each block
mean is one sample; the standard error is std(block means, ddof=1) / sqrt(B). Blocks are
hundreds of correlation times long (tau_U ~ 0.1-0.5), so block means are independent. The
variance of T_kin is estimated per block the same way.

Usage: /usr/bin/python3 bench/eos_check.py [--ranks 2] [--cells 10] [--equil 5000]
                                           [--steps 40000] [--blocks 20] [--exe build/app/scanmd]
Prints a table; exit status 1 when a check fails.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

HOOMD_U, HOOMD_U_ERR = -4.6622, 0.0006
HOOMD_P, HOOMD_P_ERR = 6.6462, 0.0033
T_TARGET, RHO = 1.4, 0.9

p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
p.add_argument("--exe", default="build/app/scanmd")
p.add_argument("--ranks", type=int, default=2)
p.add_argument("--cells", type=int, default=10, help="fcc cells per axis (N = 4 cells^3)")
p.add_argument("--equil", type=int, default=5000, help="equilibration steps (dt = 0.005)")
p.add_argument("--steps", type=int, default=40000, help="production steps")
p.add_argument("--every", type=int, default=10, help="thermo sample interval")
p.add_argument("--blocks", type=int, default=20)
args = p.parse_args()

DECK = """
[system]
density = {rho}
cells = [{c}, {c}, {c}]
temperature = {t}
seed = 2718

[potential]
cutoff = 2.5
shift = true

[neighbor]
skin = 0.3

[run]
dt = 0.005
steps = {steps}
backend = "host"

[thermostat]
style = "{style}"
temperature = {t}
damping = {damp}
seed = 31415
chain = 3

[output]
thermo_every = {every}
"""

ROW = re.compile(r"^\s*(\d+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s")


def run(style, damp):
    total = args.equil + args.steps
    with tempfile.TemporaryDirectory() as tmp:
        deck = os.path.join(tmp, "eos.toml")
        with open(deck, "w") as f:
            f.write(DECK.format(rho=RHO, c=args.cells, t=T_TARGET, steps=total, style=style,
                                damp=damp, every=args.every))
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        cmd = ["mpirun", "--oversubscribe", "-np", str(args.ranks), os.path.abspath(args.exe),
               "run", deck]
        out = subprocess.run(cmd, env=env, cwd=tmp, capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit(f"scanmd failed ({' '.join(cmd)}):\n{out.stdout}\n{out.stderr}")
    rows, table = [], False  # the thermo table: after its header, up to "Loop time"
    for line in out.stdout.splitlines():
        if re.search(r"\bstep\s+temp\s+pe\s+ke\s+etotal\s+press\s+econs\b", line):
            table = True
        elif line.startswith("Loop time"):
            table = False
        elif table and (m := ROW.match(line)):
            rows.append([float(m.group(k)) for k in range(1, 8)])
    a = np.array(rows)  # step temp pe ke etotal press econs
    a = a[a[:, 0] > args.equil]
    n = len(a) // args.blocks * args.blocks
    return a[-n:], out.stdout


def block(x):
    b = x.reshape(args.blocks, -1)
    means = b.mean(axis=1)
    return means.mean(), means.std(ddof=1) / np.sqrt(args.blocks), b


N = 4 * args.cells ** 3
dof = 3 * N - 3
failed = False
print(f"LJ r_c = 2.5 shifted, T* = {T_TARGET}, rho* = {RHO}, N = {N}, {args.ranks} ranks, "
      f"{args.equil} + {args.steps} steps of dt = 0.005, {args.blocks} blocks")
print(f"{'thermostat':12} {'quantity':10} {'scanmd':>22} {'reference':>22} {'|diff|/sigma':>12}")


def check(name, what, mean, err, ref, ref_err):
    global failed
    sigma = np.hypot(err, ref_err)
    z = abs(mean - ref) / sigma
    ok = z <= 3.0
    failed |= not ok
    print(f"{name:12} {what:10} {mean:12.5f} +- {err:7.5f} {ref:12.5f} +- {ref_err:7.5f} "
          f"{z:12.2f}{'' if ok else '  FAIL'}")


for style, damp in (("langevin", 1.0), ("nose-hoover", 0.5)):
    a, log = run(style, damp)
    u, u_err, _ = block(a[:, 2])
    pr, pr_err, _ = block(a[:, 5])
    check(style, "U/N", u, u_err, HOOMD_U, HOOMD_U_ERR)
    check(style, "P", pr, pr_err, HOOMD_P, HOOMD_P_ERR)
    t, t_err, tb = block(a[:, 1])
    if style == "langevin":
        check(style, "<T>", t, t_err, T_TARGET, 0.0)
    else:
        var = tb.var(axis=1, ddof=1)
        v, v_err = var.mean(), var.std(ddof=1) / np.sqrt(args.blocks)
        check(style, "Var(T)", v, v_err, 2 * T_TARGET ** 2 / dof, 0.0)
    hashes = re.findall(r"state hash: ([0-9a-f]{16})", log)
    print(f"{'':12} {'hash':10} {hashes[-1] if hashes else '?':>22}")
print("FAIL" if failed else "ok: every check within 3 standard errors")
sys.exit(1 if failed else 0)
