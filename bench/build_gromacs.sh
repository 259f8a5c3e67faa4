#!/usr/bin/env bash
# Builds GROMACS 2022.5 from Debian's source package (bookworm's gromacs 2022.5-2: the upstream tarball
# plus Debian's patches) for this CPU's widest SIMD level (AVX_512 where the CPU has AVX-512F,
# else AVX2_256, else SSE4.1; SCANMD_GMX_SIMD=... picks one), one precision at a time, into a
# cache folder: $SCANMD_GMX_CACHE/gromacs-2022.5-mixed/bin/gmx and .../gromacs-2022.5-double/bin/gmx_d
# (with the data grompp reads, share/gromacs/top)
# for AVX_512 (default cache ~/.cache/scanmd), .../gromacs-2022.5-mixed-avx2_256/... and so on for
# the other levels (`build_gromacs.sh --where mixed|double` prints the binary's path and builds
# nothing). Sources come from deb.debian.org's pool (the same files `apt-get source
# gromacs` fetches), checked against the .dsc's SHA-256 sums. Statically linked, thread-MPI (no MPI
# library), fftpack (no FFTW needed), no GPU, OpenMP on (runs pass -ntomp 1). Build deps: cmake, g++.
# Slow on a shared 2-core machine (nice -n 19 make -j2).
#
#   bash bench/build_gromacs.sh [mixed|double|both=both]
set -euo pipefail
which=${1:-both}
cache=${SCANMD_GMX_CACHE:-$HOME/.cache/scanmd}
ver=2022.5
deb=2022.5-2
if [[ -z ${SCANMD_GMX_SIMD:-} ]]; then
  if grep -qw avx512f /proc/cpuinfo; then SCANMD_GMX_SIMD=AVX_512
  elif grep -qw avx2 /proc/cpuinfo && grep -qw fma /proc/cpuinfo; then SCANMD_GMX_SIMD=AVX2_256
  else SCANMD_GMX_SIMD=SSE4.1; fi
fi
simd=$SCANMD_GMX_SIMD
prefix_of() {  # mixed|double → the install prefix
  local p=$cache/gromacs-$ver-$1
  [[ $simd == AVX_512 ]] || p+=-${simd,,}
  echo "$p"
}
if [[ $which == --where ]]; then
  exe=gmx
  [[ ${2:-} == double ]] && exe=gmx_d
  echo "$(prefix_of "${2:-mixed}")/bin/$exe"
  exit 0
fi
pool=http://deb.debian.org/debian/pool/main/g/gromacs
src=$cache/src/gromacs-$ver
mkdir -p "$cache/src"
if [[ ! -f "$src/.patched" ]]; then
  (
    cd "$cache/src"
    for f in gromacs_$deb.dsc gromacs_$ver.orig.tar.gz gromacs_$deb.debian.tar.xz; do
      [[ -f $f ]] || curl -sSfO "$pool/$f"
    done
    for f in gromacs_$ver.orig.tar.gz gromacs_$deb.debian.tar.xz; do
      want=$(awk -v f="$f" '/^Checksums-Sha256:/ {on = 1; next} /^[^ ]/ {on = 0} on && $3 == f {print $1}' \
        gromacs_$deb.dsc)
      echo "$want  $f" | sha256sum -c --quiet
    done
    rm -rf "gromacs-$ver"
    tar xzf gromacs_$ver.orig.tar.gz
    cd "gromacs-$ver"
    tar xJf ../gromacs_$deb.debian.tar.xz
    for p in $(grep -v '^#' debian/patches/series); do patch -p1 -s < "debian/patches/$p"; done
    touch .patched
  )
fi
build() {  # mixed|double
  local prec=$1 dbl=OFF exe=gmx
  [[ $prec == double ]] && dbl=ON exe=gmx_d
  local prefix
  prefix=$(prefix_of "$prec")
  # grompp reads its force-field data (residuetypes.dat, ...) from $prefix/share/gromacs/top.
  install_data() {
    [[ -f $prefix/share/gromacs/top/residuetypes.dat ]] && return
    mkdir -p "$prefix/share/gromacs"
    cp -r "$src/share/top" "$prefix/share/gromacs/top"
  }
  if [[ -x $prefix/bin/$exe ]]; then
    install_data
    echo "build_gromacs.sh: $prefix/bin/$exe exists"
    return
  fi
  local b=$cache/src/build-$prec-${simd,,}
  mkdir -p "$b"
  (
    cd "$b"
    cmake "$src" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" \
      -DGMX_SIMD="$simd" -DGMX_DOUBLE=$dbl -DGMX_FFT_LIBRARY=fftpack -DGMX_GPU=OFF -DGMX_MPI=OFF \
      -DGMX_THREAD_MPI=ON -DGMX_OPENMP=ON -DBUILD_SHARED_LIBS=OFF -DGMX_PREFER_STATIC_LIBS=ON \
      -DGMX_HWLOC=OFF -DGMX_BUILD_HELP=OFF -DGMX_INSTALL_LEGACY_API=OFF -DGMXAPI=OFF \
      -DBUILD_TESTING=OFF -DGMX_DEVELOPER_BUILD=OFF -DGMX_USE_RDTSCP=ON > cmake.log
    nice -n 19 make -j2 gmx > make.log 2>&1
    mkdir -p "$prefix/bin"
    cp bin/$exe "$prefix/bin/$exe"
  )
  install_data
  echo "build_gromacs.sh: built $prefix/bin/$exe ($simd)"
}
case $which in
  mixed | double) build "$which" ;;
  both) build mixed && build double ;;
  *) echo "build_gromacs.sh: mixed, double or both, not '$which'" >&2; exit 1 ;;
esac
