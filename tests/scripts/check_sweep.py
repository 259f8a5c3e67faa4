#!/usr/bin/python3
"""Runs scripts/sweep.py on a tiny deck with P in {1, 2} and checks what it wrote.

Oracles: the CSV header is exactly the documented column list, there is one row per
(method, P), the rows' numbers are sane (speedup 1 at P = 1, imports > 0, positive finite
timings — no timing thresholds: speed lives in benchmarks), the model CSVs (equal boxes,
balanced by pairs) cover the asked rank counts with the right balance column and sane pair
counts, and every PNG is a real image (PNG signature, decodable by matplotlib, non-trivial size).
usage: check_sweep.py SCANMD REPO_ROOT WORKDIR
"""
import csv
import math
import os
import subprocess
import sys

import matplotlib.image as mpimg

scanmd, root, work = sys.argv[1:4]
out = os.path.join(work, "sweep-out")
cmd = ["/usr/bin/python3", os.path.join(root, "scripts", "sweep.py"),
       os.path.join(root, "tests", "scripts", "tiny.toml"), "--ranks", "1,2",
       "--methods", "half-shell,neutral-territory", "--model-ranks", "1,2,8",
       "--out", out, "--scanmd", scanmd]
done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
print(done.stdout)
if done.returncode != 0:
    sys.exit(f"sweep.py exited {done.returncode}")

expected = ["method", "ranks", "grid", "particles", "steps", "seconds_per_step",
            "particle_steps_per_s", "speedup", "efficiency", "pair_s_per_step",
            "neigh_s_per_step", "comm_s_per_step", "output_s_per_step", "other_s_per_step",
            "imports_mean", "imports_min", "imports_max", "tower_mean", "plate_mean",
            "bytes_per_step_mean", "analytic"]
with open(os.path.join(out, "sweep.csv")) as f:
    reader = csv.DictReader(f)
    assert reader.fieldnames == expected, f"sweep.csv columns: {reader.fieldnames}"
    rows = list(reader)
assert sorted((r["method"], int(r["ranks"])) for r in rows) == \
    [("half-shell", 1), ("half-shell", 2), ("neutral-territory", 1), ("neutral-territory", 2)], rows
for r in rows:
    assert int(r["particles"]) == 864 and int(r["steps"]) == 20, r
    assert float(r["imports_mean"]) > 0 and float(r["analytic"]) > 0, r
    # Timings vary with load: only that they are real numbers, never how fast.
    assert math.isfinite(float(r["efficiency"])) and float(r["efficiency"]) > 0, r
    assert float(r["seconds_per_step"]) > 0, r
    if r["ranks"] == "1":
        assert abs(float(r["speedup"]) - 1.0) < 1e-12, r
    if r["method"] == "neutral-territory":
        assert float(r["tower_mean"]) + float(r["plate_mean"]) > 0, r

with open(os.path.join(out, "model.csv")) as f:
    model = list(csv.DictReader(f))
assert sorted((m["method"], int(m["ranks"])) for m in model) == \
    sorted((m, p) for m in ["half-shell", "neutral-territory"] for p in [1, 2, 8]), model
assert all(m["balance"] == "none" for m in model), model

with open(os.path.join(out, "model_balanced.csv")) as f:
    balanced = list(csv.DictReader(f))
assert sorted((m["method"], int(m["ranks"])) for m in balanced) == \
    sorted((m, p) for m in ["half-shell", "neutral-territory"] for p in [1, 2, 8]), balanced
for m in balanced:
    assert m["balance"] == "pairs", m
    # 864 particles on at most 8 ranks: every rank has pairs, so the mean is positive.
    assert float(m["pairs_max"]) >= float(m["pairs_mean"]) > 0, m

for name in ["imports.png", "imbalance.png", "scaling.png", "phases.png"]:
    path = os.path.join(out, name)
    with open(path, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n", f"{name}: not a PNG"
    img = mpimg.imread(path)
    assert img.shape[0] > 100 and img.shape[1] > 100, f"{name}: {img.shape}"

# Every plot says what it shows: the deck, particles and steps in its title, labelled axes
# (plots.json records what was drawn); the timings leave the output phase out.
import json  # noqa: E402
with open(os.path.join(out, "plots.json")) as f:
    plots = json.load(f)
assert sorted(plots) == ["imbalance.png", "imports.png", "phases.png", "scaling.png"], plots
for name, p in plots.items():
    assert "tiny.toml" in p["title"] and "864 particles" in p["title"] and "20 steps" in p["title"], \
        (name, p["title"])
    for a in p["axes"]:
        assert a["xlabel"] and a["ylabel"], (name, a)
for r in rows:
    loop = sum(float(r[f"{p}_s_per_step"]) for p in ["pair", "neigh", "comm", "other"])
    assert abs(float(r["seconds_per_step"]) - loop) <= 1e-9 * loop, ("output counted", r)

# One rank count: a warning, on the terminal and on the scaling plot.
out1 = os.path.join(work, "sweep-out-1")
done = subprocess.run(cmd[:3] + ["--ranks", "1", "--methods", "half-shell", "--model-ranks", "1",
                                 "--out", out1, "--scanmd", scanmd],
                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
print(done.stdout)
assert done.returncode == 0, done.returncode
assert "warning: one rank count (1): scaling.png shows no scaling" in done.stdout, done.stdout
print("sweep outputs OK")
