// EAM potential files, read as LAMMPS reads them, and the spline tables of a run built from them
// as LAMMPS builds them (PairEAM::file2array, array2spline, interpolate), so that the numbers agree
// with LAMMPS's pair_style eam, eam/alloy and eam/fs.
//
//   funcfl (eam)       DYNAMO single-element file: a comment line; "Z mass ..."; "nrho drho nr dr
//                      cut"; F(ρ) (nrho values), Z(r) (nr), ρ(r) (nr), free format across lines.
//                      One file per type; several files are put on one grid (the largest dr,
//                      dρ and range of any file, each file's values interpolated there by
//                      LAMMPS's 4-point Lagrange formula) and mixed: φ_ab(r) = 27.2·0.529 ·
//                      Z_a(r) Z_b(r) / r.
//   setfl (eam/alloy)  three comment lines; "N el_1 .. el_N"; "nrho drho nr dr cut"; per element
//                      "Z mass a lattice", F(ρ), ρ(r); then r·φ(r) of every pair i ≥ j.
//   fs (eam/fs)        as setfl, but every element has N density functions ρ_{i→j}(r) after
//                      its F(ρ) (Finnis–Sinclair).
// Errors (FileError) name the file and the line: a file that ends early, a value that is not
// a number or not finite, counts or spacings a file cannot have (nrho, nr < 5, dρ, dr, cut not
// positive, more values than the file's bytes can hold), element names that do not match N.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "physics/manybody/eam.hpp"
#include "physics/potential_file.hpp"

namespace scanmd {
struct PotentialSection;
}

namespace scanmd::eam {

using FileError = PotentialFileError;

enum class Format { Funcfl, Setfl, FinnisSinclair };

// Arrays are 1-based as LAMMPS's (element 0 unused), so the formulas read alike.
struct Funcfl {
  std::string path;
  double mass = 0.0;
  int nrho = 0, nr = 0;
  double drho = 0.0, dr = 0.0, cut = 0.0;
  std::vector<double> frho, zr, rhor;  // [nrho + 1], [nr + 1], [nr + 1]
};

struct Setfl {
  std::string path;
  bool fs = false;
  std::vector<std::string> elements;
  std::vector<double> mass;
  int nrho = 0, nr = 0;
  double drho = 0.0, dr = 0.0, cut = 0.0;
  std::vector<std::vector<double>> frho;  // [element][nrho + 1]
  // setfl: [element][nr + 1]; fs: [i · N + j][nr + 1], the density of element j due to i
  // (LAMMPS's rhor[i][j]).
  std::vector<std::vector<double>> rhor;
  std::vector<std::vector<double>> z2r;  // [i (i + 1)/2 + j], j ≤ i
};

Funcfl parse_funcfl(std::string_view text, const std::string& name);
Setfl parse_setfl(std::string_view text, const std::string& name, bool fs);

// LAMMPS's spline of f[1..n] with spacing delta: 7 coefficients per point (eam.hpp), written to
// spline[(m)·7 + k] for m = 1..n (row 0 unused).
void interpolate(int n, double delta, const double* f, double* spline);

// The run's tables: every type's functions on one grid, splined.
struct Tables {
  Format format = Format::Funcfl;
  int types = 1, nrho = 0, nr = 0, nfrho = 0, nrhor = 0, nz2r = 0;
  double drho = 0.0, dr = 0.0, rhomax = 0.0, cut = 0.0;
  std::vector<double> frho_grid, rhor_grid, z2r_grid;  // the gridded values, [n][points + 1]
  std::vector<double> frho, rhor, z2r;                 // splines, [n][points + 1][7]
  std::vector<std::int32_t> type2frho, type2rhor, type2z2r;
  std::vector<double> mass;         // [type], from the file(s)
  std::vector<std::string> source;  // the file(s), for the log
  EamView view() const;
};

// file2array + array2spline. map[t] = the file (funcfl) or element (setfl, fs) of type t.
Tables tables_from_funcfl(const std::vector<Funcfl>& files, const std::vector<int>& map);
Tables tables_from_setfl(const Setfl& file, const std::vector<int>& map);

// Whether `style` is one of eam, eam/alloy, eam/fs.
bool is_eam_style(std::string_view style);

// A problem with the deck's keys rather than a file: `key` is the deck key to blame.
class KeyError : public std::invalid_argument {
 public:
  KeyError(std::string key, const std::string& what)
      : std::invalid_argument(what), key_(std::move(key)) {}
  const std::string& key() const { return key_; }

 private:
  std::string key_;
};

// The tables of potential.style eam / eam/alloy / eam/fs for `types` atom types: the files of
// potential.files (eam: one per type, or one for all) or potential.file with potential.elements
// (one element per type). Relative paths are looked up next to the deck (base_dir), then in
// $LAMMPS_POTENTIALS, as LAMMPS does. Throws KeyError or FileError.
std::shared_ptr<const Tables> load(const PotentialSection& potential, int types);
// The path a potential file name resolves to (as load() does).
std::string resolve_path(const std::string& name, const std::string& base_dir);

}  // namespace scanmd::eam
