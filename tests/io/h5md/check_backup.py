"""io.h5md.backup: existing output is never lost. Running the same command again renames the
old trajectory and checkpoint GROMACS style (#traj.h5.1#, #traj.h5.2#, ...), says so in the
log and just works; output.overwrite = true replaces them instead. Also in a sub-folder.
The CSV outputs too (issue 17): output.imports and `scanmd model --csv` back up an existing
file the same way, and a folder given as either is an error before any step (any modelling),
leaving no <folder>.tmp behind."""
import hashlib
import os
import subprocess

import h5py

from scanmd_test import Runner, arguments

args = arguments(__doc__)
r = Runner(args)
os.makedirs(r.path("out"))
SHORT = ["--set", "run.steps=20", "--set", "output.trajectory=out/traj.h5"]


def digest(name):
    return hashlib.sha256(open(r.path(name), "rb").read()).hexdigest()


out1, _, _ = r.run(1, *SHORT)
r.check("backed up" not in out1, "first run: nothing to back up")
first = {n: digest(n) for n in ("out/traj.h5", "ckpt.h5")}

out2, _, _ = r.run(2, *SHORT)
r.check("backed up existing out/traj.h5 to out/#traj.h5.1#" in out2, "log names the backup")
r.check("backed up existing ckpt.h5 to #ckpt.h5.1#" in out2, "checkpoint backed up too")
r.check(digest("out/#traj.h5.1#") == first["out/traj.h5"], "#traj.h5.1# is the first trajectory")
r.check(digest("#ckpt.h5.1#") == first["ckpt.h5"], "#ckpt.h5.1# is the first checkpoint")
with h5py.File(r.path("out/traj.h5"), "r") as f:
    r.check(f["scanmd/runs/0"].attrs["ranks"] == 2 and len(f["scanmd/runs"]) == 1,
            "the new trajectory is a fresh file of the second run")

out3, _, _ = r.run(1, *SHORT)
r.check("to out/#traj.h5.2#" in out3 and os.path.exists(r.path("out/#traj.h5.2#")),
        "third run: #traj.h5.2#")
r.check(digest("out/#traj.h5.1#") == first["out/traj.h5"], "older backups stay")

out4, _, _ = r.run(1, *SHORT, "--set", "output.overwrite=true")
r.check("backed up" not in out4, "output.overwrite = true: no backup")
r.check(not os.path.exists(r.path("out/#traj.h5.3#")) and
        not os.path.exists(r.path("#ckpt.h5.3#")), "output.overwrite = true: files replaced")
r.check(not any(n.endswith(".tmp") for n in os.listdir(args.workdir)), "no temporary files left")

# output.imports: backed up like the other outputs (unless output.overwrite).
IMPORTS = ["--set", "run.steps=5", "--set", "output.imports=out/imports.csv"]
r.run(1, *IMPORTS)
first_csv = digest("out/imports.csv")
out6, _, _ = r.run(2, *IMPORTS)
r.check("backed up existing out/imports.csv to out/#imports.csv.1#" in out6,
        "imports CSV: the log names its backup")
r.check(os.path.exists(r.path("out/#imports.csv.1#")) and
        digest("out/#imports.csv.1#") == first_csv, "#imports.csv.1# is the first CSV")
r.check(digest("out/imports.csv") != first_csv, "the new CSV is the second run's (2 ranks)")
r.run(1, *IMPORTS, "--set", "output.overwrite=true")
r.check(not os.path.exists(r.path("out/#imports.csv.2#")), "imports CSV: overwrite, no backup")

# output.imports naming a folder: an error before the first step, nothing left behind.
os.makedirs(r.path("a_dir"))
out8, _, rc8 = r.run(2, "--set", "run.steps=5", "--set", "output.imports=a_dir", expect_rc=None)
r.check(rc8 == 1 and "error: a_dir: cannot write: is a folder" in out8,
        f"imports = a folder: exit {rc8}, named")
r.check(out8.count("error:") == 1, "imports = a folder: printed once")
r.check("      step " not in out8, "imports = a folder: refused before the first step")
r.check(not os.path.exists(r.path("a_dir.tmp")), "imports = a folder: no a_dir.tmp left")


def model(*extra):
    p = subprocess.run([args.exe, "model", args.deck, "--ranks", "1,2", "--no-pairs", *extra],
                       cwd=args.workdir, capture_output=True, text=True, timeout=120)
    return p.stdout + p.stderr, p.returncode


out9, rc9 = model("--csv", "m.csv")
r.check(rc9 == 0 and os.path.exists(r.path("m.csv")), "model --csv writes the CSV")
first_model = digest("m.csv")
out10, rc10 = model("--csv", "m.csv")
r.check(rc10 == 0 and "backed up existing m.csv to #m.csv.1#" in out10,
        "model --csv: an existing CSV is backed up, and the output says so")
r.check(digest("#m.csv.1#") == first_model, "#m.csv.1# is the first CSV")
out11, rc11 = model("--csv", "a_dir")
r.check(rc11 == 1 and "error: a_dir: cannot write: is a folder" in out11,
        f"model --csv a folder: exit {rc11}, named")
r.check("half-shell" not in out11, "model --csv a folder: refused before any modelling")
r.check(not os.path.exists(r.path("a_dir.tmp")), "model --csv a folder: no a_dir.tmp left")
r.check(not any(n.endswith(".tmp") for n in os.listdir(args.workdir)), "no temporary files left")
r.done()
