"""io.h5md.bad_input: each bad input is one clear error before any step runs, naming the file
and the problem, printed once for all ranks (2 ranks here), exit status 1 on every rank.
Cases run concurrently (mpiexec spends ~2 s idle after a non-zero exit), each in its own folder
case<k>/ whose default outputs are traj.h5 and ckpt.h5; the spoilt inputs lie one level up."""
import os
import re
import shutil
from concurrent.futures import ThreadPoolExecutor

import h5py

from scanmd_test import Runner, arguments

args = arguments(__doc__)
r = Runner(args)

# A valid 10-step run provides a checkpoint and a trajectory to spoil.
r.run(1, "--set", "run.steps=10")
ckpt = open(r.path("ckpt.h5"), "rb").read()
open(r.path("trunc.h5"), "wb").write(ckpt[: len(ckpt) // 2])
open(r.path("garbage.h5"), "w").write("this is not an HDF5 file\n")
with h5py.File(r.path("empty.h5"), "w") as f:
    f.create_group("particles/trajectory")
with h5py.File(r.path("badids.h5"), "w") as f:
    with h5py.File(r.path("ckpt.h5"), "r") as g:
        for k in g:
            g.copy(k, f)
    f["particles/trajectory/id"][0:2] = [2, 1]
# Issue 17: a checkpoint at a negative step, and one with a position 1e20 away (its image flag
# would not fit 32 bits); written without a checksum (as by scanmd before issue 31), else the
# checksum would refuse them first.
for name, edit in (("negstep.h5", lambda f: f["particles/trajectory/position/step"].__setitem__(
                        -1, -5)),
                   ("farpos.h5", lambda f: f["particles/trajectory/position/value"].__setitem__(
                        (-1, 0, 0), 1e20))):
    shutil.copy(r.path("ckpt.h5"), r.path(name))
    with h5py.File(r.path(name), "r+") as f:
        edit(f)
        if "scanmd/checksum" in f:
            del f["scanmd/checksum"]


# Issue 31, item 2: one flipped bit anywhere a restart reads is refused by the checksum.
def flip(dataset, index):
    def edit(f):
        d = f["particles/trajectory/" + dataset]
        a = d[...]
        bits = a.view(a.dtype.str.replace("f", "u").replace("i", "u"))
        bits[index] ^= bits.dtype.type(1)
        d[...] = a
    return edit


for name, edit in (("flip_x.h5", flip("position/value", (-1, 321, 1))),
                   ("flip_v.h5", flip("velocity/value", (-1, 17, 2))),
                   ("flip_image.h5", flip("image/value", (-1, 400, 0))),
                   ("flip_species.h5", flip("species", 250)),
                   ("flip_step.h5", flip("position/step", -1)),
                   ("flip_box.h5", flip("box/edges/value", (-1, 2, 2)))):
    shutil.copy(r.path("ckpt.h5"), r.path(name))
    with h5py.File(r.path(name), "r+") as f:
        edit(f)
# Issue 31, item 3: a checkpoint of two species (80:20) for the one-species deck, and back.
TWO = ["--set", "system.type_fractions=[0.8,0.2]", "--set",
       "potential.pair=[{types=[1,1],epsilon=1.0,sigma=1.0},{types=[2,2],epsilon=0.5,sigma=0.88}]"]
r.run(1, "--set", "run.steps=10", "--set", "output.trajectory=", "--set",
      "output.checkpoint=two_species.h5", *TWO)
os.makedirs(r.path("a_folder.h5"))
os.symlink("loop.h5", r.path("loop.h5"))  # issue 31, item 7: a link to itself
shutil.copy(r.path("traj.h5"), r.path("other_system.h5"))
# Issue 15, item 5: outputs that name an input. A copy of the deck (runs below use it), a link
# to it under another name, and a LAMMPS data file to start from.
shutil.copy(args.deck, r.path("deck.toml"))
os.symlink("deck.toml", r.path("deck_link.toml"))
os.link(r.path("deck.toml"), r.path("deck_hard.toml"))
r.run(1, "--set", "run.steps=0", "--set", "output.data_file=start.data", "--set",
      "output.trajectory=", "--set", "output.checkpoint=")
inputs = {n: open(r.path(n), "rb").read() for n in ("deck.toml", "start.data")}
DECK = "../deck.toml"  # the copy, as the runs below see it from case<k>/

CASES = [
    ("unwritable trajectory", ["--set", "output.trajectory=../no_such_dir/t.h5"],
     r"\.\./no_such_dir/t\.h5: cannot write: No such file or directory"),
    ("unwritable checkpoint", ["--set", "output.checkpoint=../no_such_dir/c.h5"],
     r"\.\./no_such_dir/c\.h5: cannot write: No such file or directory"),
    ("trajectory is a folder", ["--set", "output.trajectory=../a_folder.h5"],
     r"\.\./a_folder\.h5: cannot write: is a folder"),
    ("trajectory = checkpoint", ["--set", "output.checkpoint=traj.h5"],
     r"output\.trajectory and output\.checkpoint are the same file \(traj\.h5\)"),
    # Issue 31, item 7: causes named as they are (MPI-IO noise; "not found").
    ("trajectory to append to is a folder",
     ["--restart", "../ckpt.h5", "--set", "output.trajectory=../a_folder.h5", "--set", "run.steps=20"],
     r"\.\./a_folder\.h5: cannot write: is a folder \(output\.trajectory\)"),
    ("checkpoint is a symbolic link loop", ["--restart", "../loop.h5"],
     r"\.\./loop\.h5: cannot read the checkpoint: Too many levels of symbolic links"),
    ("missing checkpoint", ["--restart", "../missing.h5"],
     r"\.\./missing\.h5: checkpoint file not found"),
    ("truncated checkpoint", ["--restart", "../trunc.h5"],
     r"\.\./trunc\.h5: not a usable checkpoint: .*truncated file"),
    ("corrupt checkpoint", ["--restart", "../garbage.h5"],
     r"\.\./garbage\.h5: not a usable checkpoint: .*file signature not found"),
    ("HDF5 file without a state", ["--restart", "../empty.h5"],
     r"\.\./empty\.h5: not a usable checkpoint: no particles/trajectory/position/value"),
    ("checkpoint with shuffled ids", ["--restart", "../badids.h5"],
     r"\.\./badids\.h5: not a usable checkpoint: particle ids are not 1\.\.N in row order"),
    ("checkpoint of another particle count",
     ["--restart", "../ckpt.h5", "--set", "system.cells=[6,6,6]"],
     r"\.\./ckpt\.h5: checkpoint of 500 particles does not fit this deck \(864 particles\)"),
    ("checkpoint of another box", ["--restart", "../ckpt.h5", "--set", "system.density=0.8"],
     r"\.\./ckpt\.h5: checkpoint box 8\.39\d+ x .* does not fit this deck's box 8\.54\d+"),
    ("checkpoint beyond run.steps", ["--restart", "../ckpt.h5", "--set", "run.steps=5"],
     r"\.\./ckpt\.h5: checkpoint is at step 10, beyond run\.steps = 5"),
    # Issue 31, item 3: a restart that would run no step (it rewrote the checkpoint, exit 0).
    ("checkpoint at run.steps", ["--restart", "../ckpt.h5", "--set", "run.steps=10"],
     r"\.\./ckpt\.h5: checkpoint is at step 10, which is run\.steps already: nothing to run; "
     r"raise run\.steps to continue \(e\.g\. --set run\.steps=20\)"),
    # ... and species: the checkpoint's silently replaced the deck's.
    ("two-species checkpoint, one-species deck", ["--restart", "../two_species.h5"],
     r"\.\./two_species\.h5: particle \d+ is of type 2 in the checkpoint but of type 1 in this "
     r"deck \(one species: no system\.type_fractions\), and 99 more particles differ: the "
     r"checkpoint was written with other species; restart with the deck that wrote it"),
    ("one-species checkpoint, two-species deck", ["--restart", "../ckpt.h5", *TWO],
     r"\.\./ckpt\.h5: particle \d+ is of type 1 in the checkpoint but of type 2 in this deck "
     r"\(system\.type_fractions = \[0\.8, 0\.2\], system\.seed = \d+\), and 99 more"),
    ("checkpoint at a negative step", ["--restart", "../negstep.h5"],
     r"\.\./negstep\.h5: not a usable checkpoint: its step is -5, negative"),
    ("checkpoint position beyond the image range", ["--restart", "../farpos.h5"],
     r"\.\./farpos\.h5: particle 1: x = 1e\+20 \(image flag -?\d+\) cannot be wrapped into the "
     r"box \[0, 8\.39\d+\): its image flag would leave the 32-bit range"),
    *[(f"checkpoint with a flipped bit ({what})", ["--restart", f"../flip_{what}.h5"],
       rf"\.\./flip_{what}\.h5: checksum mismatch: the file holds rowmix64-v1 [0-9a-f]{{16}}, its "
       r"contents give rowmix64-v1 [0-9a-f]{16}: its ids, positions, velocities, image flags, "
       r"species, step, box or thermostat state are not what was written")
      for what in ("x", "v", "image", "species", "step", "box")],
    ("append to another system's trajectory",
     ["--restart", "../ckpt.h5", "--set", "output.trajectory=../other_system.h5", "--set",
      "output.trajectory_force=true"],
     r"\.\./other_system\.h5: cannot append to this trajectory: it has no "
     r"particles/trajectory/force"),
    # Issue 15, item 5: an output that names an input, refused naming the key.
    ("trajectory = the deck", ["--deck", DECK, "--set", "output.trajectory=../deck.toml"],
     r"--set output\.trajectory=\.\./deck\.toml: output\.trajectory: \"\.\./deck\.toml\" is the "
     r"deck file itself \(\.\./deck\.toml\): an output must not replace an input"),
    ("checkpoint = the deck via a symbolic link",
     ["--deck", DECK, "--set", "output.checkpoint=../deck_link.toml"],
     r"--set [^:]*: output\.checkpoint: \"\.\./deck_link\.toml\" is the deck file itself"),
    ("imports = the deck via a hard link",
     ["--deck", DECK, "--set", "output.imports=../deck_hard.toml"],
     r"--set [^:]*: output\.imports: \"\.\./deck_hard\.toml\" is the deck file itself"),
    ("data file out = data file in",
     ["--set", "system.data_file=../start.data", "--set", "output.data_file=.././start.data"],
     r"--set [^:]*: output\.data_file: \"\.\./\./start\.data\" is the data file this run starts from "
     r"\(system\.data_file\) \(\.\./start\.data\)"),
    ("trajectory = the data file in",
     ["--set", "system.data_file=../start.data", "--set", "output.trajectory=../start.data"],
     r"--set [^:]*: output\.trajectory: \"\.\./start\.data\" is the data file this run starts from"),
    ("trajectory = the restart checkpoint",
     ["--restart", "../ckpt.h5", "--set", "output.trajectory=../ckpt.h5"],
     r"--set [^:]*: output\.trajectory: \"\.\./ckpt\.h5\" is the checkpoint this run restarts from "
     r"\(--restart\) \(\.\./ckpt\.h5\)"),
]


def attempt(k):
    os.makedirs(r.path(f"case{k}"))
    extra = list(CASES[k][1])
    deck = None
    if extra[:1] == ["--deck"]:
        deck, extra = extra[1], extra[2:]
    return r.run(2, *extra, expect_rc=None, cwd=f"case{k}", deck=deck)


with ThreadPoolExecutor(max_workers=4) as pool:
    results = list(pool.map(attempt, range(len(CASES))))
for (name, extra, expect), (out, err, rc) in zip(CASES, results):
    r.check(rc == 1, f"{name}: exit status {rc}")
    r.check(re.search("error: " + expect, out) is not None, f"{name}: message /{expect}/")
    r.check(out.count("error:") == 1, f"{name}: printed once ({out.count('error:')}x)")
    r.check("      step " not in out, f"{name}: no step ran")
    if rc != 1 or re.search("error: " + expect, out) is None:
        print(out + err)

# Nothing was lost: the files the failed runs met are intact, nothing was backed up or left.
r.check(open(r.path("ckpt.h5"), "rb").read() == ckpt, "checkpoint untouched by failed runs")
for name, content in inputs.items():
    r.check(open(r.path(name), "rb").read() == content, f"input {name} untouched by failed runs")
r.check(os.path.islink(r.path("deck_link.toml")), "the link to the deck is still a link")
# (The log, log.scanmd, of the successful runs that made the inputs is backed up by the next.)
left = [os.path.join(d, n) for d, _, names in os.walk(args.workdir) for n in names
        if (n.startswith("#") and not n.startswith("#log.scanmd.")) or n.endswith(".tmp")]
r.check(not left, f"no backups or temporary files left: {left}")
r.done()
