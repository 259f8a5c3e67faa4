// Thermodynamic output (LAMMPS `units lj` conventions): temperature with 3N − 3 degrees of
// freedom, energies per particle, pressure P = (2 KE + Σ r·F) / (3V).
//
// Every global sum is an integer sum of fixed-point terms, so thermo output, like the
// trajectory, is bitwise the same for every decomposition.
#pragma once

#include <vector>

#include "base/communicator.hpp"
#include "base/fixed_point.hpp"
#include "base/particles.hpp"

namespace scanmd {

struct ThermoSample {
  long long step = 0;
  double temp = 0, pe = 0, ke = 0, etotal = 0, press = 0;
  double econs = 0;  // etotal + the thermostat's coupling energy per particle (= etotal in NVE)
};

// Local Σ m v² over owned particles, in fixed point; mass[t] per type.
fixed::Wide twice_kinetic_fixed(const ParticleStore& p, const std::vector<double>& mass);

double kinetic_temperature(const ParticleStore& p, const Communicator& comm,
                           const std::vector<double>& mass, long long n_total);

// Long-range corrections added to the sample (potential.tail): E_tail (total, already divided
// by V) and P_tail.
struct ThermoTail {
  double energy = 0.0, pressure = 0.0;
};

// Global sample from the local force totals (energy, virial) of this rank.
ThermoSample thermo_sample(long long step, const ParticleStore& p, const Communicator& comm,
                           const std::vector<double>& mass, long long n_total, double volume,
                           fixed::Wide local_energy, fixed::Wide local_virial);

// The same from this rank's local sums (Σ m v² over owned particles, energy, virial), e.g. as
// the CUDA backend computes them on the device.
ThermoSample thermo_from_sums(long long step, const Communicator& comm, long long n_total,
                              double volume, fixed::Wide local_two_ke, fixed::Wide local_energy,
                              fixed::Wide local_virial, ThermoTail tail = {});

}  // namespace scanmd
