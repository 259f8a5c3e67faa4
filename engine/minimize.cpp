// FIRE energy minimisation (see minimize.hpp): Simulation::minimize and its collective helpers.
//
// The iteration follows LAMMPS MinFire::iterate (integrator eulerimplicit, halfstepback yes,
// initialdelay yes) step by step, so that a run from the same configuration takes the same path
// up to round-off; what differs is only how sums are taken: P = F·v, |v|² and |F|² are summed in
// integers on a global scale (physics/dynamics/fire.hpp), so the path is the same bits on any
// rank count, decomposition, thread count and backend.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "engine/simulation.hpp"

namespace scanmd {

namespace {

// Items to the ranks dest(item) names (0 <= dest < P): what this rank received.
template <class T, class Dest>
std::vector<T> route(const Communicator& comm, const std::vector<T>& items, Dest dest) {
  const auto P = static_cast<std::size_t>(comm.size());
  std::vector<std::size_t> offsets(P + 1, 0);
  for (const T& t : items) ++offsets[static_cast<std::size_t>(dest(t)) + 1];
  for (std::size_t r = 0; r < P; ++r) offsets[r + 1] += offsets[r];
  std::vector<T> sorted(items.size());
  std::vector<std::size_t> at(offsets.begin(), offsets.end() - 1);
  for (const T& t : items) sorted[at[static_cast<std::size_t>(dest(t))]++] = t;
  return comm.all_to_allv<T>(sorted, offsets);
}

}  // namespace

Simulation::FireGlobal Simulation::fire_global(bool with_sums) {
  const FireMaxima local = backend_->fire_maxima();
  FireMaxima global;
  for (int k = 0; k < kFireSums; ++k) global.t[k] = comm_.max(local.t[k]);
  global.vmax = comm_.max(local.vmax);
  global.fmax = comm_.max(local.fmax);
  FireGlobal g;
  g.vmax = global.vmax;
  g.fmax = global.fmax;
  if (!with_sums) return g;
  const FireScales scales = fire_scales(global);
  std::array<fixed::Wide, kFireSums> sums = backend_->fire_sums(scales);
  comm_.sum(std::span<fixed::Wide>(sums));
  for (int k = 0; k < kFireSums; ++k) g.sum[k] = fire_value(sums[k], scales.s[k]);
  return g;
}

// The potential energy of the last force call, as the thermo's pe (FIRE's velocities are no
// thermal velocities, and may be too fast for the kinetic energy's fixed point: not summed).
double Simulation::fire_energy() {
  ForceTotals t;
  std::string error;
  try {
    t = backend_->force_totals();
  } catch (...) {
    if (comm_.size() == 1) throw;
    try {
      throw;
    } catch (const std::exception& e) {
      error = fmt::format("rank {}: {}", comm_.rank(), e.what());
    }
  }
  if (comm_.size() > 1) raise_first_error(comm_, std::move(error));
  return thermo_from_sums(step_, comm_, n_total_, box_.volume(), 0, t.energy, t.virial, tail_,
                          params_.units)
      .pe;
}

// The update, then the ghosts of the new positions: a rebuild when some particle moved more
// than skin/2 since the last one (a global decision, as in the time step), else a forward.
void Simulation::fire_move(const FireUpdate& u, const std::string& where) {
  bool moved = false;
  std::string error;
  try {
    moved = backend_->fire_update(u);
  } catch (...) {
    if (comm_.size() == 1) {
      try {
        throw;
      } catch (const std::exception& e) {
        throw std::runtime_error(where + ": " + e.what());
      }
    }
    try {
      throw;
    } catch (const std::exception& e) {
      error = fmt::format("{}, rank {}: {}", where, comm_.rank(), e.what());
    }
  }
  if (!u.moves() && comm_.size() == 1) return;
  const Communicator::Vote vote = comm_.vote(!error.empty(), moved);
  raise_error_of(comm_, vote.first_failed, std::move(error));
  if (!u.moves()) return;
  if (vote.any_flag)
    rebuild();
  else
    backend_->forward();
}

// The start's velocities back, by id: stash records and the relaxed particles (with the words
// of their State fields: molecule ids, topology, whatever the computes keep per particle) meet on
// the rank id mod P, which sends the joined particle to the rank whose box holds it; then the
// state is set up again from them (census, rebuild, forces with energy).
void Simulation::restore_velocities(const std::vector<std::pair<std::uint64_t, Vec3>>& stash) {
  struct Record {
    std::uint64_t id;
    std::uint32_t type;
    std::int32_t dest;
    Vec3 x, v;
    Int3 image;
  };
  struct Word {  // word k of a particle's State fields
    std::uint64_t id;
    std::uint64_t k;
    std::uint64_t value;
    std::int64_t dest;
  };
  const int P = comm_.size();
  auto home = [&](std::uint64_t id) { return static_cast<int>(id % static_cast<unsigned>(P)); };
  std::vector<Record> relaxed, kept;
  std::vector<Word> words;
  std::size_t width = 0;
  {
    const ParticleStore& p = backend_->particles();
    width = p.fields.state_words();
    std::vector<std::uint64_t> buffer(width);
    for (std::size_t i = 0; i < p.n_owned; ++i) {
      relaxed.push_back({p.id[i], p.type[i], 0, p.x[i], Vec3{0, 0, 0}, p.image[i]});
      if (width == 0) continue;
      p.fields.pack_state(i, buffer.data());
      for (std::size_t k = 0; k < width; ++k) words.push_back({p.id[i], k, buffer[k], 0});
    }
  }
  for (const auto& [id, v] : stash) kept.push_back({id, 0, 0, Vec3{0, 0, 0}, v, Int3{0, 0, 0}});
  auto record_home = [&](const Record& r) { return home(r.id); };
  std::vector<Record> a = route(comm_, relaxed, record_home), b = route(comm_, kept, record_home);
  std::vector<Word> w = route(comm_, words, [&](const Word& x) { return home(x.id); });
  auto by_id = [](const Record& l, const Record& r) { return l.id < r.id; };
  auto by_id_k = [](const Word& l, const Word& r) {
    return l.id < r.id || (l.id == r.id && l.k < r.k);
  };
  std::sort(a.begin(), a.end(), by_id);
  std::sort(b.begin(), b.end(), by_id);
  std::sort(w.begin(), w.end(), by_id_k);
  all_or_none(comm_, [&] {
    if (a.size() != b.size() || w.size() != a.size() * width)
      throw std::logic_error("minimize: particles lost while relaxing");
    for (std::size_t k = 0; k < a.size(); ++k) {
      if (a[k].id != b[k].id) throw std::logic_error("minimize: particles lost while relaxing");
      a[k].v = b[k].v;
      a[k].dest = grid_.rank_of(grid_.box_of(a[k].x));
      for (std::size_t j = 0; j < width; ++j) w[k * width + j].dest = a[k].dest;
    }
  });
  std::vector<Record> mine = route(comm_, a, [](const Record& r) { return r.dest; });
  std::vector<Word> my_words =
      route(comm_, w, [](const Word& x) { return static_cast<int>(x.dest); });
  std::sort(mine.begin(), mine.end(), by_id);
  std::sort(my_words.begin(), my_words.end(), by_id_k);
  ParticleStore owned;
  add_fields(owned);
  const Int3 c = grid_.coord_of(comm_.rank());
  std::vector<std::uint64_t> buffer(width);
  for (std::size_t n = 0; n < mine.size(); ++n) {
    const Record& r = mine[n];
    owned.push_owned(r.id, r.type, r.x, r.v, r.image, c);
    if (width == 0) continue;
    for (std::size_t k = 0; k < width; ++k) buffer[k] = my_words[n * width + k].value;
    owned.fields.unpack_state(owned.n_owned - 1, buffer.data());
  }
  backend_->synchronize();
  start(std::move(owned), step_, {});
}

MinimizeResult Simulation::minimize(const std::function<void(const MinimizeProgress&)>& progress,
                                    long long every) {
  const MinimizeSection& m = config_.minimize;
  const double ftm2v = params_.units.ftm2v;
  const double dt0 = m.dt_start > 0 ? m.dt_start : config_.run.dt;
  const double dt_max = m.dt_max > 0 ? m.dt_max : 10.0 * dt0;  // LAMMPS tmax = 10
  const double dt_min = m.dt_min > 0 ? m.dt_min : 0.02 * dt0;  // LAMMPS tmin = 0.02
  const double ftol_sq = m.ftol * m.ftol;
  constexpr double kEpsEnergy = 1.0e-8;  // LAMMPS EPS_ENERGY

  backend_->synchronize();
  std::vector<std::pair<std::uint64_t, Vec3>> stash;
  {
    const ParticleStore& p = backend_->particles();
    stash.reserve(p.n_owned);
    for (std::size_t i = 0; i < p.n_owned; ++i) stash.emplace_back(p.id[i], p.v[i]);
  }

  MinimizeResult result;
  double dt = dt0, alpha = m.alpha0;
  long long last_negative = 0, uphill = 0;
  bool flag_v0 = true;
  std::string where = "minimize, iteration 0";
  FireUpdate zero;
  zero.zero_v = true;
  fire_move(zero, where);  // LAMMPS setup_style: v = 0

  double e_now = fire_energy(), e_before = e_now;
  FireGlobal g = fire_global(true);  // the state now: v = 0, the forces of setup
  auto snapshot = [&](long long it) {
    MinimizeProgress s;
    s.iteration = it;
    s.energy = e_now;
    s.fmax = g.fmax;
    s.fnorm = std::sqrt(g.sum[kFireFF]);
    s.dt = dt;
    return s;
  };
  result.initial = snapshot(0);
  if (progress) progress(result.initial);
  result.stop = MinimizeStop::MaxSteps;

  long long it = 0;
  bool stopped = false;
  while (it < m.max_steps && !stopped) {
    ++it;
    where = fmt::format("minimize, iteration {}", it);
    const double vdotf = g.sum[kFireVF];
    double mix1 = 1.0, mix2 = 0.0;
    if (vdotf > 0.0) {
      uphill = 0;
      mix1 = 1.0 - alpha;
      mix2 = g.sum[kFireFF] <= 1e-20 ? 0.0 : alpha * std::sqrt(g.sum[kFireVV] / g.sum[kFireFF]);
      if (it - last_negative > m.delay_steps) {
        dt = std::min(dt * m.dt_grow, dt_max);
        alpha *= m.alpha_shrink;
      }
    } else {
      last_negative = it;
      if (!(it < m.delay_steps)) {  // LAMMPS initialdelay: no shrink in the first delay_steps
        alpha = m.alpha0;
        if (dt * m.dt_shrink >= dt_min) dt *= m.dt_shrink;
      }
      ++uphill;
      if (m.max_uphill > 0 && uphill > m.max_uphill) {
        result.stop = MinimizeStop::MaxUphill;
        stopped = true;
        break;
      }
      FireUpdate back;
      if (m.half_step_back) back.back = 0.5 * dt;
      back.zero_v = true;
      fire_move(back, where);
      if (back.moves()) {  // the forces of the positions stepped back to (LAMMPS: flagv0)
        forces(false);
        ++result.force_calls;
      }
      flag_v0 = true;
    }
    if (flag_v0) {  // a velocity from the forces, only to find the max_move limit
      FireUpdate set;
      set.set_v = dt * ftm2v;
      fire_move(set, where);
    }
    const double vmax = fire_global(false).vmax;
    const double dtv = dt * vmax > m.max_move ? m.max_move / vmax : dt;
    FireUpdate step;
    step.zero_v = flag_v0;
    step.kick = dtv * ftm2v;
    step.mix = vdotf > 0.0;
    step.mix1 = mix1;
    step.mix2 = mix2;
    step.drift = dtv;
    fire_move(step, where);
    forces(true);
    ++result.force_calls;
    energy_step_ = step_;
    e_before = e_now;
    e_now = fire_energy();
    flag_v0 = false;
    g = fire_global(true);
    if (m.etol > 0.0 && it - last_negative > m.delay_steps &&
        std::fabs(e_now - e_before) <
            m.etol * 0.5 * (std::fabs(e_now) + std::fabs(e_before) + kEpsEnergy)) {
      result.stop = MinimizeStop::EnergyTolerance;
      stopped = true;
    } else if (m.ftol > 0.0 && g.sum[kFireFF] < ftol_sq) {
      result.stop = MinimizeStop::ForceTolerance;
      stopped = true;
    }
    if (progress && every > 0 && it % every == 0 && !stopped) progress(snapshot(it));
  }
  result.iterations = it;
  result.final = snapshot(it);
  if (progress && (every <= 0 || it % every != 0 || stopped)) progress(result.final);
  restore_velocities(stash);
  return result;
}

}  // namespace scanmd
