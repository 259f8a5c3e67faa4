#!/usr/bin/env python3
"""tests/layers/check_layers.py — the layer graph stays acyclic, and MPI stays in its layer.

Reads every `#include "folder/..."` of the source folders and fails on an include that points
up the graph or sideways to a sibling (DESIGN.md §1):

    kernels  <-  base  <-  {decomposition, physics}  <-  engine  <-  {model, io}  <-  app

(each folder may include itself and the folders it lists below). Also fails on a raw MPI call
(`MPI_Xxx(`) or `#include <mpi.h>` outside the communication layer (base/communicator.*), the
MPI-IO writers (io/h5md_writer, io/hdf5_ops, io/checkpoint headers that take the handle) and the
CUDA device selection (engine/cuda/device_selection.cpp: MPIX_Query_cuda_support).

Usage: check_layers.py REPO_ROOT   (exit 1 with one line per violation)
"""
import pathlib
import re
import sys

ALLOWED = {
    "kernels": set(),
    "base": {"kernels"},
    "decomposition": {"base", "kernels"},
    "physics": {"base", "kernels"},
    "engine": {"physics", "decomposition", "base", "kernels"},
    "model": {"engine", "physics", "decomposition", "base", "kernels"},
    "io": {"engine", "physics", "decomposition", "base", "kernels"},
    "app": {"io", "model", "engine", "physics", "decomposition", "base", "kernels"},
}
MPI_ALLOWED = {
    "base/communicator.hpp", "base/communicator.cpp",
    "io/h5md_writer.hpp", "io/h5md_writer.cpp", "io/hdf5_ops.hpp", "io/hdf5_ops.cpp",
    "engine/cuda/device_selection.cpp",
}
SUFFIXES = {".hpp", ".cpp", ".cu", ".cuh", ".h"}
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"/]+)/')
MPI_CALL = re.compile(r"\bMPIX?_[A-Z][a-z_]+\s*\(|#\s*include\s*<mpi\.h>")


def strip_comments(line):
    return line.split("//", 1)[0]


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    problems = []
    files = 0
    for folder, allowed in ALLOWED.items():
        for path in sorted((root / folder).rglob("*")):
            if path.suffix not in SUFFIXES or not path.is_file():
                continue
            files += 1
            rel = path.relative_to(root).as_posix()
            for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
                m = INCLUDE.match(line)
                if m:
                    target = m.group(1)
                    if target in ALLOWED and target != folder and target not in allowed:
                        problems.append(f"{rel}:{n}: {folder}/ includes {target}/ "
                                        f"(allowed: {', '.join(sorted(allowed)) or 'nothing'})")
                if rel not in MPI_ALLOWED and MPI_CALL.search(strip_comments(line)):
                    problems.append(f"{rel}:{n}: raw MPI outside the communication layer: "
                                    f"{line.strip()}")
    for p in problems:
        print(p)
    print(f"layers: {files} files, {len(problems)} violations")
    return 1 if problems or files == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
