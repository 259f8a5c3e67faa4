// Harmonic bond (LAMMPS bond_style harmonic): U(r) = K (r − r0)², no ½, as LAMMPS writes it.
#pragma once

#include <string_view>

#include "physics/bonded/bonded_style.hpp"
#include "physics/pair/det_math.hpp"

namespace scanmd {

struct BondHarmonic {
  static constexpr std::string_view kName = "harmonic";

  SCANMD_HD static BondTerms eval(double rsq, const BondCoeff& c, bool = true) {
    BondTerms t;
    const double r = det::sqrt_of(rsq);
    const double dr = r - c.r0;
    const double rk = c.k * dr;
    t.fbond = r > 0.0 ? -2.0 * rk / r : 0.0;
    t.energy = rk * dr;
    return t;
  }
  // No bound of its own: bond.max_length says how long a bond may grow (default 1.5 r0).
};

}  // namespace scanmd
