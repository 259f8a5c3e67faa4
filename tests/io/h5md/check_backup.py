"""io.h5md.backup: existing output is never lost. Running the same command again renames the
old trajectory and checkpoint GROMACS style (#traj.h5.1#, #traj.h5.2#, ...), says so in the
log and just works; output.overwrite = true replaces them instead. Also in a sub-folder."""
import hashlib
import os

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
r.done()
