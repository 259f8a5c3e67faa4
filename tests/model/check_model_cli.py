"""model.cli_vs_run (issue 31, item 6): `scanmd model` models the start a run takes, with the
run's R, for a two-species mixture started from a data file.

  A   1 rank, mixture.toml (864 particles of 2 types, pair cutoffs 2.0 / 1.8 / 1.6 < the
      potential.cutoff default 2.5), 50 steps: moved.data, the final state
  B   P ranks (2, 4) x method (half-shell, neutral-territory): `scanmd run` from moved.data,
      the deck's own lattice made smaller (cells [4, 4, 4], 256 sites: unused with a data file),
      0 steps: the import counts and pairs of every rank (output.imports)
  C   `scanmd model` of the same deck and --set: 864 particles, R = 2.3, and per P and method
      the imports and pairs (min, mean, max, total) of B, exactly (the model took the 256-site
      lattice and R = 2.8 before)
"""
import csv
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "io", "h5md"))
from scanmd_test import Runner, arguments  # noqa: E402

args = arguments(__doc__)
r = Runner(args)
FILE = ["--set", "system.data_file=moved.data", "--set", "system.cells=[4,4,4]"]

r.run(1, "--set", "output.data_file=moved.data")
for P in (2, 4):
    for method in ("half-shell", "neutral-territory"):
        out, _, _ = r.run(P, *FILE, "--set", "run.steps=0", "--set", f"decomposition.method={method}",
                          "--set", f"output.imports=imp_{P}_{method}.csv")
        with open(r.path(f"imp_{P}_{method}.csv")) as f:
            rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
        ghosts = [int(x["ghosts"]) for x in rows if x["step"] == "0"]
        pairs = [int(x["pairs"]) for x in rows if x["step"] == "0"]
        grid = re.search(r"grid=(\d+x\d+x\d+)", out).group(1)
        model = subprocess.run([args.exe, "model", args.deck, *FILE, "--ranks", str(P), "--methods",
                                method, "--csv", f"model_{P}_{method}.csv"],
                               cwd=args.workdir, capture_output=True, text=True, timeout=120)
        r.check(model.returncode == 0, f"model P={P} {method}: exit {model.returncode}\n{model.stderr}")
        if model.returncode != 0:
            continue
        r.check("scanmd model: 864 particles of 2 types" in model.stdout and "R = 2.3 " in model.stdout,
                f"model P={P} {method}: the data file's 864 particles, R = 2.3: "
                f"{model.stdout.splitlines()[0]}")
        with open(r.path(f"model_{P}_{method}.csv")) as f:
            m = next(csv.DictReader(f))
        got = (m["grid"], int(m["imports_min"]), float(m["imports_mean"]), int(m["imports_max"]),
               int(m["pairs_min"]), int(m["pairs_max"]), int(m["pairs_total"]))
        want = (grid, min(ghosts), sum(ghosts) / len(ghosts), max(ghosts), min(pairs), max(pairs),
                sum(pairs))
        r.check(len(ghosts) == P and got == want,
                f"P={P} {method}: model (grid, imports min/mean/max, pairs min/max/total) {got} = "
                f"run {want}")
        sent = [int(x["bytes_per_step"]) for x in rows if x["step"] == "0"]
        got = (int(m["bytes_min"]), float(m["bytes_mean"]), int(m["bytes_max"]))
        want = (min(sent), sum(sent) / len(sent), max(sent))
        r.check(got == want and max(sent) > 0,
                f"P={P} {method}: model bytes/step (min, mean, max) {got} = run {want}")


def run_bytes(deck, method, *extra):
    """Bytes per step of each of 2 ranks at step 0 (output.imports)."""
    csv_name = f"eam_imp_{method}_{len(extra)}.csv"
    r.run(2, "--set", "run.steps=0", "--set", f"decomposition.method={method}", "--set",
          'decomposition.balance="none"', "--set", f"output.imports={csv_name}", *extra, deck=deck)
    with open(r.path(csv_name)) as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    return [int(x["bytes_per_step"]) for x in rows if x["step"] == "0"]


EAM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "decomposition",
                   "eam_slab_balanced.toml")
# The EAM deck with an lj potential of Cu_u3.eam's cutoff (4.95 A) instead.
with open(EAM) as f:
    deck = f.read()
LJ = r.path("lj_slab.toml")
with open(LJ, "w") as f:
    f.write(deck.replace('style = "eam"\nfiles = ["Cu_u3.eam"]',
                         'style = "lj"\nepsilon = 0.1\nsigma = 2.3\ncutoff = 4.95')
            .replace("[system]\n", "[system]\nmass = [63.55]\n"))
for method in ("half-shell", "full-shell"):
    eam = run_bytes(EAM, method)
    # The same ghosts (one cutoff, Cu_u3.eam's 4.95 A), pair records only.
    lj = run_bytes(LJ, method)
    r.check(len(eam) == 2 and len(lj) == 2 and min(lj) > 0 and
            all(24 * e == 32 * p for e, p in zip(eam, lj)),
            f"EAM {method}: bytes/step per rank {eam} = 32/24 of the lj run's {lj}")
    model = subprocess.run([args.exe, "model", EAM, "--set", 'decomposition.balance="none"',
                            "--ranks", "2", "--methods", method, "--csv", f"eam_model_{method}.csv"],
                           cwd=args.workdir, capture_output=True, text=True, timeout=120)
    r.check(model.returncode == 0, f"EAM model {method}: exit {model.returncode}\n{model.stderr}")
    if model.returncode != 0:
        continue
    with open(r.path(f"eam_model_{method}.csv")) as f:
        m = next(csv.DictReader(f))
    got = (int(m["bytes_min"]), float(m["bytes_mean"]), int(m["bytes_max"]))
    want = (min(eam), sum(eam) / len(eam), max(eam))
    r.check(got == want, f"EAM {method}: model bytes/step (min, mean, max) {got} = run {want}")
r.done()
