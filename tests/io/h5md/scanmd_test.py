"""Shared helpers of the tests/io/h5md scripts: running `scanmd run` under mpiexec, the state
hash of scanmd (FNV-1a 64 over id, x, y, z, vx, vy, vz as little-endian bit patterns, sorted
by id: Simulation::state_hash) computed from arrays, and a tiny check() that counts failures."""
import argparse
import itertools
import os
import re
import shutil
import subprocess
import sys
import warnings

import numpy as np

warnings.filterwarnings("ignore")


_launches = itertools.count(1)


def own_session_dir():
    """The environment that gives one mpiexec launch an Open MPI session directory of its own.

    tests/cmake/ompi_session_per_test.cmake gives every test its own base directory
    (OMPI_MCA_orte_tmpdir_base): jobs that start and end at once under one base race on its top
    folder and one may die in orte_init ("A call to mkdir was unable to create the desired
    directory", open-mpi/ompi#8510). The scripts here that run several jobs at once (thread
    pools, a run in the background) would race within their test: each launch takes a numbered
    subdirectory of the test's base. Outside ctest (no base set) nothing changes."""
    base = os.environ.get("OMPI_MCA_orte_tmpdir_base")
    return {"OMPI_MCA_orte_tmpdir_base": f"{base}/{next(_launches)}"} if base else {}


def arguments(description):
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--exe", required=True, help="the scanmd executable")
    p.add_argument("--mpiexec", required=True)
    p.add_argument("--pre", default="--oversubscribe", help="mpiexec flags before the program")
    p.add_argument("--deck", required=True)
    p.add_argument("--workdir", required=True, help="emptied, then the runs' working directory")
    a = p.parse_args()
    shutil.rmtree(a.workdir, ignore_errors=True)
    os.makedirs(a.workdir)
    return a


class Runner:
    def __init__(self, args):
        self.args = args
        self.failures = 0

    def run(self, ranks, *extra, expect_rc=0, cwd=None, deck=None, env=None):
        """Runs `scanmd run DECK extra...` on `ranks` ranks in the work directory (or `cwd`
        inside it), DECK the test's deck unless `deck` is given, with `env` added to the
        environment; returns stdout, stderr and the exit status."""
        cmd = [self.args.mpiexec, "-n", str(ranks), *self.args.pre.split(), self.args.exe, "run",
               deck or self.args.deck, *extra]
        p = subprocess.run(cmd, cwd=self.path(cwd or "."), capture_output=True, text=True,
                           timeout=120, env={**os.environ, **own_session_dir(), **(env or {})})
        out = p.stdout + p.stderr
        if expect_rc is not None and p.returncode != expect_rc:
            sys.exit(f"FAIL: {' '.join(cmd)}\nexit {p.returncode}, expected {expect_rc}\n{out}")
        return p.stdout, p.stderr, p.returncode

    def path(self, name):
        return os.path.join(self.args.workdir, name)

    def check(self, ok, what):
        print(("ok:   " if ok else "FAIL: ") + what)
        if not ok:
            self.failures += 1
        return ok

    def done(self):
        if self.failures:
            sys.exit(f"{self.failures} check(s) failed")
        print("all checks passed")


def state_hash_line(stdout):
    m = re.search(r"state hash: ([0-9a-f]{16})\s*$", stdout)
    if not m:
        sys.exit("no `state hash:` line at the end of the output:\n" + stdout)
    return m.group(1)


def state_hash(ids, x, v):
    """FNV-1a 64 of scanmd's state hash from arrays ordered or not by id."""
    order = np.argsort(ids, kind="stable")
    rec = np.empty((len(ids), 7), dtype="<u8")
    rec[:, 0] = np.asarray(ids, dtype=np.uint64)[order]
    rec[:, 1:4] = np.ascontiguousarray(x, dtype="<f8")[order].view("<u8")
    rec[:, 4:7] = np.ascontiguousarray(v, dtype="<f8")[order].view("<u8")
    h = 0xcbf29ce484222325
    for byte in rec.tobytes():
        h = ((h ^ byte) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"
