// The thermostat of a run ([thermostat]) as the step loop sees it: hooks around the two half kicks
// and the coupling energy for `econs`.
//
//   none         nothing (NVE; no extra collective, the same bits as before thermostats existed)
//   langevin     acts inside the backends' half kicks (physics/dynamics/langevin.hpp); here only its
//                accumulated work W for econs = etotal − W/N
//   nose-hoover  a chain half step before the first half kick and after the second
//                (physics/dynamics/nose_hoover.hpp), velocities scaled by the backend; 2K summed exactly
#pragma once

#include <optional>

#include <vector>
#include "base/fixed_point.hpp"

#include "base/communicator.hpp"
#include "base/units.hpp"
#include "engine/config.hpp"
#include "engine/step_backend.hpp"
#include "physics/dynamics/nose_hoover.hpp"

namespace scanmd {

class Thermostat {
 public:
  Thermostat(const Communicator& comm, const ThermostatSection& section, double dt,
             const UnitConstants& units = {})
      : comm_(comm), section_(section), dt_(dt), units_(units) {}

  ThermostatStyle style() const { return section_.style; }

  // The state at the first step: n_total particles, their current velocities in `backend`;
  // `saved`: a checkpoint's state() to continue from (empty: a fresh start). Collective.
  void start(StepBackend& backend, long long n_total, const std::vector<double>& saved);
  void before_first_kick(StepBackend& backend);
  void after_second_kick(StepBackend& backend);

  // The energy the thermostat took out of the system so far (LAMMPS ecouple); collective.
  double coupling_energy(StepBackend& backend) const;

  // What a checkpoint keeps to continue bit for bit (empty when nothing); collective.
  std::vector<double> state(StepBackend& backend) const;

 private:
  fixed::Wide kinetic_sum(StepBackend& backend) const;  // Σ m v², collective
  fixed::Wide work_sum(StepBackend& backend) const;     // Σ Langevin work, collective

  const Communicator& comm_;
  ThermostatSection section_;
  double dt_;
  UnitConstants units_;  // Nosé–Hoover: k_B T and 2K in energy units
  std::optional<NoseHooverChain> chain_;
  fixed::Wide work_before_ = 0;  // Langevin: the work of the run(s) before a restart
};

}  // namespace scanmd
