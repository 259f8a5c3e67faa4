"""io.h5md.restart_bonded: a bonded system (harmonic bonds and angles under Langevin,
tests/decomposition/kg_angle_400.toml) restarts bitwise on other rank counts and methods, from
its checkpoint and from its trajectory.

  A   1 rank  half-shell  0 → 100                  (the reference: its state hash, its checkpoint)
  B   3 ranks neutral territory 0 → 50             b/ckpt.h5 and b/traj.h5 at step 50
  R   --restart b/ckpt.h5 → 100 on each (ranks, method) of --cases: the state hash equals A's,
      and the final checkpoint's topology fields (molecule, bond and angle partners and types:
      the State fields that travelled through the checkpoint and the restart) equal A's
  T   --restart b/traj.h5 → 100 (a trajectory holds the bonds' and angles' ids but no types and
      no topology fields: they come from the deck's data file, which the log says): A's hash;
      with a data file of one angle fewer than its connectivity: an error naming both, exit 1
The negative control: B's step-50 state differs from A's step-100 state (the test can tell)."""
import argparse
import os
import shutil

import h5py
import numpy as np

from scanmd_test import Runner, state_hash_line

p = argparse.ArgumentParser(description=__doc__)
p.add_argument("--exe", required=True)
p.add_argument("--mpiexec", required=True)
p.add_argument("--pre", default="--oversubscribe")
p.add_argument("--deck", required=True)
p.add_argument("--data", required=True, help="the deck's data file (absolute path)")
p.add_argument("--cases", required=True,
               help="ranks:method,... restarts from the checkpoint; the trajectory restart "
                    "takes the first")
p.add_argument("--workdir", required=True)
args = p.parse_args()
shutil.rmtree(args.workdir, ignore_errors=True)
os.makedirs(args.workdir)
r = Runner(args)
for d in ("a", "b"):
    os.makedirs(r.path(d))


def run(ranks, method, where, *extra):
    out, err, _ = r.run(ranks, "--set", f'system.data_file="{args.data}"', "--set",
                        'output.log=""', "--set", f"decomposition.method={method}", "--set",
                        f'output.checkpoint="{where}/ckpt.h5"', "--set",
                        f'output.trajectory="{where}/traj.h5"', "--set",
                        "output.checkpoint_every=50", "--set", "output.trajectory_every=50",
                        *extra)
    return out + err


FIELDS = ("molecule", "bond_atom", "bond_type", "angle_atom", "angle_type")


def topology(path):
    with h5py.File(r.path(path), "r") as f:
        return {k: f["scanmd/fields/" + k][:] for k in FIELDS}


out_a = run(1, "half-shell", "a")
hash_a = state_hash_line(out_a)
top_a = topology("a/ckpt.h5")
r.check(all(np.any(top_a[k] != 0) for k in FIELDS), "A's checkpoint holds the topology fields")
hash_b = state_hash_line(run(3, "neutral-territory", "b", "--set", "run.steps=50"))
r.check(hash_b != hash_a, f"B's step-50 state {hash_b} differs from A's {hash_a}")
cases = [(int(c.split(":")[0]), c.split(":")[1]) for c in args.cases.split(",")]
for ranks, method in cases:
    where = f"r_{ranks}_{method}"
    os.makedirs(r.path(where))
    shutil.copy(r.path("b/ckpt.h5"), r.path(where + "/start.h5"))
    out = run(ranks, method, where, "--restart", f"{where}/start.h5")
    h = state_hash_line(out)
    r.check(h == hash_a, f"3 ranks NT to 50, then {ranks} ranks {method} to 100: {h} = {hash_a}")
    top = topology(where + "/ckpt.h5")
    r.check(all(np.array_equal(top[k], top_a[k]) for k in FIELDS),
            f"{ranks} ranks {method}: the final checkpoint's topology fields equal A's")
ranks, method = cases[0]
os.makedirs(r.path("t"))
shutil.copy(r.path("b/traj.h5"), r.path("t/start.h5"))
out_t = run(ranks, method, "t", "--restart", "t/start.h5")
r.check(state_hash_line(out_t) == hash_a,
        f"restart from B's trajectory on {ranks} ranks {method}: A's hash")
r.check("restart: t/start.h5 holds no topology fields (a trajectory): the bonds, angles and "
        f"molecule ids come from the data file {args.data}" in out_t, "T: the log says so")
r.check(all(np.array_equal(v, top_a[k]) for k, v in topology("t/ckpt.h5").items()),
        "T: the final checkpoint's topology fields equal A's")
# The trajectory's connectivity against the data file: one angle fewer in the data file is an
# error naming both counts, exit 1, before any step.
lines = open(args.data).read().splitlines()
lines = [("383 angles" if l.strip() == "384 angles" else l) for l in lines[:-1]]
with open(r.path("t/one_angle_fewer.data"), "w") as f:
    f.write("\n".join(lines) + "\n")
out, err, rc = r.run(ranks, "--set", f'system.data_file="t/one_angle_fewer.data"', "--set",
                     'output.log=""', "--restart", "t/start.h5", expect_rc=1)
r.check("t/start.h5: its connectivity has 392 bonds and 384 angles, the data file "
        "t/one_angle_fewer.data 392 and 383: it is not the data file" in out + err and
        "temp" not in out, "a data file that is not the trajectory's run's: an error, exit 1")
r.done()
