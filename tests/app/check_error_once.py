"""app.error_once (issue 31, item 7): an error under mpirun is printed once where stdout and
stderr end in one file (a terminal, `&> run.log`), and once on each where they are apart
(`> run.log`: the terminal still sees it).

  O1  mpiexec -n 2 ... > both.log 2>&1:  one `error:` line (was two)
  O2  mpiexec -n 2 ... > out.log 2> err.log: one in each
  O3  1 rank without mpiexec, > both.log 2>&1: one
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "io", "h5md"))
from scanmd_test import Runner, arguments  # noqa: E402

args = arguments(__doc__)
r = Runner(args)
bad = [args.exe, "run", args.deck, "--set", "run.dt=0.5"]
mpi = [args.mpiexec, "-n", "2", *args.pre.split()]


def errors(path):
    return sum(line.startswith("error:") for line in open(r.path(path)))


with open(r.path("both.log"), "w") as f:
    rc = subprocess.run(mpi + bad, cwd=args.workdir, stdout=f, stderr=subprocess.STDOUT,
                        timeout=120).returncode
r.check(rc != 0 and errors("both.log") == 1, f"O1: once in one file (exit {rc}, "
        f"{errors('both.log')} error lines)")
with open(r.path("out.log"), "w") as o, open(r.path("err.log"), "w") as e:
    subprocess.run(mpi + bad, cwd=args.workdir, stdout=o, stderr=e, timeout=120)
r.check(errors("out.log") == 1 and errors("err.log") == 1,
        f"O2: once in each of two files ({errors('out.log')}, {errors('err.log')})")
with open(r.path("one.log"), "w") as f:
    subprocess.run(bad, cwd=args.workdir, stdout=f, stderr=subprocess.STDOUT, timeout=120)
r.check(errors("one.log") == 1, f"O3: one rank, once ({errors('one.log')})")
r.done()
