#!/usr/bin/python3
"""The numbers the manual quotes, measured by scanmd itself (never typed by hand).

    /usr/bin/python3 scripts/manual_numbers.py build/app/scanmd > docs/numbers.md
    /usr/bin/python3 scripts/manual_numbers.py build/app/scanmd --slow docs/_generated

The first (a few seconds) writes the page docs/numbers.md: the example decks' particle counts and
boxes, step 0 of the default deck next to LAMMPS, a refused impossible size, the slab example's
imbalance on 2 ranks, and import volumes per method of the default deck. The test docs.numbers
fails while the committed page differs from a fresh output. The second (about a minute) writes
what the manual includes from docs/_generated: the default deck and the slab study at 512
virtual ranks, the crossovers of the decompositions, and the first 25 lines of the default
run on 2 ranks.
Run from the repository root (deck paths are relative to it).
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

exe = os.path.abspath(sys.argv[1])
slow = "--slow" in sys.argv[2:]
mpirun = os.environ.get("MPIEXEC", "mpirun")
env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           SCANMD_AVAILABLE_MEMORY="8000000000")
NO_FILES = ["--set", 'output.log=""', "--set", 'output.trajectory=""', "--set",
            'output.checkpoint=""']


def scanmd(*args, ranks=0, expect=0):
    cmd = [exe, *args]
    if ranks:
        cmd = [mpirun, "--oversubscribe", "-np", str(ranks)] + cmd
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    if expect is not None and p.returncode != expect:
        sys.exit(f"manual_numbers: {' '.join(cmd)} exited {p.returncode}:\n{p.stdout}")
    return p.stdout


def model_table(deck, ranks, methods, balance="none"):
    out = scanmd("model", deck, "--ranks", ",".join(map(str, ranks)), "--methods",
                 ",".join(methods), "--set", f"decomposition.balance={balance}")
    rows = []
    for line in out.splitlines():
        f = line.split()
        if len(f) == 13 and f[0] in methods:
            rows.append(dict(zip(["method", "ranks", "grid", "R/b", "min", "mean", "max",
                                  "analytic", "pairs", "imbalance", "bytes", "seconds",
                                  "balance"], f)))
    return out, rows


if slow:
    # --slow DIR: the slab study at 512 virtual ranks (about a minute) and the first 25 lines of
    # the README's run (2 ranks, the default deck), both included by the manual.
    outdir = sys.argv[sys.argv.index("--slow") + 1]
    out, rows = model_table("inputs/study_slab.toml", [512],
                            ["half-shell", "neutral-territory", "full-shell", "eighth-shell",
                             "midpoint"], balance="pairs")
    with open(os.path.join(outdir, "slab_512.md"), "w") as f:
        f.write("| method | grid | balance | imports per rank (mean) | pairs per rank, max/mean |\n")
        f.write("| --- | --- | --- | --- | --- |\n")
        for r in rows:
            f.write(f"| {r['method']} | {r['grid']} | {r['balance']} | {r['mean']} | "
                    f"{r['imbalance']} |\n")
    out, rows = model_table("inputs/lj_melt.toml", [512], ["half-shell", "neutral-territory",
                                                            "full-shell", "eighth-shell",
                                                            "midpoint"])
    with open(os.path.join(outdir, "melt_512.md"), "w") as f:
        f.write("| method | P | grid | R/b | imports (mean) | analytic ρ·V | pairs max/mean |\n")
        f.write("| --- | --- | --- | --- | --- | --- | --- |\n")
        for r in rows:
            f.write(f"| {r['method']} | {r['ranks']} | {r['grid']} | {r['R/b']} | {r['mean']} | "
                    f"{r['analytic']} | {r['imbalance']} |\n")
    # The crossovers of neutral territory against half shell and eighth shell (cubic grids
    # where the rank count allows), and the long-cutoff deck at 4 ranks.
    with open(os.path.join(outdir, "crossovers.md"), "w") as f:
        f.write("| deck | P | grid | R/b | half-shell | neutral-territory | eighth-shell |\n")
        f.write("| --- | --- | --- | --- | --- | --- | --- |\n")
        for deck, ranks in [("inputs/study_melt_32000.toml", [27, 32, 1000, 1331]),
                            ("inputs/study_long_cutoff.toml", [4])]:
            _, rows = model_table(deck, ranks, ["half-shell", "neutral-territory", "eighth-shell"])
            for P in ranks:
                by = {r["method"]: r for r in rows if int(r["ranks"]) == P}
                hs = by["half-shell"]
                f.write(f"| `{deck}` | {P} | {hs['grid']} | {hs['R/b']} | {hs['mean']} | "
                        f"{by['neutral-territory']['mean']} | {by['eighth-shell']['mean']} |\n")
    with tempfile.TemporaryDirectory() as tmp:
        deck = os.path.abspath("inputs/lj_melt.toml")
        plain = {k: v for k, v in env.items() if k != "SCANMD_AVAILABLE_MEMORY"}
        p = subprocess.run([mpirun, "--oversubscribe", "-np", "2", exe, "run", deck], cwd=tmp,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=plain)
        if p.returncode != 0:
            sys.exit(f"manual_numbers: the default run failed:\n{p.stdout}")
    first = p.stdout.replace(deck, "inputs/lj_melt.toml").splitlines()[:25]
    with open(os.path.join(outdir, "first_run.txt"), "w") as f:
        f.write("\n".join(first) + "\n")
    sys.exit(0)

print("<!-- Generated by `/usr/bin/python3 scripts/manual_numbers.py build/app/scanmd > "
      "docs/numbers.md`:\n     every number here is measured by scanmd. The test docs.numbers "
      "fails while this page differs\n     from a fresh output. -->")
print("# Numbers\n")
print("Every figure on this page is measured by `scanmd` itself, by "
      "`scripts/manual_numbers.py`; the\nother pages of the manual quote them from here.\n")

print("## The example decks\n")
print("| deck | particles | box | R = cutoff + skin |")
print("| --- | --- | --- | --- |")
decks = sorted(glob.glob("inputs/*.toml"))
with ThreadPoolExecutor(max_workers=2) as pool:  # (two processes at a time: ctest gives 2 cores)
    firsts = list(pool.map(lambda d: None if re.search(r"^data_file\s*=", open(d).read(), flags=re.M)
                           else scanmd("model", d, "--ranks", "1", "--methods",
                                       "half-shell").splitlines()[0], decks))
for deck, first in zip(decks, firsts):
    if first is None:
        print(f"| `{deck}` | those of its data file | | |")
        continue
    m = re.match(r"scanmd model: (\d+) particles(?: of \d+ types)?, box (\S+ x \S+ x \S+), "
                 r"R = (\S+)", first)
    if not m:
        sys.exit(f"manual_numbers: {deck}: unexpected first line {first!r}")
    print(f"| `{deck}` | {m.group(1)} | {m.group(2)} | {m.group(3)} |")

print("\n## Step 0 of the default deck\n")
out = scanmd("run", "inputs/lj_melt.toml", "--set", "run.steps=0", "--set",
             "output.thermo_digits=10", *NO_FILES)
header = next(line for line in out.splitlines() if re.match(r"^\s*step\s", line)).split()
row = next(line for line in out.splitlines() if re.match(r"^\s+0\s", line)).split()
values = dict(zip(header, row))
print("`inputs/lj_melt.toml` (LAMMPS `bench/in.lj`), step 0, with `output.thermo_digits = 10`:\n")
print("| | temp | pe | ke | etotal | press |")
print("| --- | --- | --- | --- | --- | --- |")
print("| scanmd | " + " | ".join(values[k] for k in ["temp", "pe", "ke", "etotal", "press"]) + " |")
lmp = subprocess.run(["lmp", "-in", "bench/lammps_in.lj", "-var", "steps", "0", "-log", "none",
                      "-nocite"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                     env=env) if shutil.which("lmp") else None
lrow = None
if lmp and lmp.returncode == 0:
    lines = lmp.stdout.splitlines()
    for k, line in enumerate(lines):
        if line.split()[:6] == ["Step", "Temp", "PotEng", "KinEng", "TotEng", "Press"]:
            lrow = lines[k + 1].split()
if lrow:
    print("| LAMMPS (`lmp -in bench/lammps_in.lj -var steps 0`) | " + " | ".join(lrow[1:6]) + " |\n")
else:
    print("| LAMMPS | (no `lmp` on this machine) | | | | |\n")
print("Step 0 agrees to every digit shown; later rows differ from LAMMPS because the velocities "
      "are drawn\ndifferently (from the seed and the particle id, so that no decomposition "
      "changes them).\n")

print("## An impossible size, refused\n")
out = scanmd("run", "tests/app/tiny.toml", "--set", "system.cells=[2000,2000,2000]", expect=1)
err = next(line for line in out.splitlines() if line.startswith("error:"))
err = err.replace(os.getcwd() + "/", "")
print("`scanmd run tests/app/tiny.toml --set system.cells=[2000,2000,2000]` with "
      "`SCANMD_AVAILABLE_MEMORY=8000000000`:\n")
print("```text\n" + err + "\n```\n")

print("## The slab example on 2 ranks\n")
out = scanmd("run", "inputs/lj_slab.toml", "--set", "run.steps=0", *NO_FILES, ranks=2)
hint = next(line for line in out.splitlines() if line.startswith("hint:"))
grid = next(line for line in out.splitlines() if line.startswith("decomposition:"))
print("`mpirun -np 2 scanmd run inputs/lj_slab.toml` with the default grid:\n")
print("```text\n" + grid + "\n" + hint + "\n```\n")
out = scanmd("run", "inputs/lj_slab.toml", "--set", "run.steps=0", "--set",
             "decomposition.balance=particles", *NO_FILES, ranks=2)
load = next(line for line in out.splitlines() if line.startswith("load per rank"))
print("With `--set decomposition.balance=particles`:\n")
print("```text\n" + load + "\n```\n")

print("## Import volume of the default deck\n")
methods = ["half-shell", "neutral-territory", "full-shell", "eighth-shell", "midpoint"]
with ThreadPoolExecutor(max_workers=2) as pool:
    rows = [r for _, part in pool.map(lambda m: model_table("inputs/lj_melt.toml", [8, 64], [m]),
                                      methods) for r in part]
print("`scanmd model inputs/lj_melt.toml --ranks 8,64` (32 000 particles, R = 2.8): ghost "
      "particles imported per\nrank (mean over ranks) next to ρ·V of the analytic formula, and "
      "the pairs per rank max/mean.\n")
print("| method | P | grid | R/b | imports (mean) | analytic ρ·V | pairs max/mean |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for r in rows:
    print(f"| {r['method']} | {r['ranks']} | {r['grid']} | {r['R/b']} | {r['mean']} | "
          f"{r['analytic']} | {r['imbalance']} |")

print("\nAt 512 ranks (R/b = 0.667; `--slow`), neutral territory imports less than half shell:\n")
print("```{include} _generated/melt_512.md\n```")
print("\n## The slab study at 512 ranks\n")
print("`scanmd model inputs/study_slab.toml --ranks 512 --set decomposition.balance=pairs` "
      "(78 336 particles), equal\nboxes (balance none) and balanced by pairs "
      "(`scripts/manual_numbers.py build/app/scanmd --slow docs/_generated`):\n")
print("```{include} _generated/slab_512.md\n```")
