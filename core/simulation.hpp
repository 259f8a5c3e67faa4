// One MD run: the particles of this rank, the decomposition machinery and the time step.
//
// The step reads like DESIGN.md §2:
//   half kick + drift → [rebuild: migrate → census → halo plan → bin → neighbour list]
//   or forward exchange → forces → reverse exchange → half kick → thermo
// Each phase runs inside a ScopedTimer whose name is a row of the end-of-run table.
//
// Backends: the host backend runs the phases on `particles_` with the host kernels; the CUDA
// backend (config.backend = Backend::Cuda) keeps the particles on the device between steps and
// runs every phase there (core/cuda/device_backend.hpp), except the host part of a rebuild
// (migration, census, the owned particles' cell order and the halo plan), for which the owned
// particles come back to the host — on several ranks, and for the first build of a single
// rank, whose later rebuilds stay on the device. `particles()` then refreshes the host copy on
// demand. Both backends give the same bits (DESIGN.md §5), so the same state hash.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/cell_list.hpp"
#include "core/cuda/device_backend.hpp"
#include "core/integrator.hpp"
#include "core/lj.hpp"
#include "core/lj_force.hpp"
#include "core/neighbor_list.hpp"
#include "core/particles.hpp"
#include "core/thermo.hpp"
#include "core/timers.hpp"
#include "decomposition/census.hpp"
#include "decomposition/halo_exchange.hpp"
#include "decomposition/rank_grid.hpp"
#include "kernels/workspace.hpp"

namespace scanmd {

// A starting configuration given particle by particle (tests, data files). Every rank may
// pass all particles or any superset of its own: each keeps those its box holds.
struct InitialParticle {
  std::uint64_t id;
  Vec3 x;  // any position: wrapped into the box on setup
  Vec3 v;
  Int3 image;
};

// Where the time step runs (the deck's `auto` is resolved before: app/run_command.cpp).
enum class Backend { Host, Cuda };

struct SimulationConfig {
  double density = 0.8442;
  std::array<int, 3> cells{20, 20, 20};
  double temperature = 1.44;
  std::uint64_t seed = 87287;
  double mass = 1.0;
  double epsilon = 1.0, sigma = 1.0, cutoff = 2.5;
  bool shift = false;
  double skin = 0.3;
  double dt = 0.005;
  long long steps = 100;
  Method method = Method::HalfShell;
  Int3 grid{0, 0, 0};
  long long thermo_every = 50;
  std::optional<Vec3> box_length;  // set: this box instead of the lattice's
  Backend backend = Backend::Host;
  NeighborFill cuda_fill = NeighborFill::SegmentedScan;  // CUDA neighbour-list placement
  bool cuda_local_rebuild = true;  // CUDA, one rank: rebuilds after the first on the device
};

// Import statistics over ranks at one rebuild.
struct ImportSnapshot {
  long long step = 0;
  long long min = 0, max = 0;
  double mean = 0;
  double tower_mean = 0, plate_mean = 0;
  double bytes_mean = 0;
  std::vector<long long> per_rank;       // ghosts per rank (gathered on every rank)
  std::vector<ImportCounts> per_rank_counts;  // every rank's full counts
};

class Simulation;

// What the step loop reports to: thermo output, trajectory and checkpoint writers.
class StepObserver {
 public:
  virtual ~StepObserver() = default;
  // Does `step` need energy and virial (thermo or observables)? Must answer the same on
  // every rank.
  virtual bool wants_energy(long long step) const = 0;
  // Called on every rank after the first step's setup and after every step (collective).
  virtual void after_step(const Simulation& sim) = 0;
};

class Simulation {
 public:
  Simulation(const Communicator& comm, const SimulationConfig& config);

  // Step 0 from the fcc lattice and velocities of the config: particles, first rebuild, forces.
  void setup();
  // Step `start_step` from given particles (velocities as given): data files, restarts.
  void setup(const std::vector<InitialParticle>& particles, long long start_step = 0);
  // Runs to config.steps. The observer sees the starting state, then every step.
  void run(StepObserver& observer);
  // Convenience: `on_thermo` on every rank for each thermo sample (every thermo_every steps
  // and the last step).
  void run(const std::function<void(const ThermoSample&)>& on_thermo);
  bool thermo_due(long long step) const;
  bool has_energy() const { return energy_step_ == step_; }  // thermo() valid now

  ThermoSample thermo() const;  // collective; energy terms of the last force call with energy
  std::uint64_t state_hash() const;  // collective; same on every rank

  const SimulationConfig& config() const { return config_; }
  const Box& box() const { return box_; }
  const RankGrid& grid() const { return grid_; }
  double import_cutoff() const { return config_.cutoff + config_.skin; }
  long long total_particles() const { return n_total_; }
  long long step() const { return step_; }
  const Timers& timers() const { return timers_; }
  // Owned particles are current (CUDA: copied back from the device on demand); ghosts are
  // those of the last rebuild.
  const ParticleStore& particles() const;
  const std::vector<ImportSnapshot>& imports() const { return imports_; }
  long long rebuilds() const { return rebuilds_; }
  long long local_pairs() const;  // pairs within the cutoff of the last force call
  Backend backend() const { return config_.backend; }
  std::string backend_description() const;  // "host", or the CUDA device / MPI path / fill
  // The neighbour list of the last rebuild as (row, neighbour) particle indices (owned, then
  // ghosts, as in particles()), in row order; for tests comparing backends.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> neighbor_entries() const;
  double analytic_import() const;  // ρ·V of the method's formula for this grid

  // Recomputes forces from the current state; energy and virial only when asked (thermo
  // steps), as LAMMPS does.
  void compute_forces(bool with_energy = true);

 private:
  void rebuild();
  ImportCounts rebuild_on_host();  // migrate, census, cell order, halo plan, bin + list
  void record_imports(const ImportCounts& counts);
  void finish_setup(long long start_step);
  void sync_host() const;  // CUDA: owned particles device → host when the host copy is stale

  const Communicator& comm_;
  SimulationConfig config_;
  Box box_;
  RankGrid grid_;
  LJParams lj_;
  VelocityVerlet integrator_;
  HaloExchange halo_;
  PairRule rule_;
  mutable ParticleStore particles_;  // CUDA: refreshed lazily by sync_host()
  CellList cells_;
  NeighborList neighbors_;
  kernels::Workspace ws_;
  Timers timers_;
  Census census_;
  ForceTotals forces_;
  long long n_total_ = 0;
  long long step_ = 0;
  long long rebuilds_ = 0;
  long long last_pairs_ = 0;
  long long energy_step_ = -1;
  std::vector<ImportSnapshot> imports_;
  std::unique_ptr<DeviceBackend> device_;  // set for Backend::Cuda
  mutable bool host_stale_ = false;        // the device holds a newer owned state
};

}  // namespace scanmd
