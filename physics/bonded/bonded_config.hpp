// The deck's bonded sections (engine/config.hpp holds them in SimulationConfig):
//   [bond]           style = "fene" | "harmonic", [[bond.coeff]] per bond type, max_length
//   [angle]          style = "harmonic" | "cosine", [[angle.coeff]] per angle type (theta0 in
//                    degrees, as LAMMPS)
//   [special_bonds]  lj = [w12, w13, w14]: the pair force's weight of bonded neighbours (LAMMPS
//                    special_bonds lj; fene is [0, 1, 1])
// The bonds and angles themselves come from the data file (atom_style bond, angle, molecular).
#pragma once

#include <array>
#include <vector>

#include "base/names.hpp"

namespace scanmd {

enum class BondStyle { None, Fene, Harmonic };
enum class AngleStyle { None, Harmonic, Cosine };

inline constexpr NamedValue<BondStyle> kBondStyleNames[] = {
    {BondStyle::None, "none"}, {BondStyle::Fene, "fene"}, {BondStyle::Harmonic, "harmonic"}};
inline constexpr NamedValue<AngleStyle> kAngleStyleNames[] = {
    {AngleStyle::None, "none"}, {AngleStyle::Harmonic, "harmonic"}, {AngleStyle::Cosine, "cosine"}};

// One [[bond.coeff]] table: its type (1-based, as the data file's) and the style's coefficients
// (fene: k, r0, epsilon, sigma; harmonic: k, r0).
struct BondCoeffRow {
  int type = 1;
  double k = 0.0, r0 = 0.0, epsilon = 0.0, sigma = 0.0;
};

// One [[angle.coeff]] table (harmonic: k, theta0 in degrees; cosine: k).
struct AngleCoeffRow {
  int type = 1;
  double k = 0.0, theta0 = 0.0;
};

struct BondSection {
  BondStyle style = BondStyle::None;
  std::vector<BondCoeffRow> coeffs;
  // The longest a bond may grow (the import region covers it): 0 = the style's own bound
  // (fene: the largest r0), harmonic: 1.5 × the largest r0.
  double max_length = 0.0;
};

struct AngleSection {
  AngleStyle style = AngleStyle::None;
  std::vector<AngleCoeffRow> coeffs;
};

struct SpecialBondsSection {
  std::array<double, 3> lj{0.0, 0.0, 0.0};  // LAMMPS's default: every bonded neighbour excluded
};

// The longest bond of the run: max_length, or the style's bound (0 without bonds).
inline double bond_reach(const BondSection& b) {
  if (b.style == BondStyle::None) return 0.0;
  if (b.max_length > 0.0) return b.max_length;
  double r0 = 0.0;
  for (const BondCoeffRow& c : b.coeffs) r0 = c.r0 > r0 ? c.r0 : r0;
  return b.style == BondStyle::Fene ? r0 : 1.5 * r0;
}

}  // namespace scanmd
