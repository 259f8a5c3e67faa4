#!/usr/bin/python3
"""Test docs.numbers: docs/numbers.md is exactly what scripts/manual_numbers.py prints now (the
manual's numbers are measured, never typed; the page must not drift from the code).
usage: check_numbers.py REPO_ROOT SCANMD OUT"""
import difflib
import os
import subprocess
import sys

root, exe, out = sys.argv[1:4]
p = subprocess.run(["/usr/bin/python3", os.path.join(root, "scripts", "manual_numbers.py"),
                    os.path.abspath(exe)], cwd=root, stdout=subprocess.PIPE,
                   stderr=subprocess.PIPE, text=True)
if p.returncode != 0:
    sys.exit(f"scripts/manual_numbers.py failed ({p.returncode}):\n{p.stderr}{p.stdout}")
with open(out, "w") as f:
    f.write(p.stdout)
committed = open(os.path.join(root, "docs", "numbers.md")).read()
if committed != p.stdout:
    sys.stdout.writelines(difflib.unified_diff(committed.splitlines(True),
                                               p.stdout.splitlines(True), "docs/numbers.md", out))
    sys.exit("docs/numbers.md differs from scripts/manual_numbers.py's output (above); "
             "regenerate it: /usr/bin/python3 scripts/manual_numbers.py build/app/scanmd > "
             "docs/numbers.md")
print("docs/numbers.md is the output of scripts/manual_numbers.py")
