#!/usr/bin/env bash
# Fuzzes the deck reader and the LAMMPS data file reader with libFuzzer (Debian's clang and its
# compiler-rt: packages clang, libclang-rt-14-dev, installed by scripts/install-deps.sh), both
# targets at once, each for SECONDS seconds (default 60; CI runs 30). Each target is built from
# the few sources it needs (no CMake: ~1 min) with AddressSanitizer + UBSan into build-fuzz/.
#
# Corpora: build-fuzz/corpus/<target> (grows across runs), seeded by the committed
# tests/fuzz/regressions/<target>/ (inputs that once failed: kept forever) and by the project's
# own decks (inputs/, tests/) and data files (tests/io/lammps/data/, tests/fuzz/seeds/). A failure (crash, leak,
# undefined behaviour, a broken property, more than 10 s on one input) leaves its input in
# build-fuzz/crashes/ and the script exits 1: reproduce it with `build-fuzz/fuzz_<target>
# <file>`, fix it, and add the file to tests/fuzz/regressions/<target>/ (replayed by the ordinary
# tests fuzz.replay.<target>).
#
# Usage: bash scripts/fuzz.sh [SECONDS] [deck|lammps_data ...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
targets=("$@")
((${#targets[@]})) || targets=(deck lammps_data)
out=build-fuzz
cxx=${FUZZ_CXX:-clang++}
mkdir -p "$out/crashes"

declare -A sources=(
  [deck]="tests/fuzz/fuzz_deck.cpp $(tr '\n' ' ' < tests/fuzz/deck_reader_sources.txt)"
  [lammps_data]="tests/fuzz/fuzz_lammps_data.cpp io/lammps_data.cpp"
)
flags=(-std=c++20 -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined
       -fno-sanitize-recover=all -ffp-contract=off -I. -DTOML_HEADER_ONLY=1)

echo "fuzz: building ${targets[*]} with $($cxx --version | head -1)"
start=$(date +%s)
# Every source compiled on its own, as many at once as cores, then each target linked.
declare -A objects=()
jobs=()
for t in "${targets[@]}"; do
  [[ -n ${sources[$t]:-} ]] || { echo "fuzz: unknown target '$t' (deck, lammps_data)"; exit 2; }
  objects[$t]=""
  for src in ${sources[$t]}; do
    obj="$out/obj/${src%.cpp}.o"
    objects[$t]+=" $obj"
    jobs+=("$src" "$obj")
  done
done
compile() {
  mkdir -p "$(dirname "$2")"
  "$cxx" "${flags[@]}" -c "$1" -o "$2" > "$2.log" 2>&1 || { cat "$2.log"; echo "fuzz: compiling $1 failed"; exit 1; }
}
export -f compile
export cxx out
export flags_str="${flags[*]}"
# shellcheck disable=SC2016
printf '%s\0' "${jobs[@]}" |
  xargs -0 -n 2 -P "$(nproc)" bash -c 'flags=($flags_str); compile "$1" "$2"' _ ||
  { echo "fuzz: building failed"; exit 1; }
for t in "${targets[@]}"; do
  # shellcheck disable=SC2086
  "$cxx" "${flags[@]}" ${objects[$t]} -lfmt -o "$out/fuzz_$t" > "$out/build_$t.log" 2>&1 ||
    { cat "$out/build_$t.log"; echo "fuzz: linking fuzz_$t failed"; exit 1; }
done
echo "fuzz: built in $(($(date +%s) - start)) s"

# Seeds: the project's decks and data files (copied flat under unique names).
rm -rf "$out/seeds"
mkdir -p "$out/seeds/deck" "$out/seeds/lammps_data"
n=0
while IFS= read -r -d '' f; do
  cp "$f" "$out/seeds/deck/$((n++))_$(basename "$f")"
done < <(find inputs tests -name '*.toml' -print0)
cp tests/io/lammps/data/* tests/fuzz/seeds/lammps_data/* "$out/seeds/lammps_data/"

pids=()
for t in "${targets[@]}"; do
  mkdir -p "$out/corpus/$t"
  "$out/fuzz_$t" "$out/corpus/$t" "$out/seeds/$t" "tests/fuzz/regressions/$t" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -dict="tests/fuzz/$t.dict" -artifact_prefix="$out/crashes/$t-" > "$out/fuzz_$t.log" 2>&1 &
  pids+=($!)
done
status=0
for i in "${!pids[@]}"; do
  t=${targets[$i]}
  if wait "${pids[$i]}"; then rc=0; else rc=$?; fi
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/fuzz_$t.log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$out/fuzz_$t.log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$out/fuzz_$t.log" | tail -1)
  echo "fuzz: $t: ${runs:-?} inputs (${rate:-?} per second), ${cov:-cov: ?}, corpus" \
       "$(find "$out/corpus/$t" -type f | wc -l) files"
  if ((rc != 0)); then
    status=1
    grep -E "ERROR|SUMMARY|Test unit written" "$out/fuzz_$t.log" | head -10
    # The broken property with the first lines of its detail, and the input itself (libFuzzer's
    # Base64 line), so that a failure on CI is reproducible from its printout alone.
    grep -A8 "^fuzz_$t: " "$out/fuzz_$t.log" | head -10
    grep -m1 "^Base64: " "$out/fuzz_$t.log" | cut -c1-4000
    echo "fuzz: $t FAILED (log: $out/fuzz_$t.log); the input is in $out/crashes/: fix it and add it to tests/fuzz/regressions/$t/"
  fi
done
exit $status
