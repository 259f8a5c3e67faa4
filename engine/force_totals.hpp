// What a force pass adds up besides the forces: the energy and virial of this rank's share of the
// pairs (64-bit fixed point summed in 128 bits, units 2^-40) and the number of pairs within the
// cutoff. Every force compute and both backends return it; thermo reads it.
#pragma once

#include "base/fixed_point.hpp"

namespace scanmd {

struct ForceTotals {
  fixed::Wide energy = 0;  // Σ U, units 2^-40
  fixed::Wide virial = 0;  // Σ r·F, units 2^-40
  long long pairs = 0;     // pairs within the cutoff computed here
  // The bonded part of `energy` (thermo's ebond and eangle; evdwl is the rest).
  fixed::Wide bond_energy = 0, angle_energy = 0;

  // Two computes' totals (the force computes of a step add up).
  ForceTotals& operator+=(const ForceTotals& o) {
    energy += o.energy;
    virial += o.virial;
    pairs += o.pairs;
    bond_energy += o.bond_energy;
    angle_energy += o.angle_energy;
    return *this;
  }
};

}  // namespace scanmd
