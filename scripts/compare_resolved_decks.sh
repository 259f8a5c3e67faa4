#!/usr/bin/env bash
# The resolved decks (Deck::to_toml: what the log prints and the H5MD files store as
# scanmd/runs/<k>/deck) of an old commit and of the working tree, byte for byte: for refactors
# of io/deck*.cpp that must not change them. Every deck of inputs/ and tests/ (refused ones
# compare their error messages), the fuzzers' regression inputs, and a few decks written here
# for keys no committed deck sets (regions, every pair style, pair tables, a data-file start).
#
#   bash scripts/compare_resolved_decks.sh [OLD_COMMIT]   (default: where HEAD left main)
#
# Builds scripts/resolve_deck.cpp against each tree's deck reader (the sources the deck fuzz
# target uses, toml++ header-only, -O0: about a minute each) in build-resolved/ (ignored by git),
# prints "same: N decks" or the diff, and exits 1 on any difference.
set -euo pipefail
cd "$(dirname "$0")/.."
old_rev=${1:-$(git merge-base HEAD main)}
out=build-resolved
rm -rf "$out"
mkdir -p "$out/old" "$out/extra"
git archive "$old_rev" | tar -x -C "$out/old"

# Decks for keys no committed deck sets; leading "#set" lines are --set overrides.
x="$out/extra"
printf '[region]\nstyle = "slab"\naxis = "x"\nlo = 2.0\nhi = 20.5\n' > "$x/slab.toml"
printf '[region]\nstyle = "sphere"\ncenter = [15, 16, 17.5]\nradius = 9\n' > "$x/sphere.toml"
printf '#set region.style=slab\n#set region.lo=1\n#set region.hi=3\n' > "$x/slab_set.toml"
printf '[potential]\nstyle = "morse"\nd0 = 1\nalpha = 5\nr0 = 1.1\nshift = true\n' > "$x/morse.toml"
printf '[potential]\nstyle = "yukawa"\na = 2\nkappa = 1.5\n' > "$x/yukawa.toml"
printf '[potential]\nstyle = "gauss"\na = -1\nb = 1\n' > "$x/gauss.toml"
printf '[potential]\nstyle = "buck"\na = 1000\nrho = 0.2\nc = 1\ntail = true\n' > "$x/buck.toml"
printf '[potential]\nstyle = "mie/cut"\nepsilon = 1\nsigma = 1\ngamma_r = 14\ngamma_a = 6.5\n' \
  > "$x/mie.toml"
printf '[potential]\nstyle = "soft"\na = 10\ncutoff = 1.0\n' > "$x/soft.toml"
printf '[potential]\nstyle = "lj/smooth/linear"\nsigma = 0.9\n' > "$x/lj_smooth.toml"
printf '[potential]\nstyle = "lj/cut"\nepsilon = 0.5\n' > "$x/lj_alias.toml"
printf '[system]\ntype_fractions = [0.5, 0.5]\n[potential]\nstyle = "yukawa"\nkappa = 2\n[[potential.pair]]\ntypes = [1, 1]\na = 1\n[[potential.pair]]\ntypes = [2, 2]\na = 2\ncutoff = 2\n' \
  > "$x/yukawa_pairs.toml"
printf '[system]\ndata_file = "none.data"\n[potential]\nstyle = "morse"\nd0 = 1\n' > "$x/data_morse.toml"
printf '[system]\ndata_file = "none.data"\nmass = [1, 2, 3]\n[potential]\nepsilon = 2\nd0 = 1\n' \
  > "$x/data_other_style.toml"
printf '[system]\ndata_file = "x\001y.data"\n' > "$x/control_char_path.toml"
printf '[system]\nlattice = "fcc"\ndensity = 0.9\ncells = [10, 12, 14]\ntemperature = 0.0\nseed = 12345\nmass = 2.5\n[potential]\nepsilon = 1.5\nsigma = 0.9\ncutoff = 3.0\nshift = true\ntail = true\nmixing = "arithmetic"\n[neighbor]\nskin = 0.0\n[run]\ndt = 0.002\nsteps = 0\nbackend = "cuda"\n[decomposition]\nmethod = "neutral-territory"\ngrid = [2, 3, 4]\nbalance = "pairs"\nbalance_every = 500\nbalance_tolerance = 1.2\n[thermostat]\nstyle = "nose-hoover"\ntemperature = 0.7\ndamping = 0.25\nseed = 99\nchain = 5\n[output]\nthermo_every = 0\ndata_file = "final.data"\ntrajectory = "traj/out.h5"\ntrajectory_every = 10\ntrajectory_force = true\ncheckpoint = "chk.h5"\ncheckpoint_every = 1000\noverwrite = true\nimports = "i.csv"\n' \
  > "$x/full.toml"
t=../../tests/physics/tables/lj.table  # (relative to this deck's directory)
printf '[potential]\nstyle = "table"\ntable_style = "linear"\ntable_points = 500\nfile = "%s"\nkeyword = "LJ_R"\ncutoff = 2.2\n' \
  "$t" > "$x/table.toml"
printf '[system]\ntype_fractions = [0.5, 0.5]\n[potential]\nstyle = "table"\ntable_style = "spline"\ntable_points = 800\n[[potential.pair]]\ntypes = [1, 1]\nfile = "%s"\nkeyword = "LJ"\n[[potential.pair]]\ntypes = [1, 2]\nkeyword = "LJ_RSQ"\nfile = "%s"\ncutoff = 2.0\n[[potential.pair]]\ntypes = [2, 2]\nfile = "%s"\nkeyword = "LJ_R"\n' \
  "$t" "$t" "$t" > "$x/table_pairs.toml"
printf '[potential]\nstyle = "lj"\nfile = "%s"\n' "$t" > "$x/table_key_with_lj.toml"

mapfile -t decks < <(find inputs tests "$x" -name '*.toml' | sort; find tests/fuzz/regressions/deck -type f | sort)
build() {  # tree exe
  local srcs=()
  # The tree's own list of its deck reader's sources where it has one (older trees: by name).
  if [[ -f $1/tests/fuzz/deck_reader_sources.txt ]]; then
    mapfile -t srcs < "$1/tests/fuzz/deck_reader_sources.txt"
  else
    mapfile -t srcs < <(cd "$1" && ls io/deck*.cpp engine/species.cpp engine/config.cpp \
                                        engine/lattice.cpp physics/pair/pair_potential.cpp \
                                        engine/force_compute.cpp physics/pair/table_file.cpp \
                                        physics/manybody/eam_file.cpp 2>/dev/null)
  fi
  (cd "$1" && ${CXX:-g++} -std=c++20 -O0 -ffp-contract=off -I. -DTOML_HEADER_ONLY=1 \
     "$OLDPWD/scripts/resolve_deck.cpp" "${srcs[@]}" -lfmt -o "$OLDPWD/$2")
}
build "$out/old" "$out/resolve_old" &
pid_old=$!
build . "$out/resolve_new"
wait "$pid_old"
"$out/resolve_old" "${decks[@]}" > "$out/old.txt"
"$out/resolve_new" "${decks[@]}" > "$out/new.txt"
if cmp -s "$out/old.txt" "$out/new.txt"; then
  echo "same: ${#decks[@]} decks ($(grep -c '^error: ' "$out/new.txt") of them refused, same messages)"
else
  diff "$out/old.txt" "$out/new.txt" | head -100 || true
  echo "DIFF: the resolved decks of $old_rev and the working tree differ ($out/old.txt, $out/new.txt)"
  exit 1
fi
