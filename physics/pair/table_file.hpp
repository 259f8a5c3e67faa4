// LAMMPS pair table files (pair_style table) and the internal table built from one section.
//
// A file holds sections; each is a keyword line, a parameter line
//   N n [R rlo rhi | RSQ rlo rhi] [FPRIME fplo fphi]
// one line LAMMPS skips (blank), then n lines `index r e f` (e = U(r), f = −dU/dr). Blank lines
// and '#' comments are skipped while searching for the keyword and between points, as LAMMPS's
// TableFileReader does. With R or RSQ the r column is replaced by n points evenly spaced in r or
// in r² from rlo to rhi.
//
// The internal table (LAMMPS PairTable::spline_table + compute_table): N points evenly spaced in
// r² from inner² (rlo, or the file's first r) to r_c²; the file's points are interpolated there
// by cubic splines in r (the Numerical Recipes spline with the end slopes LAMMPS takes); `linear`
// stores e, f/r and their differences per bin, `spline` stores e, f/r and the second derivatives
// of splines in r² (with LAMMPS's end slopes: −f/2r for e, FPRIME or a secant for f/r). A linear
// table whose file is already RSQ-spaced with n = N and rhi = r_c takes the file's values as they
// are (LAMMPS's "match"). Host only; the evaluator (physics/pair/table.hpp) reads the arrays.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "physics/potential_file.hpp"

namespace scanmd::table {

// A problem in a table file: the words name the file and the line.
using FileError = PotentialFileError;
// The file holds no section of that keyword.
class KeywordError : public FileError {
 public:
  using FileError::FileError;
};

enum class Spacing { File, R, RSQ };

// One section of a file, as read (r replaced for R and RSQ spacing).
struct Section {
  std::vector<double> r, e, f;
  Spacing spacing = Spacing::File;
  double rlo = 0.0, rhi = 0.0;  // R / RSQ only
  bool fprime = false;
  double fplo = 0.0, fphi = 0.0;  // FPRIME only
  int param_line = 0;             // the line of `N n ...` (for messages)
  // The table's own range: [rlo, rhi] with R or RSQ, else the first and last r.
  double inner() const { return spacing == Spacing::File ? r.front() : rlo; }
  double outer() const { return spacing == Spacing::File ? r.back() : rhi; }
};

// The section `keyword` of the file text; `name` is the file's name in messages. Throws FileError
// (missing keyword, a parameter line LAMMPS refuses, fewer points than declared, a point that
// does not parse or is not finite, r not increasing, BITMAP tables).
Section parse_section(std::string_view text, const std::string& name, const std::string& keyword);
// The same from the file at `path` (a regular file); FileError when it cannot be read.
Section read_section(const std::string& path, const std::string& keyword);

enum class Interpolation { Linear, Spline };

// The internal table of `points` entries for r < cutoff.
struct Internal {
  Interpolation style = Interpolation::Linear;
  int points = 0;
  double innersq = 0.0, delta = 0.0, invdelta = 0.0, deltasq6 = 0.0;
  // Five arrays of `points`: r², e, f/r, then de, df (linear; the last entry 0) or e2, f2
  // (spline).
  std::vector<double> arrays;
};

// Why a cutoff cannot be used with the section (LAMMPS: "Pair table cutoff outside of table",
// "Invalid pair table lower boundary"), in words; empty when it can.
std::string cutoff_problem(const Section& s, double cutoff);
// The internal table (cutoff_problem(s, cutoff) must be empty; points >= 2).
Internal build(const Section& s, Interpolation style, int points, double cutoff);

}  // namespace scanmd::table
