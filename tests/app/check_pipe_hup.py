"""app.signals_pipe_hup (issue 31, item 4): a closed stdout and SIGHUP do not kill a run.

  G   1 rank, stdout a pipe whose reader goes away after 3 lines (`scanmd run deck | head -3`):
      the run goes on to run.steps (exit 0), says once on stderr that its log no longer goes to
      stdout, and writes its checkpoint, whose state equals an undisturbed run's
  H   1 rank, SIGHUP (the terminal or ssh session closed): stops at a step boundary like SIGTERM,
      exit 129 (128 + SIGHUP), the checkpoint of the stop step
  I   1 rank started with SIGHUP ignored (`nohup`): SIGHUP stays ignored, the run ends normally
"""
import os
import re
import signal
import subprocess
import sys
import time

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "io", "h5md"))
from scanmd_test import Runner, arguments  # noqa: E402

args = arguments(__doc__)
r = Runner(args)
T = "particles/trajectory/"
N = 2000


def cmd(*extra):
    return [args.exe, "run", args.deck, "--set", "output.thermo_every=10", *extra]


def state(path):
    with h5py.File(r.path(path), "r") as f:
        return (int(f[T + "position/step"][-1]), f[T + "position/value"][-1],
                f[T + "velocity/value"][-1])


# The undisturbed reference (stdout read to the end).
ref = subprocess.run(cmd("--set", f"run.steps={N}", "--set", "output.checkpoint=ref.h5"),
                     cwd=args.workdir, capture_output=True, text=True, timeout=120)
r.check(ref.returncode == 0, f"reference run: exit {ref.returncode}")

# G: the reader of stdout goes away after 3 lines.
g = subprocess.Popen(cmd("--set", f"run.steps={N}", "--set", "output.checkpoint=g.h5"),
                     cwd=args.workdir, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
for _ in range(3):
    g.stdout.readline()
g.stdout.close()
try:
    rc_g = g.wait(timeout=120)
except subprocess.TimeoutExpired:
    g.kill()
    rc_g = None
err_g = g.stderr.read().decode()
r.check(rc_g == 0, f"G: stdout closed: exit status {rc_g} (expected 0; -13 is death by SIGPIPE)")
r.check(err_g.count("cannot write the log to standard output") == 1,
        f"G: said once on stderr that the log stopped: {err_g!r}")
if os.path.exists(r.path("g.h5")) and os.path.exists(r.path("ref.h5")):
    sg, xg, vg = state("g.h5")
    sr, xr, vr = state("ref.h5")
    r.check(sg == N and sr == N, f"G: checkpoint of the last step ({sg} = {N})")
    r.check(np.array_equal(xg, xr) and np.array_equal(vg, vr),
            "G: its state equals the undisturbed run's")
else:
    r.check(False, "G: the checkpoint was written")

# H: SIGHUP stops the run cleanly.
h = subprocess.Popen(cmd("--set", "run.steps=1000000000", "--set", "output.checkpoint=h.h5",
                         "--set", "output.thermo_every=100"),
                     cwd=args.workdir, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
line = ""
while not re.match(r"^ +100 ", line) and h.poll() is None:
    line = h.stdout.readline()
h.send_signal(signal.SIGHUP)
out_h = h.stdout.read()
rc_h = h.wait(timeout=60)
m = re.search(r"stopped by SIGHUP after step (\d+) of run\.steps = 1000000000; continue with "
              r"--restart h\.h5", out_h)
r.check(rc_h == 129, f"H: SIGHUP: exit status {rc_h} (128 + SIGHUP = 129)")
r.check(m is not None, "H: the log says where it stopped and how to continue")
if m and os.path.exists(r.path("h.h5")):
    r.check(state("h.h5")[0] == int(m.group(1)), "H: the checkpoint of the stop step")
else:
    r.check(False, "H: a checkpoint was written")

# I: started with SIGHUP ignored (nohup): it stays ignored.
i = subprocess.Popen(cmd("--set", f"run.steps={N}"), cwd=args.workdir, stdout=subprocess.PIPE,
                     stderr=subprocess.STDOUT, text=True,
                     preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_IGN))
line = ""
while not re.match(r"^ +10 ", line) and i.poll() is None:
    line = i.stdout.readline()
i.send_signal(signal.SIGHUP)
out_i = i.stdout.read()
rc_i = i.wait(timeout=60)
r.check(rc_i == 0 and "stopped by" not in out_i, f"I: under nohup SIGHUP is ignored: exit {rc_i}")
r.done()
