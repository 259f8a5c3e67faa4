#!/usr/bin/env bash
# Installs the Debian 12 packages scanmd needs, only those missing. Needs root (or sudo).
# Usage: bash scripts/install-deps.sh    (LAMMPS, `lmp`, is included: the `lammps` tests compare
# scanmd with it, bench/ measures against it; the former --bench flag is accepted and ignored)
set -euo pipefail
packages=(cmake make g++ pkg-config libopenmpi-dev openmpi-bin libhdf5-openmpi-dev
          libspdlog-dev libfmt-dev libtomlplusplus-dev libcli11-dev libgtest-dev
          libbenchmark-dev librandom123-dev python3-numpy python3-h5py python3-matplotlib python3-mdanalysis lammps
          # clang + compiler-rt + its OpenMP: libFuzzer for scripts/fuzz.sh, and scripts/test.sh's
          # sanitizer pass
          clang libclang-rt-14-dev libomp-dev
          python3-sphinx python3-myst-parser)  # the manual (docs/), built by scripts/test.sh
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  sudo=""
  [[ $(id -u) -ne 0 ]] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "install-deps: all packages present"
fi
