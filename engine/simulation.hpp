// One MD run on this rank: the configuration, the particles' creation, the time-step loop of
// DESIGN.md §2 and the global observables (thermo, state hash, import statistics).
//
// The loop is written once (Simulation::run), against StepBackend (engine/step_backend.hpp): the
// host backend or its CUDA sibling runs each phase, chosen once at construction from
// run.backend (auto is resolved here when the caller has not). Both give the same bits
// (DESIGN.md §5), so the same state hash.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/box.hpp"
#include "base/communicator.hpp"
#include "base/particles.hpp"
#include "base/timers.hpp"
#include "decomposition/halo_exchange.hpp"
#include "decomposition/rank_grid.hpp"
#include "engine/config.hpp"
#include "engine/load_balance.hpp"
#include "engine/minimize.hpp"
#include "engine/species.hpp"
#include "engine/step_backend.hpp"
#include "engine/thermo.hpp"
#include "engine/thermostat.hpp"

namespace scanmd {

// A starting configuration given particle by particle (tests, data files). Every rank may
// pass all particles or any superset of its own: each keeps those its box holds.
struct InitialParticle {
  std::uint64_t id;
  Vec3 x;  // any position: wrapped into the box on setup
  Vec3 v;
  Int3 image;
  std::uint32_t type = 0;  // 0-based (LAMMPS type − 1)
};

// The cell list of some rank would need more cells than a rank may hold: a box far too large for
// its particles and cutoff (a very low density). The caller names the deck key.
class CellCountError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Cells a rank's cell list may hold: 2^30 (the cell arrays alone then take >= 8 GiB).
inline constexpr double kMaxCellsPerRank = 1073741824.0;

// Import statistics over ranks at one rebuild.
struct ImportSnapshot {
  long long step = 0;
  long long min = 0, max = 0;
  double mean = 0;
  double tower_mean = 0, plate_mean = 0;
  double bonded_mean = 0;  // neutral territory with angles: the bonded shell (in mean)
  double bytes_mean = 0;
  std::vector<long long> per_rank;            // ghosts per rank (gathered on every rank)
  std::vector<ImportCounts> per_rank_counts;  // every rank's full counts
  std::vector<long long> per_rank_pairs;      // pairs within the cutoff of the first force call
                                              // after the rebuild, per rank (empty until then)
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
  // Has this rank been asked to stop (a signal)? Local and cheap: asked once per step, and the
  // ranks agree on the answers in the step's existing vote, so the run stops on every rank after
  // the same step (Simulation::stopped()).
  virtual bool stop_requested() const { return false; }
};

class Simulation {
 public:
  // Collective. Throws std::invalid_argument when the box is too small for the cutoff
  // (SpeciesError when the species tables cannot be built; CellCountError, the same on every
  // rank, when some rank's cell list would exceed kMaxCellsPerRank), and std::runtime_error when
  // run.backend = cuda finds no usable GPU. With decomposition.balance and a grid left to
  // choose, the grid is the one the starting configuration balances best (see grid_choice()):
  // `start` are the particles setup() will be given (data files; every rank the same list),
  // empty for the lattice of the config.
  Simulation(const Communicator& comm, const SimulationConfig& config,
             std::span<const InitialParticle> start = {});

  // Step 0 from the fcc lattice and velocities of the config: particles, first rebuild, forces.
  void setup();
  // Step `start_step` from given particles (velocities as given): data files, restarts;
  // `thermostat_state`: a checkpoint's thermostat_state() to continue from; `state_words`: the
  // words of the optional State fields of every particle (state_fields(): their widths summed
  // per particle, in that order), or empty: all 0.
  void setup(const std::vector<InitialParticle>& particles, long long start_step = 0,
             const std::vector<double>& thermostat_state = {},
             const std::vector<std::uint64_t>& state_words = {});
  // Step 0 from given particles (a data file) with velocities drawn as [velocity] says
  // (config().velocity: create_velocities from (seed, id), whatever the decomposition).
  void setup_drawing_velocities(const std::vector<InitialParticle>& particles,
                                const std::vector<std::uint64_t>& state_words = {});
  // FIRE energy minimisation of the positions (engine/minimize.hpp), after setup and before
  // run(): config().minimize's parameters; `progress` on every rank at the start, every
  // `every` iterations (0: never) and at the end. The step counter does not advance; the
  // particles keep the velocities setup gave them. Collective; errors name the iteration.
  MinimizeResult minimize(const std::function<void(const MinimizeProgress&)>& progress,
                          long long every);
  // Runs to run.steps, or until the observer asks to stop (stop_requested() on any rank): then
  // the step in progress is completed and run() returns with stopped() true. The observer sees
  // the starting state, then every step. Errors name the
  // step ("step 12: ..." or, with several ranks, "step 12, rank 3: ..."); a particle that
  // cannot be wrapped after its drift and a force overflow are CollectiveErrors with several
  // ranks (every rank throws the lowest failing rank's message), and keep their type on one.
  void run(StepObserver& observer);
  // Convenience: `on_thermo` on every rank for each thermo sample (every thermo_every steps
  // and the last step).
  void run(const std::function<void(const ThermoSample&)>& on_thermo);
  bool thermo_due(long long step) const;
  // run() returned before run.steps because a rank's observer asked to stop (agreed by all).
  bool stopped() const { return stop_ && step_ < config_.run.steps; }
  bool has_energy() const { return energy_step_ == step_; }  // thermo() valid now

  ThermoSample thermo() const;       // collective; energy terms of the last force call with energy
  std::uint64_t state_hash() const;  // collective; same on every rank
  // What a checkpoint keeps of the thermostat (Nosé–Hoover chain, Langevin work); collective.
  std::vector<double> thermostat_state() const { return thermostat_.state(*backend_); }

  const SimulationConfig& config() const { return config_; }
  const Species& species() const { return species_; }
  // The force computes, in step order, and the optional per-particle fields that live with the
  // particles (checkpointed; InitialParticle::state gives them in this order).
  const std::vector<ForceComputeInfo>& force_computes() const { return computes_; }
  std::vector<FieldSpec> state_fields() const { return scanmd::state_fields(computes_); }
  // Particles of each type (0-based), over all ranks.
  const std::vector<long long>& type_totals() const { return type_totals_; }
  const Box& box() const { return box_; }
  const RankGrid& grid() const { return grid_; }
  double import_cutoff() const { return config_.import_cutoff(); }
  long long total_particles() const { return n_total_; }
  long long step() const { return step_; }
  const Timers& timers() const { return timers_; }
  // Owned particles as they are now (CUDA: copied back from the device); ghosts are those of
  // the last rebuild made on the host.
  const ParticleStore& particles() const { return backend_->particles(); }
  const std::vector<ImportSnapshot>& imports() const { return imports_; }
  long long rebuilds() const { return rebuilds_; }
  long long local_pairs() const { return backend_->force_totals().pairs; }  // last force call
  Backend backend() const { return config_.run.backend; }                   // Host or Cuda
  std::string backend_description() const { return backend_->description(); }
  std::string backend_note() const { return backend_->end_of_run_note(); }
  // The neighbour list of the last rebuild as (row, neighbour) particle indices (owned, then
  // ghosts, as in particles()), in row order; for tests comparing backends.
  NeighborEntries neighbor_entries() const { return backend_->neighbor_entries(); }
  // ρ·V of the method's formula for the box of `rank` (balanced boxes differ), and its mean over
  // the ranks.
  double analytic_import(int rank) const;
  double analytic_import() const;
  // How the grid was chosen when balancing (dims = grid().dims(); predictions 1 otherwise).
  const BalancedGridChoice& grid_choice() const { return grid_choice_; }
  // The balance steps so far (decomposition.balance), setup's first.
  const std::vector<BalanceStep>& balance_steps() const { return balance_steps_; }

 private:
  void start(ParticleStore owned, long long start_step, const std::vector<double>& thermostat);
  void rebuild();
  // minimize(): global FIRE sums and maxima (collective), the update of every owned particle
  // followed by the ghost refresh (rebuild or forward; collective), the velocities of the start
  // put back by id after the particles migrated (collective).
  struct FireGlobal {
    double sum[kFireSums] = {0, 0, 0};
    double vmax = 0, fmax = 0;
  };
  FireGlobal fire_global(bool with_sums);
  double fire_energy();
  void fire_move(const FireUpdate& u, const std::string& where);
  void restore_velocities(const std::vector<std::pair<std::uint64_t, Vec3>>& stash);
  void step(StepObserver& observer);  // one step of run(), step_ already advanced
  // "step N" (one rank) or "step N, rank r": what errors are prefixed with.
  std::string context(int rank) const;
  static void fresh_pair_velocities(ParticleStore& owned);
  void forces(bool with_energy);  // compute_forces + reverse; pairs of a rebuild recorded
  // The pairs of the first force call after a rebuild, gathered into its snapshot (collective).
  void record_pairs(long long pairs);
  // A balance step: measure the cost per rank; beyond the tolerance, move the cut planes and
  // rebuild (pairs: then measure the pairs and correct, up to kPairRefinements times, keeping
  // the best cuts). `ghosts_fresh`: the ghosts are those of the current positions (setup), so
  // the pairs before can be counted now; otherwise the last force call's count is used.
  // Returns whether it rebuilt. Collective.
  void add_fields(ParticleStore& owned) const;
  bool balance(bool ghosts_fresh);
  bool balance_due(long long step) const;
  std::vector<long long> balance_costs();  // the cost of each owned particle
  long long count_pairs();                 // a force call's pair count (forces recomputed later)
  // New cut planes: every backend told, particles migrated, halo rebuilt (a rebuild).
  bool move_cuts(const GridCuts& cuts);

  const Communicator& comm_;
  SimulationConfig config_;
  Species species_;
  std::vector<ForceComputeInfo> computes_;  // the force computes, in step order
  Box box_;
  BalancedGridChoice grid_choice_;
  RankGrid grid_;
  StepParams params_;  // what the backends read of the configuration, derived once
  Timers timers_;
  std::unique_ptr<StepBackend> backend_;
  Thermostat thermostat_;
  long long n_total_ = 0;
  std::vector<long long> type_totals_;
  ThermoTail tail_;  // potential.tail: the corrections for this box and these counts
  long long step_ = 0;
  bool draw_velocities_ = false;  // setup_drawing_velocities
  long long rebuilds_ = 0;
  long long energy_step_ = -1;
  bool pairs_pending_ = false;  // the last rebuild's snapshot awaits its pairs
  bool stop_ = false;           // some rank asked to stop: the loop ends after this step
  std::vector<ImportSnapshot> imports_;
  std::vector<BalanceStep> balance_steps_;
  double balanced_seconds_ = 0.0;  // Balance::Time: force + list time at the last balance step
};

}  // namespace scanmd
