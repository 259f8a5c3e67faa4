// Thermodynamic output (LAMMPS conventions, system.units' constants, base/units.hpp): temperature
// T = mvv2e Σ m v² / ((3N − 3) k_B), kinetic energy ½ mvv2e Σ m v², energies per particle in lj
// and totals in metal and real (thermo_modify norm yes / no), pressure
// P = (mvv2e Σ m v² + Σ r·F) / (3V) · nktv2p.
//
// Every global sum is an integer sum of fixed-point terms, so thermo output, like the
// trajectory, is bitwise the same for every decomposition.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/communicator.hpp"
#include "base/fixed_point.hpp"
#include "base/particles.hpp"
#include "base/units.hpp"
#include "engine/config.hpp"

namespace scanmd {

struct ThermoSample {
  long long step = 0;
  double temp = 0, pe = 0, ke = 0, etotal = 0, press = 0;
  double econs = 0;  // etotal + the thermostat's coupling energy, normalised as etotal (NVE: =)
  // Bonded energies, normalised as pe (0 without bonds); evdwl = pe less them (the pair part,
  // tail included, as LAMMPS), from the fixed-point sums.
  double ebond = 0, eangle = 0, evdwl = 0;
};

// Local Σ m v² over owned particles, in fixed point; mass[t] per type.
fixed::Wide twice_kinetic_fixed(const ParticleStore& p, const std::vector<double>& mass);

double kinetic_temperature(const ParticleStore& p, const Communicator& comm,
                           const std::vector<double>& mass, long long n_total,
                           const UnitConstants& units = {});

// Long-range corrections added to the sample (potential.tail): E_tail (total, already divided
// by V) and P_tail.
struct ThermoTail {
  double energy = 0.0, pressure = 0.0;
};

// Global sample from the local force totals (energy, virial) of this rank.
ThermoSample thermo_sample(long long step, const ParticleStore& p, const Communicator& comm,
                           const std::vector<double>& mass, long long n_total, double volume,
                           fixed::Wide local_energy, fixed::Wide local_virial,
                           const UnitConstants& units = {});

// The same from this rank's local sums (Σ m v² over owned particles, energy, virial), e.g. as
// the CUDA backend computes them on the device.
ThermoSample thermo_from_sums(long long step, const Communicator& comm, long long n_total,
                              double volume, fixed::Wide local_two_ke, fixed::Wide local_energy,
                              fixed::Wide local_virial, ThermoTail tail = {},
                              const UnitConstants& units = {});

// The thermo columns (thermo_columns, is_timing_column, thermo_table_columns) are in
// engine/config.hpp, beside the keywords: the deck reader checks them without MPI.

// What a column needs besides the sample.
struct ThermoContext {
  double dt = 0;          // run.dt (time = step · dt)
  double volume = 0;      // box volume
  double total_mass = 0;  // Σ m over the particles
  UnitSystem units = UnitSystem::LJ;
};

// The value of a non-timing column: time = step·dt; ebond, eangle (0 without bonds); evdwl =
// the pair energy, tail included, as LAMMPS (= pe without bonds); vol; density = total mass / volume (lj: m σ⁻³; metal and
// real: g/cm³, as LAMMPS).
double thermo_value(const ThermoSample& s, std::string_view keyword, const ThermoContext& c);

}  // namespace scanmd
