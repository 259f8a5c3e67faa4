"""io.lammps.data_file: `mpiexec -n 2 scanmd run data_out.toml` writes the final state as a LAMMPS
data file (output.data_file) next to its H5MD trajectory; MDAnalysis 2.4 (Debian
python3-mdanalysis) takes the data file as the topology of the trajectory. Checks: the log line,
no temporary file left, the layout (title, counts, box [0, L), Masses, Atoms # atomic, Velocities),
atom types 1/2 in the deck's 400:100 and equal to the trajectory's species, masses per type, and
the data file's positions, image flags and velocities equal, by id, to the last trajectory frame
(the final step). MDAnalysis reads positions as float32, so the 1e-12 comparison reads the
frame's float64 values with h5py; MDAnalysis' own (float32) values are checked to 1e-6.

MDAnalysis' DATAParser guesses the atom style from the column count and takes 8 columns for
`id resid type x y z ...`, never atomic, so atom_style="id type x y z" is passed (as it would be
for a file from LAMMPS write_data); LJ units carry no H5MD unit attributes: convert_units=False."""
import os
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "h5md"))
from scanmd_test import Runner, arguments  # noqa: E402

args = arguments(__doc__)
r = Runner(args)
stdout, stderr, _ = r.run(2)

N, STEPS, L = 500, 100, 5 * (4 / 0.8442) ** (1 / 3)
MASS = {"1": 1.0, "2": 2.0}
data_path, traj_path = r.path("final.data"), r.path("traj.h5")

r.check(f"data file: wrote final.data ({N} atoms, step {STEPS})" in stdout,
        "log: data file: wrote final.data (500 atoms, step 100)")
r.check(os.path.isfile(data_path), "final.data written")
r.check(not os.path.exists(data_path + ".tmp"), "no final.data.tmp left behind")


def sections(path):
    """Title, header lines and {keyword: data lines} of a data file, parsed independently of
    scanmd's reader (float() gives the exact double of a 17-digit decimal)."""
    with open(path) as f:
        lines = f.read().split("\n")
    title, header, sects, current = lines[0], [], {}, None
    for line in lines[1:]:
        text = line.split("#")[0].strip()
        if not text:
            continue
        if text in ("Masses", "Atoms", "Velocities"):
            current = sects.setdefault(text, [])
            if text == "Atoms":
                sects["Atoms style"] = line.split("#")[1].strip() if "#" in line else ""
        elif current is None:
            header.append(text)
        else:
            current.append(text.split())
    return title, header, sects


title, header, s = sections(data_path)
r.check(title.startswith("LAMMPS data file via scanmd") and f"timestep = {STEPS}" in title,
        f"title names scanmd and the step: '{title}'")
Ls = repr(L)
r.check(header[:2] == [f"{N} atoms", "2 atom types"], f"header counts {header[:2]}")
box = [h.split() for h in header[2:]]
r.check([b[2:] for b in box] == [["xlo", "xhi"], ["ylo", "yhi"], ["zlo", "zhi"]] and
        all(float(b[0]) == 0.0 and abs(float(b[1]) - L) < 1e-12 for b in box),
        f"box [0, L) per axis, L = {Ls}")
r.check(s.get("Atoms style") == "atomic", "Atoms # atomic")
r.check(sorted(s) == ["Atoms", "Atoms style", "Masses", "Velocities"],
        f"sections {sorted(k for k in s if k != 'Atoms style')}, no Pair Coeffs")
r.check([(m[0], float(m[1])) for m in s["Masses"]] == [("1", 1.0), ("2", 2.0)], "Masses 1 1, 2 2")
atoms = s["Atoms"]
r.check(len(atoms) == N and all(len(a) == 8 for a in atoms), "500 atom lines of 8 fields")
ids = np.array([int(a[0]) for a in atoms])
r.check(np.array_equal(ids, np.arange(1, N + 1)), "atoms sorted by id, ids 1..N")
dtype = np.array([int(a[1]) for a in atoms])
dpos = np.array([[float(x) for x in a[2:5]] for a in atoms])
dimg = np.array([[int(x) for x in a[5:8]] for a in atoms])
vel = s["Velocities"]
r.check(len(vel) == N and [int(v[0]) for v in vel] == list(range(1, N + 1)),
        "Velocities: 500 lines by id")
dvel = np.array([[float(x) for x in v[1:4]] for v in vel])
r.check(np.all((dpos >= 0) & (dpos < L)), "positions wrapped into [0, L)")
r.check(np.any(dimg != 0), "image flags recorded")

# The last trajectory frame, float64, rows by id.
with h5py.File(traj_path, "r") as f:
    t = f["particles/trajectory"]
    r.check(int(t["position/step"][-1]) == STEPS, f"last trajectory frame is step {STEPS}")
    tid = t["id"][:]
    order = np.argsort(tid)
    tpos = t["position/value"][-1][order]
    tvel = t["velocity/value"][-1][order]
    timg = t["image/value"][-1][order]
    species = t["species"][:][order]
r.check(np.array_equal(tid, ids), "trajectory rows by id = data file ids (MDAnalysis pairs "
        "row k with the k-th atom of the topology, which DATAParser sorts by id)")
dx = np.abs(tpos - dpos).max()
r.check(dx <= 1e-12, f"positions = last frame (by id): max |dx| = {dx:.3g}")
dv = np.abs(tvel - dvel).max()
r.check(dv <= 1e-12, f"velocities = last frame (by id): max |dv| = {dv:.3g}")
r.check(np.array_equal(timg, dimg), "image flags = last frame")
r.check(np.array_equal(species, dtype), "types = trajectory species")

# MDAnalysis: the data file as topology, the trajectory as coordinates.
try:
    import MDAnalysis as mda
except ImportError:
    raise SystemExit("FAIL: MDAnalysis missing (Debian python3-mdanalysis; bash scripts/install-deps.sh)")
u = mda.Universe(data_path, traj_path, format="H5MD", atom_style="id type x y z",
                 convert_units=False)
r.check(u.atoms.n_atoms == N, f"MDAnalysis: n_atoms = {u.atoms.n_atoms}")
r.check(u.trajectory.n_frames == STEPS // 20 + 1, f"MDAnalysis: {u.trajectory.n_frames} frames")
types = np.asarray(u.atoms.types)
r.check(set(types) == {"1", "2"} and (types == "1").sum() == 400 and (types == "2").sum() == 100,
        f"MDAnalysis: types '1' x {(types == '1').sum()}, '2' x {(types == '2').sum()} (400:100)")
mids = np.asarray(u.atoms.ids)
r.check(np.array_equal(types, dtype[mids - 1].astype(str)), "MDAnalysis: types by id = data file")
masses = np.asarray(u.atoms.masses)
r.check(all(np.all(masses[types == t] == m) for t, m in MASS.items()),
        "MDAnalysis: mass 1.0 for type '1', 2.0 for type '2'")
ts = u.trajectory[-1]
r.check(int(ts.data["step"]) == STEPS, f"MDAnalysis: last frame step {ts.data['step']}")
# Row k of the trajectory is atom u.atoms[k] (id mids[k]): compare by id.
mx = np.abs(ts.positions.astype(np.float64) - dpos[mids - 1]).max()
r.check(mx <= 1e-6, f"MDAnalysis: last frame positions = data file (float32): max |dx| = {mx:.3g}")
r.done()
