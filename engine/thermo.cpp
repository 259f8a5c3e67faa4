#include "engine/thermo.hpp"

#include <stdexcept>

#include "engine/fixed_terms.hpp"

namespace scanmd {

fixed::Wide twice_kinetic_fixed(const ParticleStore& p, const std::vector<double>& mass) {
  bool overflow = false;
  fixed::Wide sum = 0;
  for (std::size_t i = 0; i < p.n_owned; ++i) {
    const Vec3 v = p.v[i];
    sum += twice_kinetic_term(v, mass[p.type[i]], overflow);
    if (overflow)
      throw std::overflow_error("kinetic energy overflow: particle " + std::to_string(p.id[i]) +
                                " moves too fast");
  }
  return sum;
}

namespace {
double dof(long long n_total) {
  return 3.0 * static_cast<double>(n_total) - 3.0;
}
}  // namespace

double kinetic_temperature(const ParticleStore& p, const Communicator& comm,
                           const std::vector<double>& mass, long long n_total,
                           const UnitConstants& units) {
  const double two_ke =
      fixed::to_double(sum_or_raise(comm, [&] { return twice_kinetic_fixed(p, mass); })) *
      units.mvv2e;
  return two_ke / (dof(n_total) * units.boltz);
}

ThermoSample thermo_sample(long long step, const ParticleStore& p, const Communicator& comm,
                           const std::vector<double>& mass, long long n_total, double volume,
                           fixed::Wide local_energy, fixed::Wide local_virial,
                           const UnitConstants& units) {
  return thermo_from_sums(step, comm, n_total, volume, twice_kinetic_fixed(p, mass), local_energy,
                          local_virial, {}, units);
}

ThermoSample thermo_from_sums(long long step, const Communicator& comm, long long n_total,
                              double volume, fixed::Wide local_two_ke, fixed::Wide local_energy,
                              fixed::Wide local_virial, ThermoTail tail,
                              const UnitConstants& units) {
  fixed::Wide sums[3] = {local_two_ke, local_energy, local_virial};
  comm.sum(std::span<fixed::Wide>(sums, 3));
  // 2K in energy units (× mvv2e: exact in lj, where it is 1)
  const double two_ke = fixed::to_double(sums[0]) * units.mvv2e;
  const double pe = fixed::to_double(sums[1]);
  const double virial = fixed::to_double(sums[2]);
  // energies per particle (lj) or totals (metal, real)
  const double n = units.normalize ? static_cast<double>(n_total) : 1.0;
  ThermoSample s;
  s.step = step;
  s.temp = n_total > 1 ? two_ke / (dof(n_total) * units.boltz) : 0.0;
  s.ke = 0.5 * two_ke / n;
  s.pe = (pe + tail.energy) / n;
  s.etotal = s.pe + s.ke;
  s.econs = s.etotal;
  s.evdwl = s.pe;
  s.press = ((two_ke + virial) / (3.0 * volume) + tail.pressure) * units.nktv2p;
  return s;
}

double thermo_value(const ThermoSample& s, std::string_view k, const ThermoContext& c) {
  if (k == "step") return static_cast<double>(s.step);
  if (k == "time") return static_cast<double>(s.step) * c.dt;
  if (k == "temp") return s.temp;
  if (k == "pe") return s.pe;
  if (k == "evdwl") return s.evdwl;
  if (k == "eangle") return s.eangle;
  if (k == "ke") return s.ke;
  if (k == "etotal") return s.etotal;
  if (k == "press") return s.press;
  if (k == "econs") return s.econs;
  if (k == "ebond") return s.ebond;
  if (k == "vol") return c.volume;
  if (k == "density") {
    // amu/Å³ in g/cm³ (LAMMPS force->mv2d for metal and real)
    const double to_g_cm3 = c.units == UnitSystem::LJ ? 1.0 : 1.0 / 0.602214129;
    return c.total_mass / c.volume * to_g_cm3;
  }
  return 0.0;
}

}  // namespace scanmd
