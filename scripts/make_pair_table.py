#!/usr/bin/python3
"""Writes LAMMPS pair table files (pair_style table) for scanmd's table style and its tests.

  make_pair_table.py lj OUT    Lennard-Jones 12-6 (epsilon = sigma = 1): sections LJ (its own r
                               column, r = 0.6 .. 2.5, 1000 points), LJ_RSQ (RSQ 0.6 2.5, 1200
                               points, FPRIME) and LJ_R (R 0.6 2.5, 800 points)
  make_pair_table.py cg OUT    the coarse-grained fluid of inputs/table_cg.toml: section CG

Values are written with 17 significant digits, so every reader gets the same doubles. Debian's
/usr/bin/python3 with numpy only.
"""
import sys

import numpy as np


def lj(r):
    """U and F = -dU/dr of LJ 12-6, epsilon = sigma = 1."""
    s6 = r ** -6
    return 4.0 * (s6 * s6 - s6), 24.0 * (2.0 * s6 * s6 - s6) / r


def cg(r, rc=2.2):
    """A soft coarse-grained bead pair: a 9-6 core, a shoulder (a Gaussian barrier at 1.5 sigma)
    and shifted force, so that U and F both vanish at rc."""
    def raw(x):
        u = 4.0 * (x ** -9 - x ** -6) + 0.4 * np.exp(-((x - 1.5) ** 2) / (2 * 0.1 ** 2))
        f = 4.0 * (9.0 * x ** -10 - 6.0 * x ** -7) + 0.4 * (x - 1.5) / 0.1 ** 2 * np.exp(
            -((x - 1.5) ** 2) / (2 * 0.1 ** 2))
        return u, f
    u, f = raw(r)
    uc, fc = raw(np.array([rc]))
    return u - uc[0] + (r - rc) * fc[0], f - fc[0]


def section(out, keyword, r, u, f, params, comment):
    out.write(f"# {comment}\n{keyword}\n{params}\n\n")
    for i, (ri, ui, fi) in enumerate(zip(r, u, f), start=1):
        out.write(f"{i} {ri:.17g} {ui:.17g} {fi:.17g}\n")
    out.write("\n")


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("lj", "cg"):
        sys.exit(__doc__)
    kind, path = sys.argv[1], sys.argv[2]
    with open(path, "w") as out:
        out.write(f"# scanmd scripts/make_pair_table.py {kind}: LAMMPS pair_style table format\n\n")
        if kind == "lj":
            r = np.linspace(0.6, 2.5, 1000)
            section(out, "LJ", r, *lj(r), "N 1000", "LJ 12-6, r from the file")
            n = 1200
            r = np.sqrt(0.36 + (2.5 ** 2 - 0.36) * np.arange(n) / (n - 1))
            u, f = lj(r)
            d0, d1 = (-4.0 * (156.0 * x ** -14 - 42.0 * x ** -8) for x in (0.6, 2.5))  # dF/dr
            section(out, "LJ_RSQ", r, u, f, f"N {n} RSQ 0.6 2.5 FPRIME {d0:.17g} {d1:.17g}",
                    "LJ 12-6, evenly spaced in r^2, FPRIME = dF/dr at both ends")
            n = 800
            r = 0.6 + (2.5 - 0.6) * np.arange(n) / (n - 1)
            section(out, "LJ_R", r, *lj(r), f"N {n} R 0.6 2.5", "LJ 12-6, evenly spaced in r")
        else:
            r = np.linspace(0.7, 2.2, 1500)
            section(out, "CG", r, *cg(r), "N 1500",
                    "coarse-grained bead: 9-6 core + shoulder at 1.5, shifted force at 2.2")


if __name__ == "__main__":
    main()
