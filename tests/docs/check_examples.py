#!/usr/bin/python3
"""Runs what the manual says runs (test docs.examples).

Every code block of docs/*.md written as

    ```{code-block} sh          (or python)
    :class: runnable

    <commands>
    ```

and every `build/app/scanmd ...` command of the LAMMPS translation table (docs/lammps.md, its
third column) runs, page by page in order, in a fresh folder that links inputs/, tests/,
scripts/, bench/ and docs/ of the repository (so relative paths work as from its root). Shell
lines run with bash (`build/app/scanmd` is this build's executable); `scanmd run` lines that set
no run.steps get `--set run.steps=10` (the manual's decks run longer). Python blocks run with
/usr/bin/python3. Each must exit 0; a page without any runnable block but with a `{code-block}`
marked runnable elsewhere is fine.
usage: check_examples.py REPO_ROOT SCANMD WORKDIR [PAGE...]
"""
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

root, exe, work = (os.path.abspath(a) for a in sys.argv[1:4])
only = sys.argv[4:]
docs = os.path.join(root, "docs")


def blocks(text):
    """(language, body) of the runnable code blocks, in order."""
    out = []
    for m in re.finditer(r"^```\{code-block\} (\w+)\n((?::[\w-]+:[^\n]*\n)*)\n?(.*?)^```", text,
                         flags=re.M | re.S):
        if re.search(r"^:class:.*\brunnable\b", m.group(2), flags=re.M):
            out.append((m.group(1), m.group(3)))
    return out


def table_commands(text):
    cmds = []
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) >= 3:
            m = re.fullmatch(r"`(build/app/scanmd [^`]+)`", cells[2])
            if m:
                cmds.append(("sh", m.group(1)))
    return cmds


def shell_lines(body):
    body = body.replace("\\\n", " ")
    return [line for line in body.splitlines() if line.strip() and not line.startswith("#")]


def fewer_steps(line):
    if " run " in line and "run.steps" not in line:
        line = re.sub(r"(scanmd run \S+)", r"\1 --set run.steps=10", line, count=1)
    return line


def run_page(page):
    """Runs the page's commands in order; returns (commands run, failures, report lines)."""
    text = open(os.path.join(docs, page)).read()
    todo = blocks(text) + (table_commands(text) if page == "lammps.md" else [])
    report, ran, failed = [], 0, 0
    if not todo:
        return ran, failed, report
    here = os.path.join(work, page[:-3])
    shutil.rmtree(here, ignore_errors=True)
    os.makedirs(os.path.join(here, "build", "app"))
    for d in ["inputs", "tests", "scripts", "bench", "docs"]:
        os.symlink(os.path.join(root, d), os.path.join(here, d))
    os.symlink(exe, os.path.join(here, "build", "app", "scanmd"))
    # Two pages run at once: each its own Open MPI session directory below the test's, or their
    # jobs race on the shared top folder (tests/cmake/ompi_session_per_test.cmake says how).
    env = dict(os.environ)
    if "OMPI_MCA_orte_tmpdir_base" in env:
        env["OMPI_MCA_orte_tmpdir_base"] += f"/{pages.index(page)}"  # (socket paths: short)
    for k, (lang, body) in enumerate(todo):
        if lang == "python":
            script = os.path.join(here, f"block{k}.py")
            with open(script, "w") as f:
                f.write(body)
            cmds = [["/usr/bin/python3", script]]
            shown = [f"python block {k}"]
        else:
            lines = [fewer_steps(line) for line in shell_lines(body)]
            cmds = [["bash", "-o", "pipefail", "-c", line] for line in lines]
            shown = lines
        for cmd, what in zip(cmds, shown):
            p = subprocess.run(cmd, cwd=here, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, timeout=300, env=env)
            ran += 1
            if p.returncode != 0:
                failed += 1
                report.append(f"FAIL: {page}: {what}: exit {p.returncode}\n{p.stdout[-3000:]}")
            else:
                report.append(f"ok:   {page}: {what}")
    return ran, failed, report


pages = sorted(p for p in os.listdir(docs) if p.endswith(".md") and (not only or p in only))
# Two pages at a time (ctest gives the test 2 cores); each page's commands in order.
with ThreadPoolExecutor(max_workers=2) as pool:
    results = list(pool.map(run_page, pages))
ran = sum(r[0] for r in results)
failures = sum(r[1] for r in results)
for r in results:
    print("\n".join(r[2]))
if ran == 0:
    sys.exit("no runnable code block found in docs/")
if failures:
    sys.exit(f"{failures} of {ran} commands of the manual failed")
print(f"all {ran} commands of the manual ran")
