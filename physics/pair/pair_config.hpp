// The [potential] section of a deck as data: the style, its per-pair coefficients by name (one
// species: in [potential] itself; several: [[potential.pair]] tables), and the style-level keys.
// Which coefficient names a style has is its evaluator's (physics/pair/styles.hpp); the deck
// reader stores what it reads and PairPotential::make checks it against the style.
#pragma once

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/names.hpp"
#include "physics/pair/pair_style.hpp"

namespace scanmd {

namespace eam {
struct Tables;
}

inline constexpr NamedValue<Mixing> kMixingNames[] = {
    {Mixing::Geometric, "geometric"}, {Mixing::Arithmetic, "arithmetic"}, {Mixing::None, "none"}};

// Coefficient name → value.
using CoefficientValues = std::map<std::string, double, std::less<>>;
// String key name → value (a tabulated style's file, keyword, table_style).
using StringValues = std::map<std::string, std::string, std::less<>>;

// One [[potential.pair]] entry: the coefficients of types i and j (1-based, as in LAMMPS
// `pair_coeff i j ...`).
struct PairCoeffs {
  // (A constructor, so that {types, values, cutoff} lists may leave the string keys out.)
  PairCoeffs(std::array<int, 2> t = {1, 1}, CoefficientValues v = {},
             std::optional<double> c = std::nullopt, StringValues s = {})
      : types(t), values(std::move(v)), cutoff(c), strings(std::move(s)) {}
  std::array<int, 2> types{1, 1};
  CoefficientValues values;
  std::optional<double> cutoff;  // unset: potential.cutoff
  StringValues strings;          // the style's per-pair string keys (kStrings)
};

struct PotentialSection {
  std::string style = "lj";  // a kName (or alias) of physics/pair/styles.hpp
  // The coefficients of the one pair when `pairs` is empty (one species only); a coefficient
  // not given takes the style's default (LJ: epsilon = sigma = 1), if it has one.
  CoefficientValues coeffs;
  // The string keys given in [potential]: the one pair's (kStrings) and the style-level ones
  // (kStringGlobals).
  StringValues strings;
  // The directory of the deck file ("" for the working directory): relative paths of files a
  // style reads (the table style's `file`) are relative to it.
  std::string base_dir;
  double cutoff = 2.5;  // also the cutoff of listed pairs that give none
  bool shift = false;   // shift U so that U(r_c) = 0, per pair
  bool tail = false;    // long-range corrections to energy and pressure (LAMMPS pair_modify tail)
  Mixing mixing = Mixing::Geometric;
  // [[potential.pair]]: needed when there are several types; every like pair i-i is listed.
  std::vector<PairCoeffs> pairs;
  // The many-body styles eam, eam/alloy, eam/fs (physics/manybody/eam_file.hpp): eam's funcfl
  // files (one per type, or one for all), and the element of each type in eam/alloy's and
  // eam/fs's potential.file (a string key, in `strings`).
  std::vector<std::string> files;
  std::vector<std::string> elements;
  // The tables read from those files (not a deck key): set by the deck reader, which reads the
  // files once; unset, whoever needs them reads them (eam::load).
  std::shared_ptr<const eam::Tables> eam;
  // Not deck keys: the run's time step and k_B (run.dt, system.units), which the styles that
  // read the pairs' motion (DPD's random force, σ/√dt with σ² = 2 γ k_B T) are made with;
  // make_species (engine/species.cpp) fills them.
  double dt = 0.0;
  double boltz = 1.0;
  // Not a deck key: run.precision = "mixed" (the style's float variant, physics/pair/mixed.hpp);
  // make_species sets it.
  bool mixed = false;
};

}  // namespace scanmd
