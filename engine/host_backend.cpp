// The host backend (see host_backend.hpp).
#include "engine/host_backend.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "engine/thermo.hpp"

namespace scanmd {

HostBackend::HostBackend(const StepSetup& s)
    : comm_(s.comm),
      timers_(s.timers),
      box_(s.box),
      species_(s.species),
      rule_(s.rule),
      cutoff_(s.params.pair_cutoff),
      half_skin_(s.params.half_skin),
      full_shell_(s.params.full_shell),
      images_(s.params.images),
      integrator_(s.params.dt, s.species.mass, s.params.units),
      computes_(make_host_computes(s.computes, s.species)),
      pair_compute_count_(pair_compute_count(s.computes)),
      forward_fields_(halo_fields(s.computes, FieldAccess::Forward)),
      reverse_fields_(halo_fields(s.computes, FieldAccess::ReverseSum)),
      rebuild_fields_(halo_fields(s.computes, FieldAccess::RebuildForward)),
      domain_(s.comm, s.grid, s.box, s.params.method, s.params.import_cutoff,
              s.params.bonded_shell),
      kernel_(resolve_pair_kernel()) {
  const bool bonded = std::any_of(s.computes.begin(), s.computes.end(),
                                  [](const auto& c) { return c.kind == ForceKind::Bonded; });
  list_cutoff_ = bonded ? list_reach(s.computes) + 2.0 * half_skin_ : s.params.import_cutoff;
  force_scratch_.threads = force_threads();
  if (images_ == PairImages::Minimum)
    force_scratch_.interior = InteriorBounds::make(box_, list_cutoff_, 2.0 * half_skin_);
  const HaloRecordBytes record = halo_record_bytes(s.computes);
  domain_.halo().set_record_bytes(record.forward, record.reverse);
  list_kernel_ = kernel_;
  if (uses_avx512(kernel_)) position_loads();  // (a bad SCANMD_POSITION_LOADS: an error now)
  tune_ = kernel_ != PairKernel::Scalar && !pair_kernel_pinned();
  // A list whose computes all ignore the kernel (EAM) has no force pass to time.
  if (tune_ && std::any_of(computes_.begin(), computes_.end(),
                           [](const auto& c) { return c->uses_kernel(); })) {
    // The widest rows against the scalar loop; with SCANMD_CLUSTER_TRIAL=1 the cluster kernel
    // too (off by default: on the machines measured it is slower than the rows, AVX-512 and
    // AVX2 alike, and its list would add to the peak of memory during the trial).
    std::vector<PairKernel> candidates{kernel_};
    const char* trial = std::getenv("SCANMD_CLUSTER_TRIAL");
    if ((kernel_ == PairKernel::Avx512 || kernel_ == PairKernel::Avx2) &&
        cpu_runs(PairKernel::Cluster) && trial != nullptr && std::string_view(trial) == "1")
      candidates.push_back(PairKernel::Cluster);
    candidates.push_back(PairKernel::Scalar);
    force_trial_.emplace(std::move(candidates));
  }
  neighbors_.set_kernel(list_kernel_);
  neighbors_.set_threads(force_scratch_.threads);
  const ThermostatSection& t = s.params.thermostat;
  if (t.style == ThermostatStyle::Langevin) integrator_.langevin(t.temperature, t.damping, t.seed);
}

std::string HostBackend::description() const {
  const int threads = force_scratch_.threads, cores = cores_available();
  std::string s = fmt::format("host: {} pair kernel, {} thread{} per rank",
                              pair_kernel_name(kernel_), threads, threads == 1 ? "" : "s");
  if (uses_avx512(kernel_))
    s += position_loads() == PositionLoads::Gather ? "; neighbour positions by gathers"
                                                   : "; neighbour positions by transposed loads";
  if (tune_) s += "; the list build is timed against the scalar loop at the first rebuild";
  if (!tuning_.empty()) s += "; " + tuning_;
  if (force_trial_)
    s += fmt::format(
        "; the force pass is timed against the scalar loop on alternate steps from step {} (the "
        "choice is in the end-of-run report)",
        ForceKernelTrial::kSkip);
  if (threads > 1 && cores > 0 && cores < threads)
    s += fmt::format(
        " (warning: rank 0 may run on {} core{} only: mpirun binds a rank to one "
        "core unless told --map-by slot:PE={} or --bind-to none)",
        cores, cores == 1 ? "" : "s", threads);
  return s;
}

void HostBackend::load(ParticleStore owned) {
  kick_pending_ = false;  // (a kick of the particles replaced)
  particles_ = std::move(owned);
  domain_.take_census(particles_);
}

bool HostBackend::kick_drift(std::uint64_t step) {
  // The deferred second half kick of the last step, if any, runs in the same pass as this
  // step's first kick and drift, and so does the skin/2 test.
  bool moved = false;
  const bool fused = kick_pending_ && kick_step_ == step;
  if (fused) {
    kick_pending_ = false;
    work_ += integrator_.final_then_initial(particles_, box_, step, &moved, half_skin_, images_);
  } else {
    finish_kick();
    work_ += integrator_.initial_integrate(particles_, box_, step);
  }
  step_now_ = step + 1;
  // The pair velocity (DPD): v at the half step, the velocity the forces of step + 1 see.
  if (const int k = particles_.fields.find(kPairVelocityField); k >= 0) {
    const auto words = particles_.fields.words(static_cast<std::size_t>(k));
    std::memcpy(words.data(), static_cast<const void*>(particles_.v.data()),
                particles_.n_owned * sizeof(Vec3));
  }
  if (fused) return moved;
  ScopedTimer t(timers_, Phase::Neigh);
  return moved_beyond(particles_, box_, half_skin_, images_);
}

ImportCounts HostBackend::rebuild(long long step) {
  finish_kick();
  step_now_ = static_cast<std::uint64_t>(step);
  // The owned particles sorted into cell order at every kSortEvery-th rebuild only: between two
  // rebuilds they move less than the skin, so the order stays nearly as local (LAMMPS sorts its
  // atoms every 1000 steps), and the sort's in-place permutation of every column cost 5% of a
  // bonded run that rebuilds every fourth step.
  const ImportCounts counts =
      domain_.redistribute(particles_, step, timers_, &cells_, &ws_, rebuilds_ % kSortEvery == 0);
  ScopedTimer t(timers_, Phase::Neigh);
  forward_optional_fields();  // the new ghosts' fields
  for (const std::string& name : rebuild_fields_) {
    const auto k = static_cast<std::size_t>(particles_.fields.find(name));
    domain_.halo().forward_words(particles_.fields.words(k), particles_.fields.width(k),
                                 particles_.n_owned);
  }
  const double R = domain_.import_cutoff();
  cells_.build(ws_, particles_, box_, domain_.lo(), domain_.hi(), R, list_cutoff_);
  neighbors_.build(ws_, particles_, cells_, rule_, list_cutoff_, row_order_cutoff());
  ++rebuilds_;
  if (tune_) tune_kernels();
  after_list(step);
  return counts;
}

double HostBackend::row_order_cutoff() const {
  const bool trial = force_trial_ && !force_trial_->decided();
  const bool in_order =
      trial || std::any_of(computes_.begin(), computes_.end(),
                           [&](const auto& c) { return c->reads_rows_in_order(kernel_, images_); });
  return in_order ? cutoff_ : 0.0;
}

// The list build timed with the vector kernel and the scalar loop on this run's first list
// (best of two), the faster kept: they give the same bits, so only the speed depends on it. (A
// lattice start's first list costs what a fluid's does to build; its force pass does not: a WCA
// lattice has no pair within the cutoff. The force pass is timed in the run: compute_forces.)
void HostBackend::tune_kernels() {
  using Clock = std::chrono::steady_clock;
  tune_ = false;
  auto best_of_two = [](auto&& f) {
    double best = 1e300;
    for (int r = 0; r < 2; ++r) {
      const auto t0 = Clock::now();
      f();
      best = std::min(best, std::chrono::duration<double>(Clock::now() - t0).count());
    }
    return best;
  };
  const PairKernel vector = kernel_;
  double list_time[2];
  const PairKernel kernels[2] = {vector, PairKernel::Scalar};
  for (int k = 0; k < 2; ++k) {
    neighbors_.set_kernel(kernels[k]);
    list_time[k] = best_of_two([&] {
      neighbors_.build(ws_, particles_, cells_, rule_, list_cutoff_, row_order_cutoff());
    });
  }
  list_kernel_ = list_time[1] < list_time[0] ? PairKernel::Scalar : vector;
  neighbors_.set_kernel(list_kernel_);
  neighbors_.build(ws_, particles_, cells_, rule_, list_cutoff_, row_order_cutoff());
  const int at = list_kernel_ == vector ? 0 : 1;
  tuning_ = fmt::format("list build {} ({:.3g} ms; {} {:.3g} ms on the first list)",
                        pair_kernel_name(list_kernel_), 1e3 * list_time[at],
                        pair_kernel_name(kernels[1 - at]), 1e3 * list_time[1 - at]);
}

ForceKernelTrial::ForceKernelTrial(std::vector<PairKernel> candidates)
    : candidates_(std::move(candidates)),
      chosen_(candidates_.front()),
      seconds_(candidates_.size()) {}

PairKernel ForceKernelTrial::next() const {
  if (calls_ < kSkip) return candidates_.front();
  return candidates_[static_cast<std::size_t>(calls_ - kSkip) % candidates_.size()];
}

void ForceKernelTrial::record_pass(double seconds) {
  if (calls_ >= kSkip)
    seconds_[static_cast<std::size_t>(calls_ - kSkip) % candidates_.size()].push_back(seconds);
  ++calls_;
}

bool ForceKernelTrial::clear_winner(const std::vector<double>& extra) const {
  const double first = *std::max_element(seconds_[0].begin(), seconds_[0].end()) + extra[0];
  for (std::size_t k = 1; k < candidates_.size(); ++k)
    if (*std::min_element(seconds_[k].begin(), seconds_[k].end()) + extra[k] < kClearMargin * first)
      return false;
  return true;
}

void ForceKernelTrial::decide(const std::vector<double>& extra) {
  // The fastest pass of each: other processes only ever add time (a loaded machine's bursts
  // can cover several passes in a row, which a median does not survive).
  std::vector<double> best(candidates_.size());
  std::size_t win = 0;
  for (std::size_t k = 0; k < candidates_.size(); ++k) {
    best[k] = *std::min_element(seconds_[k].begin(), seconds_[k].end()) + extra[k];
    if (best[k] < best[win]) win = k;
  }
  chosen_ = candidates_[win];
  decided_ = true;
  summary_ = fmt::format("forces {} ({:.3g} ms", pair_kernel_name(chosen_), 1e3 * best[win]);
  for (std::size_t k = 0; k < candidates_.size(); ++k)
    if (k != win)
      summary_ += fmt::format("; {} {:.3g} ms", pair_kernel_name(candidates_[k]), 1e3 * best[k]);
  const std::size_t rounds = seconds_.back().size();
  summary_ += fmt::format(": the fastest of {} alternate force passes each from step {}{}", rounds,
                          kSkip, rounds < kRounds ? ", a clear lead" : "");
  for (std::size_t k = 0; k < candidates_.size(); ++k)
    if (extra[k] > 0.0)
      summary_ += fmt::format(", {} with {:.3g} ms of list conversion per pass",
                              pair_kernel_name(candidates_[k]), 1e3 * extra[k]);
  summary_ += ")";
}

std::string HostBackend::end_of_run_note() const {
  std::string note;
  if (force_trial_ && force_trial_->decided())
    note = "host kernels chosen on rank 0: " + force_trial_->summary() +
           (tuning_.empty() ? "" : ", " + tuning_);
  const std::string clusters = cluster_note();
  if (!clusters.empty()) note += (note.empty() ? "" : "; ") + clusters;
  return note;
}

// The cluster list's size against the per-atom list's, on rank 0 (issue 33's memory figure).
std::string HostBackend::cluster_note() const {
  if (!cluster_note_.empty()) return cluster_note_;
  const ClusterList& cl = force_scratch_.clusters;
  const std::size_t n = particles_.size();
  if (!cl.built() || force_scratch_.cluster_builds == 0 || n == 0) return "";
  const double atom_bytes =
      static_cast<double>((neighbors_.offsets().size() + neighbors_.pair_count()) *
                          sizeof(std::uint32_t)) /
      static_cast<double>(n);
  return fmt::format(
      "cluster list on rank 0: {:.1f} bytes per particle (the per-atom list: {:.1f}), {} "
      "cluster pairs of {}x{} for {} listed pairs ({:.0f}% of the lanes), {} builds of {:.3g} ms",
      cl.bytes_per_particle(), atom_bytes, cl.entries(), kClusterSize, kClusterSize, cl.pairs(),
      cl.entries() ? 100.0 * static_cast<double>(cl.pairs()) /
                         static_cast<double>(cl.entries() * kClusterSize * kClusterSize)
                   : 0.0,
      force_scratch_.cluster_builds,
      1e3 * force_scratch_.cluster_build_seconds / force_scratch_.cluster_builds);
}

// The computes' own rebuild work (the bonded listing and exclusions), on the final list.
void HostBackend::after_list(long long step) {
  HostForceState state{particles_,
                       neighbors_,
                       domain_.halo(),
                       box_,
                       images_,
                       full_shell_,
                       kernel_,
                       force_scratch_,
                       step_now_,
                       pair_compute_count_,
                       domain_.import_cutoff()};
  for (const auto& c : computes_) c->on_rebuild(state, neighbors_, rule_, comm_, step);
  // The cluster list now, from the final list and the positions it was built from, when the
  // cluster kernel runs or is on trial.
  if (kernel_ == PairKernel::Cluster ||
      (force_trial_ && !force_trial_->decided() && force_trial_->has(PairKernel::Cluster))) {
    build_clusters(particles_, neighbors_, force_scratch_);
  }
}

void HostBackend::forward() {
  finish_kick();
  ScopedTimer t(timers_, Phase::Forward);
  domain_.halo().forward(particles_);
  forward_optional_fields();
}

void HostBackend::forward_optional_fields() {
  for (const std::string& name : forward_fields_) {
    const auto k = static_cast<std::size_t>(particles_.fields.find(name));
    domain_.halo().forward_words(particles_.fields.words(k), particles_.fields.width(k),
                                 particles_.n_owned);
  }
}

void HostBackend::compute_forces(bool with_energy) {
  finish_kick();
  ScopedTimer t(timers_, Phase::Pair);
  if (with_energy || !force_trial_ || force_trial_->decided()) {
    forces_ = run_computes(with_energy, kernel_);
    return;
  }
  // A force-only pass of the trial: the kernel it names, timed.
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  forces_ = run_computes(false, force_trial_->next());
  ++force_passes_;
  // The cluster kernel's list is converted once per rebuild: its time per force pass.
  force_trial_->record(std::chrono::duration<double>(Clock::now() - t0).count(), [&](PairKernel k) {
    const ForceScratch& fs = force_scratch_;
    if (k != PairKernel::Cluster || fs.cluster_builds == 0 || force_passes_ == 0) return 0.0;
    return fs.cluster_build_seconds / fs.cluster_builds * static_cast<double>(rebuilds_) /
           static_cast<double>(force_passes_);
  });
  if (force_trial_->decided()) {
    kernel_ = force_trial_->chosen();
    if (kernel_ != PairKernel::Cluster && force_scratch_.cluster_builds > 0) {
      // The cluster kernel lost: its report kept, its arrays freed.
      cluster_note_ = cluster_note();
      ForceScratch& fs = force_scratch_;
      fs.clusters = ClusterList{};
      fs.clusters_of = nullptr;
      std::vector<double>().swap(fs.cx);
      std::vector<double>().swap(fs.cy);
      std::vector<double>().swap(fs.cz);
      std::vector<std::vector<std::int64_t>>().swap(fs.cf);
    }
  }
}

ForceTotals HostBackend::run_computes(bool with_energy, PairKernel kernel) {
  HostForceState state{particles_,
                       neighbors_,
                       domain_.halo(),
                       box_,
                       images_,
                       full_shell_,
                       kernel,
                       force_scratch_,
                       step_now_,
                       pair_compute_count_,
                       domain_.import_cutoff()};
  ForceTotals totals;
  bool first = true;
  for (const auto& c : computes_) {
    totals += c->compute(state, with_energy, first);
    first = false;
  }
  return totals;
}

void HostBackend::reverse() {
  finish_kick();
  ScopedTimer t(timers_, Phase::Reverse);
  domain_.halo().reverse(particles_);
  for (const std::string& name : reverse_fields_) {
    const auto k = static_cast<std::size_t>(particles_.fields.find(name));
    domain_.halo().reverse_sum_words(particles_.fields.integers(k), particles_.fields.width(k),
                                     particles_.n_owned, particles_.id, name.c_str());
  }
}

void HostBackend::kick(std::uint64_t step) {
  finish_kick();
  kick_pending_ = true;  // run by the next kick_drift, or by whatever comes first (finish_kick)
  kick_step_ = step;
}

void HostBackend::scale_velocities(double factor) {
  finish_kick();
  for (std::size_t i = 0; i < particles_.n_owned; ++i) scale_velocity(particles_.v[i], factor);
}

fixed::Wide HostBackend::twice_kinetic() {
  finish_kick();
  return twice_kinetic_fixed(particles_, species_.mass);
}

NeighborEntries HostBackend::neighbor_entries() {
  finish_kick();
  NeighborEntries out;
  const auto& offsets = neighbors_.offsets();
  const auto& nbr = neighbors_.neighbors();
  out.reserve(nbr.size());
  for (std::size_t i = 0; i + 1 < offsets.size(); ++i)
    for (auto k = offsets[i]; k < offsets[i + 1]; ++k)
      out.emplace_back(static_cast<std::uint32_t>(i), nbr[k]);
  return out;
}

}  // namespace scanmd

namespace scanmd {

// ---- FIRE minimisation (physics/dynamics/fire.hpp): serial loops over the owned particles
// (a minimisation is a setup phase; the sums are integer sums, so threads would not change them).

FireMaxima HostBackend::fire_maxima() {
  finish_kick();
  FireMaxima m;
  for (std::size_t i = 0; i < particles_.n_owned; ++i)
    fire_absorb(m, fire_terms(particles_.v[i], particles_.f[i]));
  return m;
}

std::array<fixed::Wide, kFireSums> HostBackend::fire_sums(const FireScales& scales) {
  finish_kick();
  std::array<fixed::Wide, kFireSums> sums{0, 0, 0};
  for (std::size_t i = 0; i < particles_.n_owned; ++i) {
    const FireTerms t = fire_terms(particles_.v[i], particles_.f[i]);
    for (int k = 0; k < kFireSums; ++k) sums[k] += fire_quantise(t.t[k], scales.s[k]);
  }
  return sums;
}

bool HostBackend::fire_update(const FireUpdate& u) {
  finish_kick();
  std::size_t bad = particles_.n_owned;
  for (std::size_t i = 0; i < particles_.n_owned; ++i) {
    fire_update_particle(particles_.x[i], particles_.v[i], particles_.image[i], particles_.f[i],
                         species_.mass[particles_.type[i]], u, box_.length);
    if (u.moves() && bad == particles_.n_owned && !inside_box(particles_.x[i], box_.length))
      bad = i;
  }
  if (bad < particles_.n_owned)
    throw std::runtime_error(
        bad_position_message(particles_.id[bad], particles_.x[bad], particles_.v[bad]));
  if (!u.moves()) return false;
  ScopedTimer t(timers_, Phase::Neigh);
  return moved_beyond(particles_, box_, half_skin_, images_);
}

}  // namespace scanmd
