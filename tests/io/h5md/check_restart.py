"""io.h5md.restart: restarts continue bitwise, on any rank count and decomposition, and the
trajectory they append to ends up identical to that of an unbroken run.

  A   1 rank  half-shell         0 → 200                      (the reference)
  B1  2 ranks neutral-territory  0 → 100                      ckpt.h5 at 100
  B2  3 ranks full-shell         --restart ckpt.h5 → 200      appends to B's traj.h5
  B3  2 ranks half-shell         --restart #ckpt.h5.1# (B1's step-100 checkpoint, backed up by
                                 B2) → 200: the frames after step 100 are dropped and written
                                 again, none lost or doubled; the log names them and the file
                                 as it was is backed up to #traj.h5.2# first (issue 17; B2
                                 made #traj.h5.1#: every append backs up first, issue 31)
  C1  1 rank  0 → 40             c/traj.h5 with frames 0, 20, 40
  C2  2 ranks --restart #ckpt.h5.1# into c/traj.h5: it ends before the restart step, so a
                                 warning (once) names the missing frames 60 and 80
  D   (thermostat decks) --restart b/traj.h5: a warning says the thermostat state is not in it
All state hashes equal A's; B's trajectory (every frame, observables, thermo table) equals A's."""
import hashlib
import os

import h5py
import numpy as np

from scanmd_test import Runner, arguments, state_hash_line

args = arguments(__doc__)
r = Runner(args)
os.makedirs(r.path("a"))
os.makedirs(r.path("b"))


def run(ranks, where, *extra):
    out, _, _ = r.run(ranks, "--set", f"output.trajectory={where}/traj.h5", "--set",
                      f"output.checkpoint={where}/ckpt.h5", *extra)
    return out


hash_a = state_hash_line(run(1, "a", "--set", "decomposition.method=half-shell"))
out_b1 = run(2, "b", "--set", "decomposition.method=neutral-territory", "--set", "run.steps=100")
hash_b1 = state_hash_line(out_b1)
out_b2 = run(3, "b", "--set", "decomposition.method=full-shell", "--restart", "b/ckpt.h5")
hash_b2 = state_hash_line(out_b2)
r.check(hash_b2 == hash_a, f"2 ranks NT 100 + 3 ranks FS restart to 200: {hash_b2} = {hash_a}")
r.check(hash_b1 != hash_a, "the 100-step state differs (the test can tell)")
r.check("backed up existing b/ckpt.h5 to b/#ckpt.h5.1#" in out_b2, "restart kept old checkpoint")
r.check("appending to b/traj.h5 after its 6 frames up to step 100" in out_b2, "append logged")
# Issue 31: a trajectory is backed up before it is appended to, even when no frame goes.
r.check("trajectory: b/traj.h5 is appended to; the file as it was is backed up to "
        "b/#traj.h5.1#" in out_b2, "B2: the trajectory backed up before appending")

T = "particles/trajectory/"
SERIES = [T + e + "/value" for e in ("position", "velocity", "image", "box/edges")] + \
    ["observables/" + o + "/value" for o in
     ("temperature", "potential_energy", "kinetic_energy", "total_energy", "pressure")] + \
    [T + "position/step", T + "position/time", "scanmd/thermo"]


def compare(label, runs):
    with h5py.File(r.path("a/traj.h5"), "r") as a, h5py.File(r.path("b/traj.h5"), "r") as b:
        r.check(np.array_equal(b[T + "position/step"][:], np.arange(0, 201, 20)),
                f"{label}: steps 0, 20, ..., 200 once each: {b[T + 'position/step'][:]}")
        same = [s for s in SERIES if np.array_equal(a[s][:], b[s][:])]
        r.check(len(same) == len(SERIES),
                f"{label}: bitwise equal to the unbroken run: {sorted(set(SERIES) - set(same))}")
        got = [(int(g.attrs["first_step"]), int(g.attrs["ranks"]), g.attrs["method"].decode())
               for _, g in sorted(b["scanmd/runs"].items(), key=lambda kv: int(kv[0]))]
        r.check(got == runs, f"{label}: run records {got}")


compare("after B2", [(0, 2, "neutral-territory"), (100, 3, "full-shell")])
with h5py.File(r.path("a/ckpt.h5"), "r") as a, h5py.File(r.path("b/ckpt.h5"), "r") as b:
    r.check(all(np.array_equal(a[T + e + "/value"][:], b[T + e + "/value"][:])
                for e in ("position", "velocity", "image")), "final checkpoints equal")
    r.check(b["scanmd/runs/0"].attrs["restart_from"] == b"b/ckpt.h5", "checkpoint names its start")

# Restart again from step 100 (the backup): frames 120..200 of the file are replaced.
def digest(name):
    return hashlib.sha256(open(r.path(name), "rb").read()).hexdigest()


before_b3 = digest("b/traj.h5")
out_b3 = run(2, "b", "--set", "decomposition.method=half-shell", "--restart", "b/#ckpt.h5.1#")
r.check(state_hash_line(out_b3) == hash_a, "restart from the backed-up step-100 checkpoint")
compare("after B3", [(0, 2, "neutral-territory"), (100, 3, "full-shell"), (100, 2, "half-shell")])
r.check(os.path.exists(r.path("b/#ckpt.h5.2#")), "B3 backed up B2's checkpoint")
r.check("trajectory: b/traj.h5 holds 5 frames after the restart step 100 (steps 120 to 200), "
        "dropped and written again by this run; the file as it was is backed up to "
        "b/#traj.h5.2#" in out_b3, "B3: the log names the frames it drops and the backup")
r.check(os.path.exists(r.path("b/#traj.h5.2#")) and digest("b/#traj.h5.2#") == before_b3,
        "B3: #traj.h5.2# is the trajectory as it was before the restart")

# A trajectory that ends before the restart step: the gap is announced.
os.makedirs(r.path("c"))
run(1, "c", "--set", "run.steps=40")
out_c2 = run(2, "c", "--restart", "b/#ckpt.h5.1#")
warning = ("warning: trajectory c/traj.h5 ends at step 40, before the restart step 100: the "
           "frames of steps 60 to 80 (output.trajectory_every = 20) are missing")
r.check(warning in out_c2 and out_c2.count("warning:") == 1, "C2: the gap is warned of, once")
with h5py.File(r.path("c/traj.h5"), "r") as c:
    r.check(list(c[T + "position/step"][:]) == [0, 20, 40, 100, 120, 140, 160, 180, 200],
            "C2: the frames around the gap")
# Issue 31, item 3: a trajectory holds no thermostat state: a restart from it says what is lost.
deck_text = open(args.deck).read()
if "nose-hoover" in deck_text or "langevin" in deck_text:
    os.makedirs(r.path("d"))
    out_d = run(1, "d", "--restart", "b/traj.h5", "--set", "run.steps=220")
    lost = ("Nosé–Hoover chain state (a trajectory, not a checkpoint): the chain starts at rest"
            if "nose-hoover" in deck_text else
            "Langevin work (a trajectory, not a checkpoint): econs starts again from etotal")
    r.check(f"warning: b/traj.h5: it holds no {lost}" in out_d and
            out_d.count("it holds no") == 1, "D: restart from a trajectory: the lost state warned of")
r.done()
