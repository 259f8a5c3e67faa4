#include "core/simulation.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <numeric>
#include <stdexcept>

#include "core/lattice.hpp"
#include "core/velocities.hpp"

namespace scanmd {

namespace {

Box lattice_box(const SimulationConfig& c) {
  if (c.box_length) return Box::make(*c.box_length);
  return FccLattice::from_density(c.density, c.cells).box();
}

Int3 pick_grid(const Communicator& comm, const SimulationConfig& c) {
  return choose_grid(comm.size(), c.grid, lattice_box(c), c.method, c.cutoff + c.skin);
}

}  // namespace

Simulation::Simulation(const Communicator& comm, const SimulationConfig& config)
    : comm_(comm),
      config_(config),
      box_(lattice_box(config)),
      grid_(pick_grid(comm, config), box_),
      lj_(LJParams::make(config.epsilon, config.sigma, config.cutoff, config.shift)),
      integrator_(config.dt, config.mass),
      halo_(comm, grid_, box_, config.method, config.cutoff + config.skin),
      rule_{config.method, grid_.coord_of(comm.rank()), grid_.dims(), box_.length} {
  const double R = import_cutoff();
  for (double l : {box_.length.x, box_.length.y, box_.length.z})
    if (l < 2.0 * R)
      throw std::invalid_argument("box edge " + std::to_string(l) +
                                  " is smaller than 2*(cutoff+skin) = " + std::to_string(2 * R));
  if (config_.backend == Backend::Cuda) {
    DeviceConfig d;
    d.box = box_;
    d.lj = lj_;
    d.dt = config_.dt;
    d.mass = config_.mass;
    d.skin = config_.skin;
    d.import_cutoff = R;
    d.method = config_.method;
    d.rule = rule_;
    d.lo = grid_.lo(halo_.coord());
    d.hi = grid_.hi(halo_.coord());
    d.fill = config_.cuda_fill;
    d.local_rebuild = config_.cuda_local_rebuild;
    d.region = ExportSelector(grid_, box_, config_.method, R).region(halo_.coord());
    device_ = make_device_backend(comm_, d);
  }
}

void Simulation::setup() {
  const FccLattice lattice = FccLattice::from_density(config_.density, config_.cells);
  const Int3 c = halo_.coord();
  const Vec3 lo = grid_.lo(c), hi = grid_.hi(c);
  particles_ = ParticleStore{};
  lattice.for_each_site(
      lo, hi, [&](Vec3 x) { return grid_.box_of(x) == c; },
      [&](std::uint64_t id, Vec3 x) { particles_.push_owned(id, x, {0, 0, 0}, {0, 0, 0}, c); });
  n_total_ = comm_.sum(static_cast<long long>(particles_.n_owned));
  if (static_cast<std::uint64_t>(n_total_) != lattice.site_count())
    throw std::logic_error("lattice creation lost sites");
  create_velocities(particles_, comm_, config_.seed, config_.temperature, config_.mass, n_total_);
  finish_setup(0);
}

void Simulation::setup(const std::vector<InitialParticle>& particles, long long start_step) {
  const Int3 c = halo_.coord();
  particles_ = ParticleStore{};
  for (const InitialParticle& ip : particles) {
    Vec3 x = ip.x;
    Int3 image = ip.image;
    // Bring any position into [0, L), however far out.
    for (int axis = 0; axis < 3; ++axis) {
      double& xa = axis == 0 ? x.x : axis == 1 ? x.y : x.z;
      int& ia = axis == 0 ? image.x : axis == 1 ? image.y : image.z;
      const double len = axis == 0 ? box_.length.x : axis == 1 ? box_.length.y : box_.length.z;
      const double k = std::floor(xa / len);
      if (k != 0.0) {
        xa -= k * len;
        ia += static_cast<int>(k);
      }
      wrap_coordinate(xa, ia, len);
    }
    if (grid_.box_of(x) == c) particles_.push_owned(ip.id, x, ip.v, image, c);
  }
  n_total_ = comm_.sum(static_cast<long long>(particles_.n_owned));
  finish_setup(start_step);
}

void Simulation::finish_setup(long long start_step) {
  census_ = Census::take(comm_, particles_);
  step_ = start_step;
  rebuild();
  compute_forces();
  if (device_) device_->synchronize(timers_);  // first-force errors surface here, as on the host
}

void Simulation::sync_host() const {
  if (!device_ || !host_stale_) return;
  device_->download_owned(particles_);
  host_stale_ = false;
}

const ParticleStore& Simulation::particles() const {
  sync_host();
  return particles_;
}

void Simulation::rebuild() {
  ImportCounts counts;
  if (device_ && device_->rebuilds_locally() && rebuilds_ > 0) {
    // CUDA on one rank: nothing migrates and the halo is periodic images of our own particles,
    // made on the device like the rest of the rebuild (the first build went through the host).
    const DeviceImportCounts c = device_->rebuild_locally(timers_);
    counts.ghosts = c.ghosts;
    counts.tower = c.tower;
    counts.plate = c.plate;
  } else {
    counts = rebuild_on_host();
  }
  record_imports(counts);
}

ImportCounts Simulation::rebuild_on_host() {
  {
    ScopedTimer t(timers_, Phase::Migrate);
    sync_host();
    halo_.migrate(particles_);
    check_census(comm_, particles_, census_, step_);
  }
  {
    // Owned particles in cell order: neighbours sit close in memory in the force loop.
    ScopedTimer t(timers_, Phase::Neigh);
    cells_.build(ws_, particles_, box_, grid_.lo(halo_.coord()), grid_.hi(halo_.coord()),
                 import_cutoff(), import_cutoff());
    particles_.permute_owned(cells_.order());
  }
  ImportCounts counts;
  {
    ScopedTimer t(timers_, Phase::Plan);
    counts = halo_.build(particles_);
  }
  if (device_) {
    device_->upload(particles_, halo_, timers_);  // bins and builds the list on the device
  } else {
    ScopedTimer t(timers_, Phase::Neigh);
    cells_.build(ws_, particles_, box_, grid_.lo(halo_.coord()), grid_.hi(halo_.coord()),
                 import_cutoff(), import_cutoff());
    neighbors_.build(ws_, particles_, cells_, rule_, import_cutoff(), config_.cutoff);
  }
  return counts;
}

void Simulation::record_imports(const ImportCounts& counts) {
  ++rebuilds_;
  ImportSnapshot snap;
  snap.step = step_;
  snap.per_rank_counts.resize(comm_.size());
  static_assert(sizeof(ImportCounts) == 4 * sizeof(long long));
  check_mpi(MPI_Allgather(&counts, 4, MPI_LONG_LONG, snap.per_rank_counts.data(), 4,
                          MPI_LONG_LONG, comm_.get()),
            "MPI_Allgather(imports)");
  const double P = comm_.size();
  snap.min = snap.max = snap.per_rank_counts[0].ghosts;
  for (const ImportCounts& c : snap.per_rank_counts) {
    snap.per_rank.push_back(c.ghosts);
    snap.min = std::min(snap.min, c.ghosts);
    snap.max = std::max(snap.max, c.ghosts);
    snap.mean += c.ghosts / P;
    snap.tower_mean += c.tower / P;
    snap.plate_mean += c.plate / P;
    snap.bytes_mean += c.bytes_per_step / P;
  }
  imports_.push_back(std::move(snap));
}

void Simulation::compute_forces(bool with_energy) {
  if (device_) {
    device_->compute_forces(with_energy, timers_);
    if (with_energy) energy_step_ = step_;
    device_->reverse(timers_);
    host_stale_ = true;
    return;
  }
  {
    ScopedTimer t(timers_, Phase::Pair);
    forces_ = compute_lj_forces(particles_, neighbors_, lj_, box_,
                                config_.method == Method::FullShell, with_energy);
    last_pairs_ = forces_.pairs;
    if (with_energy) energy_step_ = step_;
  }
  ScopedTimer t(timers_, Phase::Reverse);
  halo_.reverse(particles_);
}

bool Simulation::thermo_due(long long step) const {
  if (step == config_.steps) return true;
  return config_.thermo_every > 0 && step % config_.thermo_every == 0;
}

void Simulation::run(StepObserver& observer) {
  observer.after_step(*this);
  if (device_) device_->synchronize(timers_);  // setup's device timings land before the reset
  timers_.reset();  // the table covers the step loop
  const double half_skin = 0.5 * config_.skin;
  while (step_ < config_.steps) {
    ++step_;
    bool need_rebuild;
    if (device_) {
      // Half kick + drift + the skin/2 test in one kernel; one flag comes back.
      const bool moved = device_->initial_integrate(timers_);
      host_stale_ = true;
      ScopedTimer t(timers_, Phase::Neigh);
      need_rebuild = comm_.any(moved);
    } else {
      integrator_.initial_integrate(particles_, box_);
      ScopedTimer t(timers_, Phase::Neigh);
      need_rebuild = comm_.any(moved_beyond(particles_, box_, half_skin));
    }
    if (need_rebuild) {
      rebuild();
    } else if (device_) {
      device_->forward(timers_);
    } else {
      ScopedTimer t(timers_, Phase::Forward);
      halo_.forward(particles_);
    }
    compute_forces(observer.wants_energy(step_));
    if (device_)
      device_->final_integrate();
    else
      integrator_.final_integrate(particles_);
    observer.after_step(*this);
  }
  if (device_) device_->synchronize(timers_);  // last errors and timings
}

void Simulation::run(const std::function<void(const ThermoSample&)>& on_thermo) {
  struct ThermoOnly final : StepObserver {
    const Simulation* sim;
    const std::function<void(const ThermoSample&)>* f;
    bool first = true;
    bool wants_energy(long long step) const override { return sim->thermo_due(step); }
    void after_step(const Simulation& s) override {
      if (*f && s.has_energy() && (first || s.thermo_due(s.step()))) (*f)(s.thermo());
      first = false;
    }
  } observer;
  observer.sim = this;
  observer.f = &on_thermo;
  run(observer);
}

ThermoSample Simulation::thermo() const {
  if (device_) {
    const DeviceForceTotals t = device_->force_totals();
    return thermo_from_sums(step_, comm_, n_total_, box_.volume(), device_->twice_kinetic(),
                            t.energy, t.virial);
  }
  return thermo_sample(step_, particles_, comm_, config_.mass, n_total_, box_.volume(),
                       forces_.energy, forces_.virial);
}

long long Simulation::local_pairs() const {
  return device_ ? device_->force_totals().pairs : last_pairs_;
}

std::string Simulation::backend_description() const {
  return device_ ? device_->description() : std::string("host");
}

std::vector<std::pair<std::uint32_t, std::uint32_t>> Simulation::neighbor_entries() const {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> out;
  auto collect = [&out](const auto& offsets, const std::vector<std::uint32_t>& nbr) {
    out.reserve(nbr.size());
    for (std::size_t i = 0; i + 1 < offsets.size(); ++i)
      for (auto k = offsets[i]; k < offsets[i + 1]; ++k)
        out.emplace_back(static_cast<std::uint32_t>(i), nbr[k]);
  };
  if (device_) {
    std::vector<std::uint64_t> offsets;
    std::vector<std::uint32_t> nbr;
    device_->neighbor_list(offsets, nbr);
    collect(offsets, nbr);
  } else {
    collect(neighbors_.offsets(), neighbors_.neighbors());
  }
  return out;
}

double Simulation::analytic_import() const {
  const double density = static_cast<double>(n_total_) / box_.volume();
  return density * analytic_import_volume(config_.method, grid_.sub_length(), import_cutoff());
}

std::uint64_t Simulation::state_hash() const {
  // Record: id, x, y, z, vx, vy, vz as raw 64-bit patterns; gathered to rank 0, sorted by id,
  // hashed with FNV-1a (64 bit), broadcast.
  sync_host();
  constexpr int kWords = 7;
  const int n = static_cast<int>(particles_.n_owned);
  std::vector<std::uint64_t> mine(static_cast<std::size_t>(n) * kWords);
  for (int i = 0; i < n; ++i) {
    const Vec3 x = particles_.x[i], v = particles_.v[i];
    std::uint64_t* r = &mine[static_cast<std::size_t>(i) * kWords];
    r[0] = particles_.id[i];
    const double vals[6] = {x.x, x.y, x.z, v.x, v.y, v.z};
    for (int k = 0; k < 6; ++k) r[k + 1] = std::bit_cast<std::uint64_t>(vals[k]);
  }
  const int words = n * kWords;
  std::vector<int> counts(comm_.size()), displs(comm_.size());
  check_mpi(MPI_Gather(&words, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm_.get()),
            "MPI_Gather");
  std::vector<std::uint64_t> all;
  if (comm_.rank() == 0) {
    int total = 0;
    for (int r = 0; r < comm_.size(); ++r) displs[r] = total, total += counts[r];
    all.resize(total);
  }
  check_mpi(MPI_Gatherv(mine.data(), words, MPI_UINT64_T, all.data(), counts.data(),
                        displs.data(), MPI_UINT64_T, 0, comm_.get()),
            "MPI_Gatherv");
  std::uint64_t hash = 0xcbf29ce484222325ull;
  if (comm_.rank() == 0) {
    const std::size_t records = all.size() / kWords;
    std::vector<std::uint32_t> order(records);
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(),
              [&](std::uint32_t a, std::uint32_t b) { return all[a * kWords] < all[b * kWords]; });
    for (std::uint32_t r : order)
      for (int k = 0; k < kWords; ++k) {
        const std::uint64_t w = all[r * kWords + k];
        for (int byte = 0; byte < 8; ++byte) {
          hash ^= (w >> (8 * byte)) & 0xffu;
          hash *= 0x100000001b3ull;
        }
      }
  }
  check_mpi(MPI_Bcast(&hash, 1, MPI_UINT64_T, 0, comm_.get()), "MPI_Bcast");
  return hash;
}

}  // namespace scanmd
