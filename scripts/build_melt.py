#!/usr/bin/python3
"""Random-walk bead-spring melt: N chains of M beads at a number density, as a LAMMPS data file.

Each chain starts at a uniform random point of a cubic periodic box and grows by steps of
length `--bond` in uniform random directions (no self-avoidance: beads of different chains, and
of one chain, overlap). That is the usual start of a Kremer-Grest melt: it needs a soft push-off
or an energy minimisation (scanmd `[minimize] style = "fire"`, docs/minimize.md) before the
dynamics. `--min-distance d` retries a step (up to 100 times, then the whole chain from a new
start) that lands closer than d to a bead already placed, which keeps the worst overlaps out:
scanmd's fixed-point forces hold |F| < 4.2e6 (LJ units), so an LJ pair closer than ~0.42 σ
cannot be evaluated; with d = 0.75 an LJ or WCA minimisation starts safely (closer starts: push
them apart with pair style "soft" first, docs/minimize.md).

Output: `atom_style bond` (Atoms: id mol type x y z ix iy iz; Bonds: id type i j, one bond type)
for a polymer run, or `--style atomic` (Atoms: id type x y z ix iy iz, no bonds) for a plain LJ
gas with the same overlaps (what scanmd reads until it reads bonds). Positions are wrapped into
the box with their image flags, so unwrapped chains are continuous. Python 3 with numpy.

  python3 scripts/build_melt.py --chains 100 --beads 30 --density 0.85 --seed 1 -o melt.data
"""
import argparse
import sys

import numpy as np


def build(chains, beads, density, bond, seed, min_distance):
    n = chains * beads
    L = (n / density) ** (1.0 / 3.0)
    rng = np.random.default_rng(seed)
    pos = np.empty((n, 3))
    mol = np.repeat(np.arange(1, chains + 1), beads)
    # A cell grid of edge >= min_distance for the overlap test (periodic).
    cells = max(1, int(L / max(min_distance, 1e-9))) if min_distance > 0 else 1
    grid = {}

    def cell_of(p):
        c = np.floor((p % L) / L * cells).astype(int) % cells
        return tuple(c)

    def too_close(p):
        if min_distance <= 0:
            return False
        c = cell_of(p)
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                for dz in (-1, 0, 1):
                    key = ((c[0] + dx) % cells, (c[1] + dy) % cells, (c[2] + dz) % cells)
                    for j in grid.get(key, ()):
                        d = p - pos[j]
                        d -= L * np.round(d / L)
                        if d @ d < min_distance * min_distance:
                            return True
        return False

    def add(i, p):
        pos[i] = p
        if min_distance > 0:
            grid.setdefault(cell_of(p), []).append(i)

    def remove(i):
        if min_distance > 0:
            grid[cell_of(pos[i])].remove(i)

    # A chain whose next bead finds no free spot in 100 tries is taken back and grown again from
    # a new start (up to 100 times); only then is a bead placed too close anyway (a warning).
    forced = 0
    for c in range(chains):
        first = c * beads
        for attempt in range(101):
            last_try = attempt == 100
            i = first
            ok = True
            for tries in range(1000):
                p = rng.uniform(0.0, L, 3)
                if not too_close(p):
                    break
            else:
                forced += 1
            add(i, p)
            i += 1
            while i < first + beads:
                for tries in range(100):
                    u = rng.normal(size=3)
                    q = pos[i - 1] + bond * u / np.linalg.norm(u)
                    if not too_close(q):
                        break
                else:
                    if not last_try:
                        ok = False
                        break
                    forced += 1
                add(i, q)
                i += 1
            if ok:
                break
            for j in range(first, i):
                remove(j)
    if forced:
        print(f"build_melt.py: warning: {forced} beads closer than --min-distance "
              f"{min_distance} to another (no free spot found)", file=sys.stderr)
    image = np.floor(pos / L).astype(int)
    wrapped = pos - image * L
    wrapped[wrapped >= L] -= L  # round-off at the upper face
    return L, mol, wrapped, image


def write(out, style, chains, beads, L, mol, x, image, seed):
    n = len(mol)
    bonds = chains * (beads - 1) if style == "bond" else 0
    w = out.write
    w(f"LAMMPS data file: random-walk melt, {chains} chains x {beads} beads "
      f"(scripts/build_melt.py, seed {seed})\n\n")
    w(f"{n} atoms\n")
    if style == "bond":
        w(f"{bonds} bonds\n")
    w("1 atom types\n")
    if style == "bond":
        w("1 bond types\n")
    w(f"\n0.0 {L!r} xlo xhi\n0.0 {L!r} ylo yhi\n0.0 {L!r} zlo zhi\n")
    w("\nMasses\n\n1 1.0\n")
    w(f"\nAtoms # {style}\n\n")
    for i in range(n):
        xi, im = x[i], image[i]
        head = f"{i + 1} {mol[i]} 1" if style == "bond" else f"{i + 1} 1"
        w(f"{head} {xi[0]!r} {xi[1]!r} {xi[2]!r} {im[0]} {im[1]} {im[2]}\n")
    if style == "bond":
        w("\nBonds\n\n")
        k = 0
        for c in range(chains):
            for b in range(beads - 1):
                k += 1
                a = c * beads + b + 1
                w(f"{k} 1 {a} {a + 1}\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--chains", type=int, required=True, help="number of chains N")
    ap.add_argument("--beads", type=int, required=True, help="beads per chain M")
    ap.add_argument("--density", type=float, default=0.85, help="beads per σ³ (0.85)")
    ap.add_argument("--bond", type=float, default=0.97, help="step length (0.97 σ, KG's bond)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--min-distance", type=float, default=0.0,
                    help="retry steps landing closer than this to any bead (0: no check)")
    ap.add_argument("--style", choices=["bond", "atomic"], default="bond")
    ap.add_argument("-o", "--output", default="-", help="data file (default: stdout)")
    a = ap.parse_args()
    if a.chains < 1 or a.beads < 1 or not a.density > 0 or not a.bond > 0:
        ap.error("--chains, --beads >= 1; --density, --bond > 0")
    L, mol, x, image = build(a.chains, a.beads, a.density, a.bond, a.seed, a.min_distance)
    if a.output == "-":
        write(sys.stdout, a.style, a.chains, a.beads, L, mol, x, image, a.seed)
    else:
        with open(a.output, "w") as f:
            write(f, a.style, a.chains, a.beads, L, mol, x, image, a.seed)


if __name__ == "__main__":
    main()
