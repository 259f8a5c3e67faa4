"""io.h5md.connectivity: a trajectory of a run with bonds carries its topology as H5MD 1.1
connectivity — /connectivity/bonds (n, 2) and /connectivity/angles (n, 3), particle ids; absent when none — and
particles/trajectory/molecule, whatever the rank count; the sets equal the data file's (parsed
here, independently of scanmd's reader), and MDAnalysis opens the file
with the data file scanmd wrote (its bonds and molecules).
The deck (small_bonds.toml) starts from tests/physics/bonded/kg_bond.data; a second run from
kg_angle.data (harmonic bonds and cosine angles) checks the angles."""
import re

import h5py
import numpy as np

from scanmd_test import Runner, arguments

args = arguments(__doc__)
r = Runner(args)


def data_file_topology(path):
    """(bonds as sorted id pairs, angles as (a, b, c) with a < c, molecule by id) of a LAMMPS data
    file, read line by line."""
    text = open(path).read()
    section = None
    bonds, angles, molecule = set(), set(), {}
    for line in text.splitlines()[1:]:
        content = line.split("#")[0].strip()
        if not content:
            continue
        if re.match(r"^[A-Z][A-Za-z ]*$", content):
            section = content
            continue
        f = content.split()
        if section == "Atoms":
            molecule[int(f[0])] = int(f[1])
        elif section == "Bonds":
            a, b = int(f[2]), int(f[3])
            bonds.add((min(a, b), max(a, b)))
        elif section == "Angles":
            a, b, c = int(f[2]), int(f[3]), int(f[4])
            angles.add((min(a, c), b, max(a, c)))
    return bonds, angles, molecule


deck = open(args.deck).read()
bond_data = re.search(r'data_file = "(.*)"', deck).group(1)
angle_data = bond_data.replace("kg_bond.data", "kg_angle.data")
angle_sets = ["--set", f'system.data_file="{angle_data}"', "--set", 'bond.style="harmonic"',
              "--set", "bond.coeff=[{type = 1, k = 100.0, r0 = 0.97}]",
              "--set", 'angle.style="cosine"', "--set", "angle.coeff=[{type = 1, k = 1.5}]"]
for ranks, data, extra in [(1, bond_data, []), (3, bond_data, []), (2, angle_data, angle_sets)]:
    name = f"traj_{ranks}.h5"
    r.run(ranks, "--set", f"output.trajectory={name}", "--set", 'output.checkpoint=""',
          "--set", "run.steps=20", "--set", f"output.data_file=out_{ranks}.data", *extra)
    bonds, angles, molecule = data_file_topology(data)
    with h5py.File(r.path(name), "r") as f:
        got_b = {tuple(sorted(map(int, row))) for row in f["connectivity/bonds"][:]}
        rows_a = f["connectivity/angles"][:] if "connectivity/angles" in f else np.zeros((0, 3))
        got_a = {(min(int(a), int(c)), int(b), max(int(a), int(c))) for a, b, c in rows_a}
        r.check(f["connectivity/bonds"].shape == (len(bonds), 2) and got_b == bonds,
                f"{ranks} ranks, {data.split('/')[-1]}: connectivity/bonds = the data file's "
                f"{len(bonds)} bonds")
        r.check(len(rows_a) == len(angles) and got_a == angles,
                f"{ranks} ranks: connectivity/angles = the data file's {len(angles)} angles")
        ids = f["particles/trajectory/id"][:]
        mol = f["particles/trajectory/molecule"][:]
        r.check(all(mol[k] == molecule[int(i)] for k, i in enumerate(ids)),
                f"{ranks} ranks: particles/trajectory/molecule by id = the data file's")
        r.check(f["connectivity/bonds"].attrs["particles_group"] == b"/particles/trajectory",
                "connectivity names its particles group")
try:
    import MDAnalysis as mda
    # The topology from the data file scanmd wrote (atom_style bond: id molecule type x y z).
    u = mda.Universe(r.path("out_1.data"), r.path("traj_1.h5"), format="H5MD",
                     atom_style="id resid type x y z", convert_units=False)
    r.check(len(u.atoms) == 400 and len(u.trajectory) >= 1 and len(u.bonds) == 392 and
            len(u.residues) == 8, "MDAnalysis reads the trajectory with the written data file's "
            f"bonds ({len(u.bonds)}) and molecules ({len(u.residues)})")
except ImportError:
    r.check(False, "MDAnalysis is importable (python3-mdanalysis)")
r.done()
