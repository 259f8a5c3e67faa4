#!/usr/bin/env python3
"""A LAMMPS atom_style atomic data file in LJ units (as scanmd's output.data_file writes it) as a
GROMACS start in argon units: conf.g96 (positions and velocities to 9 decimals in nm and nm/ps,
where a .gro would keep 3), topol.top (one uncharged atom type, LJ sigma/epsilon) for
bench/compare_peers.sh.

    lammps_data_to_gromacs.py DATA OUTDIR SIGMA_NM EPSILON_KJMOL MASS_U
Lengths scale by sigma, velocities by sigma/tau = sqrt(epsilon/m) (tau = sigma sqrt(m/epsilon)).
"""
import math
import sys


def read_data(path):
    box, atoms, vels, section = [None] * 3, {}, {}, None
    with open(path) as f:
        for raw in f:
            line = raw.split("#")[0].strip()
            if not line:
                continue
            w = line.split()
            if len(w) == 4 and w[2][1:] == "lo" and w[3][1:] == "hi":
                box["xyz".index(w[2][0])] = float(w[1]) - float(w[0])
            elif w[0] in ("Masses", "Atoms", "Velocities"):
                section = w[0]
            elif section == "Atoms":
                atoms[int(w[0])] = tuple(float(v) for v in w[2:5])
            elif section == "Velocities":
                vels[int(w[0])] = tuple(float(v) for v in w[1:4])
    if None in box or not atoms:
        sys.exit(f"{path}: no box or no atoms")
    return box, atoms, vels


def main():
    data, out, sigma, eps, mass = sys.argv[1], sys.argv[2], *map(float, sys.argv[3:6])
    box, atoms, vels = read_data(data)
    vscale = sigma / (sigma * math.sqrt(mass / eps))  # sigma / tau, nm/ps
    ids = sorted(atoms)
    with open(f"{out}/conf.g96", "w") as f:
        f.write(f"TITLE\nLJ melt from {data}\nEND\nPOSITION\n")
        for n, i in enumerate(ids, 1):
            x = [c * sigma for c in atoms[i]]
            f.write(f"{n % 100000:5d} LJ    AR   {n % 10000000:7d}{x[0]:15.9f}{x[1]:15.9f}{x[2]:15.9f}\n")
        f.write("END\nVELOCITY\n")
        for n, i in enumerate(ids, 1):
            v = [c * vscale for c in vels.get(i, (0.0, 0.0, 0.0))]
            f.write(f"{n % 100000:5d} LJ    AR   {n % 10000000:7d}{v[0]:15.9f}{v[1]:15.9f}{v[2]:15.9f}\n")
        f.write("END\nBOX\n" + "".join(f"{b * sigma:15.9f}" for b in box) + "\nEND\n")
    with open(f"{out}/topol.top", "w") as f:
        f.write(
            "[ defaults ]\n; nbfunc comb-rule gen-pairs fudgeLJ fudgeQQ\n1 2 no 1.0 1.0\n\n"
            f"[ atomtypes ]\n; name mass charge ptype sigma epsilon\nAR {mass} 0.0 A {sigma} {eps}\n\n"
            "[ moleculetype ]\nLJ 1\n\n[ atoms ]\n1 AR 1 LJ AR 1 0.0 " + f"{mass}\n\n"
            f"[ system ]\nLJ melt\n\n[ molecules ]\nLJ {len(ids)}\n"
        )


if __name__ == "__main__":
    main()
