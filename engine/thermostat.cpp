// The thermostat hooks of the step loop (see thermostat.hpp).
#include "engine/thermostat.hpp"

#include <bit>
#include <cstdint>

namespace scanmd {

// Σ m v² and the Langevin work over the ranks; a rank's error (a kinetic energy overflow, a
// device error) becomes a CollectiveError on every rank instead of leaving the others waiting.
fixed::Wide Thermostat::kinetic_sum(StepBackend& backend) const {
  return sum_or_raise(comm_, [&] { return backend.twice_kinetic(); });
}
fixed::Wide Thermostat::work_sum(StepBackend& backend) const {
  return sum_or_raise(comm_, [&] { return backend.thermostat_work(); });
}

void Thermostat::start(StepBackend& backend, long long n_total, const std::vector<double>& saved) {
  if (section_.style == ThermostatStyle::Langevin && saved.size() == 2)
    work_before_ = static_cast<fixed::Wide>(
        (static_cast<unsigned __int128>(std::bit_cast<std::uint64_t>(saved[1])) << 64) |
        std::bit_cast<std::uint64_t>(saved[0]));
  if (section_.style != ThermostatStyle::NoseHoover) return;
  // The chain works in energy units (LAMMPS FixNH: boltz t_target, tdof boltz t_current): k_B T
  // and 2K = mvv2e Σ m v², both exact in lj.
  chain_.emplace(units_.boltz * section_.temperature, section_.damping, section_.chain, dt_,
                 3.0 * static_cast<double>(n_total) - 3.0);
  if (saved.empty())
    chain_->set_kinetic(fixed::to_double(kinetic_sum(backend)) * units_.mvv2e);
  else
    chain_->restore(saved);
}

void Thermostat::before_first_kick(StepBackend& backend) {
  if (chain_) backend.scale_velocities(chain_->first_half());
}

void Thermostat::after_second_kick(StepBackend& backend) {
  if (chain_)
    backend.scale_velocities(
        chain_->second_half(fixed::to_double(kinetic_sum(backend)) * units_.mvv2e));
}

double Thermostat::coupling_energy(StepBackend& backend) const {
  switch (section_.style) {
    case ThermostatStyle::NoseHoover:
      return chain_ ? chain_->energy() : 0.0;
    case ThermostatStyle::Langevin:
      return -fixed::to_double(work_before_ + work_sum(backend));
    case ThermostatStyle::None:
    case ThermostatStyle::DpdTstat:  // a pair force; its work is not tracked (as LAMMPS)
      break;
  }
  return 0.0;
}

std::vector<double> Thermostat::state(StepBackend& backend) const {
  if (chain_) return chain_->state();
  if (section_.style != ThermostatStyle::Langevin) return {};
  // The accumulated work, exactly: the two 64-bit halves of the 128-bit sum as raw bits.
  const auto w = static_cast<unsigned __int128>(work_before_ + work_sum(backend));
  return {std::bit_cast<double>(static_cast<std::uint64_t>(w)),
          std::bit_cast<double>(static_cast<std::uint64_t>(w >> 64))};
}

}  // namespace scanmd
