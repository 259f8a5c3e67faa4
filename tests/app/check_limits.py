"""app.limits (issue 31, item 5): limits of the machine are met with a clear error, exit 1.

  U   `ulimit -v` (an address-space limit, RLIMIT_AS) too small for the deck: refused before
      anything is allocated, naming system.cells and the limit (was a bare std::bad_alloc)
  E   SCANMD_AVAILABLE_MEMORY = abc, -5, 4G: refused naming the variable (were ignored)
  M   `scanmd model --ranks 100000000` (the largest it takes): refused in seconds with the memory
      it would need (was OOM-killed after 104 s at 24 GB)
  F   `ulimit -f` of 20 MB, a trajectory that outgrows it: the write error of the step, exit 1
      (was death by SIGXFSZ)
  N   `ulimit -n 24`: Open MPI cannot start; a warning first names the limit and the fix
"""
import os
import re
import resource
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "io", "h5md"))
from scanmd_test import Runner, arguments  # noqa: E402

args = arguments(__doc__)
r = Runner(args)


def run(cmd, env=None, limit_as=None, stderr=False, limits=()):
    def pre():
        if limit_as:
            resource.setrlimit(resource.RLIMIT_AS, (limit_as, limit_as))
        for which, value in limits:
            resource.setrlimit(which, (value, value))
    t0 = time.time()
    p = subprocess.run(cmd, cwd=args.workdir, capture_output=True, text=True, timeout=120,
                       env={**os.environ, **(env or {})}, preexec_fn=pre)
    # `run` errors are echoed to stderr too; `model` prints them there only.
    return p.returncode, p.stdout + (p.stderr if stderr else ""), time.time() - t0


# U: 864 000 particles (~400 MiB) under a 500 MiB address-space limit (a bare std::bad_alloc
# after setup before).
rc, out, _ = run([args.exe, "run", args.deck, "--set", "system.cells=[60,60,60]"],
                 limit_as=500 * 1024 * 1024)
r.check(rc == 1 and re.search(
    r"error: --set system\.cells=\[60,60,60\]: system\.cells: 8\.64e\+05 particles need about "
    r"[0-9.]+ MiB on rank 0 .*more than the [0-9.]+ MiB it may use \(ulimit -v: 500\.0 MiB of "
    r"address space per process", out) is not None and "bad_alloc" not in out,
    f"U: ulimit -v named before anything is allocated (exit {rc}):\n{out[-1500:]}")

# E: values that are not a number of bytes.
for value in ("abc", "-5", "4G"):
    rc, out, _ = run([args.exe, "run", args.deck], env={"SCANMD_AVAILABLE_MEMORY": value})
    r.check(rc == 1 and f'error: SCANMD_AVAILABLE_MEMORY = "{value}": not a number of bytes' in out
            and out.count("error:") == 1 and "      step " not in out,
            f"E: SCANMD_AVAILABLE_MEMORY={value} refused (exit {rc}):\n{out[-800:]}")
rc, out, _ = run([args.exe, "model", args.deck, "--ranks", "2"], env={"SCANMD_AVAILABLE_MEMORY": "4G"},
                 stderr=True)
r.check(rc == 1 and 'SCANMD_AVAILABLE_MEMORY = "4G": not a number of bytes' in out,
        f"E: model refuses it too (exit {rc})")

# M: 10^8 virtual ranks, against 8 GB.
rc, out, took = run([args.exe, "model", args.deck, "--ranks", "100000000"],
                    env={"SCANMD_AVAILABLE_MEMORY": "8e9"}, stderr=True)
r.check(rc == 1 and re.search(r"error: --ranks 100000000: modelling 100000000 virtual ranks of 500 "
                              r"particles needs about [0-9.]+ GiB .*more than the 7\.5 GiB available "
                              r"\(SCANMD_AVAILABLE_MEMORY\); model fewer ranks", out) is not None
        and took < 30, f"M: --ranks 100000000 refused in {took:.1f} s (exit {rc}):\n{out[-800:]}")

# F: the trajectory outgrows ulimit -f.
rc, out, _ = run([args.exe, "run", args.deck, "--set", "output.trajectory=big.h5", "--set",
                  "output.trajectory_every=1", "--set", "run.steps=2000", "--set",
                  "output.thermo_every=0"], limits=((resource.RLIMIT_FSIZE, 20000 * 1024),),
                 stderr=True)
r.check(rc == 1 and re.search(r"^error: step \d+: big\.h5: write particles/trajectory/\S+: file "
                              r"write failed", out, re.M) is not None,
        f"F: past ulimit -f, the write error (exit {rc}; -25 is SIGXFSZ):\n{out[-800:]}")

# N: too few files for MPI to start: the limit is named first.
rc, out, _ = run([args.exe, "run", args.deck], limits=((resource.RLIMIT_NOFILE, 24),), stderr=True)
r.check("scanmd: warning: ulimit -n (open files) is 24, below the 64" in out,
        f"N: ulimit -n named (exit {rc}):\n{out[:600]}")
r.done()
