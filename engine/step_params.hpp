// What the time step needs of a run's configuration, derived once (Simulation) and handed to the
// backends, which read nothing else of the deck: the import cutoff R, the rebuild threshold
// skin/2, the method and what follows from it, how pair displacements are found, the time step,
// the thermostat's constants, the CUDA tuning. One place computes each derived value, so the
// host and CUDA backends cannot disagree about one.
#pragma once

#include "base/box.hpp"
#include "decomposition/method.hpp"
#include "engine/config.hpp"

namespace scanmd {

struct StepParams {
  double dt = 0.0;
  double import_cutoff = 0.0;  // R = the largest pair cutoff + skin: ghosts, cells, lists
  double pair_cutoff = 0.0;    // the largest pair cutoff: what a neighbour list keeps
  double bonded_shell = 0.0;   // R_b of neutral territory with angles (0: none)
  double half_skin = 0.0;      // a particle that moved more than this triggers a rebuild
  Method method = Method::HalfShell;
  bool full_shell = false;  // cross-rank pairs on both sides: owned shares only, no reverse
  PairImages images = PairImages::Minimum;  // minimum image, or the listed images' shifts
  Backend backend = Backend::Host;          // resolved (not Auto)
  ThermostatSection thermostat;             // Langevin's constants (the backends apply them)
  UnitConstants units;                      // system.units' constants (base/units.hpp)
  CudaTuning cuda;

  // From the configuration (run.backend resolved), the largest pair cutoff of its species and
  // its box.
  static StepParams make(const SimulationConfig& c, double pair_cutoff, const Box& box) {
    StepParams p;
    p.dt = c.run.dt;
    p.import_cutoff = c.import_cutoff();
    p.pair_cutoff = pair_cutoff;
    p.bonded_shell = c.bonded_shell();
    p.half_skin = 0.5 * c.neighbor.skin;
    p.method = c.decomposition.method;
    p.full_shell = c.decomposition.method == Method::FullShell;
    p.images = pair_images(box.length, p.import_cutoff);
    p.backend = c.run.backend;
    p.thermostat = c.thermostat;
    p.units = c.system.constants();
    p.cuda = c.cuda;
    return p;
  }
};

}  // namespace scanmd
