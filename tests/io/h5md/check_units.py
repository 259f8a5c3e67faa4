"""io.h5md.units: system.units in the trajectory. Argon (small.toml's 500 atoms) in real and in
metal units, 1 rank, 40 steps, frames every 20: every dataset carries its H5MD `unit`
attribute (Angstrom, Angstrom fs-1 / ps-1, kcal mol-1 Angstrom-1 / eV Angstrom-1, fs / ps, K,
kcal mol-1 / eV, atm / bar), the checkpoint's datasets too, and MDAnalysis 2.4 converts with convert_units=True (velocities
to Angstrom/ps, real forces to kJ/(mol Angstrom), time to ps); the lj run has no unit attribute
at all, as before system.units existed."""
import MDAnalysis as mda
import h5py
import numpy as np

from scanmd_test import Runner, arguments

args = arguments(__doc__)
r = Runner(args)
T = "particles/trajectory/"
ARGON = {
    "real": ["--set", "potential.epsilon=0.2381", "--set", "potential.sigma=3.405",
             "--set", "potential.cutoff=8.5125", "--set", "system.density=0.021384",
             "--set", "run.dt=5.0"],
    "metal": ["--set", "potential.epsilon=0.0104", "--set", "potential.sigma=3.4",
              "--set", "potential.cutoff=8.5", "--set", "system.density=0.021479",
              "--set", "run.dt=0.005"],
}
EXPECTED = {
    "real": {"position": "Angstrom", "velocity": "Angstrom fs-1", "box/edges": "Angstrom",
             "force": "kcal mol-1 Angstrom-1", "time": "fs", "temperature": "K",
             "potential_energy": "kcal mol-1", "kinetic_energy": "kcal mol-1",
             "total_energy": "kcal mol-1", "pressure": "atm"},
    "metal": {"position": "Angstrom", "velocity": "Angstrom ps-1", "box/edges": "Angstrom",
              "force": "eV Angstrom-1", "time": "ps", "temperature": "K",
              "potential_energy": "eV", "kinetic_energy": "eV", "total_energy": "eV",
              "pressure": "bar"},
}


def unit(f, name):
    if name == "time":
        d = f[T + "position/time"]
    elif name in ("temperature", "potential_energy", "kinetic_energy", "total_energy",
                  "pressure"):
        d = f["observables/" + name + "/value"]
    else:
        d = f[T + name + "/value"]
    u = d.attrs.get("unit")
    return u.decode() if isinstance(u, bytes) else u


common = ["--set", "run.steps=40", "--set", "output.checkpoint=\"\"",
          "--set", "system.mass=39.948", "--set", "system.temperature=180.0",
          "--set", "potential.style=\"lj/cut\"", "--set", "neighbor.skin=1.0"]
for units in ("real", "metal"):
    force = units == "real"  # MDAnalysis has no spelling for eV/Angstrom forces
    traj = f"traj_{units}.h5"
    ckpt = f"ckpt_{units}.h5"
    r.run(1, *common, *ARGON[units], "--set", f"system.units=\"{units}\"",
          "--set", f"output.trajectory=\"{traj}\"", "--set", "output.trajectory_force=true",
          "--set", f"output.checkpoint=\"{ckpt}\"")
    with h5py.File(r.path(traj), "r") as f:
        got = {k: unit(f, k) for k in EXPECTED[units]}
        r.check(got == EXPECTED[units], f"{units}: unit attributes {got}")
        pos = f[T + "position/value"][:]
        vel = f[T + "velocity/value"][:]
        frc = f[T + "force/value"][:]
        time = f[T + "position/time"][:]
    # The checkpoint (one frame, no forces or observables) carries the same attributes.
    with h5py.File(r.path(ckpt), "r") as f:
        names = ("position", "velocity", "box/edges", "time")
        got = {k: unit(f, k) for k in names}
        r.check(got == {k: EXPECTED[units][k] for k in names},
                f"{units}: checkpoint unit attributes {got}")
    if not force:  # again without forces, for MDAnalysis
        traj = f"traj_{units}_noforce.h5"
        r.run(1, *common, *ARGON[units], "--set", f"system.units=\"{units}\"",
              "--set", f"output.trajectory=\"{traj}\"")
    u = mda.Universe.empty(pos.shape[1], trajectory=True)
    u.load_new(r.path(traj), format="H5MD", convert_units=True)
    ok = u.trajectory.n_frames == len(time)
    # MDAnalysis's own factors (2.4's Angstrom/fs entry is inverted: it divides Angstrom/fs by
    # 1000 to get Angstrom/ps; the file's unit is right, the reader's table is not).
    vscale = mda.units.get_conversion_factor("speed", "Angstrom/fs" if units == "real"
                                             else "Angstrom/ps", "Angstrom/ps")
    tscale = 0.001 if units == "real" else 1.0
    for ts in u.trajectory:
        k = ts.frame
        ok &= np.allclose(ts.positions, pos[k], rtol=1e-6)
        ok &= np.allclose(ts.velocities, vel[k] * vscale, rtol=1e-6)
        ok &= abs(ts.time - time[k] * tscale) < 1e-9
        if force:
            ok &= np.allclose(ts.forces, frc[k] * 4.184, rtol=1e-6)
    r.check(bool(ok), f"{units}: MDAnalysis converts positions, velocities, time"
            + (", forces" if force else ""))

r.run(1, "--set", "run.steps=20", "--set", "output.checkpoint=\"\"",
      "--set", "output.trajectory=\"traj_lj.h5\"", "--set", "output.trajectory_force=true")
with h5py.File(r.path("traj_lj.h5"), "r") as f:
    found = []
    f.visititems(lambda n, o: found.append(n) if "unit" in o.attrs else None)
    r.check(found == [], f"lj: no unit attributes ({found})")
r.done()
