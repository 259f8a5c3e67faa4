"""io.h5md.trajectory: the H5MD file of `mpiexec -n 2 scanmd run small.toml` (forces on) read
back with h5py and MDAnalysis 2.4: layout of H5MD 1.1, frames on the right steps, shared
step/time datasets, observables on exactly the frames, the thermo table, the run record, and
the last frame bitwise equal to the final state (state hash) and to the final checkpoint.
The run balances by pairs (tolerance 1: cut planes move at every balance step): the run record's
balance steps and cut planes, and the pairs per rank of each rebuild, whose sum at step 0 must
be the brute-force count of pairs within the cutoff in frame 0."""
import h5py
import numpy as np

from scanmd_test import Runner, arguments, state_hash, state_hash_line

args = arguments(__doc__)
r = Runner(args)
stdout, _, _ = r.run(2, "--set", "output.trajectory_force=true",
                     "--set", "decomposition.balance=\"pairs\"",
                     "--set", "decomposition.balance_every=100",
                     "--set", "decomposition.balance_tolerance=1.0",
                     "--set", "output.imports=\"imports.csv\"")
hash_run = state_hash_line(stdout)

N, STEPS, EVERY, DT = 500, 200, 20, 0.005
steps = np.arange(0, STEPS + 1, EVERY)
F = len(steps)
T = "particles/trajectory/"

with h5py.File(r.path("traj.h5"), "r") as f:
    r.check(list(f["h5md"].attrs["version"]) == [1, 1], "h5md version = [1, 1]")
    r.check(f["h5md/creator"].attrs["name"] == b"scanmd", "h5md/creator name = scanmd")
    r.check("version" in f["h5md/creator"].attrs, "h5md/creator version")
    r.check("name" in f["h5md/author"].attrs, "h5md/author name")
    box = f[T + "box"]
    r.check(box.attrs["dimension"] == 3, "box dimension = 3")
    r.check([b.decode() for b in box.attrs["boundary"]] == ["periodic"] * 3, "box boundary")
    L = 5 * (4 / 0.8442) ** (1 / 3)
    edges = f[T + "box/edges/value"][:]
    r.check(edges.shape == (F, 3, 3), f"box/edges/value shape {edges.shape}")
    r.check(np.allclose(edges, np.broadcast_to(np.diag([L, L, L]), (F, 3, 3)), rtol=1e-14),
            "box/edges are diagonal matrices of the box")
    for name, dtype in (("position", "f"), ("velocity", "f"), ("force", "f"), ("image", "i")):
        d = f[T + name + "/value"]
        r.check(d.shape == (F, N, 3), f"{name}/value shape {d.shape}")
        r.check(d.dtype.kind == dtype, f"{name}/value dtype {d.dtype}")
        r.check(d.chunks is not None and d.maxshape[0] is None, f"{name}: chunked, extendible")
    r.check(np.array_equal(f[T + "id"][:], np.arange(1, N + 1)), "id = 1..N (rows by id)")
    r.check(np.array_equal(f[T + "species"][:], np.ones(N)), "species: LAMMPS type 1 for all")

    step_owner = f[T + "position/step"]
    time_owner = f[T + "position/time"]
    r.check(step_owner.dtype == np.int64, "step is int64")
    r.check(np.array_equal(step_owner[:], steps), f"steps {step_owner[:]}")
    r.check(np.array_equal(time_owner[:], steps * DT), "time = step * dt")
    series = [T + e for e in ("position", "velocity", "force", "image", "box/edges")]
    observables = ["temperature", "potential_energy", "kinetic_energy", "total_energy", "pressure"]
    r.check(sorted(f["observables"]) == sorted(observables), f"observables {list(f['observables'])}")
    series += ["observables/" + o for o in observables]
    linked = all(f[s + "/step"] == step_owner and f[s + "/time"] == time_owner for s in series)
    r.check(linked, "every element's step/time is the same dataset")
    r.check(h5py.h5o.get_info(step_owner.id).rc == len(series), "step: one hard link per element")
    for o in observables:
        r.check(f["observables/" + o + "/value"].shape == (F,), f"observables/{o} has {F} values")

    pos = f[T + "position/value"][:]
    vel = f[T + "velocity/value"][:]
    force = f[T + "force/value"][:]
    r.check(np.all((pos >= 0) & (pos < L)), "positions wrapped into [0, L)")
    r.check(np.any(f[T + "image/value"][-1] != 0), "image counters recorded")
    r.check(np.abs(force).max() > 0.1 and np.abs(force.sum(axis=1)).max() < 1e-6,
            "forces non-zero and summing to ~0 (Newton's third law)")
    r.check(state_hash(np.arange(1, N + 1), pos[-1], vel[-1]) == hash_run,
            f"hash of the last frame = scanmd state hash {hash_run}")

    temp = f["observables/temperature/value"][:]
    pe = f["observables/potential_energy/value"][:]
    etotal = f["observables/total_energy/value"][:]
    r.check(np.all(np.abs(etotal - etotal[0]) < 0.05) and len(set(pe)) == F,
            "observables computed on every frame's step (energy conserved, no stale values)")
    thermo = f["scanmd/thermo"][:]
    r.check(list(thermo.dtype.names) == ["step", "temp", "pe", "ke", "etotal", "press"],
            "scanmd/thermo columns")
    r.check(np.array_equal(thermo["step"], [0, 50, 100, 150, 200]), "thermo rows every 50")
    for row in thermo:
        if row["step"] % EVERY == 0:
            k = int(row["step"]) // EVERY
            r.check(temp[k] == row["temp"] and pe[k] == row["pe"],
                    f"observables at step {row['step']} = thermo row")

    run = f["scanmd/runs/0"]
    r.check(run.attrs["method"] == b"half-shell" and run.attrs["ranks"] == 2, "run record")
    r.check(run.attrs["first_step"] == 0 and run.attrs["last_step"] == STEPS, "run steps")
    r.check(b"trajectory_force = true" in run["deck"][()], "resolved deck stored")
    imports = run["imports"]
    r.check(imports["ghosts"].shape == (imports["step"].shape[0], 2), "imports per rebuild x rank")
    r.check(all(k in imports for k in ("tower", "plate", "bytes_per_step", "pairs")),
            "import columns")
    pairs = imports["pairs"][:]
    r.check(pairs.shape == imports["ghosts"].shape and (pairs >= 0).all(),
            "pairs per rebuild x rank, every rebuild followed by a force call")
    x0 = f[T + "position/value"][0]
    d = x0[:, None, :] - x0[None, :, :]
    d -= L * np.round(d / L)
    r2 = (d * d).sum(-1)
    brute = int(((r2 < 2.5 * 2.5) & np.triu(np.ones((N, N), bool), 1)).sum())
    at0 = imports["step"][:] == 0
    r.check(at0.any() and all(int(p.sum()) == brute for p in pairs[at0]),
            f"pairs at step 0 sum to the brute-force {brute}: {pairs[at0].sum(axis=1)}")
    with open(r.path("imports.csv")) as csv_file:
        lines = csv_file.read().splitlines()
    r.check(lines[1] == "step,rank,ghosts,tower,plate,bytes_per_step,analytic,pairs",
            f"imports CSV header {lines[1]}")
    rows = np.array([[float(v) for v in line.split(",")] for line in lines[2:]])
    r.check(np.array_equal(rows[:, 7], pairs.ravel()) and
            np.array_equal(rows[:, 2], imports["ghosts"][:].ravel()),
            "imports CSV pairs and ghosts = the run record's")
    bal = run["balance"]
    r.check(bal.attrs["cost"] == b"pairs", "balance cost")
    r.check(np.array_equal(bal["step"][:], [0, 100, 200]), f"balance steps {bal['step'][:]}")
    r.check((bal["after"][:] <= bal["before"][:]).all(), "balance never worsens")
    grid = [int(v) for v in run.attrs["grid"]]
    ok = True
    for a, name in enumerate(("cuts_x", "cuts_y", "cuts_z")):
        c = bal[name][:]
        ok &= c.shape == (3, grid[a] + 1)
        ok &= (c[:, 0] == 0).all() and np.allclose(c[:, -1], L, rtol=1e-15)
        ok &= (np.diff(c, axis=1) > 0).all()
    r.check(ok, "cut planes per balance step: 0 .. L, increasing, n + 1 per axis")
    sections = [s.decode() for s in run["timing"]["section"]]
    r.check("output" in sections and "pair" in sections, f"timing table {sections}")

with h5py.File(r.path("ckpt.h5"), "r") as c:
    r.check(c[T + "position/step"][-1] == STEPS, "final checkpoint at the last step")
    r.check(np.array_equal(c[T + "position/value"][-1], pos[-1]) and
            np.array_equal(c[T + "velocity/value"][-1], vel[-1]),
            "checkpoint = last trajectory frame, bitwise")

# MDAnalysis 2.4 (Debian python3-mdanalysis), frame by frame.
try:
    import MDAnalysis as mda
except ImportError:
    raise SystemExit("FAIL: MDAnalysis missing (Debian python3-mdanalysis; bash scripts/install-deps.sh)")
u = mda.Universe.empty(N, trajectory=True)
u.load_new(r.path("traj.h5"), format="H5MD", convert_units=False)
r.check(u.trajectory.n_frames == F, f"MDAnalysis sees {u.trajectory.n_frames} frames")
seen = []
ok = True
for ts in u.trajectory:
    k = ts.frame
    seen.append(int(ts.data["step"]))
    ok &= np.allclose(ts.positions, pos[k], rtol=1e-6, atol=1e-5)
    ok &= np.allclose(ts.velocities, vel[k], rtol=1e-6, atol=1e-5)
    ok &= np.allclose(ts.dimensions, [L, L, L, 90, 90, 90], rtol=1e-6)
    ok &= abs(ts.time - steps[k] * DT) < 1e-12 and ts.data["temperature"] == temp[k]
r.check(seen == list(steps), f"MDAnalysis steps {seen}")
r.check(ok, "MDAnalysis positions, velocities, box, time, observables per frame")
u2 = mda.Universe.empty(N, trajectory=True)
u2.load_new(r.path("ckpt.h5"), format="H5MD", convert_units=False)
r.check(u2.trajectory.n_frames == 1, "MDAnalysis opens the checkpoint")
r.done()
