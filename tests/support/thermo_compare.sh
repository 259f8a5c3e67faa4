# tests/support/thermo_compare.sh — what the scanmd-vs-LAMMPS comparison scripts share (sourced by
# tests/io/lammps/compare_*.sh and tests/physics/compare_*.sh).
#
#   find_lmp                sets $lmp to LAMMPS ($SCANMD_LMP, else `lmp` on the PATH), or exits 1
#                           saying how to install it
#   enter_work NAME         a fresh folder $work (mktemp, scanmd-NAME.XXXXXX), entered; removed at
#                           exit unless keep=1 (set here; the scripts set keep=0 when they pass)
#   state_hash LOG          the last "state hash: <16 hex>" of a scanmd log
#   compare_thermo LAMMPS SCANMD TOL EVERY ROWS NAME...
#                           both files: rows "step q1 q2 ...", the quantities NAME... in that order;
#                           steps 0, EVERY, ... (ROWS rows) must line up. |scanmd − lammps| <=
#                           TOL |lammps| for each quantity, except those named in $thermo_floor
#                           (default `press`: the sum of a kinetic and a virial term of opposite sign
#                           that may cross 0), bounded relative to the scale of their terms
#                           instead, TOL max(|value|, 1). Every value is printed (into
#                           compare.txt too) with the maximum relative difference of each quantity;
#                           returns 1 when a bound is broken or the rows do not line up.
#   judge_comparison STATUS EXPECT_MISMATCH WHAT WORK
#                           after compare_thermo: with --expect-mismatch (a negative control) exits 0
#                           when the comparison failed and 1 when it passed; otherwise exits 1 on a
#                           failed comparison naming the logs in WORK, and returns on a match. Sets
#                           keep=0 (the scripts' "remove the work folder" flag) where it exits 0.

find_lmp() {
  lmp="${SCANMD_LMP:-$(command -v lmp || true)}"
  if [[ -z "$lmp" || ! -x "$lmp" ]]; then
    echo "FAIL: LAMMPS ('lmp', Debian package 'lammps') is not installed; this test compares" \
         "scanmd with it. Install it with: sudo bash scripts/install-deps.sh" >&2
    exit 1
  fi
}

enter_work() {
  work="$(mktemp -d "${TMPDIR:-/tmp}/scanmd-$1.XXXXXX")"
  keep=1
  trap '((keep)) && echo "(files kept in $work)" >&2 || rm -rf "$work"' EXIT
  cd "$work"
}

state_hash() { sed -n 's/.*state hash: \([0-9a-f]\{16\}\).*/\1/p' "$1" | tail -n 1; }

compare_thermo() {
  local lammps=$1 scanmd=$2 tol=$3 every=$4 rows=$5
  shift 5
  local names="$*"
  local status
  set +e
  paste -d ' ' "$lammps" "$scanmd" | awk -v tol="$tol" -v every="$every" -v rows="$rows" \
      -v names="$names" -v floor="${thermo_floor:-press}" '
    function abs(x) { return x < 0 ? -x : x }
    BEGIN {
      nq = split(names, name, " "); n = 0; bad = 0
      nf = split(floor, f, " "); for (k = 1; k <= nf; k++) floored[f[k]] = 1
    }
    {
      n++
      if (NF != 2 * (nq + 1) || $1 != $(nq + 2) || $1 != (n - 1) * every) {
        printf "row %d: steps do not line up (lammps: %s | scanmd: %s)\n", n, $1, $(nq + 2)
        bad = 1; next
      }
      for (q = 1; q <= nq; q++) {
        l = $(q + 1); s = $(q + nq + 2)
        scale = (name[q] in floored) ? (abs(l) > 1 ? abs(l) : 1) : abs(l)
        rel = scale > 0 ? abs(s - l) / scale : abs(s - l)
        if (rel > maxrel[q]) maxrel[q] = rel
        flag = rel > tol ? "  <-- exceeds " tol : ""
        if (rel > tol) bad = 1
        printf "step %4d %-6s lammps %22.15g scanmd %22.15g rel %.3e%s\n", $1, name[q], l, s, rel, flag
      }
    }
    END {
      if (n != rows) {
        printf "expected %d thermo rows (steps 0..%d every %d), got %d\n", rows, (rows - 1) * every, every, n
        bad = 1
      }
      for (q = 1; q <= nq; q++) printf "max relative difference %-6s %.3e\n", name[q], maxrel[q]
      exit bad
    }' | tee compare.txt
  status=${PIPESTATUS[1]}
  set -e
  return "$status"
}

judge_comparison() {
  local status=$1 expect_mismatch=$2 what=$3 work=$4
  if ((expect_mismatch)); then
    if ((status == 0)); then
      echo "FAIL: --expect-mismatch ($what): the comparison passed, it should not" >&2
      exit 1
    fi
    echo "ok: the comparison detects the mismatch ($what)"
    keep=0
    exit 0
  fi
  if ((status != 0)); then
    echo "FAIL: scanmd and LAMMPS thermo differ ($what; above). LAMMPS log: $work/run.log," \
         "scanmd log: $work/scanmd1.log" >&2
    exit 1
  fi
}
