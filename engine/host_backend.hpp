// The host backend: the time step of one rank on host arrays (see step_backend.hpp).
//
//   particles   ParticleStore, owned first, ghosts after them
//   halo        Domain (migration, census, halo plan) and its HaloExchange (forward, reverse)
//   cells       CellList (counting sort), rebuilt on rebuild steps
//   list        NeighborList (count → scan → fill, the PairRule of the decomposition)
//   forces      the force computes' host sides in order (engine/host_force_computes.hpp), 64-bit
//               fixed point: the pair compute runs the scalar loop or a vector kernel
//               (engine/pair_kernel.hpp) on force_threads() threads
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "engine/cell_list.hpp"
#include "engine/domain.hpp"
#include "engine/host_force_computes.hpp"
#include "engine/neighbor_list.hpp"
#include "engine/pair_forces.hpp"
#include "engine/step_backend.hpp"
#include "kernels/workspace.hpp"
#include "physics/dynamics/integrator.hpp"

namespace scanmd {

// The force pass's kernel chosen in the run itself: after kSkip force-only passes (a lattice
// start's first steps are no fluid yet: a WCA lattice has no pair within the cutoff), the
// candidates take turns for kRounds passes each, each pass timed, and the fastest fastest pass
// wins (a candidate's `overhead`, the cluster list's build per force pass, added to it). The
// passes are the run's own (no extra work), and every kernel gives the same bits, so only the
// speed depends on the choice (each rank makes its own).
class ForceKernelTrial {
 public:
  static constexpr int kSkip = 10;
  static constexpr std::size_t kRounds = 12;
  // After kEarlyRounds passes each, the first candidate is chosen at once if even its slowest
  // pass beat every other's fastest by kClearMargin (the scalar loop's passes, 2-3x slower on a
  // dense fluid, cost a 200-step benchmark about a tenth of its time).
  static constexpr std::size_t kEarlyRounds = 3;
  static constexpr double kClearMargin = 1.25;
  // candidates: the first is the one of the skipped passes; the last is the scalar loop.
  explicit ForceKernelTrial(std::vector<PairKernel> candidates);
  bool decided() const { return decided_; }
  PairKernel chosen() const { return chosen_; }
  PairKernel next() const;  // the kernel of the next force-only pass
  // That pass's time; overhead(kernel): seconds per pass to add to the kernel's fastest.
  template <class Overhead>
  void record(double seconds, Overhead&& overhead) {
    record_pass(seconds);
    const std::size_t rounds = seconds_.back().size();
    if (!decided_ && rounds >= kEarlyRounds) {
      std::vector<double> extra;
      for (PairKernel k : candidates_) extra.push_back(overhead(k));
      if (rounds >= kRounds || clear_winner(extra)) decide(extra);
    }
  }
  const std::string& summary() const { return summary_; }
  bool has(PairKernel k) const {
    return std::find(candidates_.begin(), candidates_.end(), k) != candidates_.end();
  }

 private:
  void record_pass(double seconds);
  bool clear_winner(const std::vector<double>& extra) const;
  void decide(const std::vector<double>& extra);
  std::vector<PairKernel> candidates_;
  PairKernel chosen_;
  int calls_ = 0;
  bool decided_ = false;
  std::vector<std::vector<double>> seconds_;  // per candidate
  std::string summary_;
};

class HostBackend final : public StepBackend {
 public:
  explicit HostBackend(const StepSetup& setup);

  std::string description() const override;
  std::string end_of_run_note() const override;
  void load(ParticleStore owned) override;
  bool kick_drift(std::uint64_t step) override;
  ImportCounts rebuild(long long step) override;
  void set_grid(const RankGrid& grid, const PairRule& rule) override {
    finish_kick();
    domain_.set_grid(grid);
    rule_ = rule;
  }
  void forward() override;
  void compute_forces(bool with_energy) override;
  void reverse() override;
  void kick(std::uint64_t step) override;
  void scale_velocities(double factor) override;
  ForceTotals force_totals() override { return forces_; }
  fixed::Wide twice_kinetic() override;
  fixed::Wide thermostat_work() override {
    finish_kick();
    return work_;
  }
  const ParticleStore& particles() override {
    finish_kick();
    return particles_;
  }
  NeighborEntries neighbor_entries() override;
  void synchronize() override { finish_kick(); }
  void release_rebuild_scratch() override {
    neighbors_.release_build_arrays();
    ws_.release();
  }
  FireMaxima fire_maxima() override;
  std::array<fixed::Wide, kFireSums> fire_sums(const FireScales& scales) override;
  bool fire_update(const FireUpdate& u) override;

 private:
  // The second half kick of step `kick_step_`, deferred by kick() (kick_pending_): the next
  // kick_drift() runs it with its own half kick and drift in one pass over the particles
  // (VelocityVerlet::final_then_initial); everything else that reads or changes the particles
  // runs it first.
  void finish_kick() {
    if (!kick_pending_) return;
    kick_pending_ = false;
    work_ += integrator_.final_integrate(particles_, kick_step_);
  }
  bool kick_pending_ = false;
  std::uint64_t kick_step_ = 0;

  void forward_optional_fields();
  ForceTotals run_computes(bool with_energy, PairKernel kernel);
  // The list's inner cutoff: r_c (rows ordered near-first) while a force pass reads rows in
  // order (HostForceCompute::reads_rows_in_order, the kernel trial's scalar passes), else 0
  // (rows in cell order: the build is a fifth faster, and the AVX-512 rows run as fast).
  double row_order_cutoff() const;
  void tune_kernels();

  void after_list(long long step);
  std::string cluster_note() const;
  std::string cluster_note_;  // kept when the trial drops the cluster kernel
  long long rebuilds_ = 0;    // of the run, and the force-only passes: the cluster build's share
  static constexpr long long kSortEvery = 8;  // rebuilds between two sorts of the owned particles
  long long force_passes_ = 0;
  const Communicator& comm_;
  Timers& timers_;
  Box box_;
  Species species_;
  PairRule rule_;
  double cutoff_, half_skin_;
  double list_cutoff_;  // the pair list's reach: R, or without the bonds' reach (list_reach)
  bool full_shell_;
  PairImages images_;
  VelocityVerlet integrator_;
  std::vector<std::unique_ptr<HostForceCompute>> computes_;
  int pair_compute_count_;
  // The optional per-particle fields the computes need on ghosts every step, or summed back.
  std::vector<std::string> forward_fields_, reverse_fields_;
  std::vector<std::string> rebuild_fields_;  // forwarded at rebuilds only (the topology)
  Domain domain_;
  ParticleStore particles_;
  CellList cells_;
  NeighborList neighbors_;
  kernels::Workspace ws_;
  ForceTotals forces_;
  std::uint64_t step_now_ = 0;  // the step the next forces belong to (rebuild, kick_drift)
  PairKernel kernel_;           // the force pass's
  PairKernel list_kernel_;      // the neighbour list build's
  bool tune_ = false;           // time the kernels at the next rebuild (Auto, a vector CPU)
  std::string tuning_;          // what the timing found, for description()
  std::optional<ForceKernelTrial> force_trial_;  // Auto on a vector CPU, a compute that uses it
  ForceScratch force_scratch_;
  fixed::Wide work_ = 0;  // Langevin
};

}  // namespace scanmd
