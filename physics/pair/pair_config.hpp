// The [potential] section of a deck as data: the style, its per-pair coefficients by name (one
// species: in [potential] itself; several: [[potential.pair]] tables), and the style-level keys.
// Which coefficient names a style has is its evaluator's (physics/pair/styles.hpp); the deck
// reader stores what it reads and PairPotential::make checks it against the style.
#pragma once

#include <array>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/names.hpp"
#include "physics/pair/pair_style.hpp"

namespace scanmd {

inline constexpr NamedValue<Mixing> kMixingNames[] = {
    {Mixing::Geometric, "geometric"}, {Mixing::Arithmetic, "arithmetic"}, {Mixing::None, "none"}};

// Coefficient name → value.
using CoefficientValues = std::map<std::string, double, std::less<>>;

// One [[potential.pair]] entry: the coefficients of types i and j (1-based, as in LAMMPS
// `pair_coeff i j ...`).
struct PairCoeffs {
  std::array<int, 2> types{1, 1};
  CoefficientValues values;
  std::optional<double> cutoff;  // unset: potential.cutoff
};

struct PotentialSection {
  std::string style = "lj";  // a kName (or alias) of physics/pair/styles.hpp
  // The coefficients of the one pair when `pairs` is empty (one species only); a coefficient
  // not given takes the style's default (LJ: epsilon = sigma = 1), if it has one.
  CoefficientValues coeffs;
  double cutoff = 2.5;  // also the cutoff of listed pairs that give none
  bool shift = false;   // shift U so that U(r_c) = 0, per pair
  bool tail = false;    // long-range corrections to energy and pressure (LAMMPS pair_modify tail)
  Mixing mixing = Mixing::Geometric;
  // [[potential.pair]]: needed when there are several types; every like pair i-i is listed.
  std::vector<PairCoeffs> pairs;
};

}  // namespace scanmd
