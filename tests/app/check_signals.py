"""app.signals (issue 15, item 4): stop signals end a run cleanly at a step boundary on every
rank, and a restart from the checkpoint it wrote continues bitwise; a killed rank does not leave
the others hanging.

  A   2 ranks, run.steps = N, uninterrupted                       the reference state hash
  B   2 ranks, run.steps = N; SIGTERM to rank 1 only, once the thermo shows the run going: both
      ranks stop after the same step s < N (agreed in the step's vote), write the checkpoint of
      step s, close the trajectory (readable, its frames up to s), print the timing table and
      exit 143 (128 + SIGTERM)
  C   2 ranks, --restart from B's checkpoint (half shell -> neutral territory) to N: the state
      hash equals A's, and B's trajectory continued equals A's
  D   1 rank (no mpiexec), run.steps = 10^15: warns that the run would take years (the rate of
      its first steps), then SIGINT: exit 130, the checkpoint of the stop step
  E   2 ranks, SIGUSR1 to mpiexec (which forwards it to every rank): exit 138
  F   2 ranks, SIGKILL to rank 1: mpiexec ends the job (non-zero) within 60 s, no rank left
"""
import os
import re
import signal
import subprocess
import sys
import threading
import time

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "io", "h5md"))
from scanmd_test import Runner, arguments, state_hash_line  # noqa: E402

args = arguments(__doc__)
r = Runner(args)
N = 3000  # steps of the full run: a few seconds on 500 particles, 2 ranks
T = "particles/trajectory/"


class Run:
    """`scanmd run` in the background, its output collected line by line."""

    def __init__(self, ranks, *extra, mpi=True):
        cmd = [args.exe, "run", args.deck, *extra]
        if mpi:
            cmd = [args.mpiexec, "-n", str(ranks), *args.pre.split()] + cmd
        self.p = subprocess.Popen(cmd, cwd=args.workdir, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True, start_new_session=True)
        self.lines = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.p.stdout:
            self.lines.append(line)

    def text(self):
        return "".join(self.lines)

    def wait_for(self, pattern, timeout=60):
        """The first match of `pattern` in the output, waiting for it; None at the timeout."""
        end = time.time() + timeout
        while time.time() < end:
            m = re.search(pattern, self.text(), re.M)
            if m or self.p.poll() is not None:
                return m or re.search(pattern, self.text(), re.M)
            time.sleep(0.01)
        return None

    def finish(self, timeout=60):
        try:
            rc = self.p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.p.pid, signal.SIGKILL)
            self.p.wait()
            rc = None
        self.reader.join(timeout=5)
        return rc

    def ranks(self):
        """{rank: pid} of the scanmd processes under mpiexec."""
        found = {}
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                stat = open(f"/proc/{pid}/stat").read()
                ppid = int(stat.rsplit(")", 1)[1].split()[1])
                if ppid != self.p.pid or "scanmd" not in stat.split(")")[0]:
                    continue
                env = open(f"/proc/{pid}/environ", "rb").read().split(b"\0")
                rank = [e for e in env if e.startswith(b"OMPI_COMM_WORLD_RANK=")]
                found[int(rank[0].split(b"=")[1]) if rank else 0] = int(pid)
            except (OSError, IndexError, ValueError):
                pass
        return found


def outputs(tag):
    return ["--set", f"output.trajectory={tag}_traj.h5", "--set", f"output.checkpoint={tag}_ckpt.h5",
            "--set", "output.trajectory_every=100", "--set", "output.thermo_every=100"]


# A: the reference.
out_a, _, _ = r.run(2, "--set", f"run.steps={N}", *outputs("a"))
hash_a = state_hash_line(out_a)

# B: SIGTERM to rank 1 alone, once the run is under way.
b = Run(2, "--set", f"run.steps={N}", *outputs("b"))
r.check(b.wait_for(r"^ +100 ") is not None, "B: the run got going (thermo row of step 100)")
pids = b.ranks()
r.check(sorted(pids) == [0, 1], f"B: found both ranks under mpiexec: {pids}")
if 1 in pids:
    os.kill(pids[1], signal.SIGTERM)
rc_b = b.finish()
out_b = b.text()
m = re.search(r"stopped by SIGTERM after step (\d+) of run\.steps = (\d+); continue with "
              r"--restart b_ckpt\.h5", out_b)
r.check(rc_b == 143, f"B: exit status {rc_b} (128 + SIGTERM = 143)")
r.check(m is not None, "B: the log says where it stopped and how to continue")
s = int(m.group(1)) if m else -1
r.check(0 < s < N, f"B: stopped at step {s}, before the end ({N})")
r.check(out_b.count("stopped by SIGTERM") == 1, "B: said once, for both ranks")
r.check("Loop time of" in out_b and re.search(rf"for {s} steps", out_b) is not None,
        "B: the timing table of the steps run so far")
r.check("Section |  min time" in out_b, "B: the timing table is printed")
r.check("error" not in out_b, "B: no error")
if os.path.exists(r.path("b_ckpt.h5")):
    with h5py.File(r.path("b_ckpt.h5"), "r") as f:
        step = int(f[T + "position/step"][-1])
    r.check(step == s, f"B: the checkpoint holds the stop step ({step} = {s})")
else:
    r.check(False, "B: a checkpoint was written")
with h5py.File(r.path("b_traj.h5"), "r") as f:
    steps = list(f[T + "position/step"][:])
    last = int(f["scanmd/runs/0"].attrs["last_step"])
r.check(steps == list(range(0, s + 1, 100)), f"B: trajectory frames 0..{s} every 100: {steps}")
r.check(last == s, f"B: the trajectory's run record ends at the stop step ({last})")

# C: restart from B's checkpoint, another decomposition: bitwise the uninterrupted run.
out_c, _, _ = r.run(2, "--restart", "b_ckpt.h5", "--set", f"run.steps={N}",
                    "--set", "decomposition.method=neutral-territory", *outputs("b"))
hash_c = state_hash_line(out_c)
r.check(hash_c == hash_a, f"C: restart after SIGTERM gives the uninterrupted hash: {hash_c} = {hash_a}")
with h5py.File(r.path("a_traj.h5"), "r") as fa, h5py.File(r.path("b_traj.h5"), "r") as fb:
    same = all(np.array_equal(fa[T + e + "/value"][:], fb[T + e + "/value"][:])
               for e in ("position", "velocity", "image"))
    r.check(same and np.array_equal(fa[T + "position/step"][:], fb[T + "position/step"][:]),
            "C: the continued trajectory equals the uninterrupted one")

# D: one rank, an absurd step count: the warning, then Ctrl-C.
d = Run(1, "--set", "run.steps=1000000000000000", "--set", "output.checkpoint=d_ckpt.h5",
        "--set", "output.thermo_every=100000", mpi=False)
w = d.wait_for(r"^warning: run\.steps = 1000000000000000: at the rate of the first \d+ steps "
               r"\([0-9.e+]+ steps/s\) the run would take about [0-9.e+]+ years more")
r.check(w is not None, "D: warns that the run would take years")
d.p.send_signal(signal.SIGINT)
rc_d = d.finish()
out_d = d.text()
m = re.search(r"stopped by SIGINT after step (\d+)", out_d)
r.check(rc_d == 130, f"D: exit status {rc_d} (128 + SIGINT = 130)")
if m and os.path.exists(r.path("d_ckpt.h5")):
    with h5py.File(r.path("d_ckpt.h5"), "r") as f:
        r.check(int(f[T + "position/step"][-1]) == int(m.group(1)), "D: checkpoint of the stop step")
else:
    r.check(False, f"D: stopped and wrote a checkpoint:\n{out_d[-2000:]}")

# E: SIGUSR1 to mpiexec, forwarded to every rank.
e = Run(2, "--set", "run.steps=1000000000")
r.check(e.wait_for(r"^ +50 ") is not None, "E: the run got going")
e.p.send_signal(signal.SIGUSR1)
rc_e = e.finish()
r.check(rc_e == 138 and "stopped by SIGUSR1 after step" in e.text(),
        f"E: SIGUSR1 via mpiexec: exit status {rc_e} (128 + SIGUSR1 = 138)")

# F: one rank killed outright: the job ends, nobody waits forever in a collective.
f = Run(2, "--set", "run.steps=1000000000")
r.check(f.wait_for(r"^ +50 ") is not None, "F: the run got going")
pids = f.ranks()
t0 = time.time()
if 1 in pids:
    os.kill(pids[1], signal.SIGKILL)
rc_f = f.finish(timeout=60)
took = time.time() - t0
r.check(rc_f is not None and rc_f != 0, f"F: mpiexec ended the job (exit {rc_f}) in {took:.1f} s")
left = [p for p in pids.values() if os.path.exists(f"/proc/{p}")
        and open(f"/proc/{p}/stat").read().split()[2] != "Z"]
r.check(not left, f"F: no rank left running: {left}")
r.done()
