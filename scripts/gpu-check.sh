#!/usr/bin/env bash
# scripts/gpu-check.sh — build the kernels/ tests and benchmarks as a self-contained folder, and
# run them on a machine that has only the NVIDIA driver and glibc.
#
# Usage:
#   scripts/gpu-check.sh build [BUILD_DIR]        (here; default BUILD_DIR = build-gpu)
#       Configures BUILD_DIR with -DSCANMD_KERNELS_ONLY=ON -DCMAKE_CUDA_ARCHITECTURES=90, static
#       cudart, -static-libstdc++ -static-libgcc, static GoogleTest, and builds the kernel tests
#       and benchmarks into BUILD_DIR/dist.  Shared libraries that cannot be linked statically
#       (Debian ships Google Benchmark only as libbenchmark.so; libgomp) are copied into
#       BUILD_DIR/dist/lib and found through DT_RPATH $ORIGIN/lib (old-style RPATH, which also
#       applies to the bundled libraries' own dependencies).  Finally ldd checks that each
#       binary needs nothing outside dist/lib, glibc (libc/libm/libdl/libpthread/librt/ld-linux)
#       and libcuda; the build fails otherwise.
#   scripts/gpu-check.sh run [OUTFILE] [BUILD_DIR]  (on the GPU machine)
#       Runs every test and benchmark from BUILD_DIR/dist and writes everything to ONE file:
#       OUTFILE, default $OUT/gpu-check.txt when $OUT is set, else BUILD_DIR/gpu-check.txt.
#       Without a GPU the CUDA tests report SKIPPED ("no CUDA device: <reason>") and the CUDA
#       benchmark prints why it skipped; the host parts still run.  Exit status: 0 unless a test
#       failed.
# Typical round trip: `scripts/gpu-check.sh build` here, carry build-gpu/dist to the GPU machine
# (it is git-ignored), run `scripts/gpu-check.sh run` there, read gpu-check.txt.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MODE=${1:-}
TESTS=(kernels_test_scan kernels_test_segmented kernels_test_compact kernels_test_counting_sort)
BENCHES=(bench_kernels_host bench_kernels_cuda)
# Libraries the GPU machine provides (glibc + driver); everything else must come from dist/lib.
ALLOWED='^(linux-vdso|ld-linux|libc|libm|libdl|libpthread|librt|libcuda)\.so'

resolve_build() { # BUILD_DIR argument → absolute path
  local b=${1:-$ROOT/build-gpu}
  [[ $b = /* ]] || b=$ROOT/$b
  echo "$b"
}

bundle_deps() { # copy non-allowed shared deps of $1 into $2 (ldd resolves transitively)
  local bin=$1 lib=$2 name path
  while read -r name _ path _; do
    [[ $name =~ $ALLOWED ]] && continue
    [[ -n $path && -f $path ]] || continue
    cp -L -n "$path" "$lib/$name"
  done < <(ldd "$bin" | awk '/=>/ {print $1, $2, $3}')
}

verify_deps() { # every dep of $1 is allowed or resolved inside $2
  local bin=$1 lib=$2 bad=0 name path
  while read -r name _ path _; do
    [[ $name =~ $ALLOWED ]] && continue
    if [[ $path != "$lib"/* ]]; then
      echo "gpu-check: $(basename "$bin") needs $name -> ${path:-not found}" >&2
      bad=1
    fi
  done < <(ldd "$bin" | awk '/=>/ {print $1, $2, $3}')
  return $bad
}

do_build() {
  local build dist
  build=$(resolve_build "${1:-}")
  dist=$build/dist
  cmake -S "$ROOT" -B "$build" \
    -DSCANMD_KERNELS_ONLY=ON \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DCMAKE_CUDA_RUNTIME_LIBRARY=Static \
    -DCMAKE_EXE_LINKER_FLAGS="-static-libstdc++ -static-libgcc -Wl,--disable-new-dtags" \
    -DCMAKE_BUILD_WITH_INSTALL_RPATH=ON \
    -DCMAKE_INSTALL_RPATH='$ORIGIN/lib' \
    -DSCANMD_BUILD_TESTS=ON -DSCANMD_BUILD_BENCH=ON
  if ! cmake --build "$build" --target help | grep -q scanmd_kernels_cuda; then
    echo "gpu-check: CUDA is not enabled in $build (nvcc not found?)" >&2
    exit 1
  fi
  cmake --build "$build" -j"$(nproc)" --target "${TESTS[@]}" "${BENCHES[@]}"
  rm -rf "$dist"
  mkdir -p "$dist/lib"
  for t in "${TESTS[@]}"; do cp "$build/tests/kernels/$t" "$dist/"; done
  for b in "${BENCHES[@]}"; do cp "$build/bench/kernels/$b" "$dist/"; done
  for f in "$dist"/kernels_* "$dist"/bench_*; do bundle_deps "$f" "$dist/lib"; done
  local ok=0
  for f in "$dist"/kernels_* "$dist"/bench_*; do verify_deps "$f" "$dist/lib" || ok=1; done
  [[ $ok -eq 0 ]] || { echo "gpu-check: dist is not self-contained" >&2; exit 1; }
  cp "${BASH_SOURCE[0]}" "$dist/gpu-check.sh"
  echo "gpu-check: built $dist ($(du -sh "$dist" | cut -f1)); bundled: $(ls "$dist/lib" | tr '\n' ' ')"
}

do_run() {
  local build dist out status=0
  build=$(resolve_build "${2:-}")
  dist=$build/dist
  [[ -d $dist ]] || { echo "gpu-check: no $dist; run 'scripts/gpu-check.sh build' first" >&2; exit 2; }
  if [[ -n ${1:-} ]]; then out=$1; elif [[ -n ${OUT:-} ]]; then out=$OUT/gpu-check.txt; else out=$build/gpu-check.txt; fi
  mkdir -p "$(dirname "$out")"
  {
    echo "== scanmd gpu-check $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname)"
    echo "== commit: $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
    if command -v nvidia-smi >/dev/null 2>&1; then
      nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.memory --format=csv || true
    else
      echo "== no GPU: nvidia-smi not found (CUDA tests will be skipped)"
    fi
    for t in "${TESTS[@]}"; do
      echo; echo "== test $t"
      "$dist/$t" --gtest_color=no || { echo "== FAILED: $t"; status=1; }
    done
    echo; echo "== bench bench_kernels_cuda"
    "$dist/bench_kernels_cuda" --benchmark_color=false --benchmark_min_time=0.2 || status=1
    echo; echo "== bench bench_kernels_host"
    "$dist/bench_kernels_host" --benchmark_color=false --benchmark_min_time=0.1 || status=1
    echo; echo "== summary: $([[ $status -eq 0 ]] && echo OK || echo FAILURES)"
  } >"$out" 2>&1 || true
  grep -E '^== (summary|no GPU|FAILED)|SKIPPED \]|PASSED|FAILED  \]|skipped, no CUDA' "$out" | sort | uniq -c | head -20
  echo "gpu-check: results in $out"
  grep -q '^== summary: OK' "$out"
}

case $MODE in
  build) shift; do_build "${1:-}" ;;
  run) shift; do_run "${1:-}" "${2:-}" ;;
  *) sed -n '2,26p' "${BASH_SOURCE[0]}"; exit 2 ;;
esac
