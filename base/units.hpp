// The unit system of a run (deck key system.units), as LAMMPS's `units` command defines it, with
// LAMMPS's conversion constants (Update::set_units) exactly:
//
//   boltz    k_B in energy per temperature
//   mvv2e    m v² to energy
//   ftm2v    force / mass to acceleration (velocity per time)
//   nktv2p   energy per volume to pressure
//
//   lj     1, 1, 1, 1                                        (σ, ε, m, τ; k_B = 1)
//   metal  8.617343e-5 eV/K, 1.0364269e-4, 1/1.0364269e-4, 1.6021765e6 (Å, eV, ps, g/mol, bar)
//   real   0.0019872067 kcal/mol/K, 48.88821291², 1/48.88821291/48.88821291, 68568.415
//                                                            (Å, kcal/mol, fs, g/mol, atm)
//
// They enter where LAMMPS applies them: the half kicks (dt·ftm2v/2m), the kinetic energy
// (½ mvv2e Σ m v²), the temperature (mvv2e Σ m v² / (N_f boltz)), the pressure (× nktv2p), the
// thermostats (boltz T, /ftm2v, /mvv2e) and the initial velocities. In lj every constant is 1.0,
// so each product and quotient with one is exact: LJ runs keep their bits.
// Thermo output follows LAMMPS's defaults: per-particle energies in lj (thermo_modify norm yes),
// totals in metal and real (norm no).
#pragma once

#include <string_view>

#include "base/names.hpp"

namespace scanmd {

enum class UnitSystem { LJ, Metal, Real };

inline constexpr NamedValue<UnitSystem> kUnitSystemNames[] = {
    {UnitSystem::LJ, "lj"}, {UnitSystem::Metal, "metal"}, {UnitSystem::Real, "real"}};

struct UnitConstants {
  double boltz = 1.0, mvv2e = 1.0, ftm2v = 1.0, nktv2p = 1.0;
  bool normalize = true;  // energies per particle in thermo output (lj)
};

inline UnitConstants unit_constants(UnitSystem u) {
  switch (u) {
    case UnitSystem::LJ:
      return {};
    case UnitSystem::Metal:
      return {8.617343e-5, 1.0364269e-4, 1.0 / 1.0364269e-4, 1.6021765e6, false};
    case UnitSystem::Real:
      return {0.0019872067, 48.88821291 * 48.88821291, 1.0 / 48.88821291 / 48.88821291, 68568.415,
              false};
  }
  return {};
}

// How a unit system's lengths, speeds and times are named in messages, and LAMMPS's default
// time step and a typical temperature of its studies (a check blames whichever of run.dt and a
// temperature lies further from them).
struct UnitWords {
  std::string_view length, speed, time;
  double typical_dt, typical_temperature;
};

inline UnitWords unit_words(UnitSystem u) {
  switch (u) {
    case UnitSystem::LJ:
      return {"sigma", "sigma/tau", "tau", 0.005, 1.44};  // in.lj
    case UnitSystem::Metal:
      return {"Angstrom", "Angstrom/ps", "ps", 0.001, 300.0};
    case UnitSystem::Real:
      return {"Angstrom", "Angstrom/fs", "fs", 1.0, 300.0};
  }
  return {};
}

}  // namespace scanmd
