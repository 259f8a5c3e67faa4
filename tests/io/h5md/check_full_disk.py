"""io.h5md.full_disk (issue 15, item 1): a write that fails — a full disk, EIO — stops the run on
every rank with one clear error (exit 1: no crash, no hang), leaves the previous checkpoint as
it was and the trajectory readable up to its last complete frame.

Injected failures (SCANMD_TEST_FAIL_WRITE=<text>[@<rank>][#<n>]: the n-th collective HDF5 write
whose context holds <text> fails on that rank as on a full disk; always run):
  I1  trajectory, 2 ranks: the velocity of the 3rd frame fails on rank 1 only
  I2  trajectory, 1 rank: the metadata flush that completes the 2nd frame fails
  I3  checkpoint, 2 ranks, output.overwrite: the 2nd checkpoint fails on rank 1 only; the first
      (step 100) stays and restarts to the uninterrupted run's state hash
  I4  checkpoint, 1 rank, backup mode: the checkpoint file of an earlier run is backed up, the
      first checkpoint fails: the backup is intact, nothing half written is left
  I5  thermo table, 2 ranks: a thermo row fails on rank 1 only
  I6  trajectory creation, 2 ranks: its species fail on rank 1: no half-made file is left
A real full disk (a 2 MiB tmpfs per case, `mount -t tmpfs`; skipped, saying so, where mounting
is not permitted):
  T1-T4  checkpoint that no longer fits, output.overwrite and backup modes, 1 and 2 ranks: the
         space check refuses it before anything is written, naming the numbers
  T5-T6  trajectory that no longer fits, 1 and 2 ranks
  T7-T8  the same with the space check off (SCANMD_TEST_NO_SPACE_CHECK=1): HDF5 meets ENOSPC
         itself (checkpoint on 2 ranks, trajectory on 2 ranks); before issue 15 this was a
         segfault (1 rank) or a hang (2 ranks)"""
import os
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor

import h5py
import numpy as np

from scanmd_test import Runner, arguments, state_hash_line

args = arguments(__doc__)
r = Runner(args)
T = "particles/trajectory/"
SERIES = [T + e + "/value" for e in ("position", "velocity", "image", "box/edges")] + \
    ["observables/" + o + "/value" for o in
     ("temperature", "potential_energy", "kinetic_energy", "total_energy", "pressure")] + \
    [T + "position/step", T + "position/time"]

# The reference: small.toml's 200 steps, frames every 20, checkpoints at 100 and 200.
os.makedirs(r.path("ref"))
out_ref, _, _ = r.run(2, cwd="ref")
hash_ref = state_hash_line(out_ref)


def failed_cleanly(name, result, expect):
    """A run that met the write failure: exit 1 (no signal, no timeout), the error once."""
    out, err, rc = result
    ok = r.check(rc == 1, f"{name}: exit status {rc} (1: an error, not a crash or a hang)")
    ok &= r.check(re.search(r"^error: " + expect, out, re.M) is not None,
                  f"{name}: message /{expect}/")
    ok &= r.check(out.count("error:") == 1, f"{name}: printed once ({out.count('error:')}x)")
    if not ok:
        print(out[-3000:] + err[-2000:])


def readable(name, path, ref=None, frames=None):
    """The trajectory opens, every series holds the same frames (those of `frames` if given),
    equal bit for bit to the reference trajectory's."""
    try:
        with h5py.File(path, "r") as f:
            steps = list(f[T + "position/step"][:])
            lengths = {s: len(f[s]) for s in SERIES}
            ok = r.check(set(lengths.values()) == {len(steps)},
                         f"{name}: every series has the {len(steps)} frames {steps}: {lengths}")
            if frames is not None:
                r.check(steps == frames, f"{name}: frames {steps}, expected {frames}")
            if ref:
                with h5py.File(ref, "r") as g:
                    same = [s for s in SERIES if np.array_equal(f[s][:], g[s][:len(steps)])]
                    r.check(len(same) == len(SERIES),
                            f"{name}: frames equal the uninterrupted run's: "
                            f"{sorted(set(SERIES) - set(same))}")
            thermo = f["scanmd/thermo"][:] if "scanmd/thermo" in f else []
            r.check(len(thermo) >= 1, f"{name}: the thermo table reads ({len(thermo)} rows)")
            return ok
    except Exception as e:  # noqa: BLE001 - any failure to read is the finding
        return r.check(False, f"{name}: {path} cannot be read: {e}")


def checkpoint_step(path):
    with h5py.File(path, "r") as f:
        return int(f[T + "position/step"][-1])


def leftovers(folder):
    return [n for n in os.listdir(folder) if n.endswith(".tmp")]


# ---- injected failures (run concurrently, each in its own folder)
CASES = {
    "I1": (2, "traj.h5: write particles/trajectory/velocity@1#3", []),
    "I2": (1, "traj.h5: flush#4", []),
    "I3": (2, "ckpt.h5.tmp: write particles/trajectory/position@1#2",
           ["--set", "output.overwrite=true"]),
    "I4": (1, "ckpt.h5.tmp: write particles/trajectory/position#1", []),
    "I5": (2, "scanmd/thermo@1#2", []),
    # Issue 31, item 7: the trajectory fails as it is created (a disk full from the start): no
    # file of it is left (a half-made one was), an earlier trajectory's backup is intact.
    "I6": (2, "traj.h5: write species@1", []),
}
for name in CASES:
    os.makedirs(r.path(name))
# I4: an earlier run's checkpoint is there to be backed up; I6: an earlier trajectory.
shutil.copy(r.path("ref/ckpt.h5"), r.path("I4/ckpt.h5"))
shutil.copy(r.path("ref/traj.h5"), r.path("I6/traj.h5"))
earlier_traj = open(r.path("I6/traj.h5"), "rb").read()
earlier = open(r.path("I4/ckpt.h5"), "rb").read()


def injected(name):
    ranks, spec, extra = CASES[name]
    return r.run(ranks, *extra, expect_rc=None, cwd=name, env={"SCANMD_TEST_FAIL_WRITE": spec})


with ThreadPoolExecutor(max_workers=3) as pool:
    results = dict(zip(CASES, pool.map(injected, CASES)))

nospace = r"No space left on device \(injected by SCANMD_TEST_FAIL_WRITE\)"
failed_cleanly("I1", results["I1"],
               r"step 40: traj\.h5: write particles/trajectory/velocity: file write failed: " +
               nospace)
readable("I1", r.path("I1/traj.h5"), r.path("ref/traj.h5"), [0, 20])
failed_cleanly("I2", results["I2"], r"step 20: traj\.h5: flush: file write failed: " + nospace)
readable("I2", r.path("I2/traj.h5"), r.path("ref/traj.h5"), [0])
failed_cleanly("I3", results["I3"],
               r"step 200: ckpt\.h5\.tmp: write particles/trajectory/position: file write failed: "
               + nospace)
r.check(checkpoint_step(r.path("I3/ckpt.h5")) == 100, "I3: the step-100 checkpoint is intact")
r.check(not leftovers(r.path("I3")), f"I3: no temporary file left: {leftovers(r.path('I3'))}")
out_i3, _, _ = r.run(1, "--restart", "ckpt.h5", "--set", "output.checkpoint=after.h5",
                     "--set", "output.trajectory=after.h5.traj", cwd="I3")
r.check(state_hash_line(out_i3) == hash_ref, "I3: restart from it gives the uninterrupted hash")
failed_cleanly("I4", results["I4"],
               r"step 100: ckpt\.h5\.tmp: write particles/trajectory/position: file write failed: "
               + nospace)
r.check(open(r.path("I4/#ckpt.h5.1#"), "rb").read() == earlier, "I4: the backup is intact")
r.check(not os.path.exists(r.path("I4/ckpt.h5")) and not leftovers(r.path("I4")),
        f"I4: nothing half written: {os.listdir(r.path('I4'))}")
readable("I4", r.path("I4/traj.h5"), r.path("ref/traj.h5"), [0, 20, 40, 60, 80, 100])
failed_cleanly("I5", results["I5"], r"step 50: traj\.h5: write scanmd/thermo: file write failed: "
               + nospace)
readable("I5", r.path("I5/traj.h5"), r.path("ref/traj.h5"), [0, 20, 40])
failed_cleanly("I6", results["I6"], r"traj\.h5: write species: file write failed: " + nospace)
r.check(not os.path.exists(r.path("I6/traj.h5")), f"I6: no half-made trajectory left: "
        f"{os.listdir(r.path('I6'))}")
r.check(open(r.path("I6/#traj.h5.1#"), "rb").read() == earlier_traj, "I6: the backup is intact")

# ---- a real full disk: 2 MiB tmpfs per case
TMPFS = {"T1": (1, "ckpt", True), "T2": (2, "ckpt", True), "T3": (1, "ckpt", False),
         "T4": (2, "ckpt", False), "T5": (1, "traj", True), "T6": (2, "traj", True),
         "T7": (2, "ckpt", True), "T8": (2, "traj", True)}
mounted = []
try:
    for name in TMPFS:
        d = r.path(name + "_fs")
        os.makedirs(d)
        p = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", d],
                           capture_output=True, text=True)
        if p.returncode != 0:
            print(f"SKIP: the tmpfs cases: cannot mount a tmpfs here ({p.stderr.strip()}); the "
                  "injected failures above stand for them")
            break
        mounted.append(d)
    if len(mounted) == len(TMPFS):
        # Backup mode: an earlier run's checkpoint (1.2 MiB) sits in the file system.
        for name in ("T3", "T4"):
            r.run(1, "--set", "system.cells=[16,16,16]", "--set", "run.steps=0", "--set",
                  "output.trajectory=", "--set", f"output.checkpoint={name}_fs/ckpt.h5")
        before = {n: open(r.path(f"{n}_fs/ckpt.h5"), "rb").read() for n in ("T3", "T4")}

        def on_tmpfs(name):
            ranks, what, overwrite = TMPFS[name]
            env = {"SCANMD_TEST_NO_SPACE_CHECK": "1"} if name in ("T7", "T8") else {}
            if what == "ckpt":  # 16384 particles: one checkpoint fits, two do not
                extra = ["--set", "system.cells=[16,16,16]", "--set", "output.trajectory=",
                         "--set", f"output.checkpoint={name}_fs/ckpt.h5",
                         "--set", "output.checkpoint_every=10", "--set", "run.steps=40"]
            else:  # 6912 particles: four frames fit
                extra = ["--set", "system.cells=[12,12,12]", "--set", "output.checkpoint=",
                         "--set", f"output.trajectory={name}_fs/traj.h5",
                         "--set", "output.trajectory_every=10", "--set", "run.steps=100"]
            extra += ["--set", f"output.overwrite={'true' if overwrite else 'false'}"]
            return r.run(ranks, *extra, expect_rc=None, env=env)

        with ThreadPoolExecutor(max_workers=2) as pool:
            results = dict(zip(TMPFS, pool.map(on_tmpfs, TMPFS)))
        for name, (ranks, what, overwrite) in TMPFS.items():
            folder = r.path(name + "_fs")
            label = f"{name} ({what}, {ranks} rank{'s' if ranks > 1 else ''}, " + \
                    ("overwrite" if overwrite else "backup") + \
                    (", no space check" if name in ("T7", "T8") else "") + ")"
            if name in ("T7", "T8"):
                expect = (r"step \d+: \S+: write \S+: file write failed: No space left on device "
                          r"\(\d+ bytes free on the file system of \S+\)")
            else:
                expect = (rf"step \d+: \S+/{'ckpt' if what == 'ckpt' else 'traj'}\.h5: no space "
                          rf"left for the (checkpoint|frame) of step \d+: it needs about "
                          r"[0-9.]+ [KM]iB, the file system of \S+ has [0-9.]+ [KM]iB free")
            failed_cleanly(label, results[name], expect)
            if what == "ckpt":
                if overwrite:
                    r.check(checkpoint_step(folder + "/ckpt.h5") == 10,
                            f"{label}: the step-10 checkpoint is intact")
                else:
                    r.check(open(folder + "/#ckpt.h5.1#", "rb").read() == before[name],
                            f"{label}: the earlier run's checkpoint (its backup) is intact")
                r.check(not leftovers(folder), f"{label}: no temporary file left")
            else:
                readable(label, folder + "/traj.h5", None, [0, 10, 20, 30])
finally:
    for d in mounted:
        subprocess.run(["umount", d])
r.done()
