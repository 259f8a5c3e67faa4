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
r.done()
