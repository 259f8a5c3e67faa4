"""io.h5md.lock (issue 31, item 1): two runs never write one output at once, and a restart
backs up the trajectory it appends to.

  L1  1 rank 0 -> 100: traj.h5 (frames 0..100), ckpt.h5 (step 100)
  L2  2 ranks --restart ckpt.h5 into traj.h5, long (run.steps = 10^9), in the background
  L3  while L2 runs, the same restart into the same files: refused at once (exit 1) naming
      traj.h5, output.trajectory and L2's pid and host; nothing written; then one into another
      trajectory but L2's checkpoint: refused naming output.checkpoint
  L4  L2 stopped (SIGUSR1): its trajectory is readable, its steps increase, no lock file left;
      the trajectory as it was before L2 appended (no frame dropped) is #traj.h5.1#
  L5  a lock file left by a killed run (not held) is taken over: the run ends normally
"""
import hashlib
import os
import re
import signal
import subprocess
import threading
import time

import h5py
import numpy as np

from scanmd_test import Runner, arguments, own_session_dir

args = arguments(__doc__)
r = Runner(args)
T = "particles/trajectory/"


def digest(name):
    return hashlib.sha256(open(r.path(name), "rb").read()).hexdigest()


# L1
r.run(1, "--set", "run.steps=100")
before = digest("traj.h5")

# L2: in the background, its output read line by line.
cmd = [args.mpiexec, "-n", "2", *args.pre.split(), args.exe, "run", args.deck, "--restart",
       "ckpt.h5", "--set", "run.steps=1000000000", "--set", "output.checkpoint=ckpt2.h5",
       "--set", "output.thermo_every=100"]
p = subprocess.Popen(cmd, cwd=args.workdir, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                     text=True, env={**os.environ, **own_session_dir()})
lines = []
threading.Thread(target=lambda: [lines.append(x) for x in p.stdout], daemon=True).start()
end = time.time() + 60
while time.time() < end and not any(re.match(r"^ +200 ", x) for x in lines) and p.poll() is None:
    time.sleep(0.02)
r.check(p.poll() is None, "L2: the restart runs")
r.check(os.path.exists(r.path("traj.h5.lock")), "L2: holds traj.h5.lock")

# L3: a second writer of the same trajectory, then of the same checkpoint.
out, err, rc = r.run(2, "--restart", "ckpt.h5", "--set", "run.steps=300",
                     "--set", "output.checkpoint=ckpt2.h5", expect_rc=None)
m = re.search(r"error: traj\.h5: output\.trajectory: the file is being written by another run "
              r"\(pid (\d+) on host (\S+), lock file traj\.h5\.lock\): two runs must not write one "
              r"output", out)
r.check(rc == 1 and m is not None, f"L3: second writer refused naming file, key and holder:\n{out}{err}")
r.check(out.count("error:") == 1, "L3: said once")
r.check("      step " not in out, "L3: no step ran")
out, err, rc = r.run(2, "--restart", "ckpt.h5", "--set", "run.steps=300", "--set",
                     "output.trajectory=other.h5", "--set", "output.checkpoint=ckpt2.h5",
                     expect_rc=None)
r.check(rc == 1 and re.search(r"error: ckpt2\.h5: output\.checkpoint: the file is being written by "
                              r"another run \(pid \d+ on host", out) is not None,
        f"L3: the checkpoint is locked too:\n{out}{err}")
r.check(not os.path.exists(r.path("other.h5")), "L3: the refused run created nothing")

# L4: L2 stops; its file is whole.
p.send_signal(signal.SIGUSR1)
try:
    rc2 = p.wait(timeout=60)
except subprocess.TimeoutExpired:
    p.kill()
    rc2 = None
r.check(rc2 == 138, f"L4: L2 stopped by SIGUSR1 (exit {rc2})")
with h5py.File(r.path("traj.h5"), "r") as f:
    steps = f[T + "position/step"][:]
    n = f[T + "position/value"].shape[0]
r.check(len(steps) == n and np.all(np.diff(steps) > 0) and steps[0] == 0,
        f"L4: the trajectory is readable, its steps increase: {steps[:8]}...")
r.check(not os.path.exists(r.path("traj.h5.lock")) and not os.path.exists(r.path("ckpt2.h5.lock")),
        "L4: no lock file left")
r.check(os.path.exists(r.path("#traj.h5.1#")) and digest("#traj.h5.1#") == before,
        "L4: the trajectory as it was before appending is #traj.h5.1#")
r.check("the file as it was is backed up to #traj.h5.1#" in "".join(lines), "L4: the log says so")
r.check(not os.path.exists(r.path("#traj.h5.2#")), "L4: the refused runs backed up nothing")

# L5: a stale lock file (its run was killed: nobody holds it) is taken over.
with open(r.path("stale.h5.lock"), "w") as f:
    f.write("999999 gone\n")
out, _, rc = r.run(1, "--set", "output.trajectory=stale.h5", "--set", "output.checkpoint=",
                   "--set", "run.steps=20")
r.check(rc == 0 and not os.path.exists(r.path("stale.h5.lock")), "L5: a stale lock is taken over")
r.done()
