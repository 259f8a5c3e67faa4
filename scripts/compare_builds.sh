#!/usr/bin/env bash
# Two scanmd builds, bit for bit: the state hash and every thermo row of both on a set of decks
# (the default deck on 1 and 2 ranks, the 4000-atom melt on 3 ranks with each method, Kob-Andersen
# with tail corrections, Langevin, Nose-Hoover, a box shorter than 2R, a balanced slab, a Morse
# mixture). For refactors that must keep every bit: build the old commit elsewhere
# (git worktree add /tmp/old <commit>; cmake ...), then
#
#   bash scripts/compare_builds.sh /tmp/old/build/app/scanmd build/app/scanmd
#
# Prints "same" or "DIFF" per case, exits 1 on any difference (a deck the old build does not
# know is reported as DIFF too). Its own negative control: `--set run.dt=0.00501` given to the
# new build only must make every case DIFF (SCANMD_COMPARE_NEW_SET).
set -uo pipefail
cd "$(dirname "$0")/.."
old=$(realpath "$1") new=$(realpath "$2")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
run() {  # np deck args...
  local np=$1 deck=$2
  shift 2
  # Thermo rows without their last two columns (particle-steps/s and the time left, which vary
  # from run to run), and the state hash.
  local exe out extra
  for exe in old new; do
    out="$tmp/$exe"
    extra=()
    [[ $exe == new && -n "${SCANMD_COMPARE_NEW_SET:-}" ]] && extra=(--set "$SCANMD_COMPARE_NEW_SET")
    # Builds with output.thermo_digits (8 by default) print the 12 digits of the older fixed
    # format, and with output.log write no log.scanmd here.
    if "${!exe}" deck-reference 2>/dev/null | grep thermo_digits > /dev/null; then  # (no -q: SIGPIPE)
      extra+=(--set output.thermo_digits=12 --set 'output.log=""')
    fi
    mpirun --oversubscribe -np "$np" "${!exe}" run "$deck" --set run.backend=host "$@" "${extra[@]}" 2>&1 |
      awk '/state hash/ {print; next} /^ +[0-9]+ / {NF -= 2; print}' > "$out"
  done
  local h
  h=$(grep "state hash" "$tmp/new")
  if [[ -n "$h" ]] && cmp -s "$tmp/old" "$tmp/new"; then
    echo "same  np=$np $deck $* : $h"
  else
    echo "DIFF  np=$np $deck $*"
    fail=1
  fi
}
run 1 inputs/lj_melt.toml --set run.steps=60 --set output.thermo_every=10
run 2 inputs/lj_melt.toml --set run.steps=60 --set output.thermo_every=10
for m in half-shell neutral-territory full-shell eighth-shell midpoint; do
  run 3 tests/decomposition/melt_4000.toml --set decomposition.method=$m --set output.thermo_every=10
done
for d in ka_2048 langevin_2048 nose_hoover_2048 small_box slab_balanced morse_2048; do  # (morse: builds after 3ff6ff9)
  run 2 tests/decomposition/$d.toml --set output.thermo_every=10
done
run 1 inputs/kob_andersen.toml --set run.steps=40 --set output.thermo_every=10 --set potential.tail=true
exit $fail
