// One rank's time step behind one interface, with two siblings: HostBackend (engine/host_backend)
// and CudaBackend (engine/cuda/cuda_backend). Each owns its particles, cells, neighbour list and
// halo; Simulation (engine/simulation) writes the loop of DESIGN.md §2 once against this
// interface, with no backend branches:
//
//   kick_drift(n)                    half kick + drift + wrap, and the skin/2 test (this rank)
//   rebuild()  or  forward()         rebuild: migrate → census → halo plan → bin → list
//   compute_forces()                 the force computes in order (fixed point), energy on
//                                    thermo steps
//   reverse()                        forces on ghosts summed into their owners
//   kick(n+1)                        second half kick
// The kicks take the step whose random numbers the Langevin thermostat uses (physics/dynamics/langevin.hpp);
// Nosé–Hoover scales velocities between steps (scale_velocities).
//
// Both backends give the same bits (DESIGN.md §5): the per-particle and per-pair math is the
// shared SCANMD_HD code of physics/, engine/ and decomposition/, and every sum is an integer sum.
//
// Each phase books its time in the Timers given at construction, under the row of the
// end-of-run table it belongs to. A backend may run asynchronously (CUDA): calls that return
// data synchronise and raise pending errors (std::overflow_error / std::runtime_error naming the
// particle) first; synchronize() does only that.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "base/box.hpp"
#include "base/communicator.hpp"
#include "base/fixed_point.hpp"
#include "base/particles.hpp"
#include "base/timers.hpp"
#include "decomposition/halo_exchange.hpp"
#include "decomposition/import_rule.hpp"
#include "decomposition/rank_grid.hpp"
#include "engine/force_compute.hpp"
#include "engine/force_totals.hpp"
#include "engine/species.hpp"
#include "engine/step_params.hpp"
#include "physics/dynamics/fire.hpp"

namespace scanmd {

// What a backend is built from: what Simulation derived from the configuration (the backends
// read no deck key themselves).
struct StepSetup {
  const Communicator& comm;
  const StepParams& params;
  Box box;
  RankGrid grid;
  const Species& species;                         // masses and the pair potential
  const std::vector<ForceComputeInfo>& computes;  // the force computes, in step order
  PairRule rule;                                  // this rank's pair rule
  Timers& timers;
};

// What an error of the time step is prefixed with: "step N" (one rank) or "step N, rank r".
inline std::string step_context(long long step, int rank, int ranks) {
  return ranks == 1 ? "step " + std::to_string(step)
                    : "step " + std::to_string(step) + ", rank " + std::to_string(rank);
}

// A neighbour list as (row, neighbour) particle indices (owned, then ghosts, as in
// StepBackend::particles()), in row order.
using NeighborEntries = std::vector<std::pair<std::uint32_t, std::uint32_t>>;

class StepBackend {
 public:
  virtual ~StepBackend() = default;

  // What runs where, for the log ("host", or the device, MPI path and neighbour fill).
  virtual std::string description() const = 0;
  // A line for the end-of-run report (what the backend chose during the run), or "".
  virtual std::string end_of_run_note() const { return ""; }

  // Setup: this rank's owned particles (no ghosts) become the backend's; the particle census
  // every rebuild checks against is taken (collective).
  virtual void load(ParticleStore owned) = 0;

  // ---- the time step
  // Half kick + drift + wrap of the owned particles; true when one of them moved more than
  // skin/2 since the last build (this rank only: the caller makes the decision global).
  // `step`: the Langevin counter of the kick (the step the forces belong to).
  virtual bool kick_drift(std::uint64_t step) = 0;
  // Migration to the new owners, census check (naming a lost or duplicated id at `step`), halo
  // plan with ghosts, cell binning and neighbour list. Collective.
  virtual ImportCounts rebuild(long long step) = 0;
  // New cut planes of the rank grid and this rank's pair rule for them (load balancing); the
  // next rebuild() migrates to them.
  virtual void set_grid(const RankGrid& grid, const PairRule& rule) = 0;
  // Ghost positions from their owners along the current plan. Collective.
  virtual void forward() = 0;
  // Forces from the current positions, the run's force computes in order (StepSetup::computes:
  // the first writes, the rest add); energy and virial too when asked (thermo steps).
  virtual void compute_forces(bool with_energy) = 0;
  // Forces on ghosts sent back and summed into their owners (none for full shell). Collective.
  virtual void reverse() = 0;
  // Second half kick of the owned particles (Langevin counter `step`).
  virtual void kick(std::uint64_t step) = 0;
  // v ← factor · v for the owned particles (Nosé–Hoover).
  virtual void scale_velocities(double factor) = 0;

  // ---- FIRE minimisation (engine/minimize.cpp, physics/dynamics/fire.hpp)
  // This rank's maxima of the FIRE terms over its owned particles (fire_terms).
  virtual FireMaxima fire_maxima() = 0;
  // This rank's sums of the quantised terms (fire_quantise on the global scales).
  virtual std::array<fixed::Wide, kFireSums> fire_sums(const FireScales& scales) = 0;
  // fire_update on every owned particle; true when one of them moved more than skin/2 since the
  // last build (this rank only), as kick_drift. Throws as kick_drift for a position that cannot
  // be wrapped.
  virtual bool fire_update(const FireUpdate& u) = 0;

  // ---- state and observables
  // Totals of the last compute_forces().
  virtual ForceTotals force_totals() = 0;
  // Σ m v² over the owned particles now (this rank), in fixed point.
  virtual fixed::Wide twice_kinetic() = 0;
  // The Langevin thermostat's work on this rank's particles since load(), fixed point.
  virtual fixed::Wide thermostat_work() = 0;
  // The owned particles as they are now (id, x, v, image, f); ghosts are those of the last
  // rebuild made on the host.
  virtual const ParticleStore& particles() = 0;
  // The neighbour list of the last rebuild (tests comparing backends; the pairs cost of load
  // balancing).
  virtual NeighborEntries neighbor_entries() = 0;
  // Waits for queued work, raises pending errors, books pending phase timings.
  virtual void synchronize() = 0;
  // The end of the step loop: arrays kept from one rebuild to the next are freed (the
  // end-of-run work, the state hash's records, must not come on top of them).
  virtual void release_rebuild_scratch() {}
};

}  // namespace scanmd
