// Energy minimisation before the dynamics ([minimize] in the deck): FIRE as LAMMPS `min_style
// fire` runs it (Bitzek et al. 2006; the 2020 variant of Guénolé et al.: semi-implicit Euler,
// dt grown only `delay_steps` iterations after the last uphill step, a half step back and v = 0
// on an uphill step, every coordinate moving at most `max_move` per iteration). The driver is
// Simulation::minimize (engine/minimize.cpp); the per-particle updates and the rank-count
// independent sums are physics/dynamics/fire.hpp's, run by either backend.
//
// Stopping criteria, as LAMMPS `minimize etol ftol maxiter maxeval`:
//   etol   |E_k − E_{k−1}| < etol · ½(|E_k| + |E_{k−1}| + 1e-8), checked only `delay_steps`
//          iterations after the last uphill step (E the potential energy, per particle in lj
//          units as the thermo prints it);
//   ftol   the two-norm of the global force vector below ftol;
//   max_steps iterations, or `max_uphill` consecutive uphill steps.
// The velocities the dynamics start with are those of the starting configuration (drawn or read):
// FIRE's own velocities are discarded (LAMMPS leaves FIRE's; there one draws new ones after).
#pragma once

#include <string_view>

namespace scanmd {

enum class MinimizeStop { EnergyTolerance, ForceTolerance, MaxSteps, MaxUphill };

inline std::string_view stop_reason(MinimizeStop s) {
  switch (s) {
    case MinimizeStop::EnergyTolerance:
      return "energy tolerance";
    case MinimizeStop::ForceTolerance:
      return "force tolerance";
    case MinimizeStop::MaxSteps:
      return "max iterations";
    case MinimizeStop::MaxUphill:
      return "max uphill steps (P = F·v <= 0 max_uphill times in a row)";
  }
  return "?";
}

// One line of progress: after `iteration` iterations (0: the start).
struct MinimizeProgress {
  long long iteration = 0;
  double energy = 0;  // potential energy (the thermo's pe)
  double fmax = 0;    // largest force component over all particles
  double fnorm = 0;   // two-norm of the global force vector
  double dt = 0;      // FIRE's time step now
};

struct MinimizeResult {
  MinimizeStop stop = MinimizeStop::MaxSteps;
  long long iterations = 0;
  long long force_calls = 0;  // force evaluations (LAMMPS "force evaluations")
  MinimizeProgress initial, final;
};

}  // namespace scanmd
