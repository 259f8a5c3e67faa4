// One MD run on this rank (see simulation.hpp).
#include "engine/simulation.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "engine/backend_choice.hpp"
#include "engine/cuda/cuda_backend.hpp"
#include "engine/host_backend.hpp"
#include "engine/lattice.hpp"
#include "engine/memory_budget.hpp"
#include "engine/velocities.hpp"

namespace scanmd {

namespace {

std::string with_context(const std::string& context, const char* what) {
  const std::string_view w(what);
  return w.starts_with("step ") ? std::string(w) : context + ": " + std::string(w);
}

// Rethrows the exception being handled with `context` ("step 12" or "step 12, rank 3") in front
// of its message, unless the message already names its step, as the same standard type (an
// overflow stays an overflow, a collective error collective).
[[noreturn]] void rethrow_in_context(const std::string& context) {
  try {
    throw;
  } catch (const CollectiveError& e) {
    throw CollectiveError(with_context(context, e.what()));
  } catch (const std::overflow_error& e) {
    throw std::overflow_error(with_context(context, e.what()));
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(with_context(context, e.what()));
  } catch (const std::logic_error& e) {
    throw std::logic_error(with_context(context, e.what()));
  } catch (const std::bad_alloc&) {
    throw std::runtime_error(context + ": out of memory (std::bad_alloc)");
  } catch (const std::exception& e) {
    throw std::runtime_error(with_context(context, e.what()));
  }
}

// The message of the exception being handled, with its context.
std::string message_in_context(const std::string& context) {
  try {
    rethrow_in_context(context);
  } catch (const std::exception& e) {
    return e.what();
  }
}

Box checked_box(const SimulationConfig& c) {
  const Vec3 length = initial_box_length(c.system);
  if (const auto axis = short_box_axis(length, c.neighbor.skin))
    throw std::invalid_argument(short_box_message(length, c.neighbor.skin, *axis));
  return Box::make(length);
}

// Every rank bins its box padded by R into cells of edge >= R/2 (engine/cell_list.hpp). Checked
// for every box of the grid, so all ranks agree, before anything is allocated: a box far too
// large for its particles (density 1e-10: 10^12 cells) is an error, not a std::bad_alloc.
void check_cell_count(const RankGrid& grid, double R) {
  const double edge = 0.5 * R;
  for (int r = 0; r < grid.size(); ++r) {
    const Int3 c = grid.coord_of(r);
    const Vec3 lo = grid.lo(c), hi = grid.hi(c);
    const double extent[3] = {hi.x - lo.x + 2 * R, hi.y - lo.y + 2 * R, hi.z - lo.z + 2 * R};
    double cells = 1.0;
    for (const double e : extent) cells *= std::max(1.0, std::floor(e / edge));
    if (cells > kMaxCellsPerRank)
      throw CellCountError(fmt::format(
          "the cell list of rank {} would need {:.3g} cells (its box {:.6g} x {:.6g} x {:.6g} "
          "padded by R = {:.6g}, cells of edge >= R/2), more than the {:.0f} (2^30) a rank may "
          "hold: the box is far too large for its particles and cutoff",
          r, cells, hi.x - lo.x, hi.y - lo.y, hi.z - lo.z, R, kMaxCellsPerRank));
  }
}

// This rank's share of the starting positions, for the grid choice: the data file's particles
// [r·n/P, (r+1)·n/P) (wrapped), or the lattice sites of the config in the r-th of P slabs along z.
std::vector<Vec3> start_positions_share(const Communicator& comm, const SimulationConfig& c,
                                        const Box& box, std::span<const InitialParticle> start) {
  const int P = comm.size(), r = comm.rank();
  const Vec3 L = box.length;
  std::vector<Vec3> x;
  if (!start.empty()) {
    const std::size_t n = start.size(), b = n * r / P, e = n * (r + 1) / P;
    auto wrap = [](double q, double len) {
      int image = 0;
      return wrap_far_coordinate(q, image, len) ? q : 0.0;  // setup() reports the unwrappable
    };
    for (std::size_t i = b; i < e; ++i)
      x.push_back({wrap(start[i].x.x, L.x), wrap(start[i].x.y, L.y), wrap(start[i].x.z, L.z)});
    return x;
  }
  const FccLattice lattice = FccLattice::from_density(c.system.density, c.system.cells);
  const Vec3 lo{0, 0, L.z * r / P}, hi{L.x, L.y, r + 1 == P ? L.z : L.z * (r + 1) / P};
  lattice.for_each_site(  // keep: visited cells overlap [lo, hi), the sites must lie in it
      lo, hi, [&](Vec3 q) { return q.z >= lo.z && q.z < hi.z && c.region.contains(q); },
      [&](std::uint64_t, Vec3 q) { x.push_back(q); });
  return x;
}

// The rank grid: choose_grid's, or with decomposition.balance and a grid left to choose, the
// first candidate the starting configuration balances within the tolerance (collective).
BalancedGridChoice pick_grid(const Communicator& comm, const SimulationConfig& c, const Box& box,
                             std::span<const InitialParticle> start) {
  const DecompositionSection& d = c.decomposition;
  const Int3 requested{d.grid[0], d.grid[1], d.grid[2]};
  const std::vector<Int3> candidates =
      candidate_grids(comm.size(), requested, box, d.method, c.import_cutoff());
  BalancedGridChoice plain;
  plain.dims = plain.import_best = candidates.front();
  // Before anything is allocated: the memory every rank will need, then its cell count.
  const double particles =
      start.empty() ? lattice_particles_estimate(c) : static_cast<double>(start.size());
  check_memory(comm, c, RankGrid(plain.dims, box), particles, static_cast<double>(start.size()));
  check_cell_count(RankGrid(plain.dims, box), c.import_cutoff());  // before any cell list
  if (d.balance == Balance::None || candidates.size() == 1) return plain;
  const std::vector<Vec3> x = start_positions_share(comm, c, box, start);
  const std::vector<long long> cost = d.balance == Balance::Particles
                                          ? std::vector<long long>(x.size(), 1)
                                          : pair_costs(&comm, box, c.import_cutoff(), x);
  return choose_balanced_grid(candidates, cost_marginals(&comm, box.length, x, cost),
                              d.balance_tolerance);
}

// run.backend with `auto` resolved (collective when it is auto).
SimulationConfig resolved(const Communicator& comm, SimulationConfig c) {
  if (c.run.backend == Backend::Auto)
    c.run.backend =
        cuda_lacks(c) ? Backend::Host : resolve_backend(comm, Backend::Auto, c.cuda.fill).backend;
  return c;
}

std::unique_ptr<StepBackend> make_backend(const StepSetup& setup) {
  if (setup.params.backend == Backend::Cuda) return make_cuda_backend(setup);
  return std::make_unique<HostBackend>(setup);
}

}  // namespace

Simulation::Simulation(const Communicator& comm, const SimulationConfig& config,
                       std::span<const InitialParticle> start)
    : comm_(comm),
      config_(resolved(comm, config)),
      species_(make_species(config_)),
      computes_(scanmd::force_computes(config_)),
      box_(checked_box(config_)),
      grid_choice_(pick_grid(comm, config_, box_, start)),
      grid_(grid_choice_.dims, box_),
      params_(StepParams::make(config_, species_.max_cutoff(), box_)),
      thermostat_(comm, config_.thermostat, config_.run.dt, config_.system.constants()) {
  check_cell_count(grid_, config_.import_cutoff());
  const StepSetup setup{comm_,
                        params_,
                        box_,
                        grid_,
                        species_,
                        computes_,
                        PairRule{params_.method, grid_.coord_of(comm_.rank()), grid_.cuts()},
                        timers_};
  backend_ = make_backend(setup);
}

void Simulation::setup() {
  const SystemSection& sys = config_.system;
  const RegionSection& region = config_.region;
  const FccLattice lattice = FccLattice::from_density(sys.density, sys.cells);
  const Int3 c = grid_.coord_of(comm_.rank());
  auto in_region = [&](Vec3 x) { return region.contains(x); };
  auto mine = [&](Vec3 x) { return grid_.box_of(x) == c; };
  const bool whole_box = region.style == RegionStyle::Box;
  const std::uint64_t sites = lattice_start_count(config_);
  if (sites == 0) throw std::invalid_argument("the region holds no lattice site");
  const LatticeTypes type_of(sys.type_fractions, sites, sys.seed);
  ParticleStore owned;
  add_fields(owned);
  auto add = [&](std::uint64_t id, Vec3 x) {
    owned.push_owned(id, type_of(id), x, {0, 0, 0}, {0, 0, 0}, c);
  };
  if (whole_box)
    lattice.for_each_site(grid_.lo(c), grid_.hi(c), mine, add);
  else
    lattice.for_each_site_in(in_region, grid_.lo(c), grid_.hi(c), mine, add);
  const long long n_total = comm_.sum(static_cast<long long>(owned.n_owned));
  if (static_cast<std::uint64_t>(n_total) != sites)
    throw std::logic_error("lattice creation lost sites");
  // [velocity] create: its seed and temperature instead of the system's (types keep system.seed).
  const VelocitySection& vel = config_.velocity;
  create_velocities(owned, comm_, vel.create ? vel.seed : sys.seed,
                    vel.create ? vel.temperature : sys.temperature, species_.mass, n_total,
                    sys.constants());
  fresh_pair_velocities(owned);
  start(std::move(owned), 0, {});
}

void Simulation::setup(const std::vector<InitialParticle>& particles, long long start_step,
                       const std::vector<double>& thermostat_state,
                       const std::vector<std::uint64_t>& state_words) {
  const Int3 c = grid_.coord_of(comm_.rank());
  const Vec3 L = box_.length;
  ParticleStore owned;
  add_fields(owned);
  const std::size_t words = owned.fields.state_words();
  if (!state_words.empty() && state_words.size() != words * particles.size())
    throw std::logic_error("setup: " + std::to_string(state_words.size()) +
                           " field words given for " + std::to_string(particles.size()) +
                           " particles of " + std::to_string(words) + " each");
  all_or_none(comm_, [&] {  // every rank stops with the first bad particle's message
    for (std::size_t n = 0; n < particles.size(); ++n) {
      const InitialParticle& ip = particles[n];
      Vec3 x = ip.x;
      Int3 image = ip.image;
      if (!wrap(x, image, L))
        throw std::invalid_argument(fmt::format(
            "particle {} at x = {:.17g} {:.17g} {:.17g} with image flags {} {} {} cannot be "
            "wrapped into the box {:.17g} x {:.17g} x {:.17g}: {}",
            ip.id, ip.x.x, ip.x.y, ip.x.z, ip.image.x, ip.image.y, ip.image.z, L.x, L.y, L.z,
            std::isfinite(ip.x.x) && std::isfinite(ip.x.y) && std::isfinite(ip.x.z)
                ? "its image flag would leave the 32-bit range"
                : "the position is not finite"));
      if (ip.type >= static_cast<std::uint32_t>(species_.types))
        throw std::invalid_argument("particle " + std::to_string(ip.id) + " has type " +
                                    std::to_string(ip.type + 1) + ", but the run has " +
                                    std::to_string(species_.types) + " atom types");
      if (grid_.box_of(x) != c) continue;
      owned.push_owned(ip.id, ip.type, x, ip.v, image, c);
      if (!state_words.empty())
        owned.fields.unpack_state(owned.n_owned - 1, state_words.data() + n * words);
    }
  });
  if (draw_velocities_) {
    const long long n_total = comm_.sum(static_cast<long long>(owned.n_owned));
    create_velocities(owned, comm_, config_.velocity.seed, config_.velocity.temperature,
                      species_.mass, n_total, config_.system.constants());
  }
  // (A data file's topology comes as state words too, at step 0: v itself then.)
  if (state_words.empty() || draw_velocities_ || start_step == 0) fresh_pair_velocities(owned);
  start(std::move(owned), start_step, thermostat_state);
}

void Simulation::setup_drawing_velocities(const std::vector<InitialParticle>& particles,
                                          const std::vector<std::uint64_t>& state_words) {
  draw_velocities_ = true;
  setup(particles, 0, {}, state_words);
  draw_velocities_ = false;
}

// The velocity the first forces see (kPairVelocityField, DPD): v itself at a fresh start; a
// restart brings the v(n − ½) its checkpoint kept (the state words).
void Simulation::fresh_pair_velocities(ParticleStore& owned) {
  const int k = owned.fields.find(kPairVelocityField);
  if (k < 0) return;
  const auto words = owned.fields.words(static_cast<std::size_t>(k));
  std::memcpy(words.data(), static_cast<const void*>(owned.v.data()), owned.n_owned * sizeof(Vec3));
}

// The optional per-particle fields the force computes asked for (none for a pair run).
void Simulation::add_fields(ParticleStore& owned) const {
  for (const FieldSpec& f : particle_fields(computes_)) owned.fields.add(f);
}

// The state at `start_step`: census, first rebuild, forces with energy.
void Simulation::start(ParticleStore owned, long long start_step,
                       const std::vector<double>& thermostat) {
  n_total_ = comm_.sum(static_cast<long long>(owned.n_owned));
  type_totals_.assign(species_.types, 0);
  for (std::size_t i = 0; i < owned.n_owned; ++i) ++type_totals_[owned.type[i]];
  comm_.sum(std::span<long long>(type_totals_));
  if (config_.potential.tail) {
    const TailCorrection t = species_.tail(type_totals_);
    const double V = box_.volume();
    tail_ = {t.energy / V, t.pressure / (V * V)};
  }
  backend_->load(std::move(owned));
  step_ = start_step;
  rebuild();
  balance(true);  // at setup (a restart balances again: the cuts are not checkpointed)
  forces(true);
  energy_step_ = step_;
  backend_->synchronize();  // errors of the first forces surface here, on every backend
  thermostat_.start(*backend_, n_total_, thermostat);
}

bool Simulation::thermo_due(long long step) const {
  if (step == config_.run.steps) return true;
  return config_.output.thermo_every > 0 && step % config_.output.thermo_every == 0;
}

// The time step of DESIGN.md §2. Errors name the step (and the rank, with several); those of the
// half kick + drift and of the force call — a time step too large, overlapping particles — are
// agreed on by all ranks before anything collective uses the broken state, so they stop every
// rank together with one message (CollectiveError).
void Simulation::run(StepObserver& observer) {
  observer.after_step(*this);
  backend_->synchronize();  // setup's device timings land before the reset
  timers_.reset();          // the table covers the step loop
  while (step_ < config_.run.steps && !stop_) {
    ++step_;
    try {
      step(observer);
    } catch (const CollectiveError&) {  // the same on every rank: the step, not this rank
      rethrow_in_context(fmt::format("step {}", step_));
    } catch (...) {
      rethrow_in_context(context(comm_.rank()));
    }
  }
  backend_->synchronize();  // last errors and timings
  backend_->release_rebuild_scratch();
}

void Simulation::step(StepObserver& observer) {
  // Half kick + drift + the skin/2 test; the rebuild decision, this phase's errors and a stop
  // request (a signal on any rank) are agreed in one reduction.
  bool moved = false;
  std::string error;
  try {
    thermostat_.before_first_kick(*backend_);  // Nosé–Hoover: chain half step, v ← s v
    moved = backend_->kick_drift(step_ - 1);   // half kick + drift + the skin/2 test
  } catch (...) {
    if (comm_.size() == 1) throw;
    error = message_in_context(context(comm_.rank()));
  }
  const Communicator::Vote vote = [&] {
    ScopedTimer t(timers_, Phase::Neigh);
    return comm_.vote(!error.empty(), moved, observer.stop_requested());
  }();
  raise_error_of(comm_, vote.first_failed, std::move(error));
  stop_ = stop_ || vote.any_stop;  // this step is completed, the loop ends after it
  const bool balanced = balance_due(step_) && balance(false);  // moved cut planes: rebuilt
  if (!balanced) {
    if (vote.any_flag)
      rebuild();  // migrate → census → halo plan → bin → neighbour list
    else
      backend_->forward();  // ghost positions
  }
  const bool with_energy = observer.wants_energy(step_);
  forces(with_energy);    // pair forces; ghost forces to their owners
  backend_->kick(step_);  // second half kick
  thermostat_.after_second_kick(*backend_);
  if (with_energy) energy_step_ = step_;
  observer.after_step(*this);  // thermo, trajectory, checkpoints
}

std::string Simulation::context(int rank) const {
  return step_context(step_, rank, comm_.size());
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

// The force call's errors (overflow: overlapping particles, a time step too large) are agreed
// on before the reverse exchange, which a failed rank could not join (with several ranks the
// backend is synchronised first, so that device errors surface here).
void Simulation::forces(bool with_energy) {
  std::string error;
  try {
    backend_->compute_forces(with_energy);
    if (comm_.size() > 1) backend_->synchronize();
  } catch (...) {
    if (comm_.size() == 1) rethrow_in_context(context(0));
    error = message_in_context(context(comm_.rank()));
  }
  if (comm_.size() > 1) {
    ScopedTimer t(timers_, Phase::Reverse);
    raise_first_error(comm_, std::move(error));
  }
  backend_->reverse();
  if (pairs_pending_) record_pairs(backend_->force_totals().pairs);
}

void Simulation::record_pairs(long long pairs) {
  imports_.back().per_rank_pairs = comm_.all_gather(pairs);
  pairs_pending_ = false;
}

void Simulation::rebuild() {
  const ImportCounts counts = backend_->rebuild(step_);
  ++rebuilds_;
  pairs_pending_ = true;
  ImportSnapshot snap;
  snap.step = step_;
  snap.per_rank_counts = comm_.all_gather(counts);
  const double P = comm_.size();
  snap.min = snap.max = snap.per_rank_counts[0].ghosts;
  for (const ImportCounts& c : snap.per_rank_counts) {
    snap.per_rank.push_back(c.ghosts);
    snap.min = std::min(snap.min, c.ghosts);
    snap.max = std::max(snap.max, c.ghosts);
    snap.mean += c.ghosts / P;
    snap.tower_mean += c.tower / P;
    snap.plate_mean += c.plate / P;
    snap.bonded_mean += c.bonded / P;
    snap.bytes_mean += c.bytes_per_step / P;
  }
  imports_.push_back(std::move(snap));
}

bool Simulation::balance_due(long long step) const {
  const DecompositionSection& d = config_.decomposition;
  return d.balance != Balance::None && d.balance_every > 0 && step % d.balance_every == 0;
}

std::vector<long long> Simulation::balance_costs() {
  const ParticleStore& p = backend_->particles();
  const std::size_t n = p.n_owned;
  switch (config_.decomposition.balance) {
    case Balance::None:
    case Balance::Particles:
      return std::vector<long long>(n, 1);
    case Balance::Pairs:
      return pair_costs(&comm_, box_, import_cutoff(), std::span<const Vec3>(p.x.data(), n));
    case Balance::Time: {
      backend_->synchronize();
      const double seconds = timers_.get(Phase::Pair) + timers_.get(Phase::Neigh);
      const double spent = std::max(0.0, seconds - balanced_seconds_);
      balanced_seconds_ = seconds;
      // Nanoseconds per particle, at least 1 so that every particle weighs something.
      const long long each = n ? std::max(1LL, static_cast<long long>(1e9 * spent / n)) : 1;
      return std::vector<long long>(n, each);
    }
  }
  return std::vector<long long>(n, 1);
}

long long Simulation::count_pairs() {
  backend_->compute_forces(false);
  const long long pairs = backend_->force_totals().pairs;
  if (pairs_pending_) record_pairs(pairs);
  return pairs;
}

bool Simulation::move_cuts(const GridCuts& cuts) {
  if (cuts == grid_.cuts()) return false;
  grid_.set_cuts(cuts);
  backend_->set_grid(
      grid_, PairRule{config_.decomposition.method, grid_.coord_of(comm_.rank()), grid_.cuts()});
  rebuild();
  return true;
}

bool Simulation::balance(bool ghosts_fresh) {
  const DecompositionSection& d = config_.decomposition;
  if (d.balance == Balance::None || grid_.size() == 1) return false;
  auto sum_of = [](const std::vector<long long>& cost) {
    long long sum = 0;
    for (const long long c : cost) sum += c;
    return sum;
  };
  auto owned_x = [&] {
    const ParticleStore& p = backend_->particles();
    return std::span<const Vec3>(p.x.data(), p.n_owned);
  };
  const bool pairs = d.balance == Balance::Pairs;
  std::vector<long long> cost = balance_costs();
  // Pairs are measured (the force loop's count), not modelled: the target is the real load.
  long long load =
      pairs ? (ghosts_fresh ? count_pairs() : backend_->force_totals().pairs) : sum_of(cost);
  BalanceStep record;
  record.step = step_;
  record.cost = d.balance;
  record.before = record.after = imbalance(comm_, load);
  if (record.before > d.balance_tolerance) {
    GridCuts best = grid_.cuts();
    double best_imbalance = record.before;
    for (int pass = 0; pass <= (pairs ? kPairRefinements : 0); ++pass) {
      // First pass: the model's cost; later ones: corrected by each rank's measured pairs.
      const std::vector<long long> weights = pass == 0 ? cost : measured_costs(cost, load);
      if (!move_cuts(balanced_cuts(&comm_, grid_, owned_x(), weights))) break;
      record.moved = true;
      if (d.balance == Balance::Time) {  // measured at the next balance step
        best = grid_.cuts();
        break;
      }
      cost = balance_costs();
      load = pairs ? count_pairs() : sum_of(cost);
      const double now = imbalance(comm_, load);
      if (now < best_imbalance) {
        best = grid_.cuts();
        best_imbalance = now;
      }
      if (now <= d.balance_tolerance) break;
    }
    if (move_cuts(best)) record.moved = true;  // a later pass did worse: back to the best
    record.after = best_imbalance;
  }
  record.cuts = grid_.cuts();
  balance_steps_.push_back(record);
  return record.moved;
}

ThermoSample Simulation::thermo() const {
  // A kinetic energy overflow (or a device error) on one rank must not leave the others in the
  // sums below: agreed first.
  ForceTotals t;
  fixed::Wide two_ke = 0;
  std::string error;
  try {
    t = backend_->force_totals();
    two_ke = backend_->twice_kinetic();
  } catch (...) {
    if (comm_.size() == 1) rethrow_in_context(context(0));
    error = message_in_context(context(comm_.rank()));
  }
  if (comm_.size() > 1) raise_first_error(comm_, std::move(error));
  ThermoSample s = thermo_from_sums(step_, comm_, n_total_, box_.volume(), two_ke, t.energy,
                                    t.virial, tail_, params_.units);
  if (species_.bonded) {
    // The bonded energies and the pair rest, each from its own integer sum.
    fixed::Wide sums[3] = {t.bond_energy, t.angle_energy,
                           t.energy - t.bond_energy - t.angle_energy};
    comm_.sum(std::span<fixed::Wide>(sums, 3));
    const double n = params_.units.normalize ? static_cast<double>(n_total_) : 1.0;
    s.ebond = fixed::to_double(sums[0]) / n;
    s.eangle = fixed::to_double(sums[1]) / n;
    s.evdwl = (fixed::to_double(sums[2]) + tail_.energy) / n;
  }
  if (thermostat_has_econs(config_.thermostat.style))
    s.econs = s.etotal + thermostat_.coupling_energy(*backend_) /
                             (params_.units.normalize ? static_cast<double>(n_total_) : 1.0);
  return s;
}

double Simulation::analytic_import(int rank) const {
  const double density = static_cast<double>(n_total_) / box_.volume();
  return density * analytic_import_volume(config_.decomposition.method,
                                          grid_.box_length(grid_.coord_of(rank)), import_cutoff());
}

double Simulation::analytic_import() const {
  double sum = 0;
  for (int r = 0; r < grid_.size(); ++r) sum += analytic_import(r);
  return sum / grid_.size();
}

std::uint64_t Simulation::state_hash() const {
  // Record: id, x, y, z, vx, vy, vz as raw 64-bit patterns, hashed in id order with FNV-1a
  // (64 bit) on rank 0, broadcast. The records are gathered in rounds of ids [lo, hi), so no
  // rank ever holds all of them: at the end of a run this was the peak of resident memory
  // (56 B per particle on rank 0). Ids are unique, so rounds in
  // ascending id ranges, each sorted, give the order of one global sort.
  struct Record {
    std::uint64_t w[7];
  };
  const ParticleStore& p = backend_->particles();
  std::vector<std::uint32_t> by_id(p.n_owned);
  for (std::size_t i = 0; i < p.n_owned; ++i) by_id[i] = static_cast<std::uint32_t>(i);
  std::sort(by_id.begin(), by_id.end(),
            [&](std::uint32_t a, std::uint32_t b) { return p.id[a] < p.id[b]; });
  auto record = [&](std::uint32_t i) {
    Record r;
    const Vec3 x = p.x[i], v = p.v[i];
    const double vals[6] = {x.x, x.y, x.z, v.x, v.y, v.z};
    r.w[0] = p.id[i];
    for (int k = 0; k < 6; ++k) r.w[k + 1] = std::bit_cast<std::uint64_t>(vals[k]);
    return r;
  };
  std::uint64_t hash = 0xcbf29ce484222325ull;
  auto absorb = [&](const Record& r) {
    for (const std::uint64_t w : r.w)
      for (int byte = 0; byte < 8; ++byte) {
        hash ^= (w >> (8 * byte)) & 0xffu;
        hash *= 0x100000001b3ull;
      }
  };
  if (comm_.size() == 1) {
    for (const std::uint32_t i : by_id) absorb(record(i));
    return hash;
  }
  // Ids are 1..N (checked by the census), so rounds cut [1, N] into equal ranges: at least
  // one per rank, and at most 65 536 records (3.5 MiB) each on rank 0.
  const long long N = n_total_;
  const long long rounds = std::max<long long>(comm_.size(), (N + 65535) / 65536);
  std::size_t at = 0;
  std::vector<Record> mine;
  for (long long round = 0; round < rounds; ++round) {
    const auto hi = static_cast<std::uint64_t>(1 + static_cast<__int128>(N) * (round + 1) / rounds);
    mine.clear();
    for (; at < by_id.size() && (p.id[by_id[at]] < hi || round == rounds - 1); ++at)
      mine.push_back(record(by_id[at]));
    std::vector<Record> chunk = comm_.gatherv<Record>(mine, 0);
    if (comm_.rank() == 0) {
      std::sort(chunk.begin(), chunk.end(),
                [](const Record& a, const Record& b) { return a.w[0] < b.w[0]; });
      for (const Record& r : chunk) absorb(r);
    }
  }
  return comm_.broadcast(hash, 0);
}

}  // namespace scanmd
