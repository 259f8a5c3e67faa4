// The bonded interactions of a run as the force computes use them: each style's coefficients by
// type (index type − 1), θ0 in radians, and the special_bonds weights.
#pragma once

#include <array>
#include <vector>

#include "physics/bonded/bonded_config.hpp"
#include "physics/bonded/bonded_style.hpp"

namespace scanmd {

struct BondedParams {
  BondStyle bond_style = BondStyle::None;
  AngleStyle angle_style = AngleStyle::None;
  std::vector<BondCoeff> bond;            // [type − 1]
  std::vector<unsigned char> bond_given;  // whether [[bond.coeff]] named the type
  std::vector<AngleCoeff> angle;          // [type − 1]
  std::vector<unsigned char> angle_given;
  std::array<double, 3> special_lj{0.0, 0.0, 0.0};

  bool has_bond_type(int type) const {
    return type >= 1 && static_cast<std::size_t>(type) <= bond_given.size() && bond_given[type - 1];
  }
  bool has_angle_type(int type) const {
    return type >= 1 && static_cast<std::size_t>(type) <= angle_given.size() &&
           angle_given[type - 1];
  }

  static BondedParams from(const BondSection& b, const AngleSection& a,
                           const SpecialBondsSection& sb) {
    BondedParams p;
    p.bond_style = b.style;
    p.angle_style = a.style;
    p.special_lj = sb.lj;
    for (const BondCoeffRow& c : b.coeffs) {
      const auto t = static_cast<std::size_t>(c.type);
      if (p.bond.size() < t) {
        p.bond.resize(t);
        p.bond_given.resize(t, 0);
      }
      p.bond[t - 1] = {c.k, c.r0, c.epsilon, c.sigma};
      p.bond_given[t - 1] = 1;
    }
    for (const AngleCoeffRow& c : a.coeffs) {
      const auto t = static_cast<std::size_t>(c.type);
      if (p.angle.size() < t) {
        p.angle.resize(t);
        p.angle_given.resize(t, 0);
      }
      // Degrees to radians as LAMMPS angle_harmonic: theta0 / 180 * π.
      p.angle[t - 1] = {c.k, c.theta0 / 180.0 * 3.14159265358979323846};
      p.angle_given[t - 1] = 1;
    }
    return p;
  }
};

}  // namespace scanmd
