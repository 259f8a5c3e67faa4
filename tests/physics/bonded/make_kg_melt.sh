#!/usr/bin/env bash
# Makes the small Kremer–Grest melts the bonded tests start from (not run by ctest: its outputs
# are committed): 8 chains of 50 beads at ρ = 0.85 (400 beads, box 7.78 σ), random walks of
# bond 0.97 σ pushed apart with a ramped soft pair, then WCA with harmonic bonds under
# nve/limit and nve, then equilibrated with
# in.chain's physics (FENE 30/1.5/1/1, WCA shifted, special_bonds fene, Langevin T = 1) with
# Debian's LAMMPS for 20 000 steps of 0.012 τ.
#   kg_angle.data  atom_style angle: Bonds and Angles (every three consecutive beads)
#   kg_bond.data   atom_style bond: the same atoms and bonds, no angles
# Usage: bash make_kg_melt.sh [outdir]   (needs lmp and python3)
set -euo pipefail
out="${1:-$(cd "$(dirname "$0")" && pwd)}"
work="$(mktemp -d)"
trap '[[ $? == 0 ]] && rm -rf "$work" || echo "(files kept in $work)" >&2' EXIT
cd "$work"
python3 - <<'PY'
import math, random
random.seed(29)
chains, beads, rho, b = 8, 50, 0.85, 0.97
n = chains * beads
L = (n / rho) ** (1 / 3)
atoms, bonds, angles = [], [], []
for c in range(chains):
    x = [random.uniform(0, L) for _ in range(3)]
    prev = None
    for k in range(beads):
        if k > 0:
            while True:
                u = [random.gauss(0, 1) for _ in range(3)]
                r = math.sqrt(sum(v * v for v in u))
                step = [b * v / r for v in u]
                if prev is None or sum(s * p for s, p in zip(step, prev)) > -0.5 * b * b:
                    break
            x = [xi + si for xi, si in zip(x, step)]
            prev = step
        i = c * beads + k + 1
        atoms.append((i, c + 1, x))
        if k > 0: bonds.append((i - 1, i))
        if k > 1: angles.append((i - 2, i - 1, i))
with open("init.data", "w") as f:
    f.write(f"random walks\n\n{n} atoms\n{len(bonds)} bonds\n{len(angles)} angles\n1 atom types\n1 bond types\n1 angle types\n\n")
    for a in "xyz": f.write(f"0 {L:.17g} {a}lo {a}hi\n")
    f.write("\nMasses\n\n1 1\n\nAtoms # angle\n\n")
    for i, m, x in atoms:
        img = [math.floor(v / L) for v in x]
        w = [v - k * L for v, k in zip(x, img)]
        f.write(f"{i} {m} 1 {w[0]:.17g} {w[1]:.17g} {w[2]:.17g} {img[0]} {img[1]} {img[2]}\n")
    f.write("\nBonds\n\n")
    for k, (a, c) in enumerate(bonds): f.write(f"{k + 1} 1 {a} {c}\n")
    f.write("\nAngles\n\n")
    for k, (a, c, d) in enumerate(angles): f.write(f"{k + 1} 1 {a} {c} {d}\n")
PY
cat > in.melt <<'IN'
units           lj
atom_style      angle
read_data       init.data
special_bonds   lj 0.0 1.0 1.0
bond_style      harmonic
bond_coeff      1 100.0 0.97
angle_style     cosine
angle_coeff     1 0.0
pair_style      soft 1.12246204830937
pair_coeff      * * 0.0
variable        a equal ramp(0,60)
fix             push all adapt 1 pair soft a * * v_a
neighbor        0.4 bin
neigh_modify    every 1 delay 0 check yes
velocity        all create 1.0 4928459 loop geom
fix             1 all nve/limit 0.05
fix             2 all langevin 1.0 1.0 1.0 904297
timestep        0.005
run             4000
unfix           push
pair_style      lj/cut 1.12246204830937
pair_coeff      * * 1.0 1.0
pair_modify     shift yes
run             4000
unfix           1
fix             1 all nve
run             4000
bond_style      fene
bond_coeff      1 30.0 1.5 1.0 1.0
special_bonds   fene
fix             1 all nve
timestep        0.012
run             20000
write_data      kg_angle.data nocoeff
IN
lmp -in in.melt -log melt.log -screen none -nocite
python3 - "$out" <<'PY'
import sys, re
text = open("kg_angle.data").read()
title = "Kremer-Grest melt: 8 chains x 50 beads, rho 0.85, equilibrated with LAMMPS (tests/physics/bonded/make_kg_melt.sh)"
lines = text.split("\n")
lines[0] = title + " (atom_style angle)"
open(sys.argv[1] + "/kg_angle.data", "w").write("\n".join(lines))
# atom_style bond: no angle header lines, no Angles section
out, skip = [], False
for ln in lines:
    if re.match(r"^\s*\d+\s+angles?\s*$", ln) or re.match(r"^\s*\d+\s+angle types\s*$", ln): continue
    if ln.startswith("Angles"): skip = True; continue
    if skip and re.match(r"^[A-Z]", ln): skip = False
    if skip: continue
    out.append(ln.replace("Atoms # angle", "Atoms # bond"))
out[0] = title + " (atom_style bond)"
open(sys.argv[1] + "/kg_bond.data", "w").write("\n".join(out))
PY
echo "wrote $out/kg_angle.data and $out/kg_bond.data"
