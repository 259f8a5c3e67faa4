// FENE bond (LAMMPS bond_style fene, Kremer & Grest 1990): the finitely extensible attraction
// plus the WCA repulsion of the bonded pair,
//
//   U(r) = −½ K R0² ln(1 − (r/R0)²) + 4ε[(σ/r)^12 − (σ/r)^6] + ε    (the LJ part for r < 2^(1/6)σ)
//
// as LAMMPS computes it: with rlogarg = 1 − r²/R0², a bond stretched so far that rlogarg < 0.1
// is held at 0.1 (LAMMPS warns "FENE bond too long"), and rlogarg <= −3 is a bad bond (LAMMPS's
// error "Bad FENE bond"; here `bad`, which stops the run naming the atoms).
#pragma once

#include <string_view>

#include "physics/bonded/bonded_style.hpp"
#include "physics/pair/det_math.hpp"

namespace scanmd {

struct BondFene {
  static constexpr std::string_view kName = "fene";

  // with_energy false: the energy (the log) is skipped; fbond and bad are the same bits.
  SCANMD_HD static BondTerms eval(double rsq, const BondCoeff& c, bool with_energy = true) {
    constexpr double two_1_3 = 1.2599210498948732;  // 2^(1/3), LAMMPS's TWO_1_3
    BondTerms t;
    const double r0sq = c.r0 * c.r0;
    double rlogarg = 1.0 - rsq / r0sq;
    if (rlogarg < 0.1) {
      t.bad = rlogarg <= -3.0;
      rlogarg = 0.1;
    }
    t.fbond = -c.k / rlogarg;
    if (with_energy) t.energy = -0.5 * c.k * r0sq * det::log(rlogarg);
    if (rsq < two_1_3 * c.sigma * c.sigma) {
      const double sr2 = c.sigma * c.sigma / rsq;
      const double sr6 = sr2 * sr2 * sr2;
      t.fbond += 48.0 * c.epsilon * sr6 * (sr6 - 0.5) / rsq;
      if (with_energy) t.energy += 4.0 * c.epsilon * sr6 * (sr6 - 1.0) + c.epsilon;
    }
    return t;
  }
  // The longest a bond of this type can be: R0 (beyond it the force is held, as LAMMPS does).
  static double reach(const BondCoeff& c) { return c.r0; }
};

}  // namespace scanmd
