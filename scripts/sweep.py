#!/usr/bin/python3
"""Strong-scaling and decomposition sweep for scanmd: real runs plus the virtual model.

For every method and rank count it runs `mpirun -np P scanmd run DECK`, then reads the run's
H5MD output file (never the log): time per phase (scanmd/runs/0/timing), particle count,
steps, and the per-rank import counts of every rebuild (scanmd/runs/0/imports). It adds
`scanmd model` for the model rank counts (up to 10^5), once with equal boxes and once with
the cut planes balanced by pairs, and writes

    OUT/sweep.csv           one row per real run
    OUT/model.csv           one row per (method, P) of the virtual decomposition with equal
                            boxes (decomposition.balance = none, whatever deck and --set say)
    OUT/model_balanced.csv  the same with the cut planes balanced by pairs
                            (decomposition.balance = pairs); balance column "pairs"
    OUT/imports.png         imported particles per rank vs P: model, analytic, real runs
    OUT/imbalance.png       the model per method vs P: imported particles per rank (left) and
                            pairs per rank max/mean (right), balanced by pairs (solid) and
                            unbalanced (dashed); the real runs record no pair counts
    OUT/scaling.png         speedup and parallel efficiency vs P (the step loop without output:
                            trajectory writes are left out of the timings)
    OUT/phases.png          time per step by phase for every real run
    OUT/plots.json          each plot's title and axis labels (what a reader sees, checked by
                            the tests)

Every plot is titled with the deck, its particle count and its steps. With a single rank count
there is no scaling to show: the sweep says so (a warning, and on the plot).

Usage (Debian's /usr/bin/python3 with python3-numpy, -h5py, -matplotlib):
    /usr/bin/python3 scripts/sweep.py inputs/study_melt_32000.toml --ranks 1,2 \\
        --model-ranks 1,8,64,512,4096,32768,100000 --out sweep-out
"""

import argparse
import csv
import json
import math
import os
import shutil
import subprocess
import sys
import time

import h5py
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402
import numpy as np  # noqa: E402

ALL_METHODS = ["half-shell", "neutral-territory", "full-shell", "eighth-shell", "midpoint"]
PHASES = ["pair", "neigh", "comm", "output", "other"]
SWEEP_COLUMNS = ["method", "ranks", "grid", "particles", "steps", "seconds_per_step",
                 "particle_steps_per_s", "speedup", "efficiency"] + \
                [f"{p}_s_per_step" for p in PHASES] + \
                ["imports_mean", "imports_min", "imports_max", "tower_mean", "plate_mean",
                 "bytes_per_step_mean", "analytic"]


def int_list(text):
    return [int(v) for v in text.split(",") if v]


def read_run(path):
    """What one run's H5MD file says about it."""
    with h5py.File(path, "r") as f:
        run = f["scanmd/runs"][sorted(f["scanmd/runs"].keys(), key=int)[-1]]
        attrs = run.attrs
        timing = {row["section"].decode().strip(): float(row["avg"]) for row in run["timing"][:]}
        imports = run["imports"]
        ghosts = np.asarray(imports["ghosts"][:], dtype=float)  # (rebuilds, ranks)
        n = int(f["particles/trajectory/id"].shape[0])
        edges = f["particles/trajectory/box/edges/value"][0]
        return {
            "grid": "x".join(str(int(v)) for v in attrs["grid"]),
            "particles": n,
            "steps": int(attrs["last_step"]) - int(attrs["first_step"]),
            "timing": timing,
            "imports_mean": float(ghosts.mean()) if ghosts.size else 0.0,
            "imports_min": int(ghosts.min()) if ghosts.size else 0,
            "imports_max": int(ghosts.max()) if ghosts.size else 0,
            "tower_mean": float(np.asarray(imports["tower"][:], dtype=float).mean()) if ghosts.size else 0.0,
            "plate_mean": float(np.asarray(imports["plate"][:], dtype=float).mean()) if ghosts.size else 0.0,
            "bytes_per_step_mean": float(np.asarray(imports["bytes_per_step"][:], dtype=float).mean()) if ghosts.size else 0.0,
            "volume": float(edges[0][0] * edges[1][1] * edges[2][2]),
            "sub_box": [float(edges[i][i]) / int(attrs["grid"][i]) for i in range(3)],
        }


def analytic_volume(method, b, R):
    bx, by, bz = b
    faces = bx * by + by * bz + bz * bx
    edges = bx + by + bz
    pi = math.pi
    if method == "half-shell":
        return R * faces + pi / 2 * R * R * edges + 2 / 3 * pi * R ** 3
    if method == "neutral-territory":
        return 2 * R * bx * by + R * (bx + by) * bz + pi / 2 * R * R * bz
    if method == "full-shell":
        return 2 * R * faces + pi * R * R * edges + 4 / 3 * pi * R ** 3
    return R * faces + pi / 4 * R * R * edges + pi / 6 * R ** 3  # eighth shell, midpoint


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("deck")
    ap.add_argument("--ranks", type=int_list, default=[1, 2], help="real-run rank counts, e.g. 1,2,4")
    ap.add_argument("--methods", default=",".join(ALL_METHODS))
    ap.add_argument("--model-ranks", type=int_list, default=None,
                    help="rank counts for the virtual decomposition (default: 1..100000 in powers of 8 plus 100000)")
    ap.add_argument("--steps", type=int, default=None, help="override run.steps")
    ap.add_argument("--set", action="append", default=[], help="extra --set for every run and the model")
    ap.add_argument("--out", default="sweep-out")
    ap.add_argument("--scanmd", default=os.path.join(os.path.dirname(__file__), "..", "build", "app", "scanmd"))
    ap.add_argument("--mpirun", default="mpirun")
    args = ap.parse_args()

    methods = [m for m in args.methods.split(",") if m]
    for m in methods:
        if m not in ALL_METHODS:
            sys.exit(f"sweep: unknown method '{m}' ({', '.join(ALL_METHODS)})")
    if not os.access(args.scanmd, os.X_OK):
        sys.exit(f"sweep: {args.scanmd} is not an executable (build scanmd first, or pass --scanmd)")
    if shutil.which(args.mpirun) is None:
        sys.exit(f"sweep: {args.mpirun} not found")
    model_ranks = args.model_ranks or [1, 8, 64, 512, 4096, 32768, 100000]
    os.makedirs(args.out, exist_ok=True)
    sets = []
    for s in args.set:
        sets += ["--set", s]
    if args.steps is not None:
        sets += ["--set", f"run.steps={args.steps}"]
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")

    # Real runs.
    rows = []
    total = len(methods) * len(args.ranks)
    k = 0
    for method in methods:
        base = None
        for P in args.ranks:
            k += 1
            h5 = os.path.join(args.out, f"run_{method}_{P}.h5")
            cmd = [args.mpirun, "--oversubscribe", "-np", str(P), args.scanmd, "run", args.deck,
                   "--backend", "host", "--set", f"decomposition.method={method}",
                   "--set", "decomposition.grid=[0,0,0]",
                   "--set", f"output.trajectory={h5}", "--set", "output.trajectory_every=0",
                   "--set", "output.overwrite=true", "--set", "output.checkpoint=\"\""] + sets
            t0 = time.time()
            done = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if done.returncode != 0:
                sys.stdout.write(done.stdout[-3000:])
                sys.exit(f"sweep: run {k}/{total} ({method}, P={P}) failed with exit code {done.returncode}")
            r = read_run(h5)
            # The step loop without output: the trajectory's frames are no part of the scaling.
            loop = sum(r["timing"].get(p, 0.0) for p in PHASES if p != "output")
            steps = max(r["steps"], 1)
            row = {"method": method, "ranks": P, "grid": r["grid"], "particles": r["particles"],
                   "steps": r["steps"], "seconds_per_step": loop / steps,
                   "particle_steps_per_s": r["particles"] * steps / loop if loop > 0 else 0.0}
            if base is None:
                base = (P, row["seconds_per_step"])
            row["speedup"] = base[1] / row["seconds_per_step"] * base[0] if row["seconds_per_step"] > 0 else 0.0
            row["efficiency"] = row["speedup"] / P
            for p in PHASES:
                row[f"{p}_s_per_step"] = r["timing"].get(p, 0.0) / steps
            for key in ["imports_mean", "imports_min", "imports_max", "tower_mean", "plate_mean",
                        "bytes_per_step_mean"]:
                row[key] = r[key]
            rows.append((row, r))
            print(f"[{k}/{total}] {method:18s} P={P:<5d} grid={r['grid']:8s} "
                  f"{row['particle_steps_per_s']:.3e} particle-steps/s  efficiency {row['efficiency']:.2f}  "
                  f"imports mean {row['imports_mean']:.1f}  ({time.time() - t0:.1f} s)", flush=True)

    # The model twice, and R from it (cutoff + skin, as the deck and --set say): equal boxes
    # (balance forced to none: a deck or --set with a balance would add balanced rows) and cut
    # planes balanced by pairs. A balanced model also writes the equal-box rows: only its
    # "pairs" rows are kept.
    def run_model(csv_path, balance):
        cmd = [args.scanmd, "model", args.deck, "--ranks", ",".join(map(str, model_ranks)),
               "--methods", ",".join(methods), "--csv", csv_path] + sets + \
              ["--set", f"decomposition.balance={balance}"]
        print(f"model: {' '.join(cmd[1:])}", flush=True)
        done = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if done.returncode != 0:
            sys.stdout.write(done.stdout[-3000:])
            sys.exit(f"sweep: scanmd model (balance {balance}) failed")
        with open(csv_path) as f:
            reader = csv.DictReader(f)
            fields = reader.fieldnames
            kept = [x for x in reader if x["balance"] == balance]
        with open(csv_path, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=fields)
            w.writeheader()
            w.writerows(kept)
        return kept, done.stdout

    model_csv = os.path.join(args.out, "model.csv")
    balanced_csv = os.path.join(args.out, "model_balanced.csv")
    model, model_log = run_model(model_csv, "none")
    balanced, _ = run_model(balanced_csv, "pairs")
    R = None
    for line in model_log.splitlines():
        if " R = " in line:
            R = float(line.split(" R = ")[1].split()[0])
    for row, r in rows:
        density = r["particles"] / r["volume"]
        row["analytic"] = density * analytic_volume(row["method"], r["sub_box"], R) if R else float("nan")

    sweep_csv = os.path.join(args.out, "sweep.csv")
    with open(sweep_csv, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=SWEEP_COLUMNS)
        w.writeheader()
        for row, _ in rows:
            w.writerow({c: row[c] for c in SWEEP_COLUMNS})

    # Plots: every one titled with the deck, its size and steps; axes labelled with units.
    deck_name = os.path.basename(args.deck)
    first = rows[0][0] if rows else None
    what = f"{deck_name}, {first['particles']} particles, {first['steps']} steps" if first else deck_name
    labels_of = {}

    def record(name, fig, axes):
        labels_of[name] = {"title": fig._suptitle.get_text() if fig._suptitle else axes[0].get_title(),
                           "axes": [{"title": a.get_title(), "xlabel": a.get_xlabel(),
                                     "ylabel": a.get_ylabel()} for a in axes]}

    single = len(set(args.ranks)) < 2
    if single:
        print(f"sweep: warning: one rank count ({args.ranks[0]}): scaling.png shows no scaling; "
              "give --ranks at least two counts, e.g. --ranks 1,2,4", flush=True)
    colors = dict(zip(ALL_METHODS, ["C0", "C1", "C2", "C3", "C4"]))
    fig, ax = plt.subplots(figsize=(7.5, 5))
    for m in methods:
        mr = [x for x in model if x["method"] == m]
        P = np.array([float(x["ranks"]) for x in mr])
        ax.plot(P, [float(x["imports_mean"]) for x in mr], "-", color=colors[m], label=f"{m} (model)")
        ax.plot(P, [float(x["analytic"]) for x in mr], ":", color=colors[m], alpha=0.8)
        real = [row for row, _ in rows if row["method"] == m]
        if real:
            ax.plot([x["ranks"] for x in real], [x["imports_mean"] for x in real], "o", color=colors[m],
                    markerfacecolor="none", label=f"{m} (runs)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("ranks P")
    ax.set_ylabel("imported particles per rank (mean)")
    ax.set_title(f"Import volume: {what}\n(lines: model, dotted: analytic ρ·V, circles: runs)",
                 fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    record("imports.png", fig, [ax])
    fig.savefig(os.path.join(args.out, "imports.png"), dpi=120)
    plt.close(fig)

    # Load imbalance next to import volume: the model only (the real runs record no pair counts).
    def pair_imbalance(x):
        mean = float(x["pairs_mean"])
        return float(x["pairs_max"]) / mean if mean > 0 else float("nan")

    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4.8), sharex=True)
    ratios = []
    for m in methods:
        for rows_b, style in [(balanced, "-"), (model, "--")]:
            mr = sorted((x for x in rows_b if x["method"] == m), key=lambda x: int(x["ranks"]))
            P = [int(x["ranks"]) for x in mr]
            a1.plot(P, [float(x["imports_mean"]) for x in mr], style, marker=".", color=colors[m])
            ratio = [pair_imbalance(x) for x in mr]
            a2.plot(P, ratio, style, marker=".", color=colors[m])
            ratios += [v for v in ratio if math.isfinite(v)]
    a2.axhline(1.0, color="k", linestyle=":", alpha=0.6)
    a1.set_xscale("log")
    a1.set_yscale("log")
    a1.set_xticks(model_ranks)
    a1.set_xticklabels([str(p) for p in model_ranks])
    a1.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    if ratios and max(ratios) > 10:
        a2.set_yscale("log")
    else:
        a2.set_ylim(bottom=0)
    a1.set_xlabel("ranks P")
    a2.set_xlabel("ranks P")
    a1.set_ylabel("imported particles per rank (mean)")
    a2.set_ylabel("pairs per rank, max/mean")
    a1.set_title("import volume", fontsize=10)
    a2.set_title("load imbalance", fontsize=10)
    for a in (a1, a2):
        a.grid(True, which="both", alpha=0.3)
        a.tick_params(axis="x", labelsize=8)
    handles = [plt.Line2D([], [], color=colors[m], label=m) for m in methods] + \
              [plt.Line2D([], [], color="k", linestyle="-", label="balanced by pairs"),
               plt.Line2D([], [], color="k", linestyle="--", label="unbalanced (equal boxes)")]
    fig.legend(handles=handles, loc="lower center", ncol=min(len(handles), 4), fontsize=8, frameon=False)
    fig.suptitle(f"Model: import volume and pair imbalance, {what}", fontsize=11)
    fig.tight_layout(rect=(0, 0.05 * math.ceil(len(handles) / 4), 1, 1))
    record("imbalance.png", fig, [a1, a2])
    fig.savefig(os.path.join(args.out, "imbalance.png"), dpi=120)
    plt.close(fig)

    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 4))
    for m in methods:
        real = [row for row, _ in rows if row["method"] == m]
        a1.plot([x["ranks"] for x in real], [x["speedup"] for x in real], "o-", color=colors[m], label=m)
        a2.plot([x["ranks"] for x in real], [x["efficiency"] for x in real], "o-", color=colors[m], label=m)
    Ps = sorted(set(args.ranks))
    a1.plot(Ps, Ps, "k--", alpha=0.4, label="ideal")
    a1.set_xlabel("ranks P")
    a1.set_ylabel("speedup (time per step at the fewest ranks / at P)")
    a2.set_xlabel("ranks P")
    a2.set_ylabel("parallel efficiency (speedup / P)")
    a2.set_ylim(0, 1.2)
    for a in (a1, a2):
        a.grid(True, alpha=0.3)
        a.legend(fontsize=7)
        if single:
            a.text(0.5, 0.5, f"one rank count (P = {args.ranks[0]}):\nno scaling to show",
                   transform=a.transAxes, ha="center", va="center", color="C3")
    fig.suptitle(f"Strong scaling: {what} (step loop, output excluded)", fontsize=11)
    fig.tight_layout()
    record("scaling.png", fig, [a1, a2])
    fig.savefig(os.path.join(args.out, "scaling.png"), dpi=120)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(max(6, 0.7 * len(rows) + 2), 4.5))
    labels = [f"{row['method']}\nP={row['ranks']}" for row, _ in rows]
    bottom = np.zeros(len(rows))
    for p in PHASES:
        vals = np.array([row[f"{p}_s_per_step"] * 1e3 for row, _ in rows])
        ax.bar(range(len(rows)), vals, bottom=bottom, label=p)
        bottom += vals
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels(labels, fontsize=6)
    ax.set_ylabel("ms per step (average over ranks)")
    ax.set_xlabel("method and ranks P")
    ax.set_title(f"Time per step by phase: {what}", fontsize=10)
    ax.legend(fontsize=7)
    fig.tight_layout()
    record("phases.png", fig, [ax])
    fig.savefig(os.path.join(args.out, "phases.png"), dpi=120)
    plt.close(fig)
    with open(os.path.join(args.out, "plots.json"), "w") as f:
        json.dump(labels_of, f, indent=1)

    print()
    print(f"{'method':18s} {'P':>6s} {'grid':>9s} {'ps/s':>11s} {'speedup':>8s} {'eff':>6s} "
          f"{'imports':>9s} {'analytic':>9s}")
    for row, _ in rows:
        print(f"{row['method']:18s} {row['ranks']:6d} {row['grid']:>9s} {row['particle_steps_per_s']:11.4g} "
              f"{row['speedup']:8.2f} {row['efficiency']:6.2f} {row['imports_mean']:9.1f} {row['analytic']:9.1f}")
    print(f"written {sweep_csv}, {model_csv}, {balanced_csv}, imports.png, imbalance.png, scaling.png, "
          f"phases.png in {args.out}")


if __name__ == "__main__":
    main()
